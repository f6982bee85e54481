package sqlstore

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taobench/taobench/internal/testenv"
	"github.com/taobench/taobench/store"
)

func identity(t *testing.T, raw string) store.Identity {
	t.Helper()
	ctx := context.Background()
	st, err := store.Default.Open(ctx, raw, store.Options{Clients: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	id, err := st.(store.Identifier).Identify(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// An SQLite file is the same database however it is named (a relative
// path), and another when copied: same path and contents, another inode.
func TestSQLiteIdentity(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "t.db")
	a := identity(t, "sqlite:"+path)
	if a.Database == "" || a.ReadOnly != "" || a.Replica {
		t.Fatalf("identity %+v: want a database, writable, no replica", a)
	}
	t.Chdir(dir)
	if b := identity(t, "sqlite:t.db"); b != a {
		t.Errorf("the same file by a relative path: %+v, want %+v", b, a)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(path, path+".old"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if c := identity(t, "sqlite:"+path); c.Database == a.Database {
		t.Errorf("a copy at the same path has the first file's identity %q", c.Database)
	}
}

// A PostgreSQL database names its cluster's system identifier and itself;
// two databases of one server differ, a writable one says so, and one
// whose transactions default to read-only says that.
func TestPostgresIdentity(t *testing.T) {
	admin := testenv.PostgresURL(t)
	a, b := testenv.FreshPostgres(t, admin), testenv.FreshPostgres(t, admin)
	ia, ib := identity(t, a), identity(t, b)
	if ia.Database == ib.Database || strings.Contains(ia.Database, "postgres:?") || ia.ReadOnly != "" || ia.Replica {
		t.Errorf("identities %+v and %+v: want two databases with the system identifier, writable, no replica", ia, ib)
	}
	if ia.Server == "" || ia.Server != ib.Server {
		t.Errorf("servers %q and %q: want one server", ia.Server, ib.Server)
	}
	sep := "?"
	if strings.Contains(a, "?") {
		sep = "&"
	}
	ro := identity(t, a+sep+"default_transaction_read_only=on")
	if !strings.Contains(ro.ReadOnly, "default_transaction_read_only") || ro.Replica {
		t.Errorf("a read-only session: %+v; want it read-only, no replica", ro)
	}
}
