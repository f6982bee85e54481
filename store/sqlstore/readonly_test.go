package sqlstore_test

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/taobench/taobench/internal/testenv"
	"github.com/taobench/taobench/store"
)

// checkReadOnly opens raw, runs Setup and checks the one-line read-only
// error: the redacted URL once, no password, what the server is and what
// to do.
func checkReadOnly(t *testing.T, raw, password, reason string) {
	t.Helper()
	db := open(t, raw)
	defer db.Close()
	err := db.Setup(context.Background(), false)
	if err == nil {
		t.Fatal("Setup on a read-only database succeeded")
	}
	msg := err.Error()
	t.Log(msg)
	if !errors.Is(err, store.ErrReadOnly) {
		t.Error("the error is not store.ErrReadOnly: callers cannot tell a read-only server from a failure")
	}
	name := store.Redact(raw)
	if n := strings.Count(msg, name); n != 1 {
		t.Errorf("the URL %s appears %d times, want once", name, n)
	}
	for _, want := range []string{"read-only", reason, "point --db at the primary"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q", want)
		}
	}
	if strings.Contains(msg, password) || strings.Contains(msg, "\n") {
		t.Error("message shows the password or spans lines")
	}
}

func TestPostgresReadOnly(t *testing.T) {
	admin := testenv.PostgresURL(t)
	raw := testenv.FreshPostgres(t, admin)
	u, _ := url.Parse(raw)
	name := strings.TrimPrefix(u.Path, "/")
	conn, err := pgx.Connect(context.Background(), admin)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	// Read-only for this database only: other tests' databases are untouched.
	if _, err := conn.Exec(context.Background(), "ALTER DATABASE "+name+" SET default_transaction_read_only = on"); err != nil {
		t.Fatal(err)
	}
	// The server trusts loopback, so a password in the URL is accepted and
	// ignored: it must not show.
	u.User = url.UserPassword(u.User.Username(), "s3cr3t-pw")
	checkReadOnly(t, u.String(), "s3cr3t-pw", "default_transaction_read_only is on")
}

func TestMySQLReadOnly(t *testing.T) {
	admin := testenv.MySQLURL(t)
	raw := testenv.FreshMySQL(t, admin)
	// A session whose transactions are read-only, set by the URL on each of
	// the store's connections: the server's global read_only is shared with
	// other tests and stays untouched. MariaDB calls it tx_read_only,
	// MySQL 8 transaction_read_only.
	sqlDB, _ := testenv.MySQLAdmin(t, admin)
	v := "transaction_read_only"
	var k, val string
	if sqlDB.QueryRow("SHOW VARIABLES LIKE 'transaction_read_only'").Scan(&k, &val) != nil {
		v = "tx_read_only"
	}
	checkReadOnly(t, raw+"?"+v+"=1", "\x00", "transaction_read_only (tx_read_only) is ON")
}
