package gencheck_test

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/taobench/taobench/gencheck"
	"github.com/taobench/taobench/graph"
	"github.com/taobench/taobench/graph/graphtest"
	"github.com/taobench/taobench/internal/testenv"
	"github.com/taobench/taobench/workload"
)

func newGraph(t *testing.T, w *workload.Workload) *graph.Graph {
	t.Helper()
	g, err := graph.New(w, 1, 100_000)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// mustTest are the rows that 300,000 requests of the test workload test.
var mustTest = []string{"operations", "read_operation_types", "write_operation_types", "read_txn_operation_types",
	"read_txn_sizes", "primary_shards", "remote_shards", "edge_types", "payload_sizes", "operation_predicates", "read_tiers"}

func TestGeneratorPasses(t *testing.T) {
	t.Parallel()
	w := graphtest.WorkloadO()
	rows := gencheck.Run(w, newGraph(t, w), 300_000, 1)
	if len(rows) < 15 {
		t.Fatalf("%d rows", len(rows))
	}
	for _, r := range rows {
		t.Logf("%-26s cats %3d n %7d chi2 %8.2f df %3d p %.4f pass %v skipped %v %s", r.Name, r.Categories, r.N, r.ChiSquare, r.DF, r.P, r.Pass, r.Skipped, r.Note)
		if !r.Pass && !r.Skipped {
			t.Errorf("%s fails: chi2 %.2f df %d p %.3g", r.Name, r.ChiSquare, r.DF, r.P)
		}
		if slices.Contains(mustTest, r.Name) && (r.Skipped || r.DF < 1) {
			t.Errorf("%s was not tested (n %d)", r.Name, r.N)
		}
	}
}

// TestDetectsWrongWeights generates with tampered weights and validates
// against the originals: the test must fail exactly where they differ.
func TestDetectsWrongWeights(t *testing.T) {
	t.Parallel()
	orig := graphtest.WorkloadO()
	w := graphtest.WorkloadO()
	slices.Reverse(w.PrimaryShards.Weights[:3])
	w.ReadKinds.Weights[0], w.ReadKinds.Weights[1] = 600, 354
	w.ReadTiers.Weights = []float64{20, 79, 1}
	w.RemoteShards.Weights[0] /= 2
	c, err := gencheck.Observe(w, newGraph(t, w), 100_000, 1)
	if err != nil {
		t.Fatal(err)
	}
	tampered := []string{"primary_shards", "read_operation_types", "read_tiers", "remote_shards"}
	for _, r := range gencheck.Compare(orig, c) {
		if slices.Contains(tampered, r.Name) {
			if r.Pass || r.Skipped {
				t.Errorf("%s passed against tampered weights: chi2 %.2f p %.3g", r.Name, r.ChiSquare, r.P)
			}
		} else if !r.Pass && !r.Skipped {
			t.Errorf("%s failed though untouched: chi2 %.2f p %.3g", r.Name, r.ChiSquare, r.P)
		}
	}
}

func TestFewObservationsAreSkipped(t *testing.T) {
	t.Parallel()
	w := graphtest.WorkloadO()
	for _, r := range gencheck.Run(w, newGraph(t, w), 20, 1) {
		if r.Name == "write_txn_sizes" && !r.Skipped {
			t.Errorf("write_txn_sizes from 20 requests: %+v, want skipped", r)
		}
		if r.Skipped && r.Pass {
			t.Errorf("%s both skipped and passed", r.Name)
		}
	}
}

// TestWriteHeavyUnderSkew draws many write transactions over hot keys, where
// redrawing a key written twice must not bias the kind or size mixes.
func TestWriteHeavyUnderSkew(t *testing.T) {
	t.Parallel()
	w := graphtest.WorkloadO()
	w.Requests.Weights = []float64{10, 10, 10, 70}
	w.KeySkew.Theta = 1.2
	for _, r := range gencheck.Run(w, newGraph(t, w), 100_000, 2) {
		if !r.Pass && !r.Skipped {
			t.Errorf("%s fails: chi2 %.2f df %d p %.3g", r.Name, r.ChiSquare, r.DF, r.P)
		}
	}
}

// TestEveryWorkloadPasses: the generator check of the README passes for
// every built-in workload and the original TAOBench files, at 1,000,000
// requests, as `taobench validate --workload W --requests 1000000` does.
// Edge types counted once per node (the old way) failed workloads a and o.
func TestEveryWorkloadPasses(t *testing.T) {
	t.Parallel()
	var ws []*workload.Workload
	for _, info := range workload.Builtins() {
		w, err := workload.Builtin(info.Name)
		if err != nil {
			t.Fatalf("built-in %s: %v", info.Name, err)
		}
		ws = append(ws, w)
	}
	shared := testenv.SharedDir(t)
	for _, f := range []string{"workload_a.json", "workload_o.json"} {
		w, err := workload.Resolve(filepath.Join(shared, "reference", "taobench", f))
		if err != nil {
			t.Fatal(err)
		}
		ws = append(ws, w)
	}
	for _, w := range ws {
		t.Run(w.Name, func(t *testing.T) {
			t.Parallel()
			g, err := graph.New(w, 1, 100_000)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range gencheck.Run(w, g, 1_000_000, 1) {
				if !r.Pass && !r.Skipped {
					t.Errorf("%s fails: chi2 %.2f df %d p %.3g (%s)", r.Name, r.ChiSquare, r.DF, r.P, r.Note)
				}
			}
		})
	}
}
