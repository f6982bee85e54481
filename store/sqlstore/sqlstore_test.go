package sqlstore_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"path/filepath"
	"testing"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"

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
		return open(t, FreshPostgres(t, admin))
	})
}

func TestMySQL(t *testing.T) {
	admin := testenv.MySQLURL(t)
	storetest.Run(t, func(t *testing.T) store.Database {
		return open(t, FreshMySQL(t, admin))
	})
}

func uniqueName() string {
	b := make([]byte, 6)
	rand.Read(b)
	return "taobench_test_" + hex.EncodeToString(b)
}

// FreshPostgres creates a database on the server of admin, returns its URL
// and drops it when the test ends.
func FreshPostgres(t *testing.T, admin string) string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		t.Fatalf("connect %s: %v", store.Redact(admin), err)
	}
	name := uniqueName()
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		conn.Close(ctx)
		t.Fatalf("create database: %v", err)
	}
	t.Cleanup(func() {
		if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("drop database %s: %v", name, err)
		}
		conn.Close(ctx)
	})
	u, _ := url.Parse(admin)
	u.Path = "/" + name
	return u.String()
}

// FreshMySQL creates a database on the server of admin, returns its URL and
// drops it when the test ends.
func FreshMySQL(t *testing.T, admin string) string {
	t.Helper()
	u, err := url.Parse(admin)
	if err != nil {
		t.Fatal(err)
	}
	cfg := mysql.NewConfig()
	cfg.Net, cfg.Addr = "tcp", u.Host
	cfg.User = u.User.Username()
	cfg.Passwd, _ = u.User.Password()
	db, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	name := uniqueName()
	if _, err := db.Exec("CREATE DATABASE " + name); err != nil {
		db.Close()
		t.Fatalf("create database on %s: %v", store.Redact(admin), err)
	}
	t.Cleanup(func() {
		if _, err := db.Exec("DROP DATABASE IF EXISTS " + name); err != nil {
			t.Errorf("drop database %s: %v", name, err)
		}
		db.Close()
	})
	u.Path = "/" + name
	return u.String()
}
