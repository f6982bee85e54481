package sqlstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/taobench/taobench/store"
)

// mysqlConfig converts mysql://user:pass@host:port/db?params into the
// driver's configuration. Parameters pass through as the driver reads them
// from a DSN (tls, timeout, ... and server variables); the credentials are
// set directly, so a password may hold any character.
func mysqlConfig(u *url.URL) (*mysql.Config, error) {
	if u.Opaque != "" {
		return nil, errors.New("not a URL with an address: use mysql://user:password@host:3306/database")
	}
	db := strings.TrimPrefix(u.Path, "/")
	if db == "" || strings.Contains(db, "/") {
		return nil, errors.New("no database name: use mysql://user:password@host:3306/database")
	}
	// taobench's own options are not the driver's, which would send them
	// to the server as session variables; the others pass as written.
	var params []string
	for _, p := range strings.Split(u.RawQuery, "&") {
		if k, _, _ := strings.Cut(p, "="); k != "writes" && p != "" {
			params = append(params, p)
		}
	}
	cfg, err := mysql.ParseDSN("/?" + strings.Join(params, "&"))
	if err != nil {
		return nil, fmt.Errorf("parameters: %w", err)
	}
	host, port := u.Hostname(), u.Port()
	if host == "" {
		host = "127.0.0.1"
	}
	if port == "" {
		port = "3306"
	}
	cfg.Net, cfg.Addr, cfg.DBName = "tcp", net.JoinHostPort(host, port), db
	cfg.User = u.User.Username()
	cfg.Passwd, _ = u.User.Password()
	if cfg.Params == nil {
		cfg.Params = map[string]string{}
	}
	// A short lock wait turns a write blocked behind another into a
	// conflict quickly (1205) instead of stalling a client for 50 s.
	if _, set := cfg.Params["innodb_lock_wait_timeout"]; !set {
		cfg.Params["innodb_lock_wait_timeout"] = "1"
	}
	// The unique-edge detection counts changed rows, not matched rows.
	cfg.ClientFoundRows = false
	// The driver's liveness check costs a system call per request (a
	// non-blocking read whenever a connection leaves the pool); openMySQL
	// instead closes connections idle for a minute, before a server or
	// proxy drops them. checkConnLiveness=true in the URL restores it.
	if !u.Query().Has("checkConnLiveness") {
		cfg.CheckConnLiveness = false
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 10 * time.Second
	}
	cfg.Logger = &mysql.NopLogger{} // errors are returned, not logged
	return cfg, nil
}

// openMySQL opens a database/sql pool for a mysql:// URL (MySQL, MariaDB,
// TiDB, PlanetScale).
func openMySQL(ctx context.Context, u *url.URL, raw string, opts store.Options) (store.Store, error) {
	name := store.Redact(raw)
	pw, _ := u.User.Password()
	cfg, err := mysqlConfig(u)
	if err != nil {
		return nil, fmt.Errorf("database URL %q: %s", name, scrub(err.Error(), pw))
	}
	procs, err := mysqlWrites(u)
	if err != nil {
		return nil, fmt.Errorf("database URL %q: %s", name, err)
	}
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, fmt.Errorf("database URL %q: %s", name, scrub(err.Error(), pw))
	}
	db, err := openMySQLConnector(ctx, conn, cfg, name, pw, opts, procs)
	if err != nil {
		return nil, err
	}
	return db, nil
}

// mysqlWrites reads the URL's writes option: how writes that need a
// transaction go. "statements" (the default) runs them statement by
// statement, as an application does; "procedures" (MariaDB only) as one
// CALL of a stored procedure taobench creates in a schema of its own
// (myproc.go). It reports whether procedures were asked for.
func mysqlWrites(u *url.URL) (bool, error) {
	switch w := u.Query().Get("writes"); w {
	case "", "statements":
		return false, nil
	case "procedures":
		return true, nil
	default:
		return false, fmt.Errorf("writes=%s: unknown; use writes=statements (the default: statement by statement) "+
			"or writes=procedures (MariaDB: one CALL per write, procedures in schema %s)", w, myRoutineSchema)
	}
}

// openMySQLConnector opens the store over conn, a connector for cfg (tests
// give a fake one); procs asks for writes through stored procedures
// (writes=procedures, MariaDB only).
func openMySQLConnector(ctx context.Context, conn driver.Connector, cfg *mysql.Config, name, pw string, opts store.Options, procs bool) (*DB, error) {
	pool := sql.OpenDB(conn)
	pool.SetMaxOpenConns(opts.Clients + 4)
	pool.SetMaxIdleConns(opts.Clients + 4)
	pool.SetConnMaxIdleTime(time.Minute)
	pctx, cancel := context.WithTimeout(ctx, openTimeout)
	defer cancel()
	if err := pool.PingContext(pctx); err != nil {
		pool.Close()
		host, port, _ := net.SplitHostPort(cfg.Addr)
		p, _ := strconv.Atoi(port)
		return nil, connectError(name, err, pw, host, uint16(p), cfg.DBName, cfg.User, "MySQL")
	}
	// Fit the pool to the server's free connections (see pool.go).
	var notes []string
	if l, ok := mysqlLimit(pctx, pool); ok {
		if n, note := fitPool(name, opts.Clients+4, opts.Clients, l); n < opts.Clients+4 {
			pool.SetMaxOpenConns(n)
			pool.SetMaxIdleConns(n)
			if note != "" {
				notes = append(notes, note)
			}
		}
	}
	b := newMyBackend(newSQLBackend(mysqlDialect(), pool, pool, classifyMySQL))
	var version string
	if err := pool.QueryRowContext(pctx, "SELECT VERSION()").Scan(&version); err != nil {
		pool.Close()
		return nil, fmt.Errorf("%s: asking the server's version: %s", name, scrub(err.Error(), pw))
	}
	b.tidb = isTiDB(version)
	// TiDB refuses START TRANSACTION READ ONLY (error 1235: a "noop"
	// function unless tidb_enable_noop_functions is on); its plain
	// transaction already reads one snapshot, at its start timestamp.
	b.plainReadTx = b.tidb
	var product string
	if isVitess(version) {
		b.d.forVitess()
		b.vitess = &vitessTarget{conn: conn, keyspace: cfg.DBName}
		product = vitessProduct(pctx, pool)
	} else {
		product = mysqlProduct(version, !b.tidb && galeraOn(pctx, pool))
	}
	db := &DB{d: b.d, b: b, name: name, product: product}
	if procs {
		// Only when asked for: by default no routine is created anywhere.
		if !strings.HasPrefix(product, "MariaDB") {
			pool.Close()
			return nil, fmt.Errorf("database URL %q: writes=procedures is for MariaDB, and the server is %s: "+
				"drop writes=procedures from the URL (writes go statement by statement)", name, product)
		}
		if opts.MustExist || db.foreignHeld(pctx) {
			// A command that only reads what the database holds (check,
			// info, a replica's run) writes nothing and creates nothing;
			// nor does any command where names taobench needs hold the
			// user's tables: Setup and Meta refuse that database (owner.go).
			db.notes = notes
			return db, nil
		}
		if err := ensureProcs(pctx, pool, cfg.DBName); err != nil {
			pool.Close()
			return nil, fmt.Errorf("database URL %q: writes=procedures: cannot create taobench's write procedures in schema %s (%s): "+
				"grant the user CREATE and CREATE ROUTINE on %s.*, or drop writes=procedures from the URL (writes go statement by statement)",
				name, myRoutineSchema, scrub(err.Error(), pw), myRoutineSchema)
		}
		b.procs.ok, b.procs.tag = true, myProcTag(cfg.DBName)
	}
	db.notes = notes
	return db, nil
}

// isTiDB reports whether a MySQL-protocol server's VERSION() is TiDB's,
// such as "8.0.11-TiDB-v7.5.1".
func isTiDB(version string) bool { return strings.Contains(version, "TiDB") }

// MySQL error numbers (https://dev.mysql.com/doc/mysql-errors/8.0/en/server-error-reference.html)
// and TiDB's retryable ones (https://docs.pingcap.com/tidb/stable/error-codes):
// 8002 a transaction with SELECT ... FOR UPDATE met a commit conflict and
// was rolled back, 8005 write conflict ("Write Conflict, txnStartTS is
// stale"), 8022 the commit failed and was rolled back, 9007 write conflict
// in TiKV. TiDB's documentation says each may be retried as a whole.
func classifyMySQL(err error) errClass {
	var e *mysql.MySQLError
	if !errors.As(err, &e) {
		return errOther
	}
	switch e.Number {
	case 1213, 1205, 3572: // deadlock, lock wait timeout, NOWAIT lock
		return errConflict
	case 8002, 8005, 8022, 9007: // TiDB: the transaction met a write conflict; retry it
		return errConflict
	case 1062: // duplicate entry
		return errUnique
	case 3024, 1317, 1969: // max_execution_time exceeded, query interrupted, MariaDB max_statement_time
		return errTimeout
	}
	return errOther
}
