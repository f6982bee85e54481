package textreport

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/taobench/taobench/result"
)

// driverDoc is driver i of n of run "r1" holding ss, through its JSON.
func driverDoc(t *testing.T, i, n, threads int, rate float64, ss []int) result.Named {
	t.Helper()
	run := testRun(7)
	run.RunID, run.Drivers, run.DriverIndexes = "r1", n, []int{i}
	run.Started = run.Started.Add(time.Duration(i) * time.Millisecond) // processes start apart
	all := samples(4000)
	var mine = all[:0:0]
	for _, k := range ss {
		mine = append(mine, all[k])
	}
	first := threads * i / n
	e := experimentOf(threads*(i+1)/n-first, mine, &result.Counters{})
	e.FirstClient, e.AllThreads, e.AllRate = first, threads, rate
	e.At = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	e.Late = time.Duration(i) * 10 * time.Millisecond
	if rate > 0 {
		e.OpenLoop = result.OpenLoop{Rate: rate * float64(e.Threads) / float64(threads), Arrival: "poisson", Scheduled: 10}
	}
	doc, err := result.ReadJSON(bytes.NewReader(jsonOf(t, run, e)))
	if err != nil {
		t.Fatal(err)
	}
	if doc.Run.RunID != "r1" || doc.Run.Drivers != n || doc.Experiments[0].AllThreads != threads || !doc.Experiments[0].At.Equal(e.At) || doc.Experiments[0].Late != e.Late {
		t.Fatalf("driver keys lost in JSON: %+v %+v", doc.Run, doc.Experiments[0])
	}
	return result.Named{Name: "d" + string(rune('0'+i)) + ".json", Doc: doc}
}

// TestMergeDrivers: 4 drivers of 10 clients (3, 2, 3, 2: uneven) at a
// target rate merge into the whole: counts add, the rate is the run's,
// the drivers are listed; a missing, doubled or foreign driver is refused
// by name.
func TestMergeDrivers(t *testing.T) {
	t.Parallel()
	parts := make([][]int, 4)
	for k := range 4000 {
		parts[k%4] = append(parts[k%4], k)
	}
	var runs []result.Named
	for i := range 4 {
		runs = append(runs, driverDoc(t, i, 4, 10, 1000, parts[i]))
	}
	m, err := result.Merge(runs)
	if err != nil {
		t.Fatal(err)
	}
	whole := experimentOf(10, samples(4000), &result.Counters{})
	e := m.Experiments[0]
	if e.Threads != 10 || e.Procs() != 4 || e.Sum().Requests() != whole.Sum().Requests() || e.Late != 30*time.Millisecond {
		t.Errorf("merged: %d threads, %d processes, %d requests (want %d), late %v", e.Threads, e.Procs(), e.Sum().Requests(), whole.Sum().Requests(), e.Late)
	}
	if r := e.OpenLoop.Rate; r < 999.999 || r > 1000.001 {
		t.Errorf("merged target rate %v, want 1000", r)
	}
	for _, name := range []string{"read", "write_txn"} {
		if a, b := e.Sum().Stats(name), whole.Sum().Stats(name); a != b {
			t.Errorf("%s: merged %+v, one process %+v", name, a, b)
		}
	}
	if got := m.Run.DriverIndexes; len(got) != 4 || got[3] != 3 || m.Run.RunID != "r1" {
		t.Errorf("merged run: drivers %v, id %q", got, m.Run.RunID)
	}
	// The merged document reads back and merges no further with its parts.
	back, err := result.ReadJSON(bytes.NewReader(jsonOf(t, m.Run, m.Experiments...)))
	if err != nil || len(back.Run.DriverIndexes) != 4 {
		t.Fatalf("merged document: %v, %+v", err, back)
	}

	refuse := func(name string, rs []result.Named, want string) {
		t.Helper()
		if _, err := result.Merge(rs); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want %q", name, err, want)
		}
	}
	refuse("missing", runs[:3], "driver 3/4 of run r1 is missing")
	refuse("two missing", []result.Named{runs[0], runs[2]}, "drivers 1/4, 3/4 of run r1 are missing")
	refuse("doubled", append(append([]result.Named{}, runs...), runs[2]), "driver 2/4 of run r1 is given twice, in d2.json and d2.json")
	refuse("merged plus a part", []result.Named{{Name: "all.json", Doc: back}, runs[1]}, "driver 1/4 of run r1 is given twice")
	other := driverDoc(t, 3, 4, 10, 1000, parts[3])
	other.Doc.Run.RunID = "r2"
	refuse("foreign", []result.Named{runs[0], runs[1], runs[2], other}, "holds driver results of run r1 (4 drivers) but d3.json holds driver [3] of run r2")
	single := result.Named{Name: "one.json", Doc: &result.Doc{Run: testRun(8), Experiments: []*result.Experiment{experimentOf(10, samples(10), &result.Counters{})}}}
	refuse("not a driver", []result.Named{runs[0], runs[1], runs[2], runs[3], single}, "one.json holds a run not split across drivers")
	wrongRate := driverDoc(t, 3, 4, 10, 2000, parts[3])
	refuse("rate", []result.Named{runs[0], runs[1], runs[2], wrongRate}, "all_target_rate")
}
