package sqlstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
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

// vitessTarget is what reaching each shard needs: vtgate's connector and
// the keyspace the URL names.
type vitessTarget struct {
	conn     driver.Connector
	keyspace string
}

// shardSizes adds up, over the keyspace's shards, the table sizes query
// (table name, bytes) answers. vtgate answers information_schema from one
// shard, which gave one shard's tables (the size line changed with the
// shard asked). A connection of its own targets each shard in turn (USE
// `keyspace/shard`, as SHOW VITESS_SHARDS names them) and is closed after:
// a targeted connection never goes back to the run's pool.
func (v *vitessTarget) shardSizes(ctx context.Context, query string, into map[string]int64) error {
	pool := sql.OpenDB(v.conn)
	defer pool.Close()
	pool.SetMaxOpenConns(1)
	c, err := pool.Conn(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	var shards []string
	rows, err := c.QueryContext(ctx, "SHOW VITESS_SHARDS")
	if err != nil {
		return err
	}
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			rows.Close()
			return err
		}
		if strings.HasPrefix(s, v.keyspace+"/") {
			shards = append(shards, s)
		}
	}
	if err := rows.Close(); err != nil {
		return err
	}
	if len(shards) == 0 {
		return fmt.Errorf("SHOW VITESS_SHARDS lists no shard of keyspace %s", v.keyspace)
	}
	for _, s := range shards {
		if _, err := c.ExecContext(ctx, "USE `"+strings.ReplaceAll(s, "`", "``")+"`"); err != nil {
			return fmt.Errorf("USE %s: %w", s, err)
		}
		rows, err := c.QueryContext(ctx, query)
		if err != nil {
			return fmt.Errorf("shard %s: %w", s, err)
		}
		for rows.Next() {
			var name string
			var n int64
			if err := rows.Scan(&name, &n); err != nil {
				rows.Close()
				return err
			}
			into[name] += n
		}
		if err := rows.Close(); err != nil {
			return fmt.Errorf("shard %s: %w", s, err)
		}
	}
	return nil
}

// turnLost reports whether a driver's turn behind the 'run' row's lock
// (ReserveRunKey, AgreeStart) failed in a way that taking it again mends:
// a conflict, or a duplicate key. The duplicate happens on Vitess, which
// commits a transaction shard by shard: the lock on 'run' is let go with
// the first shard's commit, before the other driver's key row is committed
// on its own shard, so the next driver finds no row and its insert meets
// it. Taking the turn again reads that row. Where one server commits
// everything at once, the lock keeps the duplicate from happening.
func turnLost(c errClass) bool { return c == errConflict || c == errUnique }
