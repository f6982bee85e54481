package sqlstore

import (
	"context"
	"database/sql"
	"strings"
)

// Vitess (PlanetScale's engine) speaks MySQL's protocol through vtgate,
// which parses each statement itself and routes it to the shards of a
// keyspace by its VSchema (bench/cluster/vitess, docs/databases.md). What
// differs from MySQL is the SQL vtgate's parser and planner accept; the
// tables and the hot-path statements are MySQL's.

// isVitess reports whether VERSION() is vtgate's, such as "8.4.6-Vitess"
// (the MySQL version vtgate claims, --mysql-server-version).
func isVitess(version string) bool { return strings.HasSuffix(version, "-Vitess") }

// vitessProduct names the product from vtgate's @@version_comment, such as
// "Version: 24.0.4 (Git revision ...)": "Vitess 24.0.4".
func vitessProduct(ctx context.Context, pool *sql.DB) string {
	var c string
	if err := pool.QueryRowContext(ctx, "SELECT @@version_comment").Scan(&c); err == nil {
		if v, ok := strings.CutPrefix(c, "Version: "); ok {
			v, _, _ = strings.Cut(v, " ")
			return "Vitess " + v
		}
	}
	return "Vitess"
}

// forVitess changes the MySQL dialect where vtgate differs: ANALYZE
// TABLE names one table, and a correlated subquery is planned only for
// EXISTS (VT12001 for NOT EXISTS), so check finds edges with no inverse
// and no object by LEFT JOIN ... IS NULL: vtgate reads the outer rows and
// looks each partner up on its own shard.
func (d *dialect) forVitess() {
	d.analyze = []string{"ANALYZE TABLE objects", "ANALYZE TABLE edges"}
	d.antiJoin = true
}
