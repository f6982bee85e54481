package sqlstore

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/url"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/taobench/taobench/internal/testenv"
	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/tao"
)

func TestIsTiDB(t *testing.T) {
	for v, want := range map[string]bool{
		"8.0.11-TiDB-v7.5.1":            true,
		"5.7.25-TiDB-v6.5.0":            true,
		"8.0.11-TiDB-v8.1.0-serverless": true,
		"10.11.19-MariaDB-0+deb12u1":    false,
		"8.0.36":                        false,
		"8.0.34-PlanetScale":            false,
		"":                              false,
	} {
		if got := isTiDB(v); got != want {
			t.Errorf("isTiDB(%q) = %v, want %v", v, got, want)
		}
	}
}

func TestClassifyMySQL(t *testing.T) {
	for n, want := range map[uint16]errClass{
		1213: errConflict, 1205: errConflict, 3572: errConflict,
		8002: errConflict, 8005: errConflict, 8022: errConflict, 9007: errConflict, // TiDB's retryable errors
		1062: errUnique,
		3024: errTimeout, 1317: errTimeout, 1969: errTimeout,
		1235: errOther, 1146: errOther, 8004: errOther, // 8004: TiDB's transaction too large, not retryable
	} {
		err := fmt.Errorf("wrapped: %w", &mysql.MySQLError{Number: n, Message: "x"})
		if got := classifyMySQL(err); got != want {
			t.Errorf("error %d classified %v, want %v", n, got, want)
		}
	}
	if got := classifyMySQL(errors.New("1213")); got != errOther {
		t.Errorf("an error without a number classified %v, want errOther", got)
	}
}

// tidbNoop is TiDB's answer to START TRANSACTION READ ONLY.
var tidbNoop = &mysql.MySQLError{Number: 1235, SQLState: [5]byte{'4', '2', '0', '0', '0'},
	Message: "function READ ONLY has only noop implementation in tidb now, use tidb_enable_noop_functions to enable these functions"}

// fakeServer is a driver.Connector standing in for a MySQL-protocol server
// that, as TiDB does by default, refuses READ ONLY transactions. It answers
// SELECT VERSION() with version, every prepared statement and every
// UNION ALL read transaction with empty result sets, and logs what it was
// sent.
type fakeServer struct {
	version string
	mu      sync.Mutex
	log     []string
}

func (f *fakeServer) record(s string) {
	f.mu.Lock()
	f.log = append(f.log, s)
	f.mu.Unlock()
}

func (f *fakeServer) sent(sub string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, s := range f.log {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

func (f *fakeServer) Connect(context.Context) (driver.Conn, error) { return &fakeConn{f}, nil }
func (f *fakeServer) Driver() driver.Driver                        { return fakeDriver{f} }

type fakeDriver struct{ f *fakeServer }

func (d fakeDriver) Open(string) (driver.Conn, error) { return &fakeConn{d.f}, nil }

type fakeConn struct{ f *fakeServer }

func (c *fakeConn) Prepare(q string) (driver.Stmt, error) { return fakeStmt{}, nil }
func (c *fakeConn) Close() error                          { return nil }
func (c *fakeConn) Begin() (driver.Tx, error) {
	return c.BeginTx(context.Background(), driver.TxOptions{})
}
func (c *fakeConn) Ping(context.Context) error { return nil }

func (c *fakeConn) BeginTx(_ context.Context, opts driver.TxOptions) (driver.Tx, error) {
	if opts.ReadOnly {
		c.f.record("START TRANSACTION READ ONLY")
		return nil, tidbNoop
	}
	c.f.record("START TRANSACTION")
	return fakeTx{}, nil
}

func (c *fakeConn) ExecContext(_ context.Context, q string, _ []driver.NamedValue) (driver.Result, error) {
	c.f.record(q)
	return driver.RowsAffected(0), nil
}

func (c *fakeConn) QueryContext(_ context.Context, q string, _ []driver.NamedValue) (driver.Rows, error) {
	c.f.record(q)
	switch {
	case q == "SELECT VERSION()":
		return &fakeRows{cols: []string{"VERSION()"}, row: []driver.Value{c.f.version}, sets: 1}, nil
	case strings.HasPrefix(q, "START TRANSACTION READ ONLY"):
		return nil, tidbNoop
	case strings.HasPrefix(q, "(SELECT "): // a UNION ALL read transaction
		return &fakeRows{cols: []string{"i", "a", "b", "c", "d"}, sets: 1}, nil
	}
	return nil, errors.New("fake server: not understood: " + q)
}

type fakeStmt struct{}

func (fakeStmt) Close() error                               { return nil }
func (fakeStmt) NumInput() int                              { return -1 }
func (fakeStmt) Exec([]driver.Value) (driver.Result, error) { return driver.RowsAffected(0), nil }
func (fakeStmt) Query([]driver.Value) (driver.Rows, error) {
	return &fakeRows{cols: []string{"a", "b", "c"}, sets: 1}, nil
}

type fakeTx struct{}

func (fakeTx) Commit() error   { return nil }
func (fakeTx) Rollback() error { return nil }

// fakeRows is sets result sets of cols columns; the first holds row if
// it is not nil, the others nothing.
type fakeRows struct {
	cols []string
	row  []driver.Value
	sets int
}

func (r *fakeRows) Columns() []string { return r.cols }
func (r *fakeRows) Close() error      { return nil }
func (r *fakeRows) Next(dest []driver.Value) error {
	if r.row == nil {
		return io.EOF
	}
	copy(dest, r.row)
	r.row = nil
	return nil
}
func (r *fakeRows) HasNextResultSet() bool { return r.sets > 1 }
func (r *fakeRows) NextResultSet() error {
	if r.sets <= 1 {
		return io.EOF
	}
	r.sets--
	r.row = nil
	return nil
}

// readTxnModes are the ways a MySQL-protocol read transaction can go.
var readTxnModes = []string{"union", "stepwise"}

// setMode picks the way: "stepwise" (statement by statement), "slots"
// (writes through the slot procedures alone), any other the default.
func setMode(db *DB, mode string) {
	m := db.b.(*myBackend)
	m.stepwise, m.slotsOnly = mode == "stepwise", mode == "slots"
}

// TestTiDBReadTxn opens the store on a fake server that refuses READ ONLY
// transactions as TiDB does, under TiDB's version string and under
// MariaDB's, and runs a read transaction both ways (one UNION ALL
// statement, statement by statement).
func TestTiDBReadTxn(t *testing.T) {
	req := &tao.Request{Class: tao.ReadTxn, Ops: []tao.Op{
		{Kind: tao.ObjRead, ID1: 1},
		{Kind: tao.EdgeCountRead, ID1: 1, Type: tao.TypeOther},
		{Kind: tao.EdgeRangeRead, ID1: 1, Type: tao.TypeOther, Limit: 10},
	}}
	for _, version := range []string{"8.0.11-TiDB-v7.5.1", "10.11.19-MariaDB-0+deb12u1"} {
		for _, mode := range readTxnModes {
			t.Run(version+"/"+mode, func(t *testing.T) {
				f := &fakeServer{version: version}
				cfg := mysql.NewConfig()
				db, err := openMySQLConnector(context.Background(), f, cfg, "mysql://fake/db", "", store.Options{Clients: 2}, false)
				if err != nil {
					t.Fatal(err)
				}
				defer db.Close()
				m := db.b.(*myBackend)
				setMode(db, mode)
				var res tao.Result
				res.Reset(len(req.Ops))
				db.Exec(context.Background(), req, &res)
				if isTiDB(version) {
					if !m.plainReadTx {
						t.Error("TiDB detected, but read transactions still ask for READ ONLY")
					}
					if res.Outcome != tao.OK || f.sent("READ ONLY") {
						t.Errorf("outcome %v (%v); sent %q; want OK without READ ONLY", res.Outcome, res.Err, f.log)
					}
					if mode != "union" && !f.sent("START TRANSACTION") {
						t.Errorf("sent %q: no transaction begun", f.log)
					}
					return
				}
				if mode == "union" {
					// One statement: its own snapshot, no transaction to begin.
					if res.Outcome != tao.OK || f.sent("START TRANSACTION") {
						t.Errorf("outcome %v (%v); sent %q; want OK in one statement", res.Outcome, res.Err, f.log)
					}
					return
				}
				// Not TiDB: READ ONLY is asked for, so this fake refuses it.
				if m.plainReadTx || !f.sent("START TRANSACTION READ ONLY") {
					t.Errorf("%s is not TiDB, but READ ONLY was not asked for: sent %q", version, f.log)
				}
				if res.Outcome != tao.Error || classifyMySQL(res.Err) != errOther {
					t.Errorf("outcome %v (%v), want the server's refusal as an error", res.Outcome, res.Err)
				}
			})
		}
	}
}

// countingConns counts the writes of every connection dialled through the
// "taobench-count" network: one per request the client sends.
var (
	countingOnce sync.Once
	clientWrites atomic.Int64
)

type countingConn struct{ net.Conn }

func (c countingConn) Write(p []byte) (int, error) {
	clientWrites.Add(1)
	return c.Conn.Write(p)
}

// openCounted opens a MySQL store on raw whose connections count their
// writes, with one connection; modes "procedure" and "slots" open it with
// writes=procedures (a test on a server other than MariaDB is skipped).
func openCounted(t testing.TB, raw string, mode string) *DB {
	t.Helper()
	procs := mode == "procedure" || mode == "slots"
	db, err := openCountedErr(t, raw, procs)
	if err != nil && procs && strings.Contains(err.Error(), "is for MariaDB") {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	setMode(db, mode)
	return db
}

// openCountedErr is openCounted's open, its error returned.
func openCountedErr(t testing.TB, raw string, procs bool) (*DB, error) {
	t.Helper()
	countingOnce.Do(func() {
		mysql.RegisterDialContext("taobench-count", func(ctx context.Context, addr string) (net.Conn, error) {
			var d net.Dialer
			c, err := d.DialContext(ctx, "tcp", addr)
			if err != nil {
				return nil, err
			}
			return countingConn{c}, nil
		})
	})
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := mysqlConfig(u)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Net = "taobench-count"
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	db, err := openMySQLConnector(context.Background(), conn, cfg, store.Redact(raw), "", store.Options{Clients: 1}, procs)
	if err != nil {
		return nil, err
	}
	m := db.b.(*myBackend)
	t.Cleanup(func() {
		if procs {
			// The procedures live outside the test's database, which the
			// test drops: drop them too.
			if err := dropProcs(context.Background(), m.write, cfg.DBName); err != nil {
				t.Errorf("dropping the test's procedures: %v", err)
			}
		}
		db.Close()
	})
	m.read.SetMaxOpenConns(1)
	return db, nil
}

func execReq(t testing.TB, db *DB, req *tao.Request) tao.Result {
	t.Helper()
	var res tao.Result
	res.Reset(len(req.Ops))
	db.Exec(context.Background(), req, &res)
	return res
}

// TestMySQLReadTxnOneRoundTrip checks on the MySQL-protocol server that a
// read transaction is one round trip, and gives for every operation what
// the statement-by-statement path gives, over random transactions of all
// five read kinds on present and absent keys.
func TestMySQLReadTxnOneRoundTrip(t *testing.T) {
	raw := testenv.FreshMySQL(t, testenv.MySQLURL(t))
	step := openCounted(t, raw, "stepwise")
	oneTrip := map[string]*DB{"union": openCounted(t, raw, "union")}
	if err := step.Setup(context.Background(), false); err != nil {
		t.Fatal(err)
	}
	// 20 objects; edges of two types from each, with versions bumped.
	const n = 20
	for id := int64(1); id <= n; id++ {
		if res := execReq(t, step, &tao.Request{Class: tao.Write, Ops: []tao.Op{{Kind: tao.ObjAdd, ID1: id, Time: id, Payload: []byte("p")}}}); res.Outcome != tao.OK {
			t.Fatalf("obj_add: %v %v", res.Outcome, res.Err)
		}
		for k := int64(1); k <= id%5; k++ {
			for range k {
				req := &tao.Request{Class: tao.Write, Ops: []tao.Op{{Kind: tao.EdgeAdd, ID1: id, Type: tao.TypeOther, ID2: 100 + k, Time: 10 * k}}}
				if res := execReq(t, step, req); res.Outcome != tao.OK {
					t.Fatalf("edge_add: %v %v", res.Outcome, res.Err)
				}
			}
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	kinds := tao.ReadKinds
	for i := range 200 {
		req := &tao.Request{Class: tao.ReadTxn}
		for range 2 + rng.IntN(24) { // one read alone is not a transaction
			op := tao.Op{Kind: kinds[rng.IntN(len(kinds))], ID1: 1 + rng.Int64N(n+5), Type: tao.TypeOther,
				ID2: 100 + rng.Int64N(6), Limit: rng.IntN(4), Offset: rng.IntN(3), Low: rng.Int64N(30), High: rng.Int64N(60)}
			if rng.IntN(10) == 0 {
				op.Type = tao.TypeUnique // a type with no edges
			}
			req.Ops = append(req.Ops, op)
		}
		before := clientWrites.Load()
		want := execReq(t, step, req)
		stepTrips := clientWrites.Load() - before
		if want.Outcome != tao.OK {
			t.Fatalf("transaction %d: outcome %v (%v) stepwise", i, want.Outcome, want.Err)
		}
		for mode, db := range oneTrip {
			before := clientWrites.Load()
			got := execReq(t, db, req)
			trips := clientWrites.Load() - before
			if got.Outcome != tao.OK {
				t.Fatalf("transaction %d: outcome %v (%v) as %s", i, got.Outcome, got.Err, mode)
			}
			for j := range req.Ops {
				if got.Ops[j] != want.Ops[j] {
					t.Errorf("transaction %d op %d %+v: %+v as %s, %+v stepwise", i, j, req.Ops[j], got.Ops[j], mode, want.Ops[j])
				}
			}
			if trips != 1 {
				t.Errorf("transaction %d of %d reads as %s: %d round trips, want 1", i, len(req.Ops), mode, trips)
			}
			if i == 100 {
				t.Logf("a read transaction of %d reads: %d round trip(s) as %s, %d statement by statement", len(req.Ops), trips, mode, stepTrips)
			}
		}
	}
}

// TestMySQLReadTxnFailure makes the third read of a read transaction fail
// on the server and checks that the request ends in that error and leaves
// no transaction open on the connection.
func TestMySQLReadTxnFailure(t *testing.T) {
	raw := testenv.FreshMySQL(t, testenv.MySQLURL(t))
	db := openCounted(t, raw, "union")
	if err := db.Setup(context.Background(), false); err != nil {
		t.Fatal(err)
	}
	m := db.b.(*myBackend)
	m.branch[sEdgeCount] = strings.Split("(SELECT ?, COUNT(*), 0, 0, '' FROM no_such_table WHERE id1 = ? AND type = ?)", "?")
	res := execReq(t, db, &tao.Request{Class: tao.ReadTxn, Ops: []tao.Op{
		{Kind: tao.ObjRead, ID1: 1},
		{Kind: tao.EdgeRangeRead, ID1: 1, Type: tao.TypeOther},
		{Kind: tao.EdgeCountRead, ID1: 1, Type: tao.TypeOther},
		{Kind: tao.ObjRead, ID1: 2},
	}})
	var my *mysql.MySQLError
	if res.Outcome != tao.Error || !errors.As(res.Err, &my) || my.Number != 1146 {
		t.Fatalf("outcome %v, err %v; want an error 1146 (no such table)", res.Outcome, res.Err)
	}
	var inTxn int64
	if err := m.read.QueryRow("SELECT @@in_transaction").Scan(&inTxn); err != nil {
		t.Skipf("the server has no @@in_transaction (MariaDB's): %v", err)
	}
	if inTxn != 0 {
		t.Error("the failed read transaction was left open on its connection")
	}
}

// TestReadOnlyReasons covers the cases a test cannot make on a shared
// server: a standby, a replica with read_only.
func TestReadOnlyReasons(t *testing.T) {
	if r, _ := pgReadOnlyReason(true, "on"); !strings.Contains(r, "hot standby") {
		t.Errorf("in recovery: %q, want a hot standby", r)
	}
	if r, fix := pgReadOnlyReason(false, "on"); !strings.Contains(r, "default_transaction_read_only") || fix == "" {
		t.Errorf("default_transaction_read_only: %q, %q", r, fix)
	}
	if r, _ := pgReadOnlyReason(false, "off"); r != "" {
		t.Errorf("neither: %q, want no reason", r)
	}
	for vars, want := range map[[2]string]string{
		{"read_only", "ON"}:            "replica",
		{"super_read_only", "ON"}:      "replica",
		{"tidb_super_read_only", "ON"}: "TiDB",
		{"tx_read_only", "ON"}:         "session",
		{"transaction_read_only", "1"}: "session",
		{"read_only", "OFF"}:           "",
	} {
		r, _ := mysqlReadOnlyReason(map[string]string{vars[0]: vars[1]})
		if want == "" && r != "" || !strings.Contains(r, want) {
			t.Errorf("%s = %s: %q, want one saying %q", vars[0], vars[1], r, want)
		}
	}
	if isReadOnlyErr(&mysql.MySQLError{Number: 1142}) {
		t.Error("1142 (a missing privilege) is not a read-only server")
	}
	for _, n := range []uint16{1290, 1836, 1792} {
		if !isReadOnlyErr(fmt.Errorf("x: %w", &mysql.MySQLError{Number: n})) {
			t.Errorf("MySQL error %d is a read-only refusal", n)
		}
	}
}

// BenchmarkMySQLReadTxn runs read transactions of 19 reads (workload o's
// average) from 16 goroutines, each way (readTxnModes). With the server on this machine it also reports the server's
// CPU per transaction (server-us/op, from /proc; TAOBENCH_MYSQLD_PID or
// the oldest mariadbd/mysqld) beside the client's (client-us/op).
//
//	go test -run XXX -bench MySQLReadTxn -benchtime 20000x ./store/sqlstore/
func BenchmarkMySQLReadTxn(b *testing.B) {
	raw := testenv.FreshMySQL(b, testenv.MySQLURL(b))
	pid := serverPID()
	for _, mode := range readTxnModes {
		b.Run(mode, func(b *testing.B) {
			u, _ := url.Parse(raw)
			cfg, err := mysqlConfig(u)
			if err != nil {
				b.Fatal(err)
			}
			conn, _ := mysql.NewConnector(cfg)
			db, err := openMySQLConnector(context.Background(), conn, cfg, raw, "", store.Options{Clients: 16}, false)
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			setMode(db, mode)
			if err := db.Setup(context.Background(), false); err != nil {
				b.Fatal(err)
			}
			const n = 1000
			var objs []tao.Object
			var edges []tao.Edge
			for id := int64(1); id <= n; id++ {
				objs = append(objs, tao.Object{ID: id, Time: id, Value: []byte("some payload of a few dozen bytes, as in workload o")})
				for k := range id % 8 {
					edges = append(edges, tao.Edge{ID1: id, Type: tao.TypeOther, ID2: 10000 + k, Time: k})
				}
			}
			l, err := db.NewLoader(context.Background())
			if err != nil {
				b.Fatal(err)
			}
			if err := l.Load(context.Background(), objs, edges); err != nil {
				b.Fatal(err)
			}
			l.Close()
			var seed atomic.Uint64
			srv0, cli0 := procCPU(pid), selfCPU()
			b.SetParallelism(16 / max(1, runtime.GOMAXPROCS(0)))
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				rng := rand.New(rand.NewPCG(seed.Add(1), 7))
				req := &tao.Request{Class: tao.ReadTxn, Ops: make([]tao.Op, 19)}
				var res tao.Result
				for pb.Next() {
					for i := range req.Ops {
						id := 1 + rng.Int64N(n)
						switch i % 4 {
						case 0, 1:
							req.Ops[i] = tao.Op{Kind: tao.ObjRead, ID1: id}
						case 2:
							req.Ops[i] = tao.Op{Kind: tao.EdgePointRead, ID1: id, Type: tao.TypeOther, ID2: 10000 + rng.Int64N(8)}
						default:
							req.Ops[i] = tao.Op{Kind: tao.EdgeRangeRead, ID1: id, Type: tao.TypeOther, Limit: 10}
						}
					}
					res.Reset(len(req.Ops))
					db.Exec(context.Background(), req, &res)
					if res.Outcome != tao.OK {
						b.Errorf("outcome %v: %v", res.Outcome, res.Err)
						return
					}
				}
			})
			b.StopTimer()
			b.ReportMetric(float64((selfCPU()-cli0).Microseconds())/float64(b.N), "client-us/op")
			if pid > 0 {
				b.ReportMetric(float64((procCPU(pid)-srv0).Microseconds())/float64(b.N), "server-us/op")
			}
		})
	}
}

// serverPID is the local MySQL-protocol server's process id, or 0.
func serverPID() int {
	if v, err := strconv.Atoi(os.Getenv("TAOBENCH_MYSQLD_PID")); err == nil {
		return v
	}
	for _, name := range []string{"mariadbd", "mysqld"} {
		out, err := exec.Command("pgrep", "-o", "-x", name).Output()
		if v, err2 := strconv.Atoi(strings.TrimSpace(string(out))); err == nil && err2 == nil {
			return v
		}
	}
	return 0
}

// selfCPU is the user plus system time this process has used.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// procCPU is the user plus system time process pid has used.
func procCPU(pid int) time.Duration {
	if pid <= 0 {
		return 0
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:]) // fields from the 3rd on
	if len(f) < 13 {
		return 0
	}
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * time.Second / 100 // USER_HZ is 100 on Linux
}

// TestUnionText checks the text of a UNION ALL read transaction: integers
// only, each read tagged with its index; any other argument is refused.
func TestUnionText(t *testing.T) {
	m := newMyBackend(&sqlBackend{d: mysqlDialect()})
	q := myText{m: m}
	if err := q.add(sObjGet, []any{int64(-7)}); err != nil {
		t.Fatal(err)
	}
	if err := q.add(sEdgeRange, []any{int64(3), int64(2), 10, 0}); err != nil {
		t.Fatal(err)
	}
	want := "(SELECT 0, version, timestamp, 0, value FROM objects WHERE id = -7) UNION ALL " +
		"(SELECT 1, id2, timestamp, version, value FROM edges WHERE id1 = 3 AND type = 2 ORDER BY timestamp DESC LIMIT 10 OFFSET 0)"
	if string(q.buf) != want {
		t.Errorf("text\n%s\nwant\n%s", q.buf, want)
	}
	for _, args := range [][]any{{"1 OR 1=1"}, {[]byte("1")}, {1.5}, {}, {int64(1), int64(2)}} {
		if err := (&myText{m: m}).add(sObjGet, args); err == nil {
			t.Errorf("arguments %#v were spelled into the text", args)
		}
	}
	if err := (&myText{m: m}).add(sObjCheck, []any{int64(1)}); err == nil {
		t.Error("a locking check was put into a read transaction")
	}
}

// TestMySQLWritesOption: the URL's writes option is taobench's, never
// passed to the driver (which would set it as a session variable), and
// other parameters pass as written; an unknown value is refused naming
// the option and its values; writes=procedures on a server other than
// MariaDB is refused at open.
func TestMySQLWritesOption(t *testing.T) {
	for raw, want := range map[string]bool{
		"mysql://u@h/db": false, "mysql://u@h/db?writes=statements": false,
		"mysql://u@h/db?innodb_lock_wait_timeout=5&writes=procedures&time_zone=%27%2B00%3A00%27": true,
	} {
		u, _ := url.Parse(raw)
		procs, err := mysqlWrites(u)
		if err != nil || procs != want {
			t.Errorf("%s: procedures %v (%v), want %v", raw, procs, err, want)
		}
		cfg, err := mysqlConfig(u)
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		if _, ok := cfg.Params["writes"]; ok {
			t.Errorf("%s: writes passed to the driver: %v", raw, cfg.Params)
		}
		if want && (cfg.Params["innodb_lock_wait_timeout"] != "5" || cfg.Params["time_zone"] != "'+00:00'") {
			t.Errorf("%s: the other parameters changed: %v", raw, cfg.Params)
		}
	}
	u, _ := url.Parse("mysql://u@h/db?writes=often")
	if _, err := mysqlWrites(u); err == nil || !strings.Contains(err.Error(), "writes=often") || !strings.Contains(err.Error(), "writes=procedures") {
		t.Errorf("writes=often: %v, want an error naming it and the values", err)
	}
	f := &fakeServer{version: "8.0.11-TiDB-v7.5.1"}
	_, err := openMySQLConnector(context.Background(), f, mysql.NewConfig(), "mysql://fake/db", "", store.Options{Clients: 2}, true)
	if err == nil || !strings.Contains(err.Error(), "writes=procedures is for MariaDB") {
		t.Errorf("writes=procedures on TiDB: %v, want a refusal", err)
	}
	if f.sent("PROCEDURE") || f.sent("CREATE DATABASE") {
		t.Errorf("writes=procedures on TiDB created something: %q", f.log)
	}
}
