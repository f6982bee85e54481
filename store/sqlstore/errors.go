package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/taobench/taobench/store"
)

// openTimeout bounds the first connection, so an unreachable host fails
// in seconds rather than at the operating system's TCP timeout.
const openTimeout = 15 * time.Second

// scrub removes the password from a driver's message, in case it quotes it.
func scrub(msg, password string) string {
	if password == "" {
		return msg
	}
	return strings.ReplaceAll(msg, password, "xxxxx")
}

// connectError turns a failed first connection into one line naming the
// (redacted) URL, what went wrong and what to do. family is "postgres" or
// "mysql".
func connectError(name string, err error, password, host string, port uint16, database, user, family string) error {
	addr := net.JoinHostPort(host, strconv.Itoa(int(port)))
	var dns *net.DNSError
	var pg *pgconn.PgError
	var my *mysql.MySQLError
	switch {
	case errors.As(err, &pg):
		switch pg.Code {
		case "28P01", "28000": // invalid_password, invalid_authorization_specification
			return fmt.Errorf("%s: %s: check the user and password in the URL (and pg_hba.conf)", name, pg.Message)
		case "3D000": // invalid_catalog_name
			return fmt.Errorf("%s: database %q does not exist: create it with: createdb -h %s -p %d -U %s %s",
				name, database, host, port, user, database)
		}
		return fmt.Errorf("%s: cannot connect: %s (SQLSTATE %s)", name, scrub(pg.Message, password), pg.Code)
	case errors.As(err, &my):
		switch my.Number {
		case 1045, 1044, 1698: // access denied
			return fmt.Errorf("%s: access denied for user %q: check the user and password in the URL", name, user)
		case 1049: // unknown database
			return fmt.Errorf("%s: database %q does not exist: create it with: mysql -h %s -P %d -u %s -p -e 'CREATE DATABASE %s'",
				name, database, host, port, user, database)
		}
		return fmt.Errorf("%s: cannot connect: %s (error %d)", name, scrub(my.Message, password), my.Number)
	case errors.As(err, &dns):
		return fmt.Errorf("%s: unknown host %q: check the host name in the URL", name, dns.Name)
	case errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Errorf("%s: connection refused at %s: is the %s server running and listening there?", name, addr, family)
	case isTimeout(err):
		return fmt.Errorf("%s: no answer from %s within %v: check the host, port and firewall", name, addr, openTimeout)
	}
	return fmt.Errorf("%s: cannot connect: %s", name, scrub(firstLine(err.Error()), password))
}

// isTimeout reports whether err is a dial or deadline timeout.
func isTimeout(err error) bool {
	var t interface{ Timeout() bool }
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, syscall.ETIMEDOUT) || errors.As(err, &t) && t.Timeout()
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// Read-only servers. taobench writes: Setup creates its tables, load fills
// them and runs write. A PostgreSQL hot standby, a MySQL replica with
// read_only, or a session whose transactions default to read-only refuses
// the first of those writes with an error that names the statement, not the
// situation. Setup (the first write of run and load) turns such a refusal
// into one line that says the server is read-only and what to do.

// readOnlyReasoner is a backend that can say why its server refuses writes.
type readOnlyReasoner interface {
	// readOnlyReason returns why the server or session is read-only, such
	// as "a hot standby (pg_is_in_recovery() is true)", and the fix beyond
	// pointing at the primary; an empty reason when it cannot tell.
	readOnlyReason(ctx context.Context) (reason, fix string)
}

// isReadOnlyErr reports whether err is a server refusing a write because it
// or the session is read-only: SQLSTATE 25006 read_only_sql_transaction
// (PostgreSQL, and MySQL's 1792); MySQL 1290 (--read-only or
// --super-read-only), 1836 (read-only mode, TiDB's
// tidb_restricted_read_only) and 1792 (a READ ONLY transaction).
func isReadOnlyErr(err error) bool {
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		return pg.Code == "25006"
	}
	var my *mysql.MySQLError
	if errors.As(err, &my) {
		switch my.Number {
		case 1290, 1836, 1792:
			return true
		}
	}
	return false
}

// readOnlyError returns, when err is a write refused by a read-only server,
// the one-line error that says so, naming the URL once; otherwise nil.
func (db *DB) readOnlyError(ctx context.Context, err error) error {
	if !isReadOnlyErr(err) {
		return nil
	}
	reason, fix := "", ""
	if r, ok := db.b.(readOnlyReasoner); ok {
		reason, fix = r.readOnlyReason(ctx)
	}
	if reason == "" {
		reason = "it refused a write: " + firstLine(err.Error())
	}
	msg := fmt.Sprintf("%s: the server is read-only (%s), and taobench must write (its tables, the graph, write requests): "+
		"point --db at the primary (read-write) server, and give a standby or replica as --replica (docs/tiers.md)", db.name, reason)
	if fix != "" {
		msg += "; or " + fix
	}
	return &readOnlyErr{msg: msg, err: err}
}

// readOnlyErr is readOnlyError's error: its own message, the server's
// error underneath.
type readOnlyErr struct {
	msg string
	err error
}

func (e *readOnlyErr) Error() string { return e.msg }
func (e *readOnlyErr) Unwrap() error { return e.err }

// Is makes a refused write store.ErrReadOnly to callers.
func (e *readOnlyErr) Is(target error) bool { return target == store.ErrReadOnly }

// pgReadOnlyReason says why a PostgreSQL server refuses writes, from
// pg_is_in_recovery() and the session's default_transaction_read_only.
func pgReadOnlyReason(inRecovery bool, defaultReadOnly string) (reason, fix string) {
	switch {
	case inRecovery:
		return "a hot standby: pg_is_in_recovery() is true", ""
	case defaultReadOnly == "on":
		return "default_transaction_read_only is on, set for the server, this database, this user or in the URL",
			"set default_transaction_read_only = off for taobench's database or user (ALTER DATABASE ... SET default_transaction_read_only = off)"
	}
	return "", ""
}

// mysqlReadOnlyReason says why a MySQL-protocol server refuses writes, from
// its variables (SHOW VARIABLES: the session's values).
func mysqlReadOnlyReason(vars map[string]string) (reason, fix string) {
	on := func(k string) bool { v := vars[k]; return v == "ON" || v == "1" }
	switch {
	case on("super_read_only"), on("read_only"):
		return "a replica: @@read_only is ON", ""
	case on("tidb_super_read_only"), on("tidb_restricted_read_only"):
		return "TiDB's tidb_super_read_only or tidb_restricted_read_only is ON", ""
	case on("transaction_read_only"), on("tx_read_only"):
		return "this session's transactions are read-only: transaction_read_only (tx_read_only) is ON, set for the server, the user or in the URL",
			"remove transaction_read_only / tx_read_only from the URL or the server's settings"
	}
	return "", ""
}
