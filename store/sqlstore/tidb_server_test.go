package sqlstore_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/taobench/taobench/internal/testenv"
	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/tao"
)

// TestTiDB runs against a real TiDB when TAOBENCH_TIDB names one (a
// mysql:// URL of a user who may create databases; bench/cluster/tidb
// starts one). It is not part of CI: building tidb-server from its module
// takes longer than a CI run may. It provokes an optimistic write conflict
// and finds it twice: as the client's 9007 and in the server's own
// counters, read from the tidb-server's status port.
func TestTiDB(t *testing.T) {
	admin := os.Getenv("TAOBENCH_TIDB")
	if admin == "" {
		t.Skip("TAOBENCH_TIDB is not set (a TiDB server's mysql:// URL; bench/cluster/tidb starts one)")
	}
	u := testenv.FreshMySQL(t, admin)
	if strings.Contains(u, "?") {
		u += "&tidb_txn_mode=optimistic"
	} else {
		u += "?tidb_txn_mode=optimistic"
	}
	db := open(t, u)
	t.Cleanup(func() { db.Close() })
	ctx := context.Background()
	if err := db.Setup(ctx, false); err != nil {
		t.Fatal(err)
	}
	sr := db.(store.StatsReader)
	before, err := sr.ServerStats(ctx)
	if err != nil {
		t.Fatalf("the server's counters: %v", err)
	}
	if !strings.HasPrefix(before.Product, "TiDB") || before.Counters["tidb_queries_ok"] == 0 {
		t.Fatalf("product %q, counters %v: want TiDB's, with statements answered", before.Product, before.Counters)
	}

	const id = 7
	var res tao.Result
	res.Reset(1)
	db.Exec(ctx, &tao.Request{Class: tao.Write, Ops: []tao.Op{{Kind: tao.ObjAdd, ID1: id, Time: 1, Payload: []byte("a")}}}, &res)
	if res.Outcome != tao.OK {
		t.Fatalf("adding the object: %v (%v)", res.Outcome, res.Err)
	}
	// Optimistic: the holder's update meets the other's committed one at
	// its own commit, and loses with 9007.
	upd := func(ts int64) tao.Op { return tao.Op{Kind: tao.ObjUpdate, ID1: id, Time: ts, Payload: []byte("x")} }
	held := make(chan tao.Result, 1)
	go func() {
		var r tao.Result
		r.Reset(1)
		db.Exec(ctx, &tao.Request{Class: tao.Write, Ops: []tao.Op{upd(2)}, Hold: 2 * time.Second}, &r)
		held <- r
	}()
	time.Sleep(500 * time.Millisecond)
	res.Reset(1)
	db.Exec(ctx, &tao.Request{Class: tao.Write, Ops: []tao.Op{upd(3)}}, &res)
	h := <-held
	if res.Outcome != tao.OK || h.Outcome != tao.ConflictObject || h.Code != "9007" {
		t.Fatalf("second writer %v (%v); holder %v, code %q (%v); want ok, and conflict_object with 9007", res.Outcome, res.Err, h.Outcome, h.Code, h.Err)
	}
	after, err := sr.ServerStats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"tidb_execute_error_kv:9007", "tidb_txn_optimistic_abort"} {
		if d := after.Counters[k] - before.Counters[k]; d < 1 {
			t.Errorf("%s grew by %d across a conflict the client saw", k, d)
		}
	}
}
