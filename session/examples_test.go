package session_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/taobench/taobench/fleet"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/run"
	"github.com/taobench/taobench/session"
	"github.com/taobench/taobench/workload"
)

// ExampleProber_Sweep sweeps open-loop target rates on the null store (no
// database): one probe per rate, each with its own results.
func ExampleProber_Sweep() {
	ctx := context.Background()
	s, err := session.Open(ctx, "null", session.Options{Name: "sweep", Clients: 2})
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
	cfg, _, err := s.Prepare(ctx, session.GraphSpec{Edges: 2000}, run.Config{Workload: w, Seed: 7, Drain: time.Second})
	if err != nil {
		fmt.Println(err)
		return
	}
	p := s.Prober(cfg, run.Experiment{Threads: 2, Duration: 200 * time.Millisecond})
	end, err := p.Sweep(ctx, session.SweepSpec{Rates: []float64{500, 1000}})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, x := range p.Done() {
		f := x.Figures() // throughput, latency as durations, outcomes
		fmt.Printf("target %.0f req/s: requests made: %v, p99 measured: %v\n", x.OpenLoop.Rate, f.Requests > 0, f.Latency.P99 > 0)
	}
	fmt.Println("steps:", end.Steps)
	// Output:
	// target 500 req/s: requests made: true, p99 measured: true
	// target 1000 req/s: requests made: true, p99 measured: true
	// steps: 2
}

// ExampleMerge merges the results of a run split across two drivers (two
// processes, or two machines, each running half the clients: --driver 0/2
// and 1/2) into one, as `taobench merge` does.
func ExampleMerge() {
	dir, err := os.MkdirTemp("", "taobench-merge")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()
	w, err := workload.Resolve("a")
	if err != nil {
		fmt.Println(err)
		return
	}
	var files []string
	var requests int64
	for i := range 2 {
		s, err := session.Open(ctx, "null", session.Options{Split: session.Split{Driver: fleet.Driver{Index: i, Count: 2}, RunID: "example"}})
		if err != nil {
			fmt.Println(err)
			return
		}
		cfg, info, err := s.Prepare(ctx, session.GraphSpec{Edges: 2000}, run.Config{Workload: w, Seed: 3, Drain: time.Second})
		if err == nil {
			var done []*result.Experiment
			done, err = s.Run(ctx, session.Plan{Config: cfg, Experiments: []run.Experiment{{Threads: 4, Duration: 200 * time.Millisecond}}})
			if err == nil {
				requests += done[0].Figures().Requests
				name := filepath.Join(dir, fmt.Sprintf("driver%d.json", i))
				var f *os.File
				if f, err = os.Create(name); err == nil {
					err = result.WriteJSON(f, info, done)
					f.Close()
					files = append(files, name)
				}
			}
		}
		s.Close()
		if err != nil {
			fmt.Println(err)
			return
		}
	}
	m, lost, err := session.Merge(files)
	if err != nil || lost != nil {
		fmt.Println(err, lost)
		return
	}
	x := m.Experiments[0]
	fmt.Printf("%d drivers, %d clients, requests add up: %v\n", x.Procs(), x.Threads, x.Figures().Requests == requests)
	// Output: 2 drivers, 4 clients, requests add up: true
}
