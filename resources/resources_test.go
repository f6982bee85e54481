package resources

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/store/storetest"
)

// fakeServer answers ServerStats with its readings in turn.
type fakeServer struct {
	storetest.Func
	readings []store.ServerStats
	errs     []error
	n        int
}

func (f *fakeServer) ServerStats(context.Context) (store.ServerStats, error) {
	i := f.n
	f.n++
	return f.readings[i], f.errs[i]
}

func burn(d time.Duration) {
	for end := time.Now().Add(d); time.Now().Before(end); {
	}
}

func TestDriverSamples(t *testing.T) {
	s := Start(context.Background(), storetest.Func{}) // no server view
	burn(1200 * time.Millisecond)
	r := s.Stop(context.Background(), false)
	if r.Server != nil {
		t.Errorf("a store without StatsReader has server usage: %+v", r.Server)
	}
	d := r.Driver
	if d.Error != "" {
		t.Fatalf("driver error: %s", d.Error)
	}
	if len(d.Samples) < 1 {
		t.Fatalf("%d samples in 1.2 s, want at least 1", len(d.Samples))
	}
	for _, x := range d.Samples {
		if x.RSS <= 0 || x.At < 900*time.Millisecond || x.CPUPct < 0 {
			t.Errorf("sample %+v: want RSS > 0, at about 1 s, CPU >= 0", x)
		}
	}
	// The loop kept a core busy (as much as other tests on the machine let it).
	if d.User+d.Sys <= 0 || d.CPUPct <= 0 || d.MaxRSS <= 0 {
		t.Errorf("CPU user %v sys %v (%.1f%%), max RSS %d: want a busy core's worth and RSS > 0", d.User, d.Sys, d.CPUPct, d.MaxRSS)
	}
}

func TestServerDeltas(t *testing.T) {
	f := &fakeServer{
		readings: []store.ServerStats{
			{Engine: "postgres", SizeBytes: map[string]int64{"edges": 100}, Counters: map[string]int64{"xact_commit": 10, "gone": 1},
				Tables: map[string]map[string]int64{"edges": {"n_tup_ins": 5}}, Lag: time.Millisecond},
			{Engine: "postgres", SizeBytes: map[string]int64{"edges": 150}, Counters: map[string]int64{"xact_commit": 25, "new": 7},
				Tables: map[string]map[string]int64{"edges": {"n_tup_ins": 9}, "objects": {"n_tup_ins": 3}}},
		},
		errs: []error{nil, nil},
	}
	r := Start(context.Background(), f).Stop(context.Background(), false)
	su := r.Server
	if su == nil || su.Engine != "postgres" || su.Error != "" {
		t.Fatalf("server usage %+v", su)
	}
	if su.Before.SizeBytes["edges"] != 100 || su.After.SizeBytes["edges"] != 150 {
		t.Errorf("sizes before %v after %v", su.Before.SizeBytes, su.After.SizeBytes)
	}
	// A counter gone after has no delta; one that appeared during the
	// experiment, after a good first reading, counts from 0 (TiDB creates
	// its error counters at the first error).
	if len(su.Deltas) != 2 || su.Deltas["xact_commit"] != 15 || su.Deltas["new"] != 7 {
		t.Errorf("deltas %v, want xact_commit 15 and new 7", su.Deltas)
	}
	if len(su.TableDeltas) != 1 || su.TableDeltas["edges"]["n_tup_ins"] != 4 {
		t.Errorf("table deltas %v, want only edges n_tup_ins 4", su.TableDeltas)
	}
}

// A failed reading is recorded, not fatal; a cancelled run still reads
// the server after.
func TestServerErrors(t *testing.T) {
	f := &fakeServer{
		readings: []store.ServerStats{{Engine: "mysql"}, {Engine: "mysql", Counters: map[string]int64{"Com_commit": 3}}},
		errs:     []error{errors.New("access denied"), nil},
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := Start(ctx, f)
	cancel()
	r := s.Stop(ctx, false)
	if f.n != 2 {
		t.Errorf("%d readings, want 2 (before and after, though cancelled)", f.n)
	}
	su := r.Server
	if su == nil || !strings.Contains(su.Error, "before: access denied") || len(su.Deltas) != 0 {
		t.Errorf("server usage %+v: want the before error and no deltas", su)
	}
	if su.After.SizeBytes == nil || su.After.Gauges == nil || su.Before.SizeBytes == nil {
		t.Error("nil maps in the server state")
	}

	// The same reason both times (a server that keeps no counters) is said once.
	same := errors.New("Cloud Spanner keeps no counters")
	f = &fakeServer{readings: []store.ServerStats{{}, {}}, errs: []error{same, same}}
	su = Start(context.Background(), f).Stop(context.Background(), false).Server
	if su == nil || su.Error != "before and after: "+same.Error() {
		t.Errorf("the same error before and after: %q, want it once", su.Error)
	}
}

func TestTuplesPerRequest(t *testing.T) {
	pg := func(d map[string]int64) *result.ServerUsage {
		return &result.ServerUsage{Engine: "postgres", Deltas: d}
	}
	my := func(d map[string]int64) *result.ServerUsage { return &result.ServerUsage{Engine: "mysql", Deltas: d} }
	mysqlReads := map[string]int64{"Handler_read_first": 1, "Handler_read_key": 100, "Handler_read_next": 40, "Handler_read_prev": 9,
		"Handler_read_rnd_next": 0, "Handler_commit": 99, "Handler_rollback": 1}
	for _, c := range []struct {
		name string
		s    *result.ServerUsage
		want float64
		ok   bool
	}{
		{"postgres", pg(map[string]int64{"tup_returned": 4740, "xact_commit": 98, "xact_rollback": 2}), 47.4, true},
		{"mysql", my(mysqlReads), 1.5, true},
		{"no transactions", pg(map[string]int64{"tup_returned": 5, "xact_commit": 0, "xact_rollback": 0}), 0, false},
		{"a counter missing", pg(map[string]int64{"tup_returned": 5, "xact_commit": 3}), 0, false},
		{"sqlite", &result.ServerUsage{Engine: "sqlite", Deltas: map[string]int64{}}, 0, false},
		{"no server", nil, 0, false},
	} {
		got, ok := c.s.TuplesPerRequest()
		if ok != c.ok || math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%s: got %v, %v; want %v, %v", c.name, got, ok, c.want, c.ok)
		}
	}
}
