package spannerstore

import (
	"context"
	"os"

	"github.com/taobench/taobench/store"
)

var _ store.Identifier = (*DB)(nil)

// Identify names the database by its path, and the emulator's address when
// one answers for it: the same path on the emulator and on Cloud Spanner
// are two databases. Spanner has no read replicas taobench reads (its
// replicas are the service's own) and every session takes writes.
func (db *DB) Identify(context.Context) (store.Identity, error) {
	where := "cloud"
	if h := os.Getenv("SPANNER_EMULATOR_HOST"); h != "" {
		where = "emulator@" + h
	}
	return store.Identity{Database: "spanner:" + where + "/" + db.path}, nil
}
