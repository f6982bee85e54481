package sqlstore

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/taobench/taobench/internal/testenv"
	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/tao"
)

// TestPgFastPath runs the same single reads through the store, where
// they go through pgfast.go, and through a second store on the same
// database whose URL asks pgx for no named prepared statements, where pgx
// runs them: every outcome, version and row count must agree, over found
// and missing keys, counts and range reads with offsets and time bounds.
// It also checks that the reads did take the fast path (their statements
// are prepared on a connection), and that a statement whose result type
// changed under it (a column's type altered) is prepared again and
// answers with the new type.
func TestPgFastPath(t *testing.T) {
	ctx := context.Background()
	const n = 300
	var objs []tao.Object
	var edges []tao.Edge
	for id := int64(1); id <= n; id++ {
		objs = append(objs, tao.Object{ID: id, Time: id, Value: []byte("v")})
		for k := range id % 12 {
			edges = append(edges, tao.Edge{ID1: id, Type: tao.TypeOther, ID2: 1000 + k, Time: 10 * k, Value: []byte("e")})
		}
	}
	raw := testenv.FreshPostgres(t, testenv.PostgresURL(t))
	db := openLoadedURL(t, raw, objs, edges)
	plain, err := store.Default.Open(ctx, withParams(raw, "default_query_exec_mode=exec"), store.Options{Clients: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	// Versions other than 1, so a version read from the wrong column shows.
	b := db.b.(*pgBackend)
	if _, err := b.pool.Exec(ctx, "UPDATE objects SET version = id * 7 WHERE id % 3 = 0"); err != nil {
		t.Fatal(err)
	}
	if _, err := b.pool.Exec(ctx, "UPDATE edges SET version = id2 + id1 WHERE id1 % 2 = 0"); err != nil {
		t.Fatal(err)
	}

	rng := rand.New(rand.NewPCG(3, 9))
	ops := func() tao.Op {
		id := 1 + rng.Int64N(n+20) // some past the last object
		switch rng.IntN(5) {
		case 0:
			return tao.Op{Kind: tao.ObjRead, ID1: id}
		case 1:
			return tao.Op{Kind: tao.EdgePointRead, ID1: id, Type: tao.TypeOther, ID2: 1000 + rng.Int64N(14)}
		case 2:
			return tao.Op{Kind: tao.EdgeRangeRead, ID1: id, Type: tao.TypeOther, Limit: 1 + rng.IntN(8), Offset: rng.IntN(5)}
		case 3:
			return tao.Op{Kind: tao.EdgeCountRead, ID1: id, Type: tao.TypeOther}
		default:
			lo := rng.Int64N(100)
			return tao.Op{Kind: tao.EdgeTimeRead, ID1: id, Type: tao.TypeOther, Low: lo, High: lo + rng.Int64N(60), Limit: 1 + rng.IntN(6)}
		}
	}
	run := func(db store.Store, op tao.Op) tao.Result {
		var res tao.Result
		res.Reset(1)
		db.Exec(ctx, &tao.Request{Class: tao.Read, Ops: []tao.Op{op}}, &res)
		if res.Err != nil {
			t.Fatalf("%+v: %v", op, res.Err)
		}
		return res
	}
	var found, missing, rows, versions int
	for range 2000 {
		op := ops()
		a, w := run(db, op), run(plain, op)
		if a.Outcome != w.Outcome || a.Ops[0] != w.Ops[0] {
			t.Fatalf("%+v: the fast path gave %v %+v, pgx %v %+v", op, a.Outcome, a.Ops[0], w.Outcome, w.Ops[0])
		}
		switch {
		case a.Outcome == tao.NotFound:
			missing++
		case a.Ops[0].Rows > 1:
			rows++
		case a.Ops[0].Version > 1:
			versions++
		}
		if a.Outcome == tao.OK {
			found++
		}
	}
	if found < 500 || missing < 100 || rows < 200 || versions < 50 {
		t.Fatalf("too few cases to compare: %d found, %d missing, %d with rows, %d with versions above 1", found, missing, rows, versions)
	}
	for _, s := range []stmt{sObjGet, sEdgeGet, sEdgeRange, sEdgeCount, sEdgeTime} {
		if fastPrepared(t, db, int(s)) == 0 {
			t.Errorf("statement %d was not prepared by the fast path on any connection", s)
		}
	}

	// The version column becomes int4: a statement prepared before now
	// returns another type, which the server refuses until it is prepared
	// again.
	if _, err := b.pool.Exec(ctx, "ALTER TABLE objects ALTER COLUMN version TYPE int4"); err != nil {
		t.Fatal(err)
	}
	for id := int64(3); id <= 30; id += 3 {
		res := run(db, tao.Op{Kind: tao.ObjRead, ID1: id})
		if res.Outcome != tao.OK || res.Ops[0].Version != id*7 {
			t.Fatalf("object %d after the type change: %v version %d, want version %d", id, res.Outcome, res.Ops[0].Version, id*7)
		}
	}
}

// TestPgFastEncode checks the parameters' binary encoding at each width's
// limits, and that a value outside its parameter's range, or a parameter
// type the fast path does not write, leaves the statement to pgx.
func TestPgFastEncode(t *testing.T) {
	var f pgFastConn
	oids := []uint32{pgtype.Int8OID, pgtype.Int4OID, pgtype.Int2OID, pgtype.Int8OID}
	if !f.encode(oids, []int64{-2, 2147483647, -32768, 1 << 40}) {
		t.Fatal("encode refused values within range")
	}
	want := [][]byte{
		{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe},
		{0x7f, 0xff, 0xff, 0xff},
		{0x80, 0x00},
		{0, 0, 0x01, 0, 0, 0, 0, 0},
	}
	if len(f.params) != len(want) {
		t.Fatalf("%d parameters, want %d", len(f.params), len(want))
	}
	for i := range want {
		if !bytes.Equal(f.params[i], want[i]) {
			t.Errorf("parameter %d: % x, want % x", i, f.params[i], want[i])
		}
	}
	for _, c := range []struct {
		oids []uint32
		args []any
	}{
		{[]uint32{pgtype.Int4OID}, []any{int64(2147483648)}},
		{[]uint32{pgtype.Int2OID}, []any{-32769}},
		{[]uint32{pgtype.TextOID}, []any{int64(1)}},
		{[]uint32{pgtype.Int8OID}, []any{"1"}},
		{[]uint32{pgtype.Int8OID, pgtype.Int8OID}, []any{int64(1)}},
	} {
		if a, ok := toInts(c.args); ok && f.encode(c.oids, a.ints()) {
			t.Errorf("encode(%v, %v) accepted what pgx must encode or refuse", c.oids, c.args)
		}
	}
}

// TestPgFastPathOff: a URL that asks pgx for no named prepared statements
// (default_query_exec_mode, as PgBouncer's transaction pooling needs) gets
// none from the fast path either, and its reads still answer.
func TestPgFastPathOff(t *testing.T) {
	ctx := context.Background()
	db := openLoaded(t, "default_query_exec_mode=simple_protocol", []tao.Object{{ID: 5, Time: 1, Value: []byte("v")}}, nil)
	for _, id := range []int64{5, 6} {
		var res tao.Result
		res.Reset(1)
		db.Exec(ctx, &tao.Request{Class: tao.Read, Ops: []tao.Op{{Kind: tao.ObjRead, ID1: id}}}, &res)
		if want := map[int64]tao.Outcome{5: tao.OK, 6: tao.NotFound}[id]; res.Outcome != want || res.Err != nil {
			t.Fatalf("object %d: %v %v, want %v", id, res.Outcome, res.Err, want)
		}
	}
	b := db.b.(*pgBackend)
	var named int
	if err := b.pool.QueryRow(ctx, "SELECT count(*) FROM pg_prepared_statements").Scan(&named); err != nil {
		t.Fatal(err)
	}
	for k := range numFast {
		if fastPrepared(t, db, k) != 0 {
			t.Errorf("statement %d was prepared by the fast path under simple_protocol", k)
		}
	}
	if named != 0 {
		t.Errorf("%d named prepared statements on a connection under simple_protocol", named)
	}
}

// openLoaded opens a fresh PostgreSQL database with the URL parameters
// params (may be empty), sets it up and loads objs and edges into it.
func openLoaded(t *testing.T, params string, objs []tao.Object, edges []tao.Edge) *DB {
	t.Helper()
	return openLoadedURL(t, withParams(testenv.FreshPostgres(t, testenv.PostgresURL(t)), params), objs, edges)
}

// withParams returns raw with the URL parameters params (may be empty)
// added.
func withParams(raw, params string) string {
	switch {
	case params == "":
		return raw
	case strings.Contains(raw, "?"):
		return raw + "&" + params
	}
	return raw + "?" + params
}

// fastPrepared returns on how many of db's idle connections the fast path
// has prepared its statement k.
func fastPrepared(t *testing.T, db *DB, k int) int {
	t.Helper()
	n := 0
	for _, c := range db.b.(*pgBackend).pool.AcquireAllIdle(context.Background()) {
		if f, _ := c.Conn().PgConn().CustomData()[fastKey].(*pgFastConn); f != nil && f.sd[k] != nil {
			n++
		}
		c.Release()
	}
	return n
}

// openLoadedURL opens the PostgreSQL database at raw, sets it up and
// loads objs and edges into it.
func openLoadedURL(t *testing.T, raw string, objs []tao.Object, edges []tao.Edge) *DB {
	t.Helper()
	ctx := context.Background()
	s, err := store.Default.Open(ctx, raw, store.Options{Clients: 4})
	if err != nil {
		t.Fatal(err)
	}
	db := s.(*DB)
	t.Cleanup(func() { db.Close() })
	if err := db.Setup(ctx, false); err != nil {
		t.Fatal(err)
	}
	l, err := db.NewLoader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := l.Load(ctx, objs, edges); err != nil {
		t.Fatal(err)
	}
	return db
}

// TestPgFastPathEnds: a fast-path read its context's end
// interrupts mid-answer (it waits for a lock another session holds) ends
// with the context's error at once, and its connection, left mid-answer,
// is not used again: the next read on the pool's one connection gets its
// own answer, not the interrupted read's.
func TestPgFastPathEnds(t *testing.T) {
	ctx := context.Background()
	// lock_timeout well past the test's wait: the read ends by its
	// context or not at all.
	db := openLoaded(t, "pool_max_conns=1&lock_timeout=60s", []tao.Object{{ID: 5, Time: 1, Value: []byte("v")}}, nil)
	b := db.b.(*pgBackend)
	read := func(c context.Context, id int64) tao.Result {
		var res tao.Result
		res.Reset(1)
		db.Exec(c, &tao.Request{Class: tao.Read, Ops: []tao.Op{{Kind: tao.ObjRead, ID1: id}}}, &res)
		return res
	}
	w1, cancel1 := context.WithCancel(ctx)
	defer cancel1()
	if res := read(w1, 5); res.Outcome != tao.OK { // prepares the statement on the one connection
		t.Fatalf("object 5: %v %v", res.Outcome, res.Err)
	}

	cc := b.pool.Config().ConnConfig.Copy()
	locker, err := pgx.ConnectConfig(ctx, cc)
	if err != nil {
		t.Fatal(err)
	}
	defer locker.Close(ctx)
	tx, err := locker.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "LOCK TABLE objects IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(200*time.Millisecond, cancel1)
	start := time.Now()
	res := read(w1, 5)
	if !errors.Is(res.Err, context.Canceled) || time.Since(start) > 20*time.Second {
		t.Fatalf("the read waiting for the lock: %v %v after %v, want context.Canceled at once", res.Outcome, res.Err, time.Since(start))
	}
	if err := tx.Rollback(ctx); err != nil { // the server now answers the interrupted read
		t.Fatal(err)
	}

	w2, cancel2 := context.WithCancel(ctx)
	defer cancel2()
	for _, c := range []struct {
		id   int64
		want tao.Outcome
	}{{6, tao.NotFound}, {5, tao.OK}, {7, tao.NotFound}} {
		if res := read(w2, c.id); res.Outcome != c.want || res.Err != nil {
			t.Fatalf("object %d after the interrupted read: %v %v, want %v", c.id, res.Outcome, res.Err, c.want)
		}
	}
}

// TestPgConnLifetime: the store's connections live as long as it does
// (pgxpool's default would reconnect every hour, mid-run), unless the URL
// sets pool_max_conn_lifetime, which is the user's to choose.
func TestPgConnLifetime(t *testing.T) {
	for params, want := range map[string]time.Duration{"": 0, "pool_max_conn_lifetime=7m": 7 * time.Minute} {
		db := openLoaded(t, params, nil, nil)
		if got := db.b.(*pgBackend).pool.Config().MaxConnLifetime; got != want {
			t.Errorf("URL parameters %q: connections live %v, want %v", params, got, want)
		}
	}
}

// TestPgFastPathServerGone: when the server ends the connection
// (pg_terminate_backend: a FATAL error response, on which pgconn closes
// the connection and returns the error from ReceiveMessage), the fast
// path's read reports the server's error with its code, as pgx does, and
// the next read runs on a new connection. It fails if fastBroken loses the
// error it was given.
func TestPgFastPathServerGone(t *testing.T) {
	ctx := context.Background()
	db := openLoaded(t, "pool_max_conns=1", []tao.Object{{ID: 5, Time: 1, Value: []byte("v")}}, nil)
	b := db.b.(*pgBackend)
	w, cancel := context.WithCancel(ctx)
	defer cancel()
	read := func() tao.Result {
		var res tao.Result
		res.Reset(1)
		db.Exec(w, &tao.Request{Class: tao.Read, Ops: []tao.Op{{Kind: tao.ObjRead, ID1: 5}}}, &res)
		return res
	}
	if res := read(); res.Outcome != tao.OK {
		t.Fatalf("object 5: %v %v", res.Outcome, res.Err)
	}
	var pid uint32
	if err := b.pool.AcquireFunc(ctx, func(c *pgxpool.Conn) error {
		pid = c.Conn().PgConn().PID()
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	cc := b.pool.Config().ConnConfig.Copy()
	admin, err := pgx.ConnectConfig(ctx, cc)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, "SELECT pg_terminate_backend($1::int, 10000)", int64(pid)); err != nil {
		t.Fatal(err)
	}
	res := read()
	var pe *pgconn.PgError
	if !errors.As(res.Err, &pe) || pe.Code != "57P01" {
		t.Fatalf("the read on the terminated connection: %v %v, want the server's 57P01 (admin_shutdown)", res.Outcome, res.Err)
	}
	if res := read(); res.Outcome != tao.OK || res.Err != nil {
		t.Fatalf("the read after: %v %v, want ok on a new connection", res.Outcome, res.Err)
	}
}

// TestPgFastPathTLS: over TLS the fast path runs as on a plain socket
// (pgconn reads and writes the TLS connection) and answers as pgx does.
func TestPgFastPathTLS(t *testing.T) {
	ctx := context.Background()
	raw := testenv.FreshPostgres(t, testenv.PostgresURL(t))
	if strings.Contains(raw, "sslmode=") {
		raw = regexp.MustCompile(`sslmode=[a-z-]*`).ReplaceAllString(raw, "sslmode=require")
	} else if strings.Contains(raw, "?") {
		raw += "&sslmode=require"
	} else {
		raw += "?sslmode=require"
	}
	probe, err := pgx.Connect(ctx, raw)
	if err != nil {
		t.Skipf("the server does not take TLS connections: %v", err)
	}
	probe.Close(ctx)
	db := openLoadedURL(t, raw, []tao.Object{{ID: 5, Time: 1, Value: []byte("v")}}, nil)
	for _, id := range []int64{5, 6, 5} {
		var res tao.Result
		res.Reset(1)
		db.Exec(ctx, &tao.Request{Class: tao.Read, Ops: []tao.Op{{Kind: tao.ObjRead, ID1: id}}}, &res)
		if want := map[int64]tao.Outcome{5: tao.OK, 6: tao.NotFound}[id]; res.Outcome != want || res.Err != nil {
			t.Fatalf("object %d over TLS: %v %v, want %v", id, res.Outcome, res.Err, want)
		}
	}
	if fastPrepared(t, db, int(sObjGet)) == 0 {
		t.Error("no connection prepared the object read for the fast path: the reads went through pgx")
	}
}
