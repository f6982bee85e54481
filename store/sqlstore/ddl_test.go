package sqlstore

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"
)

// What a concurrent autovacuum, ANALYZE or session can cause is retried;
// what another attempt cannot change is not.
func TestTransientDDL(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{&pgconn.PgError{Code: "40P01", Message: "deadlock detected"}, true},
		{&pgconn.PgError{Code: "40001", Message: "could not serialize access"}, true},
		{fmt.Errorf("ANALYZE edges: %w", &pgconn.PgError{Code: "XX000", Message: "tuple concurrently updated"}), true},
		{&pgconn.PgError{Code: "XX000", Message: "could not read block"}, false},
		{&pgconn.PgError{Code: "55P03", Message: "canceling statement due to lock timeout"}, false}, // waited ddlLockWait already
		{&pgconn.PgError{Code: "23505", Message: "could not create unique index"}, false},
		{&mysql.MySQLError{Number: 1213, Message: "Deadlock found"}, true},
		{&mysql.MySQLError{Number: 1205, Message: "Lock wait timeout exceeded"}, false},
		{errors.New("connection reset"), false},
	} {
		if got := transientDDL(c.err); got != c.want {
			t.Errorf("transientDDL(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}

// The hint of a failed DDL statement names the fix for its cause: --drop
// only for duplicate keys.
func TestDDLHint(t *testing.T) {
	db := &DB{b: &pgBackend{}}
	if h := db.ddlHint(&pgconn.PgError{Code: "23505"}); !strings.Contains(h, "--drop") {
		t.Errorf("duplicate key: hint %q, want --drop", h)
	}
	if h := db.ddlHint(&pgconn.PgError{Code: "55P03"}); strings.Contains(h, "--drop") || !strings.Contains(h, "pg_stat_activity") || !strings.Contains(h, "10m0s") {
		t.Errorf("lock timeout: hint %q, want the wait and how to find the holder, no --drop", h)
	}
	if h := db.ddlHint(errors.New("disk full")); h != "" {
		t.Errorf("other error: hint %q, want none", h)
	}
}
