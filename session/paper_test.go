package session_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/run"
	"github.com/taobench/taobench/session"
)

func ladder(threads int) session.Ladder {
	return session.Ladder{
		Experiment: run.Experiment{Threads: threads, Duration: 400 * time.Millisecond},
		Config:     run.Config{Seed: 9, Retries: 3, Timeout: time.Second, Drain: time.Second},
		Graph:      session.GraphSpec{Edges: 2000},
	}
}

// TestLockHold: a step per hold, labelled; writes holding their locks 40
// ms take at least that; the rows and the JSON carry them.
func TestLockHold(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	s := open(t, sqlite(t), session.Options{Name: "experiment lock-hold", Sink: rec})
	hs := []time.Duration{0, 40 * time.Millisecond}
	steps := session.LockHoldSteps(builtin(t, "t1"), hs)
	info, done, err := s.RunLadder(context.Background(), ladder(2), steps)
	if err != nil || len(done) != 2 {
		t.Fatalf("RunLadder: %d steps, %v", len(done), err)
	}
	rows := session.HoldRows(hs, done)
	if rows[0].Hold != "0s" || rows[1].Hold != "40ms" || rows[1].Writes == 0 || rows[1].P50Ms < 40 {
		t.Errorf("rows %+v; want writes of the 40 ms step at a p50 of 40 ms or more", rows)
	}
	if strings.Join(rec.started, ",") != "hold 0s,hold 40ms" || !rec.noted("graph: workload t1's") || info.Workload != "t1" {
		t.Errorf("steps started %q, notes %q, run of %q", rec.started, rec.notes, info.Workload)
	}
	js, err := (&session.Paper{Name: "lock-hold", Info: info, Done: done, Labels: rec.started, Table: rows}).JSON()
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Experiment string           `json:"experiment"`
		Steps      []string         `json:"steps"`
		Table      []map[string]any `json:"table"`
	}
	if err := json.Unmarshal(js, &doc); err != nil || doc.Experiment != "lock-hold" || len(doc.Steps) != 2 || doc.Table[1]["hold_ms"] != 40.0 {
		t.Errorf("JSON: %+v, %v", doc, err)
	}
}

// TestPreconditionWait: the waits are drawn in one step and the counter
// sees preconditioned writes of each.
func TestPreconditionWait(t *testing.T) {
	t.Parallel()
	base := builtin(t, "preconditioned")
	if !session.HasVersionPredicate(base) || session.HasVersionPredicate(builtin(t, "t1")) {
		t.Fatal("HasVersionPredicate: want preconditioned's and not the other's")
	}
	waits := []time.Duration{0, 20 * time.Millisecond}
	step, wc := session.WaitStep(base, "waits", waits, 0)
	s := open(t, sqlite(t), session.Options{Name: "experiment precondition-wait"})
	_, done, err := s.RunLadder(context.Background(), ladder(4), []session.Step{step})
	if err != nil || len(done) != 1 {
		t.Fatalf("RunLadder: %d steps, %v", len(done), err)
	}
	rows := wc.Rows()
	if len(rows) != 2 || rows[0].Wait != "0s" || rows[1].WaitMs != 20 || rows[0].Checked == 0 || rows[1].Checked == 0 {
		t.Errorf("rows %+v; want preconditioned writes counted for both waits", rows)
	}
}

// TestCompareRows: the % difference from the baseline, NaN from a 0
// baseline, written as null.
func TestCompareRows(t *testing.T) {
	t.Parallel()
	s := open(t, "null", session.Options{})
	w := builtin(t, "o")
	g, _, err := s.Graph(context.Background(), w, session.GraphSpec{Edges: 500})
	if err != nil {
		t.Fatal(err)
	}
	x := run.Experiment{Threads: 1, Duration: 100 * time.Millisecond}
	done, err := s.Run(context.Background(), session.Plan{Config: run.Config{Workload: w, Graph: g, Drain: time.Second}, Experiments: []run.Experiment{x, x}})
	if err != nil {
		t.Fatal(err)
	}
	rows := session.CompareRows(done)
	var thr, timeout session.CompareRow
	for _, r := range rows {
		switch r.Metric {
		case "throughput (req/s)":
			thr = r
		case "timeout %":
			timeout = r
		}
	}
	want := 100 * (thr.Values[1] - thr.Values[0]) / thr.Values[0]
	if len(thr.DiffPct) != 1 || thr.DiffPct[0] != want || timeout.DiffPct[0] == timeout.DiffPct[0] {
		t.Errorf("throughput %+v (want a diff of %v), timeout %+v (want NaN from 0)", thr, want, timeout)
	}
	js, err := (&session.Paper{Name: "compare", Info: &result.Run{}, Done: done, Labels: []string{"o", "o"}, Table: rows}).JSON()
	if err != nil || !strings.Contains(string(js), `"diff_pct": [
        null
      ]`) {
		t.Errorf("Paper.JSON: %v; want NaN as null:\n%.300s", err, js)
	}
}
