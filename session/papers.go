package session

import (
	"context"
	"fmt"
	"time"

	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/workload"
)

// Paper is what one of the paper's experiments ran: the run, the steps
// done and their labels, and the rows of its table.
type Paper struct {
	// Name is the experiment's, as its JSON document names it
	// ("lock-hold", "precondition-wait", "compare", "fanout").
	Name   string
	Info   *result.Run
	Done   []*result.Experiment
	Labels []string
	Table  any
}

// JSON is the experiment's document (paperJSON).
func (p *Paper) JSON() ([]byte, error) {
	return paperJSON(p.Name, p.Info, p.Done, p.Labels, p.Table)
}

// LockHold runs a step of workload base per lock hold (TAOBench §6.2,
// Fig. 12); the Paper's Table is its []HoldRow. Ctrl-C stops it with the steps done
// so far and ErrInterrupted.
func (s *Session) LockHold(ctx context.Context, l Ladder, base *workload.Workload, holds []time.Duration) (*Paper, error) {
	if base.Holds() {
		s.sink.Note(fmt.Sprintf("workload %s gives lock_hold; each step replaces it with the step's hold", base.Name))
	}
	steps := LockHoldSteps(base, holds)
	info, done, err := s.RunLadder(ctx, l, steps)
	rows := HoldRows(holds, done)
	return &Paper{Name: "lock-hold", Info: info, Done: done, Labels: stepLabels(steps, len(done)), Table: rows}, err
}

// PreconditionWait runs workload base with the waits drawn together in
// one step labelled label (WaitStep says why; TAOBench §6.3, Fig. 13); the
// Paper's Table is its []WaitRow, nil when the step was not done.
func (s *Session) PreconditionWait(ctx context.Context, l Ladder, base *workload.Workload, label string, waits []time.Duration) (*Paper, error) {
	step, wc := WaitStep(base, label, waits, l.Experiment.Warmup)
	steps := []Step{step}
	info, done, err := s.RunLadder(ctx, l, steps)
	p := &Paper{Name: "precondition-wait", Info: info, Done: done, Labels: stepLabels(steps, len(done))}
	if len(done) > 0 {
		p.Table = wc.Rows()
	} else {
		p.Table = []WaitRow(nil)
	}
	return p, err
}

// Compare runs the workloads in turn, the first the baseline, for a table
// of them side by side (Tables 6 and 7; the Paper's Table is its
// []CompareRow); name is the experiment's name in its JSON ("compare",
// "fanout").
func (s *Session) Compare(ctx context.Context, l Ladder, name string, ws []*workload.Workload) (*Paper, error) {
	steps := make([]Step, len(ws))
	for i, wl := range ws {
		steps[i] = Step{Label: wl.Name, Workload: wl}
	}
	info, done, err := s.RunLadder(ctx, l, steps)
	p := &Paper{Name: name, Info: info, Done: done, Labels: stepLabels(steps, len(done)), Table: []CompareRow(nil)}
	if len(done) > 0 {
		p.Table = CompareRows(done)
	}
	return p, err
}
