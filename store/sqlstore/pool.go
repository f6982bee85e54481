package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Pool sizing. A store wants a connection per client (and a few for setup
// and checks), but a server refuses connections beyond its limit
// (PostgreSQL's max_connections, 100 by default; MySQL's and MariaDB's,
// 151): a pool that grows past it turns requests into "too many
// connections" errors that say nothing about the workload. So at open the
// store asks the server how many connections are free and sizes its pool
// to fit, leaving poolReserve to others (an operator's psql, monitoring).
// When that is fewer than the clients, clients share connections: a
// request may wait for one, and the wait counts in its latency, as it does
// behind an application's connection pool. The store says so in a note
// (DB.Notes), which the command prints. Where the server does not tell
// (CockroachDB, TiDB with no limit), the pool is not capped.

// poolReserve is how many of the server's free connections a pool leaves.
const poolReserve = 2

// connLimit is what a server told about its connections.
type connLimit struct {
	free    int64  // connections this user may still open, the store's first one included
	setting string // the server variable that limits them
	max     int64  // its value
}

// fitPool returns the pool size for want connections (clients of them for
// clients) under l, and a note when clients must share connections.
func fitPool(name string, want, clients int, l connLimit) (int, string) {
	avail := l.free - poolReserve
	if int64(want) <= avail {
		return want, ""
	}
	n := int(max(avail, 1))
	if n >= clients {
		return n, "" // the clients still have a connection each
	}
	return n, fmt.Sprintf("%s: the server allows %d more connection(s) (%s = %d); taobench leaves %d to others and opens %d, "+
		"so %d clients share %d connections: a request may wait for a connection, and the wait counts in its latency. "+
		"For a connection per client, raise %s to at least %d",
		name, max(l.free, 0), l.setting, l.max, poolReserve, n, clients, n, l.setting, l.max+int64(want)-avail)
}

// pgLimit asks a PostgreSQL server how many more connections the current
// user may open: max_connections less those reserved for superusers (when
// not one) and those in use, plus the pool's own connection.
func pgLimit(ctx context.Context, pool *pgxpool.Pool) (connLimit, bool) {
	var maxConns, reserved, used int64
	var super bool
	err := pool.QueryRow(ctx, "SELECT current_setting('max_connections')::bigint, "+
		"current_setting('superuser_reserved_connections')::bigint, "+
		"COALESCE((SELECT rolsuper FROM pg_roles WHERE rolname = current_user), false), "+
		"(SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend')").Scan(&maxConns, &reserved, &super, &used)
	if err != nil || maxConns <= 0 {
		return connLimit{}, false
	}
	if super {
		reserved = 0
	}
	return connLimit{free: maxConns - reserved - used + 1, setting: "max_connections", max: maxConns}, true
}

// mysqlLimit asks a MySQL-protocol server how many more connections may be
// opened: max_connections less Threads_connected, plus the pool's own.
func mysqlLimit(ctx context.Context, pool *sql.DB) (connLimit, bool) {
	var maxConns int64
	if err := pool.QueryRowContext(ctx, "SELECT @@max_connections").Scan(&maxConns); err != nil || maxConns <= 0 {
		return connLimit{}, false
	}
	var name, value string
	if err := pool.QueryRowContext(ctx, "SHOW GLOBAL STATUS LIKE 'Threads_connected'").Scan(&name, &value); err != nil {
		return connLimit{}, false
	}
	used, err := strconv.ParseInt(value, 10, 64)
	if err != nil {
		return connLimit{}, false
	}
	return connLimit{free: maxConns - used + 1, setting: "max_connections", max: maxConns}, true
}
