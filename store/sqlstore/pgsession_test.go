package sqlstore

import (
	"context"
	"testing"

	"github.com/taobench/taobench/tao"
)

// TestPgSession: the store's settings (single statements at REPEATABLE
// READ, lock_timeout 1 s) are on every connection, yet none is a startup
// parameter, which PgBouncer refuses ("unsupported startup parameter");
// the URL's own are sent as it says and not overridden; transactions name
// their isolation. In the modes where pgx names no parameter type (exec,
// simple_protocol: behind a pooler) a payload is stored as its text, not
// as bytea's hex form.
func TestPgSession(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		params, isolation, lockTimeout string
	}{
		{"", "repeatable read", "1s"},
		{"default_query_exec_mode=exec", "repeatable read", "1s"},
		{"default_query_exec_mode=simple_protocol", "repeatable read", "1s"},
		{"default_transaction_isolation=serializable&lock_timeout=7s", "serializable", "7s"},
	} {
		db := openLoaded(t, c.params, nil, nil)
		b := db.b.(*pgBackend)
		rp := b.pool.Config().ConnConfig.RuntimeParams
		if c.params == "" {
			for _, k := range []string{"default_transaction_isolation", "lock_timeout"} {
				if _, set := rp[k]; set {
					t.Errorf("%s is a startup parameter", k)
				}
			}
		}
		if got := show(t, b.pool, "default_transaction_isolation"); got != c.isolation {
			t.Errorf("URL %q: default_transaction_isolation %q, want %q", c.params, got, c.isolation)
		}
		if got := show(t, b.pool, "lock_timeout"); got != c.lockTimeout {
			t.Errorf("URL %q: lock_timeout %q, want %q", c.params, got, c.lockTimeout)
		}
		if c.isolation == "repeatable read" && b.txBegin != "begin isolation level repeatable read" {
			t.Errorf("URL %q: transactions begin with %q", c.params, b.txBegin)
		}
		var res tao.Result
		res.Reset(2)
		db.Exec(ctx, &tao.Request{Class: tao.WriteTxn, Ops: []tao.Op{
			{Kind: tao.ObjAdd, ID1: 7, Time: 1, Payload: []byte("seven")},
			{Kind: tao.EdgeAdd, ID1: 7, Type: tao.TypeOther, ID2: 8, Time: 1, Payload: []byte("to eight")},
		}}, &res)
		if res.Outcome != tao.OK {
			t.Fatalf("URL %q: write: %v %v", c.params, res.Outcome, res.Err)
		}
		var obj, edge string
		if err := b.pool.QueryRow(ctx, "SELECT (SELECT value FROM objects WHERE id = 7), (SELECT value FROM edges WHERE id1 = 7)").Scan(&obj, &edge); err != nil {
			t.Fatal(err)
		}
		if obj != "seven" || edge != "to eight" {
			t.Errorf("URL %q: stored %q and %q, want \"seven\" and \"to eight\"", c.params, obj, edge)
		}
	}
}
