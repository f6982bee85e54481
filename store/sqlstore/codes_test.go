package sqlstore_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/taobench/taobench/internal/testenv"
	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/tao"
)

// TestConflictCodes: a write that waits for a row another write holds
// longer than the store's lock wait (1 s) ends in conflict_object and
// keeps the database's own code: PostgreSQL's SQLSTATE 55P03
// (lock_not_available, lock_timeout) and MariaDB's 1205 (lock wait timeout
// exceeded), so results can tell it from a deadlock (40P01, 1213).
func TestConflictCodes(t *testing.T) {
	t.Run("postgres", func(t *testing.T) {
		conflictCode(t, open(t, testenv.FreshPostgres(t, testenv.PostgresURL(t))), "55P03")
	})
	t.Run("mysql", func(t *testing.T) {
		conflictCode(t, open(t, testenv.FreshMySQL(t, testenv.MySQLURL(t))), "1205")
	})
}

func conflictCode(t *testing.T, db store.Database, want string) {
	t.Cleanup(func() { db.Close() })
	ctx := context.Background()
	if err := db.Setup(ctx, false); err != nil {
		t.Fatal(err)
	}
	const id = 7
	upd := func(ts int64) tao.Op { return tao.Op{Kind: tao.ObjUpdate, ID1: id, Time: ts, Payload: []byte("x")} }
	var res tao.Result
	res.Reset(1)
	db.Exec(ctx, &tao.Request{Class: tao.Write, Ops: []tao.Op{{Kind: tao.ObjAdd, ID1: id, Time: 1, Payload: []byte("a")}}}, &res)
	if res.Outcome != tao.OK {
		t.Fatalf("adding the object: %v (%v)", res.Outcome, res.Err)
	}

	// The holder keeps its row lock 3 s, well past the 1 s lock wait. On a
	// loaded machine the second write may reach the row before the holder:
	// it then succeeds, and the test waits longer before it, again.
	for wait := 300 * time.Millisecond; ; wait *= 2 {
		held := make(chan tao.Result, 1)
		go func() {
			var r tao.Result
			r.Reset(1)
			db.Exec(ctx, &tao.Request{Class: tao.Write, Ops: []tao.Op{upd(2)}, Hold: 3 * time.Second}, &r)
			held <- r
		}()
		time.Sleep(wait)
		res.Reset(1)
		db.Exec(ctx, &tao.Request{Class: tao.Write, Ops: []tao.Op{upd(3)}}, &res)
		if h := <-held; h.Outcome != tao.OK {
			t.Fatalf("the holder: %v (%v)", h.Outcome, h.Err)
		}
		if res.Outcome != tao.OK || wait > 2*time.Second {
			break
		}
		t.Logf("the second write went first after %v: again, waiting longer", wait)
	}
	if res.Outcome != tao.ConflictObject || res.Code != want {
		t.Errorf("a write waiting past the lock wait: outcome %v, code %q (%v); want conflict_object, code %s", res.Outcome, res.Code, res.Err, want)
	}
	// A request that succeeds keeps no code.
	res.Reset(1)
	db.Exec(ctx, &tao.Request{Class: tao.Write, Ops: []tao.Op{upd(4)}}, &res)
	if res.Outcome != tao.OK || res.Code != "" {
		t.Errorf("a write after the hold: outcome %v, code %q; want ok and no code", res.Outcome, res.Code)
	}
}

// TestServerProduct: the live servers name themselves in ServerStats, so
// results say which database answered, not only which protocol.
func TestServerProduct(t *testing.T) {
	for _, c := range []struct {
		name, prefix string
		url          func(t *testing.T) string
	}{
		{"sqlite", "SQLite 3.", func(t *testing.T) string { return "sqlite:" + t.TempDir() + "/p.db" }},
		{"postgres", "PostgreSQL ", func(t *testing.T) string { return testenv.FreshPostgres(t, testenv.PostgresURL(t)) }},
		{"mysql", "MariaDB ", func(t *testing.T) string { return testenv.FreshMySQL(t, testenv.MySQLURL(t)) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			db := open(t, c.url(t))
			defer db.Close()
			if err := db.Setup(context.Background(), false); err != nil {
				t.Fatal(err)
			}
			st, err := db.(store.StatsReader).ServerStats(context.Background())
			if err != nil || !strings.HasPrefix(st.Product, c.prefix) || st.Engine != c.name {
				t.Errorf("ServerStats: engine %q, product %q, %v; want %s, %s...", st.Engine, st.Product, err, c.name, c.prefix)
			}
		})
	}
}
