package sqlstore

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/taobench/taobench/store"
)

// Identities (store.Identifier): what a server says it is, for the cache
// tier's keys (store.Scope) and the roles a session checks at open: a
// --db must take writes, a --replica must replay the primary's database.
// Each question is asked on its own and an answer the server cannot give
// (a variable it lacks, a function CockroachDB has not) is left unknown:
// only a server that cannot answer at all fails.

var _ store.Identifier = (*DB)(nil)

// Identify reads the server's identity and role.
func (db *DB) Identify(ctx context.Context) (store.Identity, error) {
	var (
		id  store.Identity
		err error
	)
	switch b := db.b.(type) {
	case *pgBackend:
		id, err = pgIdentify(ctx, b.auto())
	case *myBackend:
		id, err = myIdentify(ctx, b)
	default:
		id, err = sqliteIdentify(ctx, db.b.auto())
	}
	if err != nil {
		return id, fmt.Errorf("%s: asking the server who it is: %w", db.name, err)
	}
	return id, nil
}

// text runs a query of one row of text columns; ok false when it failed.
func text(ctx context.Context, q querier, sql string, dest ...*string) bool {
	args := make([]any, len(dest))
	for i := range dest {
		args[i] = dest[i]
	}
	got := false
	err := q.query(ctx, sql, nil, func(scan func(...any) error) error {
		got = true
		return scan(args...)
	})
	return err == nil && got
}

// pgIdentify: the cluster's system identifier (shared by its streaming
// standbys, drawn anew by every initdb), the database and the schema
// taobench's tables are in; the server is the cluster with its start
// time; pg_is_in_recovery() is a standby, and the session's read-only
// defaults refuse writes as a standby does.
func pgIdentify(ctx context.Context, q querier) (store.Identity, error) {
	var id store.Identity
	var dbname, schema string
	err := q.query(ctx, "SELECT current_database()::text, COALESCE(current_schema()::text, '')", nil,
		func(scan func(...any) error) error { return scan(&dbname, &schema) })
	if err != nil {
		return id, err
	}
	// One question each: a server of the protocol may lack one.
	var rec, dro, tro string
	text(ctx, q, "SELECT pg_is_in_recovery()::text", &rec)
	text(ctx, q, "SELECT current_setting('default_transaction_read_only')", &dro)
	text(ctx, q, "SELECT current_setting('transaction_read_only')", &tro)
	var sysid, started string
	switch {
	case text(ctx, q, "SELECT system_identifier::text FROM pg_control_system()", &sysid):
	case text(ctx, q, "SELECT crdb_internal.cluster_id()::text", &sysid): // CockroachDB
	default:
		sysid = "?"
	}
	text(ctx, q, "SELECT pg_postmaster_start_time()::text", &started)
	id.Database = "postgres:" + sysid + "/" + dbname + "/" + schema
	if started != "" {
		id.Server = "postgres:" + sysid + "@" + started
	}
	switch {
	case rec == "true":
		id.Replica = true
		id.ReadOnly = "a hot standby in recovery (pg_is_in_recovery() is true)"
	case dro == "on":
		id.ReadOnly = "default_transaction_read_only is on (set for the server, the database, the user or in the URL)"
	case tro == "on":
		id.ReadOnly = "transaction_read_only is on"
	}
	return id, nil
}

// myIdentify: the schema (a MySQL or MariaDB replica replays its
// primary's schema under its name; the servers share no identifier, each
// has its own @@server_uuid), the server (@@server_uuid, or MariaDB's
// @@server_id, which replication needs distinct, with @@hostname and
// @@port), the read-only variables, and whether replication is set up.
func myIdentify(ctx context.Context, m *myBackend) (store.Identity, error) {
	var id store.Identity
	var schema string
	if err := m.read.QueryRowContext(ctx, "SELECT COALESCE(DATABASE(), '')").Scan(&schema); err != nil {
		return id, err
	}
	id.Database = "mysql:" + schema
	vars := map[string]string{}
	rows, err := m.read.QueryContext(ctx, "SHOW VARIABLES WHERE Variable_name IN ('read_only', 'super_read_only', 'innodb_read_only', "+
		"'transaction_read_only', 'tx_read_only', 'tidb_super_read_only', 'tidb_restricted_read_only', 'server_uuid', 'server_id', 'hostname', 'port')")
	if err == nil {
		for rows.Next() {
			var k, v string
			if rows.Scan(&k, &v) == nil {
				vars[strings.ToLower(k)] = v
			}
		}
		rows.Close()
	}
	if u := vars["server_uuid"]; u != "" {
		id.Server = "mysql:" + u
	} else if vars["server_id"] != "" {
		id.Server = "mysql:" + vars["server_id"] + "@" + vars["hostname"] + ":" + vars["port"]
	}
	on := func(k string) bool { v := strings.ToUpper(vars[k]); return v == "ON" || v == "1" }
	for _, k := range []string{"read_only", "super_read_only", "innodb_read_only", "tidb_super_read_only", "tidb_restricted_read_only"} {
		if on(k) {
			id.ReadOnly = "@@" + k + " is ON"
			id.Replica = true
			break
		}
	}
	if id.ReadOnly == "" {
		for _, k := range []string{"transaction_read_only", "tx_read_only"} {
			if on(k) {
				id.ReadOnly = "this session's transactions are read-only (@@" + k + " is ON, set for the server, the user or in the URL)"
				break
			}
		}
	}
	// SHOW REPLICA STATUS on MySQL 8.0.22+ and MariaDB 10.5+, SHOW SLAVE
	// STATUS before; a row is a replication source configured. Without
	// the privilege to ask, replication stays unknown.
	for _, s := range []string{"SHOW REPLICA STATUS", "SHOW SLAVE STATUS"} {
		rows, err := m.read.QueryContext(ctx, s)
		if err != nil {
			continue
		}
		configured := rows.Next()
		rows.Close()
		id.Replica = id.Replica || configured
		break
	}
	return id, nil
}

// sqliteIdentify: the file's absolute path with its device and inode, so
// that a file copied, or replaced by another at the same path, is
// another database. SQLite has no replicas and its file is writable (open
// checked it).
func sqliteIdentify(ctx context.Context, q querier) (store.Identity, error) {
	var id store.Identity
	var file string
	if !text(ctx, q, "SELECT file FROM pragma_database_list WHERE name = 'main'", &file) {
		return id, fmt.Errorf("PRAGMA database_list gave no file")
	}
	if file == "" { // an in-memory database: its own for as long as it is open
		id.Database = fmt.Sprintf("sqlite:memory:%p", q)
		return id, nil
	}
	if abs, err := filepath.Abs(file); err == nil {
		file = abs
	}
	fi, err := os.Stat(file)
	if err != nil {
		return id, err
	}
	id.Database = "sqlite:" + file + "@" + fileID(fi)
	return id, nil
}
