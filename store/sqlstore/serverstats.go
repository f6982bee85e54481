package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/taobench/taobench/store"
)

var _ store.StatsReader = (*DB)(nil)

// tables are taobench's tables, whose sizes and counters ServerStats reads.
var tables = []string{"objects", "edges", "taobench_meta", "taobench_counter"}

func tableList() string { return "'" + strings.Join(tables, "','") + "'" }

// mysqlStatus are the SHOW GLOBAL STATUS counters ServerStats keeps: the
// work done (commands, handler calls, rows) and its contention. MariaDB
// since 10.6 has no Innodb_rows_*: its Handler_* counts then tell the rows.
var mysqlStatus = []string{
	"Questions", "Com_begin", "Com_commit", "Com_rollback",
	"Com_select", "Com_insert", "Com_update", "Com_delete",
	"Handler_commit", "Handler_rollback", "Handler_read_first", "Handler_read_key", "Handler_read_next", "Handler_read_prev", "Handler_read_rnd_next",
	"Handler_write", "Handler_update", "Handler_delete",
	"Rows_read", "Rows_sent", "Innodb_rows_read", "Innodb_rows_inserted", "Innodb_rows_updated", "Innodb_rows_deleted",
	"Innodb_deadlocks", "Innodb_row_lock_waits", "Innodb_row_lock_time",
	"Innodb_buffer_pool_read_requests", "Innodb_buffer_pool_reads", "Innodb_data_written",
	// Galera: writes that lost certification to another node's, local
	// transactions aborted by a replicated one ("brute force"), time the
	// node paused for flow control. The client sees these only as 1213
	// deadlocks, or not at all when the server retries an autocommit.
	"wsrep_local_cert_failures", "wsrep_local_bf_aborts", "wsrep_local_replays", "wsrep_flow_control_paused_ns",
}

// pgDatabaseCols are pg_stat_database's counters, kept under their names.
var pgDatabaseCols = []string{
	"xact_commit", "xact_rollback", "tup_returned", "tup_fetched", "tup_inserted", "tup_updated", "tup_deleted",
	"deadlocks", "conflicts", "blks_read", "blks_hit", "temp_bytes",
}

// pgTableCols are pg_stat_user_tables' counters, kept under their names.
var pgTableCols = []string{
	"seq_scan", "seq_tup_read", "idx_scan", "idx_tup_fetch", "n_tup_ins", "n_tup_upd", "n_tup_del", "n_tup_hot_upd",
}

// ServerStats reads the sizes of taobench's tables and the server's
// counters: pg_stat_database and pg_stat_user_tables on PostgreSQL, SHOW
// GLOBAL STATUS on MySQL and MariaDB, the Prometheus metrics of TiDB's
// status port, the files and page counts on SQLite.
func (db *DB) ServerStats(ctx context.Context) (store.ServerStats, error) {
	st := store.ServerStats{Engine: db.d.name, Product: db.product, SizeBytes: map[string]int64{}, Gauges: map[string]int64{},
		Counters: map[string]int64{}, Tables: map[string]map[string]int64{}}
	q := db.b.auto()
	var errs []error
	asked, answered := 0, 0
	read := func(what, sql string, row func(scan func(...any) error) error) error {
		asked++
		err := q.query(ctx, sql, nil, row)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", what, err))
		} else {
			answered++
		}
		return err
	}
	switch db.d.name {
	case "postgres":
		// Sessions flush their statistics when idle, at most once a second.
		st.Lag = 1100 * time.Millisecond
		read("table sizes", "SELECT relname, pg_total_relation_size(relid) FROM pg_stat_user_tables WHERE schemaname = current_schema() AND relname IN ("+tableList()+")",
			func(scan func(...any) error) error {
				var name string
				var n int64
				err := scan(&name, &n)
				st.SizeBytes[name] = n
				return err
			})
		vals := make([]int64, len(pgDatabaseCols))
		read("pg_stat_database", "SELECT "+coalesced(pgDatabaseCols)+" FROM pg_stat_database WHERE datname = current_database()",
			func(scan func(...any) error) error { return scan(ptrs(vals)...) })
		for i, c := range pgDatabaseCols {
			st.Counters[c] = vals[i]
		}
		read("pg_stat_user_tables", "SELECT relname, "+coalesced(pgTableCols)+" FROM pg_stat_user_tables WHERE schemaname = current_schema() AND relname IN ("+tableList()+")",
			func(scan func(...any) error) error {
				var name string
				vals := make([]int64, len(pgTableCols))
				if err := scan(append([]any{&name}, ptrs(vals)...)...); err != nil {
					return err
				}
				m := map[string]int64{}
				for i, c := range pgTableCols {
					m[c] = vals[i]
				}
				st.Tables[name] = m
				return nil
			})
	case "mysql":
		// InnoDB's sizes are estimates, refreshed with its statistics.
		sizes := "SELECT table_name, COALESCE(data_length, 0) + COALESCE(index_length, 0) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name IN (" + tableList() + ")"
		if mb, ok := db.b.(*myBackend); ok && mb.vitess != nil {
			asked++
			if err := mb.vitess.shardSizes(ctx, sizes, st.SizeBytes); err != nil {
				errs = append(errs, fmt.Errorf("table sizes: %w", err))
			} else {
				answered++
			}
		} else {
			read("table sizes", sizes,
				func(scan func(...any) error) error {
					var name string
					var n int64
					err := scan(&name, &n)
					st.SizeBytes[name] = n
					return err
				})
		}
		if strings.HasPrefix(db.product, "TiDB") {
			if err := db.tidbCounters(ctx, st.Counters); err != nil {
				errs = append(errs, err)
			}
			break
		}
		var statusErr error
		queryErr := read("SHOW GLOBAL STATUS", "SHOW GLOBAL STATUS WHERE Variable_name IN ('"+strings.Join(mysqlStatus, "','")+"')",
			func(scan func(...any) error) error {
				var name, v string
				if statusErr = scan(&name, &v); statusErr != nil {
					return statusErr
				}
				if n, err := strconv.ParseInt(v, 10, 64); err == nil {
					st.Counters[name] = n
				}
				return nil
			})
		if len(st.Counters) == 0 && statusErr == nil && queryErr == nil {
			// A server of the MySQL protocol that answered and keeps none
			// of these: an empty entry would read as "no work done". Not
			// said of a server that did not answer (a node gone down):
			// that is not what it keeps.
			errs = append(errs, fmt.Errorf("SHOW GLOBAL STATUS: %s reports none of the %d counters taobench reads",
				db.product, len(mysqlStatus)))
		}
	case "sqlite":
		var file string
		read("PRAGMA database_list", "PRAGMA database_list", func(scan func(...any) error) error {
			var seq int64
			var name, f string
			if err := scan(&seq, &name, &f); err != nil {
				return err
			}
			if name == "main" {
				file = f
			}
			return nil
		})
		for _, p := range []string{"page_count", "page_size", "freelist_count"} {
			read("PRAGMA "+p, "PRAGMA "+p, func(scan func(...any) error) error {
				var n int64
				err := scan(&n)
				st.Gauges[p] = n
				return err
			})
		}
		if file != "" {
			for key, path := range map[string]string{"file": file, "wal": file + "-wal"} {
				if fi, err := os.Stat(path); err == nil {
					st.SizeBytes[key] = fi.Size()
				} else if !errors.Is(err, os.ErrNotExist) {
					errs = append(errs, err)
				}
			}
		}
	}
	if len(errs) > 0 && asked > 0 && answered == 0 {
		return st, fmt.Errorf("%s: the server's statistics could not be read (%s): %w", db.name, unreadable(ctx, errs), errors.Join(errs...))
	}
	if len(errs) > 0 {
		return st, fmt.Errorf("%s: reading the server's statistics: %w", db.name, errors.Join(errs...))
	}
	return st, nil
}

// unreadable says why a server answered none of the statistics' queries:
// the time allowed ran out, or it could not be reached (a node down).
func unreadable(ctx context.Context, errs []error) string {
	for _, err := range errs {
		if errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return "timed out"
		}
	}
	for _, err := range errs {
		if errCode(err) != "" {
			return "it refused them" // it answered, with an error of its own (access denied ...)
		}
	}
	return "unreachable"
}

// coalesced lists cols for a SELECT, NULL read as 0 (idx_scan of a table
// without indexes, say).
func coalesced(cols []string) string {
	s := make([]string, len(cols))
	for i, c := range cols {
		s[i] = "COALESCE(" + c + ", 0)"
	}
	return strings.Join(s, ", ")
}

func ptrs(v []int64) []any {
	p := make([]any, len(v))
	for i := range v {
		p[i] = &v[i]
	}
	return p
}
