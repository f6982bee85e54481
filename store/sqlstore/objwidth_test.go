package sqlstore_test

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/taobench/taobench/bulkload"
	"github.com/taobench/taobench/graph"
	"github.com/taobench/taobench/internal/testenv"
	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/workload"
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

// TestNarrowObjectsNamesTheFix: a database whose objects.value an older
// taobench created at VARCHAR(150) refuses tao's objects at load on
// PostgreSQL, and the error says to load again with --drop; MySQL's load
// cuts them to 150 B, which the object size row of validate --db fails.
func TestNarrowObjectsNamesTheFix(t *testing.T) {
	ctx := context.Background()
	w, err := workload.Builtin("tao")
	if err != nil {
		t.Fatal(err)
	}
	g, err := graph.New(w, 1, 2000)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"postgres", "mysql"} {
		t.Run(name, func(t *testing.T) {
			var raw string
			var narrow func()
			switch name {
			case "postgres":
				raw = testenv.FreshPostgres(t, testenv.PostgresURL(t))
				narrow = func() {
					c, err := pgx.Connect(ctx, raw)
					if err != nil {
						t.Fatal(err)
					}
					defer c.Close(ctx)
					if _, err := c.Exec(ctx, "ALTER TABLE objects ALTER COLUMN value TYPE VARCHAR(150)"); err != nil {
						t.Fatal(err)
					}
				}
			case "mysql":
				raw = testenv.FreshMySQL(t, testenv.MySQLURL(t))
				narrow = func() {
					admin, u := testenv.MySQLAdmin(t, raw)
					if _, err := admin.Exec("ALTER TABLE `" + strings.TrimPrefix(u.Path, "/") + "`.objects MODIFY value VARCHAR(150) NOT NULL"); err != nil {
						t.Fatal(err)
					}
				}
			}
			db := open(t, raw)
			defer db.Close()
			if err := db.Setup(ctx, false); err != nil {
				t.Fatal(err)
			}
			narrow()
			_, err := bulkload.Load(ctx, db, g, g.Meta(w), bulkload.Options{})
			if name == "mysql" {
				// The MySQL load's INSERT IGNORE turns "data too long"
				// into a warning and cuts the values: no error, but
				// validate --db's "object bytes (mean)" sees them.
				if err != nil {
					t.Fatal(err)
				}
				inv, _ := db.(store.Inspector).Inspect(ctx)
				if m := float64(inv.ObjectValueBytes) / float64(inv.ObjectValues); m > 150 {
					t.Errorf("objects cut to VARCHAR(150) average %.1f B", m)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), "--drop") {
				t.Fatalf("loading tao into VARCHAR(150) objects: %v; want an error naming --drop", err)
			}
			t.Log(err)
		})
	}
}
