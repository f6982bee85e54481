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

// The replicas' rows under db_replica go through the file (URL, counts,
// ages, lag, outages, promotion) and merge by URL: counts add, the
// outages are the longest a driver saw, the promotion the earliest.
func TestReplicaRowsRoundTripAndMerge(t *testing.T) {
	t.Parallel()
	row := func(name string, served, stale int64, outages int64, out time.Duration, promoted time.Time) result.ReplicaStats {
		r := result.ReplicaStats{Name: name, TierStats: tierStats(served, stale, time.Millisecond, 20*time.Millisecond),
			Lag: &metrics.Series{}, Outages: outages, Outage: out, Longest: out, PromotedAt: promoted}
		r.Lag.Record(15 * time.Millisecond)
		return r
	}
	at := time.Date(2026, 11, 29, 1, 25, 41, 512000000, time.UTC)
	mk := func(rows ...result.ReplicaStats) *result.Consistency {
		c := &result.Consistency{Replicas: rows}
		agg := result.TierStats{Latency: &metrics.Series{}, Age: &metrics.Series{}}
		for i := range rows {
			agg.Lookups, agg.Hits, agg.Errors = agg.Lookups+rows[i].Lookups, agg.Hits+rows[i].Hits, agg.Errors+rows[i].Errors
			agg.Served, agg.Stale = agg.Served+rows[i].Served, agg.Stale+rows[i].Stale
			agg.Latency.Merge(rows[i].Latency)
			agg.Age.Merge(rows[i].Age)
		}
		c.Replica = &agg
		return c
	}
	const s1, s2 = "postgres://postgres@127.0.0.1:5433/taobench", "postgres://postgres@127.0.0.1:5434/taobench"
	a := mk(row(s1, 10, 2, 0, 0, time.Time{}), row(s2, 8, 0, 1, 2500*time.Millisecond, time.Time{}))
	b := mk(row(s1, 5, 1, 0, 0, at), row(s2, 4, 0, 2, 1500*time.Millisecond, time.Time{}))
	da, db := consistencyDoc(t, 1, a), consistencyDoc(t, 2, b)
	got := da.Experiments[0].Consistency.Replicas
	if len(got) != 2 || got[0].Name != s1 || got[1].Name != s2 {
		t.Fatalf("rows read back: %+v; want %s and %s", got, s1, s2)
	}
	if g := got[1]; g.Served != 8 || g.Errors != 1 || g.Outages != 1 || g.Outage != 2500*time.Millisecond || g.Promoted() || g.Lag.Stats().Max != 15000 {
		t.Errorf("row %s read back as %+v", s2, g)
	}
	if g := db.Experiments[0].Consistency.Replicas[0]; !g.PromotedAt.Equal(at) || g.Stale != 1 || g.Age.Count() != 1 {
		t.Errorf("row %s read back promoted at %v, %d stale; wrote %v, 1", s1, g.PromotedAt, g.Stale, at)
	}
	m, err := result.Merge([]result.Named{{Name: "a.json", Doc: da}, {Name: "b.json", Doc: db}})
	if err != nil {
		t.Fatal(err)
	}
	rs := m.Experiments[0].Consistency.Replicas
	if len(rs) != 2 {
		t.Fatalf("merged rows: %+v; want 2", rs)
	}
	if r := rs[0]; r.Name != s1 || r.Served != 15 || r.Stale != 3 || !r.PromotedAt.Equal(at) || r.Lag.Count() != 2 {
		t.Errorf("merged %s: %+v; want 15 served, 3 stale, promoted at %v, 2 lags", s1, r, at)
	}
	if r := rs[1]; r.Name != s2 || r.Served != 12 || r.Errors != 2 || r.Outages != 2 || r.Longest != 2500*time.Millisecond || r.Promoted() {
		t.Errorf("merged %s: %+v; want 12 served, 2 errors, 2 outages, longest 2.5 s, not promoted", s2, r)
	}
}

// The endpoints' stale-read rows (a run over several endpoints) go
// through the file under consistency's "endpoints", per second included,
// and merge by URL as the replicas' rows do; the check-only tiers stay
// as they were.
func TestEndpointRowsRoundTripAndMerge(t *testing.T) {
	t.Parallel()
	row := func(name string, served, stale int64) result.ReplicaStats {
		r := result.ReplicaStats{Name: name, TierStats: tierStats(served, stale, time.Millisecond, 7*time.Millisecond), Lag: &metrics.Series{}}
		q := r.Second(1)
		q.Served, q.Stale, q.MaxAge = served, stale, 7*time.Millisecond
		r.Lag.Record(3 * time.Millisecond)
		return r
	}
	const n1, n2 = "mysql://root@10.0.0.1:3306/t", "mysql://root@10.0.0.2:3306/t"
	mk := func(a, b int64) *result.Consistency {
		return &result.Consistency{CheckOnly: true, Endpoints: []result.ReplicaStats{row(n1, a, 0), row(n2, b, b/2)}}
	}
	da, db := consistencyDoc(t, 1, mk(10, 8)), consistencyDoc(t, 2, mk(5, 4))
	got := da.Experiments[0].Consistency
	if len(got.Endpoints) != 2 || got.Endpoints[0].Name != n1 || got.Endpoints[1].Name != n2 || got.Replica != nil || !got.CheckOnly {
		t.Fatalf("read back: %+v; want rows %s and %s, check-only, no replica tier", got, n1, n2)
	}
	if g := got.Endpoints[1]; g.Served != 8 || g.Stale != 4 || len(g.Seconds) != 2 || g.Seconds[1].Stale != 4 || g.Seconds[1].MaxAge != 7*time.Millisecond || g.Lag.Count() != 1 {
		t.Errorf("row %s read back as %+v", n2, g)
	}
	m, err := result.Merge([]result.Named{{Name: "a.json", Doc: da}, {Name: "b.json", Doc: db}})
	if err != nil {
		t.Fatal(err)
	}
	rs := m.Experiments[0].Consistency.Endpoints
	if len(rs) != 2 || rs[0].Served != 15 || rs[1].Served != 12 || rs[1].Stale != 6 || rs[1].Seconds[1].Stale != 6 || rs[1].Lag.Count() != 2 {
		t.Errorf("merged rows: %+v; want %s 15 served, %s 12 served, 6 stale (in second 1), 2 lags", rs, n1, n2)
	}
}

// Each endpoint's per_second rows carry its stale reads and the oldest's
// age, from its consistency row (matched by place, then URL); a run
// without the rows has neither key.
func TestEndpointSecondsCarryStale(t *testing.T) {
	t.Parallel()
	const n1, n2 = "mysql://root@10.0.0.1:3306/t", "mysql://root@10.0.0.3:3306/t"
	rows := func(withStale bool) []map[string]any {
		e := &result.Experiment{Threads: 2, Duration: 2 * time.Second, Measured: 2 * time.Second, Started: time.Unix(1700000000, 0),
			Summary: metrics.NewSummary(), Counters: &result.Counters{},
			Endpoints: []result.Endpoint{{Name: n1, Weight: 1, Summary: metrics.NewSummary()}, {Name: n2, Weight: 1, Summary: metrics.NewSummary()}}}
		if withStale {
			second := func(name string, stale int64) result.ReplicaStats {
				r := result.ReplicaStats{Name: name, TierStats: tierStats(5, stale, time.Millisecond, 3*time.Millisecond), Lag: &metrics.Series{}}
				q := r.Second(1)
				q.Served, q.Stale, q.MaxAge = 5, stale, 3*time.Millisecond
				return r
			}
			e.Consistency = &result.Consistency{CheckOnly: true, Endpoints: []result.ReplicaStats{second(n1, 0), second(n2, 2)}}
		}
		var buf bytes.Buffer
		if err := result.WriteJSON(&buf, &result.Run{Database: "sqlite:x", Workload: "o", Started: time.Unix(1, 0)}, []*result.Experiment{e}); err != nil {
			t.Fatal(err)
		}
		var raw struct {
			Experiments []struct {
				Endpoints []struct {
					PerSecond []map[string]any `json:"per_second"`
				} `json:"endpoints"`
			} `json:"experiments"`
		}
		if err := json.Unmarshal(buf.Bytes(), &raw); err != nil {
			t.Fatal(err)
		}
		var out []map[string]any
		for _, ep := range raw.Experiments[0].Endpoints {
			if len(ep.PerSecond) < 2 {
				t.Fatalf("per_second rows %v; want 2 seconds", ep.PerSecond)
			}
			out = append(out, ep.PerSecond[1])
		}
		return out
	}
	got := rows(true)
	if got[0]["stale"] != 0.0 || got[1]["stale"] != 2.0 || got[1]["max_stale_age_us"] != 3000.0 {
		t.Errorf("second 1's rows: %v; want stale 0 at %s, 2 (oldest 3000 µs) at %s", got, n1, n2)
	}
	for _, r := range rows(false) {
		if _, ok := r["stale"]; ok {
			t.Errorf("a run without the endpoints' stale reads: row %v has stale", r)
		}
	}
}
