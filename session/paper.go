package session

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sync/atomic"
	"time"

	"github.com/taobench/taobench/metrics"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/run"
	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/workload"
)

// The paper's experiments (TAOBench §5-§6): a ladder of experiments on one
// database and one graph, each step a workload (and a store wrapper), and
// the table the paper shows (docs/experiments.md).

// Ladder is what every step of a paper experiment shares.
type Ladder struct {
	// Experiment is every step's clients, windows and rate.
	Experiment run.Experiment
	// Config is every step's; its Seed is the run's, Workload and Graph
	// are set per step.
	Config run.Config
	// Graph sizes the graph: an empty database gets the first step's,
	// and it must suit every step's workload (and Graph.Also).
	Graph GraphSpec
	// Tiers are the read tiers every step's reads go through (none: the
	// zero value).
	Tiers TierSpec
}

// RunLadder finds or loads a graph every step's workload suits and runs
// the steps in order. Ctrl-C stops it with the steps done so far and
// ErrInterrupted.
func (s *Session) RunLadder(ctx context.Context, l Ladder, steps []Step) (*result.Run, []*result.Experiment, error) {
	if _, err := s.needDatabase(); err != nil {
		return nil, nil, err
	}
	ws := make([]*workload.Workload, len(steps))
	plan := Plan{Config: l.Config}
	for i, st := range steps {
		ws[i] = st.Workload
		plan.Experiments = append(plan.Experiments, l.Experiment)
	}
	plan.Steps = steps
	spec := l.Graph
	spec.Also = append(ws[1:len(ws):len(ws)], spec.Also...)
	g, loaded, err := s.Graph(ctx, ws[0], spec)
	if err != nil {
		return nil, nil, err
	}
	seed := l.Config.Seed
	s.sink.Note(fmt.Sprintf("graph: workload %s's, %d edges; seed %d (give run.Config.Seed %d to repeat the requests)", loaded.Name, g.Edges(), seed, seed))
	info := s.RunInfo(Meta{Workloads: ws, GraphOf: loaded.Name, Graph: g, Seed: seed, Retries: l.Config.Retries, InjectLatency: l.Config.InjectLatency})
	plan.Config.Graph = g
	front, closeTiers, err := s.Tiers(ctx, l.Tiers, l.Experiment.Threads, info)
	if err != nil {
		return nil, nil, err
	}
	defer closeTiers()
	plan.Config.Store = front
	done, err := s.Run(ctx, plan)
	return info, done, err
}

// stepLabels are the labels of the first n steps.
func stepLabels(steps []Step, n int) []string {
	s := make([]string, n)
	for i := range s {
		s[i] = steps[i].Label
	}
	return s
}

// writeOutcomes are the measured writes and write transactions of e, and
// how many of them ended in o.
func writeOutcomes(e *result.Experiment, o tao.Outcome) (writes, n int64) {
	for _, c := range []tao.Class{tao.Write, tao.WriteTxn} {
		for out := range tao.NumOutcomes {
			writes += e.Counters.Outcomes[c][out]
		}
		n += e.Counters.Outcomes[c][o]
	}
	return writes, n
}

func pctOf(n, d int64) float64 {
	if d == 0 {
		return 0
	}
	return 100 * float64(n) / float64(d)
}

// --- lock hold (§6.2, Fig. 12) ------------------------------------------------

// HoldRow is one row of the lock-hold table.
type HoldRow struct {
	Hold           string  `json:"hold"`
	HoldMs         float64 `json:"hold_ms"`
	Writes         int64   `json:"writes"`
	Throughput     float64 `json:"throughput"`
	ConflictPct    float64 `json:"conflict_pct"`
	ObjConflictPct float64 `json:"object_lock_conflict_pct"`
	AssocConflict  float64 `json:"association_lock_conflict_pct"`
	TimeoutPct     float64 `json:"timeout_pct"`
	FailedPct      float64 `json:"failed_pct"`
	P50Ms          float64 `json:"write_p50_ms"`
	P99Ms          float64 `json:"write_p99_ms"`
	// TargetRate is the step's offered load (open loop; 0: closed loop),
	// and Reached whether the clients issued it (result.OpenLoop.Reached).
	TargetRate float64 `json:"target_rate,omitempty"`
	Reached    bool    `json:"reached"`
}

// LockHoldSteps are base with each hold in turn replacing its lock_hold.
func LockHoldSteps(base *workload.Workload, holds []time.Duration) []Step {
	steps := make([]Step, len(holds))
	for i, h := range holds {
		w := *base
		w.LockHold = workload.Dist[time.Duration]{}
		if h > 0 {
			w.LockHold = workload.Dist[time.Duration]{Values: []time.Duration{h}, Weights: []float64{1}}
		}
		steps[i] = Step{Label: "hold " + h.String(), Workload: &w}
	}
	return steps
}

// HoldRows are the lock-hold table of the steps done, step i of holds[i].
func HoldRows(holds []time.Duration, done []*result.Experiment) []HoldRow {
	rows := make([]HoldRow, len(done))
	for i, x := range done {
		writes, touts := writeOutcomes(x, tao.Timeout)
		var failed int64
		for o := range tao.NumOutcomes {
			if o.Failed() {
				_, k := writeOutcomes(x, o)
				failed += k
			}
		}
		c := x.Summary.Contention()
		st := x.Summary.Stats("write", "write_txn")
		rows[i] = HoldRow{
			Hold: holds[i].String(), HoldMs: float64(holds[i]) / 1e6, Writes: writes,
			Throughput:  float64(x.Summary.Requests()) / max(x.Measured.Seconds(), 1e-9),
			ConflictPct: c.OverallPct, ObjConflictPct: c.ObjectLockConflictPct, AssocConflict: c.AssociationLockConflictPct,
			TimeoutPct: pctOf(touts, writes), FailedPct: pctOf(failed, writes),
			P50Ms: st.P50 / 1000, P99Ms: st.P99 / 1000, // Stats are in µs
			TargetRate: x.OpenLoop.Rate, Reached: x.OpenLoop.Reached(),
		}
	}
	return rows
}

// --- precondition wait (§6.3, Fig. 13) ---------------------------------------

// WaitRow is one row of the precondition-wait table.
type WaitRow struct {
	Wait      string  `json:"wait"`
	WaitMs    float64 `json:"wait_ms"`
	Checked   int64   `json:"preconditioned_requests"`
	Failed    int64   `json:"precondition_failed"`
	FailedPct float64 `json:"precondition_failed_pct"`
	Ratio     float64 `json:"ratio"` // FailedPct over the first positive wait's; 0 when undefined
}

// HasVersionPredicate reports whether w draws a version precondition, the
// only kind of write precondition_wait delays.
func HasVersionPredicate(w *workload.Workload) bool {
	for _, d := range []workload.Dist[tao.Predicate]{w.OpPredicates, w.TxnPredicates} {
		for i, p := range d.Values {
			if (p == tao.PredWriteVersion || p == tao.PredReadVersion) && d.Weights[i] > 0 {
				return true
			}
		}
	}
	return false
}

// WaitStep is the precondition-wait experiment's one step: base with the
// waits drawn with equal chance, every preconditioned write taking one at
// random, so every wait meets the same concurrent load (in a closed loop,
// a step per wait would let the waits themselves slow every client and
// lower the load the writes race against; docs/experiments.md). The
// counter it returns counts the step's outcomes by wait once it ran;
// warmup is the step's.
func WaitStep(base *workload.Workload, label string, waits []time.Duration, warmup time.Duration) (Step, *WaitCounter) {
	w := *base
	w.PreconditionWait = workload.Dist[time.Duration]{Values: waits, Weights: make([]float64, len(waits))}
	for i := range waits {
		w.PreconditionWait.Weights[i] = 1
	}
	wc := &WaitCounter{waits: waits, checked: make([]atomic.Int64, len(waits)), failed: make([]atomic.Int64, len(waits))}
	return Step{Label: label, Workload: &w, Wrap: func(st store.Store) store.Store {
		wc.Store, wc.from = st, time.Now().Add(warmup)
		return wc
	}}, wc
}

// WaitCounter is a store wrapper that counts, by the wait drawn, the
// requests with a version check that reached a final answer after the
// warmup, and those that failed on their precondition. A conflict is not
// final: it is retried (or counted by the run as a conflict).
type WaitCounter struct {
	store.Store
	waits           []time.Duration
	from            time.Time
	checked, failed []atomic.Int64
}

// Exec executes req on the wrapped store and counts its outcome.
func (c *WaitCounter) Exec(ctx context.Context, req *tao.Request, res *tao.Result) {
	c.Store.Exec(ctx, req, res)
	if res.Outcome.IsConflict() || time.Now().Before(c.from) {
		return
	}
	version := false
	for i := range req.Checks {
		version = version || req.Checks[i].Kind == tao.CheckVersion
	}
	if !version {
		return
	}
	for i, d := range c.waits {
		if d == req.Wait {
			c.checked[i].Add(1)
			if res.Outcome == tao.PreconditionFailed {
				c.failed[i].Add(1)
			}
			return
		}
	}
}

// Rows are the precondition-wait table: one row per wait.
func (c *WaitCounter) Rows() []WaitRow {
	var rows []WaitRow
	ref := -1.0
	for i, d := range c.waits {
		r := WaitRow{Wait: d.String(), WaitMs: float64(d) / 1e6, Checked: c.checked[i].Load(), Failed: c.failed[i].Load()}
		r.FailedPct = pctOf(r.Failed, r.Checked)
		if ref < 0 && d > 0 {
			ref = r.FailedPct
		}
		if ref > 0 {
			r.Ratio = r.FailedPct / ref
		}
		rows = append(rows, r)
	}
	return rows
}

// --- compare (Tables 6, 7) ---------------------------------------------------

// CompareRow is one metric of the compare table: its value per workload
// and the % difference of each from the first.
type CompareRow struct {
	Metric  string    `json:"metric"`
	Values  []float64 `json:"values"`
	DiffPct []float64 `json:"diff_pct"` // per workload after the first; NaN (null) when the first is 0
}

// LatencyOf names the series the compare table's latencies are of: write
// transactions when every step has some (Tables 4, 6 and 7 are of write
// transactions), else every request.
func LatencyOf(done []*result.Experiment) string {
	for _, x := range done {
		if x.Summary.Stats("write_txn").Count == 0 {
			return metrics.All
		}
	}
	return "write_txn"
}

// CompareRows are the compare table of the steps done, the first the
// baseline.
func CompareRows(done []*result.Experiment) []CompareRow {
	series := LatencyOf(done)
	type metric struct {
		name string
		f    func(x *result.Experiment) float64
	}
	// Stats are in µs.
	stat := func(x *result.Experiment) metrics.LatencyStats { return x.Summary.Stats(series) }
	rows := []metric{
		{"mean latency (ms)", func(x *result.Experiment) float64 { return stat(x).Mean / 1000 }},
		{"p50 latency (ms)", func(x *result.Experiment) float64 { return stat(x).P50 / 1000 }},
		{"p99 latency (ms)", func(x *result.Experiment) float64 { return stat(x).P99 / 1000 }},
		{"obj. lock conflict %", func(x *result.Experiment) float64 { return x.Summary.Contention().ObjectLockConflictPct }},
		{"assoc. lock conflict %", func(x *result.Experiment) float64 { return x.Summary.Contention().AssociationLockConflictPct }},
		{"overall contention %", func(x *result.Experiment) float64 { return x.Summary.Contention().OverallPct }},
		{"lock-conflicted writes", func(x *result.Experiment) float64 {
			w, _ := writeOutcomes(x, tao.OK)
			return math.Round(x.Summary.Contention().OverallPct * float64(w) / 100)
		}},
		{"unique assoc. exists %", func(x *result.Experiment) float64 { return x.Summary.Contention().UniqueAssociationExistsPct }},
		{"timeout %", func(x *result.Experiment) float64 { w, t := writeOutcomes(x, tao.Timeout); return pctOf(t, w) }},
		{"throughput (req/s)", func(x *result.Experiment) float64 {
			return float64(x.Summary.Requests()) / max(x.Measured.Seconds(), 1e-9)
		}},
	}
	out := make([]CompareRow, len(rows))
	for i, m := range rows {
		r := CompareRow{Metric: m.name}
		for _, x := range done {
			r.Values = append(r.Values, m.f(x))
		}
		for _, v := range r.Values[1:] {
			r.DiffPct = append(r.DiffPct, diffPct(r.Values[0], v))
		}
		out[i] = r
	}
	return out
}

// diffPct is (v - base) / base in percent; NaN when base is 0.
func diffPct(base, v float64) float64 {
	if base == 0 {
		return math.NaN()
	}
	return 100 * (v - base) / base
}

// --- JSON --------------------------------------------------------------------

// paperJSON is a paper experiment's JSON document: run's (result.WriteJSON:
// "run" and "experiments", one per step) with three more keys:
// "experiment" (its name), "steps" (each experiment's label) and "table"
// (the printed rows). Values that are not numbers (a % difference from 0)
// are written as null.
func paperJSON(name string, info *result.Run, done []*result.Experiment, steps []string, table any) ([]byte, error) {
	var b bytes.Buffer
	if err := result.WriteJSON(&b, info, done); err != nil {
		return nil, err
	}
	var doc map[string]any
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		return nil, err
	}
	doc["experiment"], doc["steps"] = name, steps
	raw, err := json.Marshal(table)
	if err != nil {
		// NaN: marshal the rows again with NaN as null.
		if raw, err = json.Marshal(nanToNull(table)); err != nil {
			return nil, err
		}
	}
	doc["table"] = json.RawMessage(raw)
	js, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(js, '\n'), nil
}

// nanToNull returns compare rows with NaN differences as nil.
func nanToNull(table any) any {
	rows, ok := table.([]CompareRow)
	if !ok {
		return table
	}
	type row struct {
		Metric  string     `json:"metric"`
		Values  []float64  `json:"values"`
		DiffPct []*float64 `json:"diff_pct"`
	}
	out := make([]row, len(rows))
	for i, r := range rows {
		out[i] = row{Metric: r.Metric, Values: r.Values}
		for _, d := range r.DiffPct {
			if math.IsNaN(d) {
				out[i].DiffPct = append(out[i].DiffPct, nil)
			} else {
				d := d
				out[i].DiffPct = append(out[i].DiffPct, &d)
			}
		}
	}
	return out
}
