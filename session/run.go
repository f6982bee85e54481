package session

import (
	"context"
	cryptorand "crypto/rand"
	"encoding/binary"
	"fmt"
	"strings"
	"time"

	"github.com/taobench/taobench/graph"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/run"
	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/workload"
)

// Meta is what a run's metadata is made of.
type Meta struct {
	// Workloads are the run's, in order (a ladder's steps may have
	// several); the graph's is GraphOf.
	Workloads []*workload.Workload
	GraphOf   string
	Graph     *graph.Graph
	// Seed is the run's request seed; Retries its retries.
	Seed    uint64
	Retries int
	// InjectLatency: the run applies the workloads' latency fields.
	InjectLatency bool
}

// RunInfo builds the run's metadata for its results, started now.
func (s *Session) RunInfo(m Meta) *result.Run {
	var names, na []string
	seen := map[string]bool{}
	for _, w := range m.Workloads {
		if !seen[w.Name] {
			seen[w.Name] = true
			names = append(names, w.Name)
			na = appendNew(na, NotApplied(w, m.InjectLatency)...)
		}
	}
	info := &result.Run{
		Database:      s.url,
		Workload:      strings.Join(names, ","),
		GraphWorkload: m.GraphOf,
		GraphSeed:     m.Graph.Seed(),
		Seed:          m.Seed,
		Edges:         m.Graph.Edges(),
		Retries:       m.Retries,
		Started:       time.Now().UTC(),
		Version:       s.opts.Version,
		Revision:      s.opts.Revision,
		NotApplied:    na,
		Client:        s.client(),
	}
	s.opts.Split.tag(info)
	return info
}

// client is how the session's store talks to its database (the first
// endpoint's, for several) and the runtime monitor the process runs with.
func (s *Session) client() result.Client {
	st := s.st
	if _, ok := st.(store.ClientTeller); !ok && len(s.eps) > 0 {
		st = s.eps[0].Store
	}
	var c store.Client
	if t, ok := st.(store.ClientTeller); ok {
		c = t.Client()
	}
	return result.Client{Writes: c.Writes, Reads: c.Reads, ExecMode: c.ExecMode, RuntimeMonitor: s.opts.RuntimeMonitor,
		Pooler: c.Pooler, Routines: c.Routines}
}

func appendNew(list []string, add ...string) []string {
	for _, a := range add {
		found := false
		for _, x := range list {
			found = found || x == a
		}
		if !found {
			list = append(list, a)
		}
	}
	return list
}

// latencyFields names the injected-latency fields w gives, in field order.
func latencyFields(w *workload.Workload) []string {
	var names []string
	for _, f := range []struct {
		name string
		d    workload.Dist[time.Duration]
	}{{"read_operation_latency", w.ReadLatency}, {"write_operation_latency", w.WriteLatency}, {"write_txn_latency", w.WriteTxnLatency}} {
		if len(f.d.Values) > 0 {
			names = append(names, f.name)
		}
	}
	return names
}

// NotApplied lists the fields of w a run does not apply: the latency
// fields unless it injects latency, then the workload's own list.
func NotApplied(w *workload.Workload, inject bool) []string {
	var names []string
	if !inject {
		names = latencyFields(w)
	}
	return append(names, w.NotApplied...)
}

// NewSeed returns a fresh request seed, short enough to retype: printed
// so a run can be repeated.
func NewSeed() uint64 {
	var b [8]byte
	if _, err := cryptorand.Read(b[:]); err != nil {
		return uint64(time.Now().UnixNano())
	}
	return binary.LittleEndian.Uint64(b[:]) >> 12
}

// injectionNote says what a run that injects latency injects from w; an
// InputError when w gives no delays.
func injectionNote(w *workload.Workload) (string, error) {
	fields := latencyFields(w)
	if len(fields) == 0 {
		return "", badInput("run: run.Config.InjectLatency: workload %s gives none of read_operation_latency, write_operation_latency, write_txn_latency; add them (docs/target-load.md) or drop run.Config.InjectLatency", w.Name)
	}
	msg := fmt.Sprintf("injecting client-side latency from workload %s's %s (read transactions use read_operation_latency)", w.Name, strings.Join(fields, ", "))
	if w.LatencyBuckets {
		vals := make([]string, len(workload.LatencyBucketValues))
		for i, v := range workload.LatencyBucketValues {
			vals[i] = fmt.Sprintf("%d: %v", i, v)
		}
		msg += "; the original format gives bucket weights only, taken as " + strings.Join(vals, ", ")
	}
	return msg, nil
}

// Prepare finds or loads the graph (Graph) for the workload of cfg,
// sized by spec, notes which graph and which requests the run will have,
// and returns cfg with the graph set and the run's metadata.
func (s *Session) Prepare(ctx context.Context, spec GraphSpec, cfg run.Config) (run.Config, *result.Run, error) {
	g, loaded, err := s.Graph(ctx, cfg.Workload, spec)
	if err != nil {
		return cfg, nil, err
	}
	s.sink.Note(fmt.Sprintf("graph: workload %s's, %d edges; requests: workload %s, seed %d (give run.Config.Seed %d to repeat them)",
		loaded.Name, g.Edges(), cfg.Workload.Name, cfg.Seed, cfg.Seed))
	cfg.Graph = g
	info := s.RunInfo(Meta{Workloads: []*workload.Workload{cfg.Workload}, GraphOf: loaded.Name, Graph: g, Seed: cfg.Seed,
		Retries: cfg.Retries, InjectLatency: cfg.InjectLatency})
	return cfg, info, nil
}

// Step varies one experiment of a Plan.
type Step struct {
	// Label names the step for the sink, such as "hold 5ms".
	Label string
	// Workload replaces the plan's for this step, when set.
	Workload *workload.Workload
	// Wrap, when set, wraps the store the step runs on; it is called just
	// before the step starts.
	Wrap func(store.Store) store.Store
}

// tieredStep is a step's wrapped store whose inner store has read tiers.
type tieredStep struct {
	store.Store
	run.Tiered
}

// keepTiers makes a step's wrap keep the read tiers of the store it wraps
// visible to the run, which takes their figures; nil stays nil.
func keepTiers(wrap func(store.Store) store.Store) func(store.Store) store.Store {
	if wrap == nil {
		return nil
	}
	return func(st store.Store) store.Store {
		w := wrap(st)
		if t, ok := st.(run.Tiered); ok {
			return tieredStep{w, t}
		}
		return w
	}
}

// Plan is a list of experiments on one graph.
type Plan struct {
	// Config is what every experiment shares. Its Store defaults to the
	// session's; Seed is the run's: experiment k draws its own stream,
	// run.ExperimentSeed(Seed, k). Run and FirstClient are set per
	// experiment.
	Config run.Config
	// Experiments are the whole run's; with drivers (Options.Split) this
	// process runs its share of each.
	Experiments []run.Experiment
	// Steps, when given, vary the experiments one by one.
	Steps []Step
}

// Run runs the plan's experiments in order, each with a run number of its
// own, reporting each to the sink as it ends (incremental output). Ctrl-C
// (ctx) stops it with the experiments done so far and ErrInterrupted.
func (s *Session) Run(ctx context.Context, p Plan) ([]*result.Experiment, error) {
	sp, err := s.agreeStart(ctx, p.Experiments)
	if err != nil {
		return nil, err
	}
	mine, firsts, err := sp.Share(s.opts.Name, p.Experiments)
	if err != nil {
		return nil, err
	}
	var done []*result.Experiment
	for k, x := range mine {
		cfg := p.Config
		var step Step
		if k < len(p.Steps) {
			step = p.Steps[k]
		}
		if step.Workload != nil {
			cfg.Workload = step.Workload
		}
		s.sink.ExperimentStarted(k, len(mine), step.Label, x)
		cfg.FirstClient, cfg.Drivers = firsts[k], sp.driver().N()
		cfg = s.config(cfg, keepTiers(step.Wrap))
		if cfg.Run, err = s.ReserveRun(ctx, k); err != nil {
			return done, err
		}
		if note := sp.waitNote(time.Now(), x.At); note != "" {
			s.sink.Note(note)
		}
		cfg.Seed = run.ExperimentSeed(p.Config.Seed, k)
		act := s.startActivity(ctx, cfg.Run)
		res, err := run.Do(ctx, cfg, x)
		s.endActivity(act, res)
		s.recordDeletes(ctx, res)
		if err != nil {
			return done, badInputErr(err)
		}
		sp.tagExperiment(res, p.Experiments[k])
		if note := sp.lateNote(k, res); note != "" {
			s.sink.Note(note)
		}
		done = append(done, res)
		stop := res.Interrupted || ctx.Err() != nil
		if err := s.sink.ExperimentEnded(done, stop || k == len(mine)-1); err != nil {
			return done, err
		}
		if stop {
			return done, ErrInterrupted
		}
	}
	return done, nil
}

// Experiment runs one experiment, number k of a run whose request seed is
// cfg.Seed, with a run number of its own: a probe of a sweep or a rating,
// whose next rate depends on this one's result. The sink is not told.
func (s *Session) Experiment(ctx context.Context, cfg run.Config, k int, x run.Experiment) (*result.Experiment, error) {
	cfg = s.config(cfg, nil)
	var err error
	if cfg.Run, err = s.ReserveRun(ctx, k); err != nil {
		return nil, err
	}
	cfg.Seed = run.ExperimentSeed(cfg.Seed, k)
	act := s.startActivity(ctx, cfg.Run)
	res, err := run.Do(ctx, cfg, x)
	s.endActivity(act, res)
	s.recordDeletes(ctx, res)
	if err != nil {
		return nil, badInputErr(err)
	}
	return res, nil
}

// Workloads resolves built-in names or workload files (workload.Resolve);
// a failure is an InputError. Its notes say which fields of the first
// workload that has any a run that injects latency (or not) reads but does
// not apply and, when inject, what the run injects (injectionNote).
func Workloads(names []string, inject bool) ([]*workload.Workload, []string, error) {
	ws := make([]*workload.Workload, len(names))
	var notes []string
	for i, name := range names {
		w, err := workload.Resolve(name)
		if err != nil {
			return nil, nil, badInputErr(err)
		}
		if na := NotApplied(w, inject); len(na) > 0 && len(notes) == 0 {
			notes = append(notes, notAppliedNote(w.Name, na))
		}
		ws[i] = w
	}
	if inject {
		for _, w := range ws {
			note, err := injectionNote(w)
			if err != nil {
				return nil, nil, err
			}
			notes = append(notes, note)
		}
	}
	return ws, notes, nil
}
