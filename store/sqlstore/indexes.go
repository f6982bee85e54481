package sqlstore

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/taobench/taobench/store"
)

// indexes lists, per dialect, the catalog query that names the indexes of
// taobench's tables and the names it must return: the load drops some of
// them and rebuilds them at its end, so an interrupted load can leave a
// database without them, slow and without its uniqueness guarantees.
func (d *dialect) indexes() (query string, want []string) {
	switch d.name {
	case "postgres":
		return "SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND tablename IN ('objects', 'edges')",
			[]string{"edges_pkey", "edges_time", "edges_ukey", "objects_pkey"}
	case "mysql":
		// Primary keys are named PRIMARY in both tables; one is enough to
		// tell, as a table cannot lose it without being rebuilt.
		return "SELECT DISTINCT index_name FROM information_schema.statistics WHERE table_schema = DATABASE() AND table_name IN ('objects', 'edges')",
			[]string{"PRIMARY", "edges_time", "edges_ukey"}
	}
	// SQLite's primary keys are the tables themselves.
	return "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name IN ('objects', 'edges')",
		[]string{"edges_time", "edges_ukey"}
}

// missingIndexes returns the violation of a missing index, or none.
func (db *DB) missingIndexes(ctx context.Context) ([]store.Violation, error) {
	query, want := db.d.indexes()
	have := map[string]bool{}
	err := db.b.auto().query(ctx, query, nil, func(scan func(...any) error) error {
		var name string
		if err := scan(&name); err != nil {
			return err
		}
		have[name] = true
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: listing the indexes: %w", db.name, err)
	}
	var missing []string
	for _, n := range want {
		if !have[n] {
			missing = append(missing, n)
		}
	}
	if len(missing) == 0 {
		return nil, nil
	}
	sort.Strings(missing)
	return []store.Violation{{Invariant: "every index exists", Count: int64(len(missing)),
		Example: "missing " + strings.Join(missing, ", ") + " (an interrupted load; load again with the same flags to rebuild them)"}}, nil
}
