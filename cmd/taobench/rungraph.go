package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/taobench/taobench/graph"
	"github.com/taobench/taobench/load"
	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/workload"
)

// runGraph returns the graph a command running requests of w against st
// uses, and the name of the workload it was loaded with. A database holds
// one graph, loaded once: the run takes it from the database's record and
// its request mix from w; a database with none gets w's graph of edges
// first. With no database (null) the graph is w's, of edges. cmd names the
// command in messages.
func runGraph(ctx context.Context, e *env, cmd string, st store.Store, dbURL string, w *workload.Workload, edges int64, edgesGiven bool, loadThreads int) (*graph.Graph, string, error) {
	db, ok := st.(store.Database)
	if !ok {
		g, err := graph.New(w, defaultSeed, edges)
		if err != nil {
			return nil, "", badInputErr(err)
		}
		return g, w.Name, nil
	}
	if err := db.Setup(ctx, false); err != nil {
		return nil, "", fmt.Errorf("%s: %w", cmd, err) // Setup's errors name the URL
	}
	g, loaded, err := load.Loaded(ctx, db)
	switch {
	case errors.Is(err, load.ErrNoGraph):
		if g, err = graph.New(w, defaultSeed, edges); err != nil {
			return nil, "", badInputErr(err)
		}
		fmt.Fprintf(e.stderr, "%s holds no graph yet: loading workload %s's (%d edges, graph seed %d)\n", store.Redact(dbURL), w.Name, edges, defaultSeed)
		if err := loadGraph(ctx, e, db, g, w, loadThreads); err != nil {
			return nil, "", err
		}
		return g, w.Name, nil
	case err != nil:
		return nil, "", badInput("%s: %s: %v", cmd, store.Redact(dbURL), err)
	}
	if err := g.Compatible(w, loaded.Name); err != nil {
		return nil, "", badInput("%s: %s: %v", cmd, store.Redact(dbURL), err)
	}
	if edgesGiven && edges != g.Edges() {
		return nil, "", badInput("%s: %s holds workload %s's graph of %d edges, not %d: drop --edges, or load another with taobench load --drop --edges %d", cmd, store.Redact(dbURL), loaded.Name, g.Edges(), edges, edges)
	}
	return g, loaded.Name, nil
}
