package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"
)

// ddlLockWait is how long setup's and the load's DDL (CREATE, ALTER, DROP,
// ANALYZE) waits for a lock on a table, in place of a request's lock wait
// (1 s by default, postgres.go and mysql.go). DDL needs strong locks that
// autovacuum, a concurrent ANALYZE or InnoDB's statistics thread can hold
// for seconds: PostgreSQL cancels a non-wraparound autovacuum that blocks
// a lock request after deadlock_timeout (1 s by default), so a 1 s limit
// lost that race about one load in three. Ten minutes outlasts any
// housekeeping; a lock held longer is another session's, which the error
// then says.
const ddlLockWait = 10 * time.Minute

// ddlWaits returns the statements that give a session ddlLockWait.
func ddlWaits(dialect string) []string {
	s := int(ddlLockWait.Seconds())
	switch dialect {
	case "postgres":
		return []string{fmt.Sprintf("SET lock_timeout = '%ds'", s)}
	case "mysql":
		// lock_wait_timeout bounds metadata-lock waits, innodb_lock_wait_timeout
		// InnoDB's row and table locks (the statistics tables DDL updates).
		return []string{fmt.Sprintf("SET SESSION lock_wait_timeout = %d, innodb_lock_wait_timeout = %d", s, s)}
	}
	return nil // SQLite: one writer connection, nothing to wait for
}

// transientDDL reports whether a DDL statement failed for a reason that
// passes by itself, so running it again succeeds: a deadlock with
// autovacuum or another session, a serialization failure, or PostgreSQL's
// "tuple concurrently updated" when an ANALYZE meets autovacuum's.
func transientDDL(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code == "40P01" || pe.Code == "40001" || pe.Code == "XX000" && strings.Contains(pe.Message, "concurrently")
	}
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return me.Number == 1213 // deadlock
	}
	return false
}

// execDDL runs one DDL statement, again (up to 5 times) after a transient failure.
func execDDL(ctx context.Context, q querier, s string) error {
	for i := 1; ; i++ {
		_, err := q.execSQL(ctx, s)
		if err == nil || i == 5 || !transientDDL(err) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(time.Duration(i) * 100 * time.Millisecond):
		}
	}
}

// ddlHint names the fix for a failed DDL statement of the load, or is empty.
func (db *DB) ddlHint(err error) string {
	switch db.b.classify(err) {
	case errUnique:
		return " (keys are duplicated: load again with --drop)"
	case errConflict:
		return fmt.Sprintf(" (another session held a lock on the table for over %v: find it with "+
			"SELECT pid, state, query FROM pg_stat_activity WHERE pid IN (SELECT pid FROM pg_locks WHERE relation = 'edges'::regclass) "+
			"on PostgreSQL, SHOW PROCESSLIST on MySQL, end it, and load again with the same flags)", ddlLockWait)
	}
	return ""
}
