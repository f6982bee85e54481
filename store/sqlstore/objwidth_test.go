package sqlstore_test

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/taobench/taobench/internal/testenv"
	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/tao"
)

// TestObjectValuesHoldTAOSizes: objects.value holds the tao workload's
// object sizes (TAO §7, Fig. 6: 673 B mean, up to 4096 B), in single
// writes and in write transactions (MariaDB's stored procedures
// included), where the original VARCHAR(150) made PostgreSQL and MySQL
// in strict mode refuse them; edges keep 150.
func TestObjectValuesHoldTAOSizes(t *testing.T) {
	urls := map[string]func(t *testing.T) string{
		"sqlite":   func(t *testing.T) string { return "sqlite:" + filepath.Join(t.TempDir(), "w.db") },
		"postgres": func(t *testing.T) string { return testenv.FreshPostgres(t, testenv.PostgresURL(t)) },
		"mysql":    func(t *testing.T) string { return testenv.FreshMySQL(t, testenv.MySQLURL(t)) },
		"mariadb procedures": func(t *testing.T) string {
			return testenv.FreshMySQL(t, testenv.MySQLURL(t)) + "?writes=procedures"
		},
	}
	for _, name := range []string{"sqlite", "postgres", "mysql", "mariadb procedures"} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			db := open(t, urls[name](t))
			defer db.Close()
			if err := db.Setup(ctx, false); err != nil {
				t.Fatal(err)
			}
			big, mid := bytes.Repeat([]byte("x"), 4096), bytes.Repeat([]byte("y"), 673)
			a, b := tao.ID(1, 7), tao.ID(2, 9)
			for _, req := range []*tao.Request{
				{Class: tao.Write, Ops: []tao.Op{{Kind: tao.ObjAdd, ID1: a, Time: 1, Payload: big}}},
				{Class: tao.WriteTxn, Ops: []tao.Op{{Kind: tao.ObjAdd, ID1: b, Time: 1, Payload: mid},
					{Kind: tao.ObjUpdate, ID1: a, Time: 2, Payload: big}}},
				{Class: tao.Write, Ops: []tao.Op{{Kind: tao.ObjUpdate, ID1: b, Time: 3, Payload: big}}},
			} {
				var res tao.Result
				res.Reset(len(req.Ops))
				db.Exec(ctx, req, &res)
				if res.Outcome != tao.OK {
					t.Fatalf("%v of objects of %d B: %v (%v, code %q)", req.Class, len(req.Ops[0].Payload), res.Outcome, res.Err, res.Code)
				}
			}
			if n := objectBytes(t, db); n != 2*4096 {
				t.Errorf("objects hold %d bytes, want %d", n, 2*4096)
			}
		})
	}
}

// objectBytes is the bytes of every stored object value, as the database
// counts them for validate --db.
func objectBytes(t *testing.T, db store.Database) int64 {
	t.Helper()
	inv, ok := db.(store.Inspector)
	if !ok {
		t.Skip("the store counts no inventory")
	}
	x, err := inv.Inspect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return x.ObjectValueBytes
}
