package bulkload

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/taobench/taobench/graph"
	"github.com/taobench/taobench/store"
)

// A load split across processes (load --driver I/N, docs/distributed.md)
// records, beside the graph, how many parts it has and each part's state;
// the graph is complete when every part is.
const (
	metaParts = "load_parts" // N, the number of parts
)

// metaPart is the key of part i's state.
func metaPart(i int) string { return "load_part_" + strconv.Itoa(i) }

// partRange is the node range of part i of n: contiguous, so each part's
// keys are contiguous in the B-tree, and together they cover every node.
func partRange(total int64, i, n int) (lo, hi int64) {
	return total * int64(i) / int64(n), total * int64(i+1) / int64(n)
}

// CheckParts refuses to join a load split into another number of parts:
// the parts' node ranges would not line up.
func CheckParts(meta map[string]string, n int) error {
	have := meta[metaParts]
	if have == "" || meta[graph.MetaState] != graph.StateLoading {
		return nil
	}
	if have != strconv.Itoa(n) {
		return fmt.Errorf("the database holds a load of this graph split into %s parts, not %d: give --driver I/%s to every loader, or start over on a fresh database", have, n, have)
	}
	return nil
}

// missingParts lists the parts of a split load not recorded complete, as
// "1/4, 3/4"; "" when there are none or the load was not split.
func missingParts(meta map[string]string) string {
	n, err := strconv.Atoi(meta[metaParts])
	if err != nil || n < 2 {
		return ""
	}
	var miss []string
	for i := range n {
		if meta[metaPart(i)] != graph.StateComplete {
			miss = append(miss, fmt.Sprintf("%d/%d", i, n))
		}
	}
	return strings.Join(miss, ", ")
}

// finishPart records part i of n complete and, when every part is, the
// graph: the last part to finish completes it (several may, harmlessly).
// It reports whether the graph is complete.
func finishPart(ctx context.Context, db store.Database, i, n int, finished string) (bool, error) {
	if err := db.SetMeta(ctx, map[string]string{metaPart(i): graph.StateComplete}); err != nil {
		return false, fmt.Errorf("load: recording part %d/%d: %w", i, n, err)
	}
	meta, err := db.Meta(ctx)
	if err != nil {
		return false, err
	}
	if missingParts(meta) != "" {
		return false, nil
	}
	// Indexes were never dropped (parts load concurrently into them):
	// EndLoad only refreshes the statistics.
	if err := db.EndLoad(ctx); err != nil {
		return false, fmt.Errorf("load: finishing: %w", err)
	}
	if err := db.SetMeta(ctx, map[string]string{graph.MetaState: graph.StateComplete, "load_finished": finished}); err != nil {
		return false, fmt.Errorf("load: recording the graph: %w", err)
	}
	return true, nil
}

// PartsNote says which parts of a split load are still missing, for
// messages; "" when none are.
func PartsNote(meta map[string]string) string { return missingParts(meta) }
