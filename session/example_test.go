package session_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/taobench/taobench/run"
	"github.com/taobench/taobench/session"
	_ "github.com/taobench/taobench/store/sqlstore" // registers sqlite:, postgres://, mysql://
	"github.com/taobench/taobench/workload"
)

// Example runs taobench's work from another Go program: open an SQLite
// database, load a small graph of workload o into it, run a short
// experiment and read its results.
func Example() {
	dir, err := os.MkdirTemp("", "taobench-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)

	ctx := context.Background()
	s, err := session.Open(ctx, "sqlite:"+filepath.Join(dir, "bench.db"), session.Options{Name: "example", Clients: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()

	w, err := workload.Resolve("o")
	if err != nil {
		fmt.Println(err)
		return
	}
	// The database holds no graph yet: Graph loads one of 2,000 edges.
	g, graphOf, err := s.Graph(ctx, session.GraphSpec{Workload: w, Edges: 2000})
	if err != nil {
		fmt.Println(err)
		return
	}
	info := s.RunInfo(session.Meta{Workloads: []*workload.Workload{w}, GraphOf: graphOf.Name, Graph: g, Seed: 42, Retries: 10})
	done, err := s.Run(ctx, session.Plan{
		Config:      run.Config{Workload: w, Graph: g, Seed: 42, Retries: 10, Drain: time.Second},
		Experiments: []run.Experiment{{Threads: 2, Duration: 200 * time.Millisecond}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("workload %s on %s's graph (seed %d): %d experiment, %d clients, requests made: %v\n",
		info.Workload, info.GraphWorkload, info.GraphSeed, len(done), done[0].Threads, done[0].Sum().Requests() > 0)
	// Output: workload o on o's graph (seed 1): 1 experiment, 2 clients, requests made: true
}
