package sqlstore_test

import (
	"context"
	"path/filepath"
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
	admin := testenv.PostgresURL(t)
	storetest.Run(t, func(t *testing.T) store.Database {
		return open(t, testenv.FreshPostgres(t, admin))
	})
}

func TestMySQL(t *testing.T) {
	admin := testenv.MySQLURL(t)
	storetest.Run(t, func(t *testing.T) store.Database {
		return open(t, testenv.FreshMySQL(t, admin))
	})
}
