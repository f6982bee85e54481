package gencheck_test

import (
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/taobench/taobench/gencheck"
	"github.com/taobench/taobench/graph"
	"github.com/taobench/taobench/internal/testenv"
	"github.com/taobench/taobench/workload"
)

// correctWorkloads are every built-in workload and the shared reference
// files (read in place, never copied): workloads the generator draws
// correctly.
func correctWorkloads(t *testing.T) []*workload.Workload {
	t.Helper()
	var ws []*workload.Workload
	for _, info := range workload.Builtins() {
		w, err := workload.Builtin(info.Name)
		if err != nil {
			t.Fatalf("built-in %s: %v", info.Name, err)
		}
		ws = append(ws, w)
	}
	ref := filepath.Join(testenv.SharedDir(t), "reference", "taobench")
	files, err := filepath.Glob(filepath.Join(ref, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no reference workloads in %s (%v)", ref, err)
	}
	for _, f := range files {
		w, err := workload.Resolve(f)
		if err != nil {
			t.Fatal(err)
		}
		w.Name = filepath.Base(f)
		ws = append(ws, w)
	}
	return ws
}

// TestCorrectWorkloadPassesEverySeed: `validate --workload W --requests
// 2000 --seed S` passes every correct workload at seeds 1 to 50. Each
// distribution tested at 0.001 alone, without a correction for the number
// tested, correct workloads failed at two of these seeds (p 0.00085 and
// 0.00082; with up to 19 tests a seed, up to 1.9% of seeds fail).
func TestCorrectWorkloadPassesEverySeed(t *testing.T) {
	t.Parallel()
	for _, w := range correctWorkloads(t) {
		t.Run(w.Name, func(t *testing.T) {
			t.Parallel()
			for seed := uint64(1); seed <= 50; seed++ {
				// As validate does: the graph of --edges (default 100,000)
				// and the generator seeded by --seed.
				g, err := graph.New(w, seed, 100_000)
				if err != nil {
					t.Fatal(err)
				}
				rows := gencheck.Run(w, g, 2000, seed)
				if gencheck.Tested(rows) < 3 {
					t.Fatalf("seed %d: %d distributions tested", seed, gencheck.Tested(rows))
				}
				for _, r := range rows {
					if !r.Pass && !r.Skipped {
						t.Errorf("seed %d: %s fails: p %.3g, Holm p %.3g (%s)", seed, r.Name, r.P, r.AdjustedP, r.Note)
					}
				}
			}
		})
	}
}

// TestFivePercentOffFails: requests drawn with weights 5% off those of the
// workload (its heaviest request class and read kind) fail its check at
// 1,000,000 requests, the correction notwithstanding, and only the
// distributions tampered with fail.
func TestFivePercentOffFails(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"a", "workload_o.json"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			orig := loadNamed(t, name)
			w := loadNamed(t, name)
			heaviest := func(ws []float64) { ws[slices.Index(ws, slices.Max(ws))] *= 1.05 }
			heaviest(w.Requests.Weights)
			heaviest(w.ReadKinds.Weights)
			// Not write_operation_types: workload_o draws too few writes
			// for 5% to show at a million requests.
			tampered := []string{"operations", "read_operation_types"}
			c, err := gencheck.Observe(w, newGraph(t, w), 1_000_000, 1)
			if err != nil {
				t.Fatal(err)
			}
			rows := gencheck.Compare(orig, c)
			for _, r := range rows {
				switch {
				case slices.Contains(tampered, r.Name) && (r.Pass || r.Skipped):
					t.Errorf("%s, 5%% off, passed: p %.3g, Holm p %.3g", r.Name, r.P, r.AdjustedP)
				case !slices.Contains(tampered, r.Name) && !r.Pass && !r.Skipped:
					t.Errorf("%s failed though untouched: p %.3g, Holm p %.3g", r.Name, r.P, r.AdjustedP)
				}
			}
		})
	}
}

func loadNamed(t *testing.T, name string) *workload.Workload {
	t.Helper()
	if w, err := workload.Builtin(name); err == nil {
		return w
	}
	w, err := workload.Resolve(filepath.Join(testenv.SharedDir(t), "reference", "taobench", name))
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// TestHolm checks Correct against Holm's procedure worked by hand: p-values
// 0.0001, 0.0003, 0.004, 0.5 of four tests at alpha 0.001 are held to
// 0.00025, 0.00033, 0.0005, 0.001; the first two fail, and once the third
// passes its level the rest pass. Skipped rows are not in the family.
func TestHolm(t *testing.T) {
	rows := []gencheck.Row{
		{Name: "c", P: 0.004}, {Name: "skip", Skipped: true, P: math.NaN()},
		{Name: "a", P: 0.0001}, {Name: "d", P: 0.5}, {Name: "b", P: 0.0003},
	}
	gencheck.Correct(rows, 0.001)
	want := map[string]struct {
		level, adj float64
		pass       bool
	}{
		"a": {0.001 / 4, 0.0004, false},
		"b": {0.001 / 3, 0.0009, false},
		"c": {0.001 / 2, 0.008, true},
		"d": {0.001, 0.5, true},
	}
	for _, r := range rows {
		if r.Name == "skip" {
			if r.Pass || r.Threshold != 0 {
				t.Errorf("skipped row corrected: %+v", r)
			}
			continue
		}
		w := want[r.Name]
		if math.Abs(r.Threshold-w.level) > 1e-12 || math.Abs(r.AdjustedP-w.adj) > 1e-12 || r.Pass != w.pass {
			t.Errorf("%s: level %g, Holm p %g, pass %v; want %g, %g, %v", r.Name, r.Threshold, r.AdjustedP, r.Pass, w.level, w.adj, w.pass)
		}
	}
	if gencheck.Tested(rows) != 4 {
		t.Errorf("Tested = %d, want 4", gencheck.Tested(rows))
	}
}

// TestTableShowsHolm: the table validate prints gives each tested row its
// level and Holm p under their headings, and "-" for a skipped one.
func TestTableShowsHolm(t *testing.T) {
	rows := []gencheck.Row{{Name: "a", Categories: 3, N: 100, DF: 2, P: 0.0001}, {Name: "b", Categories: 3, N: 100, DF: 2, P: 0.3}, {Name: "c", Skipped: true}}
	gencheck.Correct(rows, 0.001)
	var b strings.Builder
	if failed := gencheck.WriteTable(&b, rows); failed != 1 {
		t.Errorf("%d failed, want 1", failed)
	}
	lines := strings.Split(b.String(), "\n")
	for i, want := range [][]string{
		{"distribution", "p-value", "level", "Holm p", "result"},
		{"a", "0.0001", "0.0005", "0.0002", "FAIL"},
		{"b", "0.3000", "0.001", "0.3000", "pass"},
		{"c", "-", "-", "skipped"},
	} {
		if got := strings.Fields(lines[i]); !containsInOrder(got, want) {
			t.Errorf("line %d %q, want %q in order", i, lines[i], want)
		}
	}
}

func containsInOrder(fields, want []string) bool {
	line := " " + strings.Join(fields, " ") + " "
	at := 0
	for _, w := range want {
		i := strings.Index(line[at:], " "+w+" ")
		if i < 0 {
			return false
		}
		at += i + len(w) + 1
	}
	return true
}
