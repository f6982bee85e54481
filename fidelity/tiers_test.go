package fidelity

import (
	"math"
	"strings"
	"testing"

	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/workload"
)

func tierRow(t *testing.T, rows []result.FidelityRow, prefix string) result.FidelityRow {
	t.Helper()
	for _, r := range rows {
		if strings.HasPrefix(r.Figure, prefix) {
			return r
		}
	}
	t.Fatalf("no row %q in %+v", prefix, rows)
	return result.FidelityRow{}
}

// consistency of n reads drawn 14/85/1 and served as served (shares).
func consistency(n int64, served [3]float64) *result.Consistency {
	c := &result.Consistency{}
	drawn := [3]float64{0.14, 0.85, 0.01}
	for i := range c.Tiers {
		c.Tiers[i].Drawn = int64(drawn[i] * float64(n))
		c.Tiers[i].Served = int64(served[i] * float64(n))
		// Every tier was asked for: each looked up at least what it served.
		c.Tiers[i].Lookups = c.Tiers[i].Served + 1
	}
	return c
}

func TestTierRows(t *testing.T) {
	w, err := workload.Resolve("o")
	if err != nil {
		t.Fatal(err)
	}
	if TierRows(w, nil) != nil {
		t.Errorf("rows for a run without tiers")
	}
	// Warm tiers, read transactions served where TAO serves them
	// (docs/tiers.md): every read served as drawn, every row passes.
	for _, r := range TierRows(w, consistency(100000, [3]float64{0.14, 0.85, 0.01})) {
		if r.Verdict != result.Pass {
			t.Errorf("warm tiers: %+v", r)
		}
	}
	// With read transactions sent to the database (TxnsAtDB): single
	// reads served as drawn, read transactions (their share of the
	// workload's reads) by the database.
	var reads, txns float64
	for i, c := range w.Requests.Values {
		switch c {
		case tao.Read:
			reads += w.Requests.Weights[i]
		case tao.ReadTxn:
			txns += w.Requests.Weights[i]
		}
	}
	f := txns / (reads + txns)
	if f < 0.01 {
		t.Fatalf("workload o's read transactions are %.4f of its reads; the test wants a share the db row can tell", f)
	}
	atDB := consistency(100000, [3]float64{0.14 * (1 - f), 0.85 * (1 - f), 0.01*(1-f) + f})
	atDB.TxnsAtDB = true
	for _, r := range TierRows(w, atDB) {
		if r.Verdict != result.Pass {
			t.Errorf("warm tiers, read transactions at the database: %+v", r)
		}
	}
	// The same shares judged as TAO's read path: the database served
	// too much.
	atDB.TxnsAtDB = false
	if r := tierRow(t, TierRows(w, atDB), "reads served by db"); r.Verdict != result.Fail {
		t.Errorf("read transactions at the database judged as TAO's path: %+v; want the db row failed", r)
	}
	// Cold tiers (docs/tiers.md's figure): the draws pass, the served
	// shares fail.
	cold := TierRows(w, consistency(100000, [3]float64{0.003, 0.433, 0.564}))
	if r := tierRow(t, cold, "reads drawn"); r.Verdict != result.Pass {
		t.Errorf("cold tiers, right draws: %+v", r)
	}
	for _, tier := range []string{"client_cache", "tao", "db"} {
		if r := tierRow(t, cold, "reads served by "+tier); r.Verdict != result.Fail {
			t.Errorf("cold tiers: %+v; want fail", r)
		}
	}
	// A workload with no read_tiers sends every read to the database:
	// one bin, nothing for the chi-square to test, and no NaN in the row.
	nw := *w
	nw.ReadTiers = workload.Dist[tao.Tier]{}
	db := &result.Consistency{}
	db.Tiers[tao.TierDB].Drawn, db.Tiers[tao.TierDB].Served = 1000, 1000
	for _, r := range TierRows(&nw, db) {
		if r.Observed != r.Observed || r.P != r.P || r.Failed() {
			t.Errorf("every read to the database: %+v", r)
		}
	}
	// Wrong draws: 20/79/1 fails the chi-square row.
	bad := consistency(100000, [3]float64{0.20, 0.79, 0.01})
	bad.Tiers[0].Drawn, bad.Tiers[1].Drawn = 20000, 79000
	if r := tierRow(t, TierRows(w, bad), "reads drawn"); r.Verdict != result.Fail {
		t.Errorf("draws of 20/79/1 against 14/85/1: %+v; want fail", r)
	}
	// The self-check: one stale read the database answered fails it.
	c := consistency(100000, [3]float64{0.14, 0.85, 0.01})
	if r := tierRow(t, TierRows(w, c), "stale reads (self-check)"); r.Verdict != result.Pass || r.Target != 0 {
		t.Errorf("no stale read: %+v", r)
	}
	c.Tiers[tao.TierDB].Stale = 1
	if r := tierRow(t, TierRows(w, c), "stale reads (self-check)"); r.Verdict != result.Fail {
		t.Errorf("one stale database read: %+v; want fail", r)
	}
	// No read checked: the self-check says nothing, it does not pass.
	none := &result.Consistency{CheckOnly: true}
	if r := tierRow(t, TierRows(w, none), "stale reads (self-check)"); r.Verdict != result.Skipped {
		t.Errorf("no read checked: %+v; want skipped", r)
	}
	// Several endpoints: their reads may be stale (a node behind the
	// others), and none is the self-check's: no row.
	eps := &result.Consistency{CheckOnly: true, Endpoints: []result.ReplicaStats{{Name: "a", TierStats: result.TierStats{Served: 10, Stale: 3}}}}
	if rows := TierRows(w, eps); len(rows) != 0 {
		t.Errorf("several endpoints: rows %+v; want none", rows)
	}
}

// TestTierRowsOnlyAsked: a run with replicas and no cache (neither cache
// looked up) has no row of a cache tier, and the database's row takes
// every read; a run with the tao tier alone moves the client cache's share
// to it.
func TestTierRowsOnlyAsked(t *testing.T) {
	w, err := workload.Resolve("o")
	if err != nil {
		t.Fatal(err)
	}
	c := &result.Consistency{Replica: &result.TierStats{Served: 60000}}
	c.Tiers[tao.TierClientCache].Drawn, c.Tiers[tao.TierTAO].Drawn, c.Tiers[tao.TierDB].Drawn = 14000, 85000, 1000
	c.Tiers[tao.TierDB].Lookups, c.Tiers[tao.TierDB].Served = 40000, 40000
	rows := TierRows(w, c)
	for _, r := range rows {
		if strings.HasPrefix(r.Figure, "reads served by client_cache") || strings.HasPrefix(r.Figure, "reads served by tao") {
			t.Errorf("a row of a tier not asked for: %+v", r)
		}
	}
	if r := tierRow(t, rows, "reads served by db"); r.Verdict != result.Pass || math.Abs(r.Target-1) > 1e-9 {
		t.Errorf("every read to the database tier (primary and replica): %+v; want pass at target 1", r)
	}
	// The tao tier alone: the client cache's reads fall through to it,
	// read transactions served as single reads (TAO's path) or all at the
	// database (--read-txns-at-db).
	f := txnShare(w)
	for _, atDB := range []bool{false, true} {
		d := consistency(100000, [3]float64{0, 0.99, 0.01})
		if atDB {
			d = consistency(100000, [3]float64{0, 0.99 * (1 - f), 0.01*(1-f) + f})
		}
		d.TxnsAtDB = atDB
		d.Tiers[tao.TierClientCache].Lookups = 0
		rows = TierRows(w, d)
		if r := tierRow(t, rows, "reads served by tao"); r.Verdict != result.Pass {
			t.Errorf("tao tier alone serving the client cache's share (read transactions at the database: %v): %+v; want pass", atDB, r)
		}
		for _, r := range rows {
			if strings.HasPrefix(r.Figure, "reads served by client_cache") {
				t.Errorf("a row of the client cache, not asked for: %+v", r)
			}
		}
	}
}
