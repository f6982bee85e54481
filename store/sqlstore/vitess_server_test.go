package sqlstore_test

import (
	"testing"

	"github.com/taobench/taobench/internal/testenv"
	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/store/storetest"
)

// TestVitessConformance is the stores' conformance suite through vtgate on
// a keyspace of 2 shards (bench/cluster/vitess; runs where TAOBENCH_VITESS
// names the built binaries). The cluster is the test's own: each case
// starts from a keyspace without taobench's tables (dropped through vtgate,
// which sends DDL to both shards).
func TestVitessConformance(t *testing.T) {
	u := testenv.Vitess(t)
	admin, _ := testenv.MySQLAdmin(t, u)
	storetest.Run(t, func(t *testing.T) store.Database {
		for _, tbl := range []string{"edges", "objects", "taobench_counter", "taobench_meta"} {
			if _, err := admin.Exec("DROP TABLE IF EXISTS taobench." + tbl); err != nil {
				t.Fatalf("drop %s: %v", tbl, err)
			}
		}
		return open(t, u)
	})
}
