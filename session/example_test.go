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
	g, graphOf, err := s.Graph(ctx, w, session.GraphSpec{Edges: 2000})
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
	f := done[0].Figures() // throughput, latency as durations, outcomes
	fmt.Printf("workload %s on %s's graph (seed %d): %d experiment, %d clients, requests made: %v, p50 <= p99: %v\n",
		info.Workload, info.GraphWorkload, info.GraphSeed, len(done), done[0].Threads, f.Requests > 0 && f.Throughput > 0, f.Latency.P50 <= f.Latency.P99)
	// Output: workload o on o's graph (seed 1): 1 experiment, 2 clients, requests made: true, p50 <= p99: true
}
