package session_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/taobench/taobench/fidelity"
	"github.com/taobench/taobench/fleet"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/run"
	"github.com/taobench/taobench/session"
)

// driverFiles runs the drivers of one split run of workload a on the null
// store and writes each one's results file, as the command does.
func driverFiles(t *testing.T, drivers int) []string {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	var files []string
	for i := range drivers {
		s := open(t, "null", session.Options{Sink: &recorder{}, Split: session.Split{Driver: fleet.Driver{Index: i, Count: drivers}, RunID: "merge"}})
		cfg, info, err := s.Prepare(ctx, session.GraphSpec{Edges: 10_000}, run.Config{Workload: builtin(t, "a"), Seed: 9, Drain: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		done, err := s.Run(ctx, session.Plan{Config: cfg, Experiments: []run.Experiment{{Threads: 2 * drivers, Duration: 300 * time.Millisecond}}})
		if err != nil {
			t.Fatal(err)
		}
		f, err := os.Create(filepath.Join(dir, strings.Repeat("d", i+1)+".json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := result.WriteJSON(f, info, done); err != nil {
			t.Fatal(err)
		}
		f.Close()
		files = append(files, f.Name())
	}
	return files
}

// TestMergeRecomputesFidelity: merging two drivers' files adds their
// counts and recomputes the fidelity rows from the merged counts against
// the targets each driver recorded, the hot keys' at the merged count of
// requests (no generator: result/deps_test.go); files of a taobench that
// recorded no targets keep no rows, saying why.
func TestMergeRecomputesFidelity(t *testing.T) {
	t.Parallel()
	files := driverFiles(t, 2)
	m, lost, err := session.Merge(files)
	if err != nil || lost != nil {
		t.Fatalf("Merge: %v, rows lost: %v", err, lost)
	}
	var parts []*result.Experiment
	for _, f := range files {
		d, err := result.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, d.Experiments[0])
	}
	x := m.Experiments[0]
	if x.Procs() != 2 || x.Counters.PointReads != parts[0].Counters.PointReads+parts[1].Counters.PointReads {
		t.Errorf("merged: %d processes, %d point reads; want 2, %d + %d", x.Procs(), x.Counters.PointReads, parts[0].Counters.PointReads, parts[1].Counters.PointReads)
	}
	if x.Targets == nil || len(x.Targets.Keys) < len(parts[0].Targets.Keys) {
		t.Fatalf("merged targets %+v: want the drivers' key targets", x.Targets)
	}
	n := x.Counters.Keys.Requests
	want, note, ok := fidelity.KeyTargetsAt(x.Targets.Keys, n)
	if !ok || n != parts[0].Counters.Keys.Requests+parts[1].Counters.Keys.Requests {
		t.Fatalf("no key targets at the merged %d requests in %d recorded", n, len(x.Targets.Keys))
	}
	var keyRow *result.FidelityRow
	for i, r := range x.Fidelity {
		t.Logf("%-45s target %.4f observed %.4f n %d %s", r.Figure, r.Target, r.Observed, r.N, r.Verdict)
		if r.Figure == "reads on the top 1% of keys" {
			keyRow = &x.Fidelity[i]
		}
		if r.Figure == "edge_point_read finds an edge" && r.N != x.Counters.PointReads {
			t.Errorf("%s: n %d, want the merged %d", r.Figure, r.N, x.Counters.PointReads)
		}
	}
	if keyRow == nil || keyRow.Target != want.Top[result.KeyReads] || keyRow.N == parts[0].Fidelity[0].N || !strings.Contains(keyRow.Note, note) {
		t.Errorf("merged key row %+v; want target %.4f (%s)", keyRow, want.Top[result.KeyReads], note)
	}

	// Files without targets, as taobench wrote before recording them.
	var old []string
	for i, x := range parts {
		x.Targets = nil
		d, err := result.ReadFile(files[i])
		if err != nil {
			t.Fatal(err)
		}
		old = append(old, filepath.Join(t.TempDir(), "old.json"))
		f, err := os.Create(old[i])
		if err != nil {
			t.Fatal(err)
		}
		if err := result.WriteJSON(f, d.Run, []*result.Experiment{x}); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	if m, lost, err := session.Merge(old); err != nil || lost == nil || !strings.Contains(lost.Error(), "no targets") || len(m.Experiments[0].Fidelity) != 0 {
		t.Errorf("merging files without targets: err %v, lost %v; want the rows left out, saying why", err, lost)
	}
}
