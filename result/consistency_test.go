package result_test

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/taobench/taobench/metrics"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/tao"
)

func tierStats(served, stale int64, lat, age time.Duration) result.TierStats {
	t := result.TierStats{Drawn: served + 1, Lookups: served + 2, Hits: served, Errors: 1, Served: served, Stale: stale,
		Latency: &metrics.Series{}, Age: &metrics.Series{}}
	for range served {
		t.Latency.Record(lat)
	}
	for range stale {
		t.Age.Record(age)
	}
	return t
}

func consistencyDoc(t *testing.T, seed uint64, c *result.Consistency) *result.Doc {
	t.Helper()
	e := &result.Experiment{Threads: 2, Duration: time.Second, Measured: time.Second, Started: time.Unix(1700000000, 0),
		Summary: metrics.NewSummary(), Counters: &result.Counters{}, Consistency: c}
	var buf bytes.Buffer
	if err := result.WriteJSON(&buf, &result.Run{Database: "sqlite:x", Workload: "o", Seed: seed, Started: time.Unix(int64(seed), 0)}, []*result.Experiment{e}); err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if err := json.Unmarshal(buf.Bytes(), &raw); err != nil {
		t.Fatal(err)
	}
	x := raw["experiments"].([]any)[0].(map[string]any)
	if _, ok := x["consistency"]; !ok {
		t.Fatalf("no consistency key in %s", buf.String())
	}
	doc, err := result.ReadJSON(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// The consistency figures go through the results file exactly, and merge
// adds them: counts add, histograms merge.
func TestConsistencyRoundTripAndMerge(t *testing.T) {
	t.Parallel()
	a := &result.Consistency{}
	a.Tiers[tao.TierClientCache] = tierStats(10, 4, time.Millisecond, 300*time.Millisecond)
	a.Tiers[tao.TierTAO] = tierStats(20, 0, 2*time.Millisecond, 0)
	a.Tiers[tao.TierDB] = tierStats(5, 0, 9*time.Millisecond, 0)
	b := &result.Consistency{}
	b.Tiers[tao.TierClientCache] = tierStats(30, 6, time.Millisecond, 900*time.Millisecond)
	b.Tiers[tao.TierTAO] = tierStats(1, 1, 2*time.Millisecond, 50*time.Millisecond)
	b.Tiers[tao.TierDB] = tierStats(0, 0, 0, 0)
	r := tierStats(50, 7, 3*time.Millisecond, 40*time.Millisecond)
	b.Replica = &r

	da, db := consistencyDoc(t, 1, a), consistencyDoc(t, 2, b)
	got := da.Experiments[0].Consistency
	if got == nil {
		t.Fatal("consistency lost on the way through the file")
	}
	for i := range a.Tiers {
		w, g := &a.Tiers[i], &got.Tiers[i]
		if w.Drawn != g.Drawn || w.Lookups != g.Lookups || w.Hits != g.Hits || w.Errors != g.Errors || w.Served != g.Served || w.Stale != g.Stale ||
			w.Latency.Stats() != g.Latency.Stats() || w.Age.Stats() != g.Age.Stats() {
			t.Errorf("tier %v: wrote %+v, read %+v", tao.Tier(i), *w, *g)
		}
	}
	m, err := result.Merge([]result.Named{{Name: "a.json", Doc: da}, {Name: "b.json", Doc: db}})
	if err != nil {
		t.Fatal(err)
	}
	mc := m.Experiments[0].Consistency
	csc := mc.Tiers[tao.TierClientCache]
	if csc.Served != 40 || csc.Stale != 10 || csc.Hits != 40 || csc.Lookups != 44 || csc.Drawn != 42 || csc.Errors != 2 {
		t.Errorf("merged client cache: %+v; want served 40, stale 10, hits 40, lookups 44, drawn 42, errors 2", csc)
	}
	if st := csc.Age.Stats(); st.Count != 10 || st.Min != 300000 || st.Max != 900000 {
		t.Errorf("merged stale ages: %+v; want 10 ages from 300 to 900 ms", st)
	}
	if s := csc.StaleShare(); s != 0.25 {
		t.Errorf("merged stale share %v, want 0.25", s)
	}
	if x := mc.Tiers[tao.TierTAO]; x.Stale != 1 || x.Served != 21 {
		t.Errorf("merged tao tier: %+v; want 21 served, 1 stale", x)
	}
	// The replicas' figures (db_replica): absent from a run without
	// replicas, read back and merged when a driver had them.
	if got.Replica != nil {
		t.Errorf("a run without replicas read back replica figures %+v", *got.Replica)
	}
	if x := db.Experiments[0].Consistency.Replica; x == nil || x.Served != 50 || x.Stale != 7 || x.Age.Stats() != r.Age.Stats() {
		t.Errorf("replica figures read back as %+v; wrote %+v", x, r)
	}
	if x := mc.Replica; x == nil || x.Served != 50 || x.Stale != 7 || x.Age.Count() != 7 {
		t.Errorf("merged replica figures %+v; want 50 served, 7 stale", x)
	}

	// A run without tiers writes null and reads back nil.
	if d := consistencyDoc(t, 3, nil); d.Experiments[0].Consistency != nil {
		t.Errorf("a run without tiers read back consistency %+v", d.Experiments[0].Consistency)
	}
}

// The prefill's figures go through the file and merge adds them: counts
// add, done only if every driver's was, the longest time.
func TestPrefillRoundTripAndMerge(t *testing.T) {
	t.Parallel()
	mk := func(n int64, done bool, took time.Duration) *result.Consistency {
		c := &result.Consistency{Prefill: &result.Prefill{Objects: n, Edges: 2 * n, Lists: 3 * n, Complete: n, Errors: 1, Done: done, Took: took}}
		for i := range c.Tiers {
			c.Tiers[i] = tierStats(1, 0, time.Millisecond, 0)
		}
		return c
	}
	a, b := mk(10, true, time.Second), mk(5, false, 3*time.Second)
	da, db := consistencyDoc(t, 1, a), consistencyDoc(t, 2, b)
	if got := da.Experiments[0].Consistency.Prefill; got == nil || *got != *a.Prefill {
		t.Errorf("prefill wrote %+v, read %+v", *a.Prefill, got)
	}
	m, err := result.Merge([]result.Named{{Name: "a.json", Doc: da}, {Name: "b.json", Doc: db}})
	if err != nil {
		t.Fatal(err)
	}
	want := result.Prefill{Objects: 15, Edges: 30, Lists: 45, Complete: 15, Errors: 2, Done: false, Took: 3 * time.Second}
	if got := m.Experiments[0].Consistency.Prefill; got == nil || *got != want {
		t.Errorf("merged prefill %+v; want %+v", got, want)
	}
	if c := consistencyDoc(t, 3, mk(0, true, 0)); c.Experiments[0].Consistency.Prefill == nil {
		t.Error("an empty prefill was dropped from the file")
	}
}
