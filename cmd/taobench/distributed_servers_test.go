package main

// The distributed run of docs/distributed.md against the live servers:
// four driver processes of four clients each against one process of
// sixteen, same workload, seed and schedule (issue 13).

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"math"
	"net/url"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"

	"github.com/taobench/taobench/internal/testenv"
	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/tao"
)

// distProcs runs the binary once per argument list, all at once, and
// fails the test unless every one exits 0.
func distProcs(t *testing.T, bin string, argss [][]string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	stderrs := make([]string, len(argss))
	errs := make([]error, len(argss))
	var wg sync.WaitGroup
	for i, args := range argss {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var out, errb bytes.Buffer
			cmd := exec.CommandContext(ctx, bin, args...)
			cmd.Stdout, cmd.Stderr = &out, &errb
			errs[i] = cmd.Run()
			stderrs[i] = errb.String()
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("taobench %s: %v\n--- stderr:\n%s", strings.Join(argss[i], " "), err, stderrs[i])
		}
	}
	return stderrs
}

// distDoc is what these tests read of a result file.
type distDoc struct {
	Run struct {
		RunID         string `json:"run_id"`
		Drivers       int    `json:"drivers"`
		DriverIndexes []int  `json:"driver_indexes"`
		Seed          uint64 `json:"seed"`
	} `json:"run"`
	Experiments []struct {
		srvExperiment
		Throughput  float64 `json:"throughput"`
		Processes   int     `json:"processes"`
		FirstClient int     `json:"first_client"`
		AllThreads  int     `json:"all_threads"`
		LateS       float64 `json:"late_s"`
		SharedStart string  `json:"shared_start"`
		LatencyUS   map[string]struct {
			Count int64   `json:"count"`
			P50   float64 `json:"p50"`
			P99   float64 `json:"p99"`
		} `json:"latency_us"`
	} `json:"experiments"`
}

func distRead(t *testing.T, path string) distDoc {
	t.Helper()
	d, _ := readJSONFile[distDoc](t, path)
	if len(d.Experiments) != 1 {
		t.Fatalf("%s: %d experiments, want 1", path, len(d.Experiments))
	}
	return d
}

// distCreated returns the ids of the objects created at run time.
func (s srvServer) distCreated(t *testing.T, dbURL string) []int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	q := fmt.Sprintf("SELECT id FROM objects WHERE (id >> %d) & 1 = 1", tao.ShardShift-1)
	var ids []int64
	if s.kind == "postgres" {
		conn, err := pgx.Connect(ctx, dbURL)
		if err != nil {
			t.Fatalf("connect %s: %v", store.Redact(dbURL), err)
		}
		defer conn.Close(ctx)
		rows, err := conn.Query(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return ids
	}
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	cfg := mysql.NewConfig()
	cfg.Net, cfg.Addr, cfg.User, cfg.DBName = "tcp", u.Host, u.User.Username(), strings.TrimPrefix(u.Path, "/")
	cfg.Passwd, _ = u.User.Password()
	db, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return ids
}

// distRuns is how many run numbers the database has handed out.
func distRuns(t *testing.T, dbURL string) int64 {
	t.Helper()
	ctx := context.Background()
	st, err := store.Default.Open(ctx, dbURL, store.Options{Clients: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	n, err := st.(store.Inspector).Runs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestServerDrivers: 4 driver processes × 4 clients against 1 process × 16
// on two databases holding the same graph, same workload, seed and
// schedule (1 s warmup, 3 s measured). The drivers' merged counts add up
// exactly; the database records one run; every object the drivers created
// carries that run and a client of 0 to 15, and the 16 clients are all
// there (four processes of four clients can show 16 distinct client numbers
// only if their slices are disjoint, and ids are (run, client, sequence));
// check passes; the merged throughput is the drivers' requests over one
// window no longer than the experiment. The run of 1 process × 16 on a
// second database beside it, for docs/distributed.md's comparison of the
// two throughputs (logged: their ratio is the machine's, not the merge's),
// runs in the integration suite only: it checks nothing the drivers' run
// does not, and costs a third of the test.
func TestServerDrivers(t *testing.T) {
	t.Parallel()       // few connections (at most 16 clients a server); no timing
	bin := opBinary(t) // a process each: a process-wide setting such as GOMAXPROCS must not be shared
	srvEach(t, func(t *testing.T, s srvServer) {
		many, one := s.fresh(t), ""
		srvLoad(t, many, "a", 5000)
		if testenv.IntegrationOn() {
			one = s.fresh(t)
			srvLoad(t, one, "a", 5000)
		}
		dir := t.TempDir()
		const seed, warmup, duration = "424242", "1", "3"
		common := []string{"run", "--workload", "a", "--seed", seed, "--warmup", warmup, "--duration", duration}
		start := time.Now().Add(5 * time.Second).UTC().Format(time.RFC3339Nano)
		var argss [][]string
		var files []string
		for i := range 4 {
			f := filepath.Join(dir, fmt.Sprintf("driver%d.json", i))
			files = append(files, f)
			argss = append(argss, append(append([]string{}, common...), "--db", many, "--threads", "16",
				"--driver", fmt.Sprintf("%d/4", i), "--run-id", "four-by-four", "--start-at", start, "--out", f))
		}
		stderrs := distProcs(t, bin, argss)
		for i, e := range stderrs {
			if !strings.Contains(e, fmt.Sprintf("driver %d/4 of run four-by-four: clients %d to %d of experiment 1's 16", i, 4*i, 4*i+3)) {
				t.Errorf("driver %d did not say which clients it runs:\n%s", i, e)
			}
			if !strings.Contains(e, "waiting until "+start) && !strings.Contains(e, "after its shared start") {
				t.Errorf("driver %d neither waited for the shared start nor said it was late:\n%s", i, e)
			}
		}
		merged := filepath.Join(dir, "merged.json")
		cliMust(t, append([]string{"merge"}, append(files, "-o", merged)...)...)
		m := distRead(t, merged)
		me := m.Experiments[0]
		var ops, attempts int64
		outcomes := map[string]int64{}
		for i, f := range files {
			d := distRead(t, f)
			x := d.Experiments[0]
			if d.Run.RunID != "four-by-four" || d.Run.Drivers != 4 || len(d.Run.DriverIndexes) != 1 || d.Run.DriverIndexes[0] != i ||
				x.Threads != 4 || x.FirstClient != 4*i || x.AllThreads != 16 || x.SharedStart == "" {
				t.Errorf("driver %d's result is not tagged as driver %d/4 of four-by-four with clients %d-%d: %+v", i, i, 4*i, 4*i+3, d.Run)
			}
			ops, attempts = ops+x.Ops, attempts+x.Attempts
			for k, v := range x.Outcomes {
				outcomes[k] += v
			}
			t.Logf("%s driver %d/4: %d ops in %.3f s (late %.3f s)", s.kind, i, x.Ops, x.MeasuredS, x.LateS)
		}
		srvConsistent(t, "merged", me.srvExperiment)
		if me.Ops != ops || me.Attempts != attempts || me.Threads != 16 || me.Processes != 4 || len(m.Run.DriverIndexes) != 4 {
			t.Errorf("merged: %d ops, %d attempts, %d threads, %d processes, drivers %v; the drivers sum to %d ops, %d attempts over 16 threads, 4 processes",
				me.Ops, me.Attempts, me.Threads, me.Processes, m.Run.DriverIndexes, ops, attempts)
		}
		for k, v := range outcomes {
			if me.Outcomes[k] != v {
				t.Errorf("merged outcome %s = %d, the drivers sum to %d", k, me.Outcomes[k], v)
			}
		}
		if me.Lost.Count != 0 {
			t.Errorf("lost requests: merged %d", me.Lost.Count)
		}

		// One run in the database, shared by the drivers, and their ids.
		if n := distRuns(t, many); n != 1 {
			t.Errorf("the drivers' database counts %d runs, want 1", n)
		}
		created := s.distCreated(t, many)
		clients := map[int64]int{}
		for _, id := range created {
			run := id >> (tao.ClientBits + tao.SeqBits) & (1<<tao.RunBits - 1)
			client := id >> tao.SeqBits & (1<<tao.ClientBits - 1)
			if run != 1 || client >= 16 {
				t.Fatalf("created object %d has run %d, client %d: want run 1 (the one shared run) and a client of 0 to 15", id, run, client)
			}
			clients[client]++
		}
		if len(clients) != 16 {
			t.Errorf("objects created by %d distinct clients, want all 16 (per client: %v)", len(clients), clients)
		}
		r := cliMust(t, "check", "--db", many)
		if !strings.Contains(r.stdout, "every invariant holds") {
			t.Errorf("check after the drivers:\n%s", r)
		}

		t.Logf("%s: 4 drivers × 4 clients: %.0f req/s (%d ops in %.3f s; read p50 %.0f µs p99 %.0f µs); %d objects created by the drivers",
			s.kind, me.Throughput, me.Ops, me.MeasuredS, me.LatencyUS["read"].P50, me.LatencyUS["read"].P99, len(created))
		// What merge controls is checked: the drivers' requests over one
		// window no longer than the experiment.
		if dur, _ := strconv.ParseFloat(duration, 64); me.MeasuredS <= 0 || me.MeasuredS > dur ||
			math.Abs(me.Throughput-float64(me.Ops)/me.MeasuredS) > 0.001*me.Throughput {
			t.Errorf("merged: %.1f req/s, %d ops in %.3f s; want ops over a window of at most %s s", me.Throughput, me.Ops, me.MeasuredS, duration)
		}
		if one == "" {
			return
		}
		// The ratio of two runs' throughputs is the machine's, not the
		// merge's (two cores shared with the database and other tests, a
		// CPU hog beside them can halve either): it is logged.
		single := filepath.Join(dir, "single.json")
		distProcs(t, bin, [][]string{append(append([]string{}, common...), "--db", one, "--threads", "16", "--start-at", "+2s", "--out", single)})
		oe := distRead(t, single).Experiments[0]
		if oe.Lost.Count != 0 {
			t.Errorf("lost requests: single %d", oe.Lost.Count)
		}
		t.Logf("%s: 1 process × 16: %.0f req/s (%d ops in %.3f s; read p50 %.0f µs p99 %.0f µs); ratio %.2f",
			s.kind, oe.Throughput, oe.Ops, oe.MeasuredS, oe.LatencyUS["read"].P50, oe.LatencyUS["read"].P99, me.Throughput/oe.Throughput)
	})
}

// TestServerLoadDrivers: three load processes, each writing its part of
// one graph at the same time, hold exactly the rows one loader writes
// (objects by shard, forward edges by type and by target shard; check
// verifies the inverses and the rest), and the graph is complete.
func TestServerLoadDrivers(t *testing.T) {
	t.Parallel()       // few connections (at most 16 clients a server); no timing
	bin := opBinary(t) // a process each: a process-wide setting such as GOMAXPROCS must not be shared
	srvEach(t, func(t *testing.T, s srvServer) {
		split, whole := s.fresh(t), s.fresh(t)
		args := []string{"load", "--workload", "a", "--edges", "5000", "--seed", "3", "--load-threads", "2"}
		cliMust(t, append(append([]string{}, args...), "--db", whole)...)
		var argss [][]string
		for i := range 3 {
			argss = append(argss, append(append([]string{}, args...), "--db", split, "--driver", fmt.Sprintf("%d/3", i)))
		}
		stderrs := distProcs(t, bin, argss)
		if n := strings.Count(strings.Join(stderrs, ""), "the graph is complete\n"); n < 1 {
			t.Errorf("no loader completed the graph:\n%s", strings.Join(stderrs, "\n"))
		}
		a, b := distInventory(t, split), distInventory(t, whole)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("three load drivers hold %+v, one loader %+v", a, b)
		}
		var objs int64
		for _, n := range a.Objects {
			objs += n
		}
		t.Logf("%s: 3 load drivers and 1 loader each hold %d objects, forward edges by type %v", s.kind, objs, a.EdgesByBase)
		r := cliMust(t, "check", "--db", split)
		if !strings.Contains(r.stdout, "every invariant holds") {
			t.Errorf("check after the load drivers:\n%s", r)
		}
	})
}
