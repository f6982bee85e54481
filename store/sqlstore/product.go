package sqlstore

import (
	"context"
	"database/sql"
	"strings"
)

// The product is the server behind a protocol, for results: the dialect
// says how to talk to it (postgres, mysql), the product which database
// answered, and so how to read its counters and its conflicts. TiDB,
// Galera, CockroachDB and YugabyteDB speak a protocol of another; results
// that named only the protocol hid which one was measured.

// pgProduct names the server from version(): "PostgreSQL 15.19",
// "CockroachDB v23.2.1" ("CockroachDB CCL v23.2.1 (x86_64 ...)"),
// "YugabyteDB 2.20.1.0" ("PostgreSQL 11.2-YB-2.20.1.0-b0 on ...").
func pgProduct(version string) string {
	f := strings.Fields(version)
	switch {
	case len(f) == 0:
		return "PostgreSQL"
	case f[0] == "CockroachDB":
		for _, w := range f[1:] {
			if strings.HasPrefix(w, "v") {
				return "CockroachDB " + w
			}
		}
		return "CockroachDB"
	case len(f) > 1 && strings.Contains(f[1], "-YB-"):
		_, yb, _ := strings.Cut(f[1], "-YB-")
		yb, _, _ = strings.Cut(yb, "-")
		return "YugabyteDB " + yb
	case len(f) > 1 && f[0] == "PostgreSQL":
		return "PostgreSQL " + f[1]
	}
	return f[0]
}

// mysqlProduct names the server from VERSION() and, for MariaDB and
// MySQL, whether Galera replication is on: "MariaDB 10.11.19"
// ("10.11.19-MariaDB-0+deb12u1"), "MariaDB 10.11.19 with Galera", "TiDB
// v7.5.1" ("8.0.11-TiDB-v7.5.1"), "MySQL 8.0.36".
func mysqlProduct(version string, galera bool) string {
	num, rest, _ := strings.Cut(version, "-")
	var p string
	switch {
	case isTiDB(version):
		_, v, _ := strings.Cut(version, "TiDB-")
		v, _, _ = strings.Cut(v, "-")
		return strings.TrimSpace("TiDB " + v)
	case strings.HasPrefix(rest, "MariaDB"):
		p = "MariaDB " + num
	default:
		p = "MySQL " + num
	}
	if galera {
		p += " with Galera"
	}
	return p
}

// galeraOn reports whether the server replicates with Galera (wsrep_on).
// MySQL without Galera has no such variable: no row, not an error.
func galeraOn(ctx context.Context, pool *sql.DB) bool {
	var name, v string
	err := pool.QueryRowContext(ctx, "SHOW GLOBAL VARIABLES LIKE 'wsrep_on'").Scan(&name, &v)
	return err == nil && strings.EqualFold(v, "ON")
}
