package main

// End-to-end tests of the taobench command against the live PostgreSQL and
// MariaDB (MySQL) servers on loopback: each test creates its own database,
// drives the command through realMain as a user would, and drops the
// database afterwards. A test skips when its server is absent, unless
// TAOBENCH_REQUIRE=1. Helpers are prefixed srv to keep clear of the other
// tests of this package.

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"

	"github.com/taobench/taobench/internal/testenv"
	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/workload"
)

// srvServer is one of the live servers.
type srvServer struct {
	kind  string // "postgres" or "mysql"
	admin string // URL of a database to administer the server from
}

// srvEach runs f as a subtest per server; an absent server skips (or, with
// TAOBENCH_REQUIRE=1, fails) its subtest only.
func srvEach(t *testing.T, f func(t *testing.T, s srvServer)) {
	t.Helper()
	t.Run("postgres", func(t *testing.T) { f(t, srvServer{"postgres", testenv.PostgresURL(t)}) })
	t.Run("mysql", func(t *testing.T) { f(t, srvServer{"mysql", testenv.MySQLURL(t)}) })
}

// srvEachParallel is srvEach with the two servers' subtests in parallel:
// for a test whose clients stay within one server's connections while no
// other test of the package runs (a sequential test), and whose
// assertions take no timing. (Not TestServerResources: PostgreSQL's table
// counters it reads lag a loaded server's writes.)
func srvEachParallel(t *testing.T, f func(t *testing.T, s srvServer)) {
	t.Helper()
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		f(t, srvServer{"postgres", testenv.PostgresURL(t)})
	})
	t.Run("mysql", func(t *testing.T) {
		t.Parallel()
		f(t, srvServer{"mysql", testenv.MySQLURL(t)})
	})
}

// fresh creates a database for this test, dropped when it ends.
func (s srvServer) fresh(t *testing.T) string {
	t.Helper()
	if s.kind == "postgres" {
		return testenv.FreshPostgres(t, s.admin)
	}
	return testenv.FreshMySQL(t, s.admin)
}

// exec runs statements on the database of dbURL directly, not through taobench.
func (s srvServer) exec(t *testing.T, dbURL string, stmts ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if s.kind == "postgres" {
		conn, err := pgx.Connect(ctx, dbURL)
		if err != nil {
			t.Fatalf("connect %s: %v", store.Redact(dbURL), err)
		}
		defer conn.Close(ctx)
		for _, q := range stmts {
			if _, err := conn.Exec(ctx, q); err != nil {
				t.Fatalf("%s on %s: %v", q, store.Redact(dbURL), err)
			}
		}
		return
	}
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	cfg := mysql.NewConfig()
	cfg.Net, cfg.Addr = "tcp", u.Host
	cfg.User = u.User.Username()
	cfg.Passwd, _ = u.User.Password()
	cfg.DBName = strings.TrimPrefix(u.Path, "/")
	db, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range stmts {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s on %s: %v", q, store.Redact(dbURL), err)
		}
	}
}

// maxConnections returns the server's max_connections.
func (s srvServer) maxConnections(t *testing.T) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var n int
	if s.kind == "postgres" {
		conn, err := pgx.Connect(ctx, s.admin)
		if err != nil {
			t.Fatalf("connect %s: %v", store.Redact(s.admin), err)
		}
		defer conn.Close(ctx)
		if err := conn.QueryRow(ctx, "SELECT current_setting('max_connections')::int").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	db, _ := testenv.MySQLAdmin(t, s.admin)
	if err := db.QueryRowContext(ctx, "SELECT @@max_connections").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// mysqlUser creates a MySQL user with password pw and every privilege on
// database db (which need not exist), dropped when the test ends.
func (s srvServer) mysqlUser(t *testing.T, user, pw, db string) {
	t.Helper()
	// The user is created for every host form a loopback client may be
	// matched by, so that no anonymous or host-specific account shadows it.
	hosts := []string{"%", "localhost", "127.0.0.1"}
	var stmts []string
	for _, host := range hosts {
		stmts = append(stmts,
			fmt.Sprintf("CREATE USER '%s'@'%s' IDENTIFIED BY '%s'", user, host, pw),
			fmt.Sprintf("GRANT ALL ON `%s`.* TO '%s'@'%s'", db, user, host))
	}
	t.Cleanup(func() {
		for _, host := range hosts {
			s.exec(t, s.admin, fmt.Sprintf("DROP USER IF EXISTS '%s'@'%s'", user, host))
		}
	})
	s.exec(t, s.admin, stmts...)
}

// srvLoad loads a graph of edges edges of workload w into dbURL.
func srvLoad(t *testing.T, dbURL, w string, edges int) {
	t.Helper()
	cliMust(t, "load", "--db", dbURL, "--workload", w, "--edges", strconv.Itoa(edges), "--load-threads", "2")
}

// srvDoc is the part of the JSON result file these tests read; the keys are
// those of docs/results.md.
type srvDoc struct {
	Run struct {
		Database string `json:"database"`
		Workload string `json:"workload"`
		Retries  int    `json:"retries"`
	} `json:"run"`
	Experiments []srvExperiment `json:"experiments"`
}

type srvExperiment struct {
	Threads     int                `json:"threads"`
	DurationS   float64            `json:"duration_s"`
	RuntimeS    float64            `json:"runtime_s"`
	MeasuredS   float64            `json:"measured_s"`
	Interrupted bool               `json:"interrupted"`
	Ops         int64              `json:"ops"`
	Failed      int64              `json:"failed"`
	Attempts    int64              `json:"attempts"`
	Outcomes    map[string]int64   `json:"outcomes"`
	Contention  map[string]float64 `json:"contention"`
	LatencyUS   map[string]struct {
		Max float64 `json:"max"`
	} `json:"latency_us"`
	Lost struct {
		Count    int64 `json:"count"`
		Timeline []struct {
			Second   int   `json:"second"`
			Errors   int64 `json:"errors"`
			Timeouts int64 `json:"timeouts"`
		} `json:"timeline"`
	} `json:"lost"`
}

func srvReadJSON(t *testing.T, path string) (srvDoc, string) {
	t.Helper()
	d, raw := readJSONFile[srvDoc](t, path)
	return d, string(raw)
}

// srvConsistent checks what must hold of any experiment: the outcomes sum
// to ops, failed is the sum of the failed outcomes (a request counts once
// however many attempts it took), attempts are at least ops, and lost is
// errors plus timeouts, second by second.
func srvConsistent(t *testing.T, where string, e srvExperiment) {
	t.Helper()
	var sum, failed int64
	for o := range tao.NumOutcomes {
		n, ok := e.Outcomes[o.String()]
		if !ok {
			t.Errorf("%s: outcome %s missing from the JSON", where, o)
		}
		sum += n
		if o.Failed() {
			failed += n
		}
	}
	if sum != e.Ops {
		t.Errorf("%s: outcomes sum to %d, ops %d", where, sum, e.Ops)
	}
	if failed != e.Failed {
		t.Errorf("%s: failed %d, but the failed outcomes sum to %d", where, e.Failed, failed)
	}
	if e.Attempts < e.Ops {
		t.Errorf("%s: %d attempts for %d requests", where, e.Attempts, e.Ops)
	}
	var lost, errs, touts int64
	for _, l := range e.Lost.Timeline {
		lost += l.Errors + l.Timeouts
		errs += l.Errors
		touts += l.Timeouts
	}
	if lost != e.Lost.Count || errs != e.Outcomes["error"] || touts != e.Outcomes["timeout"] {
		t.Errorf("%s: lost count %d, timeline sums %d (errors %d, timeouts %d), outcomes error %d timeout %d",
			where, e.Lost.Count, lost, errs, touts, e.Outcomes["error"], e.Outcomes["timeout"])
	}
}

// srvShares describes the expected, contended outcomes of an experiment.
func srvShares(e srvExperiment) string {
	pct := func(o string) float64 { return 100 * float64(e.Outcomes[o]) / float64(max(e.Ops, 1)) }
	return fmt.Sprintf("%d threads, runtime %.2fs: %d ops, %d attempts; conflict_object %.3f%%, conflict_association %.3f%%, "+
		"precondition_failed %.3f%%, unique_violation %.3f%%, not_found %.3f%% of requests; contention overall %.3f%%",
		e.Threads, e.RuntimeS, e.Ops, e.Attempts, pct("conflict_object"), pct("conflict_association"),
		pct("precondition_failed"), pct("unique_violation"), pct("not_found"), e.Contention["overall_pct"])
}

// TestServerWorkloads runs workloads a and o at 1, 16 and 256 clients on a
// freshly loaded graph: every experiment completes requests and none is lost
// to an error or a timeout (conflicts, failed preconditions and unique
// violations are legal results of a contended workload).
func TestServerWorkloads(t *testing.T) {
	// 256 clients take every connection the servers have free: no other
	// test may connect meanwhile. The two servers' subtests run at once:
	// each stays within its server's connections, and the lock that makes
	// every other test on the machine wait is held half as long.
	testenv.ManyConnections(t)
	srvEachParallel(t, func(t *testing.T, s srvServer) {
		for _, w := range []string{"a", "o"} {
			t.Run("workload_"+w, func(t *testing.T) {
				dbURL := s.fresh(t)
				srvLoad(t, dbURL, w, 5000)
				dir := t.TempDir()
				exps := filepath.Join(dir, "experiments.txt")
				threads := []int{1, 16, 256}
				var lines []string
				for _, n := range threads {
					lines = append(lines, fmt.Sprintf("%d,0,1", n))
				}
				if err := os.WriteFile(exps, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				out := filepath.Join(dir, "out.json")
				r := cliMust(t, "run", "--db", dbURL, "--workload", w, "--experiments", exps, "--out", out)
				// More clients than the server takes connections: the pool
				// is fitted to the server, and the user is told.
				limit, most := s.maxConnections(t), threads[len(threads)-1]
				shared := regexp.MustCompile(`: the server allows \d+ more connection\(s\) \(max_connections = ` + strconv.Itoa(limit) +
					`\); taobench leaves \d+ to others and opens (\d+), so ` + strconv.Itoa(most) + ` clients share (\d+) connections`)
				m := shared.FindStringSubmatch(r.stderr)
				switch {
				case most >= limit && m == nil:
					t.Errorf("the server takes %d connections, but nothing says that %d clients share fewer:\n%s", limit, most, r.stderr)
				case m != nil:
					if n, _ := strconv.Atoi(m[1]); n >= limit || n >= most || m[1] != m[2] {
						t.Errorf("pool of %s connections for %d clients on a server taking %d: %s", m[1], most, limit, m[0])
					}
					t.Logf("%s: max_connections %d: %d clients share %s connections", s.kind, limit, most, m[1])
				}
				doc, _ := srvReadJSON(t, out)
				if len(doc.Experiments) != len(threads) {
					t.Fatalf("%d experiments in the JSON, want %d\n%s", len(doc.Experiments), len(threads), r)
				}
				for i, e := range doc.Experiments {
					where := fmt.Sprintf("%s workload %s experiment %d", s.kind, w, i+1)
					if e.Threads != threads[i] {
						t.Errorf("%s: %d threads, want %d", where, e.Threads, threads[i])
					}
					if e.Ops <= 0 {
						t.Errorf("%s: no requests completed", where)
					}
					if e.Interrupted {
						t.Errorf("%s: interrupted", where)
					}
					if n := e.Outcomes["error"]; n != 0 {
						t.Errorf("%s: %d requests ended in error\n%s", where, n, r.stderr)
					}
					if n := e.Outcomes["timeout"]; n != 0 {
						t.Errorf("%s: %d requests timed out", where, n)
					}
					srvConsistent(t, where, e)
					t.Logf("%s: %s", where, srvShares(e))
				}
			})
		}
	})
}

// TestServerRepeatedRuns runs workload a three times on one database: ids
// that a run creates never collide with those of an earlier run, rows that
// earlier runs deleted or added are met as legal outcomes, and the graph's
// invariants hold afterwards. A graph is loaded once: a run of workload o
// in between takes its request mix on a's graph, and the next runs of a go
// on as before.
func TestServerRepeatedRuns(t *testing.T) {
	t.Parallel() // few connections (at most 16 clients a server); no timing
	srvEach(t, func(t *testing.T, s srvServer) {
		dbURL := s.fresh(t)
		srvLoad(t, dbURL, "a", 5000)
		dir := t.TempDir()
		for i, w := range []string{"a", "o", "a", "a"} {
			out := filepath.Join(dir, fmt.Sprintf("run%d.json", i+1))
			r := cliMust(t, "run", "--db", dbURL, "--workload", w, "--threads", "16", "--warmup", "0", "--duration", "1s", "--out", out)
			doc, _ := srvReadJSON(t, out)
			if len(doc.Experiments) != 1 {
				t.Fatalf("run %d: %d experiments\n%s", i+1, len(doc.Experiments), r)
			}
			e := doc.Experiments[0]
			where := fmt.Sprintf("%s run %d (workload %s)", s.kind, i+1, w)
			if e.Ops <= 0 {
				t.Errorf("%s: no requests completed", where)
			}
			if e.Outcomes["error"] != 0 || e.Outcomes["timeout"] != 0 {
				t.Errorf("%s: %d errors, %d timeouts\n%s", where, e.Outcomes["error"], e.Outcomes["timeout"], r.stderr)
			}
			srvConsistent(t, where, e)
			t.Logf("%s: %s", where, srvShares(e))
		}
		cliMust(t, "check", "--db", dbURL)
	})
}

// TestServerCheck: the invariants hold after many concurrent writers, and an
// edge of a bidirectional type planted without its inverse makes check fail
// and name the invariant and the edge.
func TestServerCheck(t *testing.T) {
	srvEachParallel(t, func(t *testing.T, s srvServer) {
		dbURL := s.fresh(t)
		srvLoad(t, dbURL, "a", 5000)
		out := filepath.Join(t.TempDir(), "out.json")
		cliMust(t, "run", "--db", dbURL, "--workload", "a", "--threads", "64", "--warmup", "0", "--duration", "2s", "--out", out)
		doc, _ := srvReadJSON(t, out)
		if len(doc.Experiments) != 1 || doc.Experiments[0].Ops == 0 {
			t.Fatalf("the run completed no requests: %+v", doc.Experiments)
		}
		e := doc.Experiments[0]
		if w := e.Outcomes["ok"]; w == 0 {
			t.Fatalf("no request succeeded, so nothing was written: %+v", e.Outcomes)
		}
		t.Logf("%s: %s", s.kind, srvShares(e))
		r := cliMust(t, "check", "--db", dbURL)
		if !strings.Contains(r.stdout, "every invariant holds") {
			t.Errorf("check passed without saying so:\n%s", r)
		}

		// Ids far above any the graph or a run uses: 2^62 + n.
		const id1, id2 = int64(1)<<62 + 7, int64(1)<<62 + 8
		bidir := tao.TypeBidirectional
		if _, ok := bidir.Inverse(); !ok || !bidir.IsForward() {
			t.Fatalf("type %d is not a forward bidirectional type", bidir)
		}
		// Timestamped as a run writes (after the load's time range), so
		// that the missing inverse is the one violation.
		s.exec(t, dbURL, fmt.Sprintf("INSERT INTO edges (id1, id2, type, timestamp, value, version, ukey) VALUES (%d, %d, %d, %d, '', 1, %d)",
			id1, id2, bidir, time.Now().Unix(), id2))
		r = cliRun(t, "check", "--db", dbURL)
		if r.code == 0 {
			t.Fatalf("check passed with an edge lacking its inverse:\n%s", r)
		}
		want := fmt.Sprintf("VIOLATION bidirectional edge has its inverse: 1 row(s), e.g. edge (%d, %d, %d)", id1, bidir, id2)
		if !strings.Contains(r.stdout, want) {
			t.Errorf("check output lacks %q:\n%s", want, r)
		}
		if strings.Count(r.stdout, "VIOLATION") != 1 {
			t.Errorf("one planted violation, but check reports:\n%s", r.stdout)
		}
		if ls := srvErrorLines(r.stderr); len(ls) != 1 || !strings.Contains(ls[0], "1 invariant(s) violated") {
			t.Errorf("want one error line saying 1 invariant is violated:\n%s", r)
		}
	})
}

// TestServerCheckEdgeWrites drives 64 clients that only write edges of
// unique and bidirectional types, on nodes of few slots, so adds collide on
// uniqueness and bidirectional pairs race: the invariants still hold
// afterwards. (Workloads a and o write such edges too rarely to test this.)
func TestServerCheckEdgeWrites(t *testing.T) {
	w, err := workload.Builtin("a")
	if err != nil {
		t.Fatal(err)
	}
	w.Name = "edge_writes"
	w.Requests = workload.Dist[tao.Class]{Values: []tao.Class{tao.Write, tao.WriteTxn}, Weights: []float64{3, 1}}
	kinds := workload.Dist[tao.Kind]{Values: []tao.Kind{tao.EdgeAdd, tao.EdgeUpdate, tao.EdgeDelete}, Weights: []float64{6, 2, 1}}
	w.WriteKinds, w.WriteTxnKinds = kinds, kinds
	w.WriteTxnSizes = workload.Dist[int]{Values: []int{2, 3}, Weights: []float64{1, 1}}
	w.EdgeTypes = workload.Dist[tao.EdgeCategory]{
		Values:  []tao.EdgeCategory{tao.Unique, tao.Bidirectional, tao.UniqueBidirectional},
		Weights: []float64{1, 1, 1},
	}
	w.Outdegree = workload.Dist[int]{Values: []int{2, 4}, Weights: []float64{1, 1}}
	w.OpPredicates = workload.Dist[tao.Predicate]{Values: []tao.Predicate{tao.PredNone}, Weights: []float64{1}}
	w.TxnPredicateCounts = workload.Dist[int]{Values: []int{0}, Weights: []float64{1}}
	// Adds race on unique keys often, so even a slow run on a loaded
	// machine (2,000 requests) meets unique violations: at TAO's 0.4% it
	// met about 4, and sometimes none.
	w.UniqueAddRace = 0.2
	file := filepath.Join(t.TempDir(), "edge_writes.workload")
	var buf bytes.Buffer
	if err := workload.Write(&buf, w); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	srvEachParallel(t, func(t *testing.T, s srvServer) {
		dbURL := s.fresh(t)
		srvLoad(t, dbURL, file, 3000)
		out := filepath.Join(t.TempDir(), "out.json")
		r := cliMust(t, "run", "--db", dbURL, "--workload", file, "--threads", "64", "--warmup", "0", "--duration", "2s", "--out", out)
		doc, _ := srvReadJSON(t, out)
		if len(doc.Experiments) != 1 {
			t.Fatalf("%d experiments\n%s", len(doc.Experiments), r)
		}
		e := doc.Experiments[0]
		srvConsistent(t, s.kind, e)
		t.Logf("%s: %s; unique association exists %.3f%%, association lock conflict %.3f%%",
			s.kind, srvShares(e), e.Contention["unique_association_exists_pct"], e.Contention["association_lock_conflict_pct"])
		if e.Outcomes["ok"] == 0 || e.Outcomes["unique_violation"] == 0 {
			t.Errorf("want edges written and unique violations met: %v", e.Outcomes)
		}
		if e.Outcomes["error"] != 0 || e.Outcomes["timeout"] != 0 {
			t.Errorf("%d errors, %d timeouts\n%s", e.Outcomes["error"], e.Outcomes["timeout"], r.stderr)
		}
		if c := cliMust(t, "check", "--db", dbURL); !strings.Contains(c.stdout, "every invariant holds") {
			t.Errorf("check passed without saying so:\n%s", c)
		}
	})
}

// srvErrorLines returns the lines of stderr that report an error.
func srvErrorLines(stderr string) []string {
	var ls []string
	for _, l := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(l, "taobench:") {
			ls = append(ls, l)
		}
	}
	return ls
}

// srvWithPassword returns raw with its user's password set to pw.
func srvWithPassword(t *testing.T, raw, user, pw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	if user == "" {
		user = u.User.Username()
	}
	u.User = url.UserPassword(user, pw)
	return u.String()
}

// TestServerConnectionErrors: a URL that cannot be connected to ends every
// command with exit status 2 and one line naming the URL, password masked,
// before any experiment starts; the password is never shown.
func TestServerConnectionErrors(t *testing.T) {
	srvEach(t, func(t *testing.T, s srvServer) {
		pw := "s3cret-" + strings.TrimPrefix(testenv.UniqueName(), "taobench_test_")
		admin, err := url.Parse(s.admin)
		if err != nil {
			t.Fatal(err)
		}
		withHost := func(host string) string {
			u := *admin
			u.Host = host
			return srvWithPassword(t, u.String(), "", pw)
		}
		missing := "taobench_missing_" + pw[7:]
		withPath := func(path string) string {
			u := *admin
			u.Path = path
			return srvWithPassword(t, u.String(), "", pw)
		}
		missingURL := withPath("/" + missing)
		if s.kind == "mysql" {
			// root has no password here: a user with one, allowed into the
			// missing database, meets "unknown database", not "access denied".
			user := "tb_" + pw[7:]
			s.mysqlUser(t, user, pw, missing)
			missingURL = srvWithPassword(t, missingURL, user, pw)
		}
		type tcase struct {
			name, url, hint string
		}
		var cases []tcase
		if s.kind == "postgres" {
			// Trust authentication accepts any password, so a wrong one
			// cannot fail here; an unknown role fails authentication.
			cases = append(cases, tcase{"unknown_user", srvWithPassword(t, s.admin, "tb_nobody_"+pw[7:], pw), "check the user and password"})
		} else {
			cases = append(cases, tcase{"wrong_password", srvWithPassword(t, s.admin, "", pw), "access denied"})
		}
		cases = append(cases,
			tcase{"unknown_host", withHost(net.JoinHostPort("nonexistent.invalid", admin.Port())), "unknown host"},
			tcase{"missing_database", missingURL, "does not exist"},
			tcase{"refused", withHost("127.0.0.1:1"), "connection refused"},
		)
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				redacted := store.Redact(c.url)
				if !strings.Contains(redacted, "xxxxx") || strings.Contains(redacted, pw) {
					t.Fatalf("store.Redact(%q) = %q", c.url, redacted)
				}
				for _, args := range [][]string{
					{"run", "--db", c.url, "--workload", "a", "--warmup", "0", "--duration", "1s", "--threads", "2"},
					{"load", "--db", c.url, "--workload", "a", "--edges", "100"},
					{"check", "--db", c.url},
				} {
					start := time.Now()
					r := cliRun(t, args...)
					took := time.Since(start)
					if r.code != 2 {
						t.Errorf("want exit 2:\n%s", r)
					}
					if strings.Contains(r.stdout+r.stderr, pw) {
						t.Errorf("the password %q is shown:\n%s", pw, r)
					}
					if strings.Contains(r.stderr, "experiment 1 of") || r.stdout != "" {
						t.Errorf("the command went on after failing to connect:\n%s", r)
					}
					ls := srvErrorLines(r.stderr)
					if len(ls) != 1 {
						t.Errorf("want one error line, got %d:\n%s", len(ls), r)
						continue
					}
					if !strings.Contains(ls[0], redacted) {
						t.Errorf("the error does not name the URL %s:\n%s", redacted, ls[0])
					}
					if !strings.Contains(strings.ToLower(ls[0]), c.hint) {
						t.Errorf("the error does not say %q:\n%s", c.hint, ls[0])
					}
					if !strings.HasSuffix(r.stderr, ls[0]+"\n") {
						t.Errorf("more follows the error line:\n%s", r)
					}
					t.Logf("%s (%v): %s", args[0], took.Round(time.Millisecond), ls[0])
				}
			})
		}
	})
}

// srvProxy forwards TCP connections to a server and can play the server
// going away: cut resets every connection and refuses new ones until restore.
type srvProxy struct {
	target string
	addr   string // where it listens, stable across cut and restore

	mu    sync.Mutex
	ln    net.Listener
	conns map[net.Conn]bool
	down  bool

	stalled atomic.Bool // forward nothing, keep connections open (stall)

	accepted  atomic.Int64 // connections accepted and forwarded
	fromServe atomic.Int64 // bytes forwarded from the server to clients
	wg        sync.WaitGroup
}

func newSrvProxy(t *testing.T, target string) *srvProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &srvProxy{target: target, addr: ln.Addr().String(), ln: ln, conns: map[net.Conn]bool{}}
	p.serve(ln)
	t.Cleanup(func() {
		p.cut()
		p.wg.Wait()
	})
	return p
}

func (p *srvProxy) serve(ln net.Listener) {
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			p.wg.Add(1)
			go func() {
				defer p.wg.Done()
				p.forward(c)
			}()
		}
	}()
}

// track registers c; it reports false (and closes c) while the proxy is down.
func (p *srvProxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.down {
		srvReset(c)
		return false
	}
	p.conns[c] = true
	return true
}

func (p *srvProxy) untrack(cs ...net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range cs {
		delete(p.conns, c)
		c.Close()
	}
}

// srvReset closes c with a reset, as a crashed server's host would.
func srvReset(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	c.Close()
}

func (p *srvProxy) forward(c net.Conn) {
	if !p.track(c) {
		return
	}
	s, err := net.DialTimeout("tcp", p.target, 5*time.Second)
	if err != nil {
		p.untrack(c)
		return
	}
	if !p.track(s) {
		p.untrack(c)
		return
	}
	p.accepted.Add(1)
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(srvCounter{s, nil, p}, c)
		p.untrack(c, s)
		close(done)
	}()
	_, _ = io.Copy(srvCounter{c, &p.fromServe, p}, s)
	p.untrack(c, s)
	<-done
}

// srvCounter forwards what the proxy reads, counting it in n (if not nil),
// and holds it while the proxy is stalled.
type srvCounter struct {
	w io.Writer
	n *atomic.Int64
	p *srvProxy
}

func (c srvCounter) Write(b []byte) (int, error) {
	for c.p.stalled.Load() && !c.p.isDown() {
		time.Sleep(10 * time.Millisecond)
	}
	n, err := c.w.Write(b)
	if c.n != nil {
		c.n.Add(int64(n))
	}
	return n, err
}

// stall stops forwarding in both directions but keeps every connection
// open: a server that hangs rather than goes away. cut ends it.
func (p *srvProxy) stall() { p.stalled.Store(true) }

func (p *srvProxy) isDown() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.down
}

// cut resets every connection and stops listening: new connections are refused.
func (p *srvProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.down {
		return
	}
	p.down = true
	p.ln.Close()
	for c := range p.conns {
		srvReset(c)
	}
}

// restore listens again on the same address.
func (p *srvProxy) restore(t *testing.T) {
	t.Helper()
	var ln net.Listener
	var err error
	for range 50 {
		if ln, err = net.Listen("tcp", p.addr); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("proxy cannot listen on %s again: %v", p.addr, err)
	}
	p.mu.Lock()
	p.ln, p.down = ln, false
	p.mu.Unlock()
	p.serve(ln)
}

// srvLostLine matches the text report's lost-requests line.
var srvLostLine = regexp.MustCompile(`(?m)^lost requests: (\d+) \(errors (\d+), timeouts (\d+)\) between (\d+)s and (\d+)s of the measured window$`)

// TestServerOutage cuts the connection to the server for a while in the
// middle of a run: the run keeps to its schedule, counts the requests lost
// during the outage (and only then), reconnects and carries on.
func TestServerOutage(t *testing.T) {
	srvEach(t, func(t *testing.T, s srvServer) {
		dbURL := s.fresh(t)
		srvLoad(t, dbURL, "o", 5000)
		u, err := url.Parse(dbURL)
		if err != nil {
			t.Fatal(err)
		}
		p := newSrvProxy(t, u.Host)
		u.Host = p.addr
		proxied := u.String()

		const duration = 6 * time.Second
		const before, outage = 2 * time.Second, 1500 * time.Millisecond
		out := filepath.Join(t.TempDir(), "out.json")
		stdout, stderr := newCLISyncBuffer(""), newCLISyncBuffer("experiment 1 of 1")
		// --max-stall above the outage: its 1.5 s without an answer is an
		// outage at the default 1 s (exit 3); here the exit is the losses'.
		args := []string{"run", "--db", proxied, "--workload", "o", "--threads", "8", "--warmup", "0", "--duration", duration.String(), "--out", out, "--max-stall", "5s"}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		var code int
		done := make(chan struct{})
		launched := time.Now()
		go func() {
			defer close(done)
			code = realMain(ctx, args, stdout, stderr)
		}()
		select {
		case <-stderr.seen:
		case <-done:
			t.Fatalf("the run ended before its experiment started: exit %d\n%s%s", code, stdout, stderr)
		}
		// The experiment begins right after it announces itself.
		started := time.Now()
		if p.fromServe.Load() == 0 {
			t.Fatal("the run announced its experiment without having talked to the server through the proxy")
		}
		time.Sleep(time.Until(started.Add(before)))
		bytesBefore := p.fromServe.Load()
		cutAt := time.Since(started)
		p.cut()
		time.Sleep(outage)
		acceptedAtRestore, bytesAtRestore := p.accepted.Load(), p.fromServe.Load()
		restoreAt := time.Since(started)
		p.restore(t)
		<-done
		wall := time.Since(launched)
		r := cliResult{args, code, stdout.String(), stderr.String()}
		if code != 0 && code != 3 {
			t.Fatalf("a run that kept its schedule must exit 0, or 3 if it lost more than 1%% of its requests:\n%s", r)
		}
		t.Logf("outage from %.2fs to %.2fs of the run; %d bytes from the server before, %d during the outage, %d after; %d connections after the outage",
			cutAt.Seconds(), restoreAt.Seconds(), bytesBefore, bytesAtRestore-bytesBefore, p.fromServe.Load()-bytesAtRestore, p.accepted.Load()-acceptedAtRestore)

		doc, raw := srvReadJSON(t, out)
		if len(doc.Experiments) != 1 {
			t.Fatalf("%d experiments in the JSON\n%s", len(doc.Experiments), raw)
		}
		e := doc.Experiments[0]
		srvConsistent(t, "outage", e)
		if want := map[bool]int{false: 0, true: 3}[e.Lost.Count*100 > e.Ops]; code != want {
			t.Errorf("lost %d of %d requests with the default --max-error-rate 1%%: exit %d, want %d", e.Lost.Count, e.Ops, code, want)
		}
		if e.Interrupted || e.MeasuredS != duration.Seconds() || e.RuntimeS < duration.Seconds() {
			t.Errorf("the run did not keep its schedule: interrupted %v, measured %vs, runtime %vs of %v", e.Interrupted, e.MeasuredS, e.RuntimeS, duration)
		}
		if wall < duration {
			t.Errorf("the command returned after %v, before the %v it was to run", wall, duration)
		}
		if e.Lost.Count == 0 || e.Outcomes["ok"] == 0 {
			t.Fatalf("want requests lost and requests done: lost %d, ok %d\n%s", e.Lost.Count, e.Outcomes["ok"], r)
		}
		// Lost requests started during the outage or were in flight at the
		// cut (so started at most the longest latency before it), give or
		// take a second for where measurement began and for clients backing
		// off at the restore; none before, none after.
		var longest time.Duration
		for _, class := range []string{"read", "write", "read_txn", "write_txn"} {
			longest = max(longest, time.Duration(e.LatencyUS[class].Max*float64(time.Microsecond)))
		}
		first, last := int((cutAt-longest)/time.Second)-1, int(restoreAt/time.Second)+1
		for _, l := range e.Lost.Timeline {
			if l.Second < first || l.Second > last {
				t.Errorf("%d errors and %d timeouts in second %d, outside the outage (seconds %d to %d; longest request %v)",
					l.Errors, l.Timeouts, l.Second, first, last, longest)
			}
		}
		m := srvLostLine.FindStringSubmatch(r.stdout)
		if m == nil {
			t.Fatalf("no lost-requests line in the text output:\n%s", r.stdout)
		}
		tl := e.Lost.Timeline
		want := []int64{e.Lost.Count, e.Outcomes["error"], e.Outcomes["timeout"], int64(tl[0].Second), int64(tl[len(tl)-1].Second + 1)}
		for i, w := range want {
			if got, _ := strconv.ParseInt(m[i+1], 10, 64); got != w {
				t.Errorf("lost-requests line %q: field %d is %d, the JSON says %d", m[0], i+1, got, w)
			}
		}
		// The user learns why requests were lost, not only how many.
		why := regexp.MustCompile(`(?m)^first lost request \((error|timeout), (\d+\.\d+) s into the measured window\): (.+)$`).FindStringSubmatch(r.stderr)
		if why == nil {
			t.Errorf("stderr does not say why requests were lost:\n%s", r.stderr)
		} else {
			t.Logf("%s: %s", s.kind, why[0])
		}
		// Clients reconnected and requests flowed again after the outage.
		if n := p.accepted.Load() - acceptedAtRestore; n == 0 {
			t.Errorf("no client reconnected after the outage")
		}
		if p.fromServe.Load() == bytesAtRestore {
			t.Errorf("no bytes came from the server after the outage")
		}
		t.Logf("%s: %s; lost %d: %+v", s.kind, srvShares(e), e.Lost.Count, e.Lost.Timeline)
	})
}

// TestServerPasswordRedaction runs with a URL whose password works: the
// password shows neither in the output nor in the result file, which names
// the URL redacted.
func TestServerPasswordRedaction(t *testing.T) {
	t.Parallel() // few connections (at most 16 clients a server); no timing
	srvEach(t, func(t *testing.T, s srvServer) {
		suffix := strings.TrimPrefix(testenv.UniqueName(), "taobench_test_")
		user, pw := "tb_"+suffix, "s3cret-"+suffix
		var dbURL string
		if s.kind == "postgres" {
			// Created before the database, so dropped after it.
			s.exec(t, s.admin, fmt.Sprintf("CREATE ROLE %s LOGIN PASSWORD '%s'", user, pw))
			t.Cleanup(func() { s.exec(t, s.admin, "DROP ROLE IF EXISTS "+user) })
			dbURL = s.fresh(t)
			u, _ := url.Parse(dbURL)
			s.exec(t, s.admin, fmt.Sprintf("ALTER DATABASE %s OWNER TO %s", strings.TrimPrefix(u.Path, "/"), user))
		} else {
			dbURL = s.fresh(t)
			u, _ := url.Parse(dbURL)
			s.mysqlUser(t, user, pw, strings.TrimPrefix(u.Path, "/"))
		}
		withPW := srvWithPassword(t, dbURL, user, pw)
		if s.kind == "mysql" {
			// The password is checked: a wrong one is refused.
			if r := cliRun(t, "check", "--db", srvWithPassword(t, dbURL, user, pw+"x")); r.code != 2 {
				t.Fatalf("a wrong password was accepted, so this test proves less than it claims:\n%s", r)
			}
		}
		redacted := store.Redact(withPW)
		out := filepath.Join(t.TempDir(), "out.json")
		var all strings.Builder
		for _, args := range [][]string{
			{"load", "--db", withPW, "--workload", "a", "--edges", "2000"},
			{"run", "--db", withPW, "--workload", "a", "--threads", "4", "--warmup", "0", "--duration", "1s", "--out", out},
			{"check", "--db", withPW},
			{"schema", "--db", withPW},
		} {
			r := cliMust(t, args...)
			all.WriteString(r.stdout + r.stderr)
		}
		if strings.Contains(all.String(), pw) {
			t.Errorf("the password is shown:\n%s", all.String())
		}
		if !strings.Contains(all.String(), redacted) {
			t.Errorf("the output never names the database as %s:\n%s", redacted, all.String())
		}
		doc, raw := srvReadJSON(t, out)
		if strings.Contains(raw, pw) {
			t.Errorf("the password is in the result file:\n%s", raw)
		}
		if doc.Run.Database != redacted {
			t.Errorf("the result file names the database %q, want %q", doc.Run.Database, redacted)
		}
		if len(doc.Experiments) != 1 || doc.Experiments[0].Ops == 0 {
			t.Errorf("the run as %s completed no requests: %+v", user, doc.Experiments)
		}
	})
}

// srvAttemptsLine matches the text report's attempts line.
var srvAttemptsLine = regexp.MustCompile(`(?m)^attempts: (\d+) \((\d+) retries\)$`)

// TestServerRetries: with --retries 0 every request is one attempt; with the
// default, conflicts are retried, each retry is an attempt, and a request
// that finally fails counts once.
func TestServerRetries(t *testing.T) {
	t.Parallel() // few connections (at most 16 clients a server); no timing
	srvEach(t, func(t *testing.T, s srvServer) {
		dbURL := s.fresh(t)
		srvLoad(t, dbURL, "a", 5000)
		dir := t.TempDir()
		type res struct {
			e                 srvExperiment
			retries           int
			attempts, retried int64
		}
		var got []res
		for _, retries := range []string{"0", ""} {
			out := filepath.Join(dir, "out"+retries+".json")
			args := []string{"run", "--db", dbURL, "--workload", "a", "--threads", "16", "--warmup", "0", "--duration", "2s", "--out", out}
			if retries != "" {
				args = append(args, "--retries", retries)
			}
			r := cliMust(t, args...)
			doc, _ := srvReadJSON(t, out)
			if len(doc.Experiments) != 1 {
				t.Fatalf("%d experiments\n%s", len(doc.Experiments), r)
			}
			e := doc.Experiments[0]
			where := fmt.Sprintf("%s --retries %q", s.kind, retries)
			srvConsistent(t, where, e)
			m := srvAttemptsLine.FindStringSubmatch(r.stdout)
			if m == nil {
				t.Fatalf("%s: no attempts line:\n%s", where, r.stdout)
			}
			a, _ := strconv.ParseInt(m[1], 10, 64)
			rt, _ := strconv.ParseInt(m[2], 10, 64)
			if a != e.Attempts || rt != e.Attempts-e.Ops {
				t.Errorf("%s: text says %q, the JSON %d attempts for %d requests", where, m[0], e.Attempts, e.Ops)
			}
			got = append(got, res{e, doc.Run.Retries, a, rt})
			t.Logf("%s: %s; %d retries", where, srvShares(e), rt)
		}
		zero, def := got[0], got[1]
		if zero.retries != 0 || def.retries <= 0 {
			t.Fatalf("the result files record retries %d and %d, want 0 and the (positive) default", zero.retries, def.retries)
		}
		if zero.e.Attempts != zero.e.Ops {
			t.Errorf("--retries 0: %d attempts for %d requests", zero.e.Attempts, zero.e.Ops)
		}
		if def.e.Attempts < def.e.Ops {
			t.Errorf("default retries: %d attempts for %d requests", def.e.Attempts, def.e.Ops)
		}
		// A request that ends in a conflict after all its retries made
		// retries+1 attempts, and counts once in failed.
		finalConflicts := def.e.Outcomes["conflict_object"] + def.e.Outcomes["conflict_association"]
		if def.retried < int64(def.retries)*finalConflicts {
			t.Errorf("default retries: %d requests ended in a conflict after %d retries each, but only %d retries were counted",
				finalConflicts, def.retries, def.retried)
		}
		conflicts0 := zero.e.Outcomes["conflict_object"] + zero.e.Outcomes["conflict_association"]
		if conflicts0 > 0 && zero.e.Failed < conflicts0 {
			t.Errorf("--retries 0: %d conflicts but %d failed", conflicts0, zero.e.Failed)
		}
		if conflicts0 == 0 && def.retried == 0 {
			t.Logf("%s: no conflicts occurred in either run; the retry accounting was checked only for consistency", s.kind)
		}
	})
}
