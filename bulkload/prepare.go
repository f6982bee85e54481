package bulkload

import (
	"context"
	"errors"
	"fmt"

	"github.com/taobench/taobench/graph"
	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/workload"
)

// ErrNoGraph is returned by Loaded for a database that holds no graph.
var ErrNoGraph = errors.New("the database holds no graph")

// Loaded returns the graph db holds, rebuilt from the record its load
// wrote, with the workload it was loaded with: a run takes the graph from
// the database and its request mix from any compatible workload. It
// refuses an interrupted load, saying how to resume it, and a database with
// rows but no record.
func Loaded(ctx context.Context, db store.Database) (*graph.Graph, *workload.Workload, error) {
	meta, err := db.Meta(ctx)
	if err != nil {
		return nil, nil, err
	}
	if len(meta) == 0 {
		return nil, nil, ErrNoGraph
	}
	if miss := missingParts(meta); miss != "" && meta[graph.MetaState] != graph.StateComplete {
		return nil, nil, fmt.Errorf("the database holds workload %s's graph (%s edges, seed %s) loaded in %s parts, and part(s) %s are not loaded yet: run taobench load --driver I/%s for each (with the same --workload, --edges and --seed), then run again",
			or(meta["workload"]), or(meta["edges"]), or(meta["seed"]), meta[metaParts], miss, meta[metaParts])
	}
	g, w, err := graph.FromMeta(meta)
	if err != nil {
		return nil, nil, err
	}
	return g, w, nil
}

// Describe names the graph a record describes, for messages.
func Describe(meta map[string]string) string {
	return fmt.Sprintf("workload %s's graph (%s edges, %s nodes, seed %s, state %s)",
		or(meta["workload"]), or(meta["edges"]), or(meta["nodes"]), or(meta["seed"]), or(meta[graph.MetaState]))
}

func or(s string) string {
	if s == "" {
		return "?"
	}
	return s
}
