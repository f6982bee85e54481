package sqlstore_test

import (
	"context"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taobench/taobench/internal/testenv"
	"github.com/taobench/taobench/store"
	_ "github.com/taobench/taobench/store/sqlstore"
	"github.com/taobench/taobench/store/storetest"
)

func open(t *testing.T, raw string) store.Database {
	t.Helper()
	s, err := store.Default.Open(context.Background(), raw, store.Options{Clients: 32})
	if err != nil {
		t.Fatalf("open %s: %v", store.Redact(raw), err)
	}
	db, ok := s.(store.Database)
	if !ok {
		t.Fatalf("%s is not a store.Database", store.Redact(raw))
	}
	return db
}

func TestSQLite(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Database {
		return open(t, "sqlite:"+filepath.Join(t.TempDir(), "t.db"))
	})
}

func TestPostgres(t *testing.T) {
	t.Parallel() // a database per subtest; it waits on the server
	admin := testenv.PostgresURL(t)
	storetest.Run(t, func(t *testing.T) store.Database {
		return open(t, testenv.FreshPostgres(t, admin))
	})
}

func TestMySQL(t *testing.T) {
	t.Parallel() // a database per subtest; it waits on the server
	admin := testenv.MySQLURL(t)
	storetest.Run(t, func(t *testing.T) store.Database {
		return open(t, testenv.FreshMySQL(t, admin))
	})
}

// TestMariaDBProcedures is TestMySQL's conformance with writes=procedures
// (MariaDB only); each test's procedures are dropped from taobench's
// schema with its database.
func TestMariaDBProcedures(t *testing.T) {
	adminURL := testenv.MySQLURL(t)
	admin, _ := testenv.MySQLAdmin(t, adminURL)
	var version string
	if err := admin.QueryRow("SELECT VERSION()").Scan(&version); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(version, "MariaDB") {
		t.Skipf("the server is not MariaDB (%s)", version)
	}
	storetest.Run(t, func(t *testing.T) store.Database {
		raw := testenv.FreshMySQL(t, adminURL)
		u, _ := url.Parse(raw)
		name := strings.TrimPrefix(u.Path, "/")
		t.Cleanup(func() {
			rows, err := admin.Query("SELECT ROUTINE_NAME FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = 'taobench_routines' AND ROUTINE_COMMENT = HEX(?)", name)
			if err != nil {
				t.Error(err)
				return
			}
			var names []string
			for rows.Next() {
				var n string
				rows.Scan(&n)
				names = append(names, n)
			}
			rows.Close()
			for _, n := range names {
				admin.Exec("DROP PROCEDURE IF EXISTS taobench_routines." + n)
			}
		})
		return open(t, raw+"?writes=procedures")
	})
}
