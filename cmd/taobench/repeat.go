package main

import (
	"context"
	"flag"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/taobench/taobench/randdist"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/session"
	"github.com/taobench/taobench/textreport"
	"github.com/taobench/taobench/workload"
)

// repeatSpec is --repeat and --reload: the run's configurations (the
// experiments of run, the workloads or steps of experiment) run N times
// over, all of them once per repeat, so that what the machine does over
// the repeats falls on every configuration alike (docs/results.md
// "Repeats").
type repeatSpec struct {
	n      int
	reload bool
}

func (r *repeatSpec) register(fs *flag.FlagSet, what string) {
	r.n = 1
	fs.Var(repeatFlag{&r.n}, "repeat", "run "+what+" this many times over, each time all of them in turn, each repeat with its own request seed and run numbers; the report gives each repeat and their mean with an interval from the spread between repeats")
	fs.BoolVar(&r.reload, "reload", false, "with --repeat: drop the graph and load it afresh between repeats, so that each repeat starts from the same data (the writes of one do not change the next)")
}

// check refuses --reload without repeats, and where the command cannot
// reload: n names the command.
func (r *repeatSpec) check(n string, ts session.TierSpec) error {
	if !r.reload {
		return nil
	}
	switch {
	case r.n < 2:
		return badInput("%s: --reload reloads the graph between repeats: give --repeat 2 or more with it, or drop it", n)
	case ts.Cache != "" || ts.TTL != 0 || len(ts.Replicas) > 0:
		return badInput("%s: --reload with read tiers: a cache or replica would still hold the dropped graph's rows; drop --reload, or the tier flags", n)
	}
	return nil
}

// repeatFlag is --repeat: a whole number of runs, 1 or more.
type repeatFlag struct{ n *int }

func (f repeatFlag) String() string {
	if f.n == nil {
		return "1"
	}
	return strconv.Itoa(*f.n)
}

func (f repeatFlag) Set(s string) error {
	v, err := strconv.Atoi(strings.TrimSpace(s))
	switch {
	case err != nil:
		return fmt.Errorf("%q is not a whole number: give how many times to run, such as 3", s)
	case v < 1:
		return fmt.Errorf("give 1 or more runs (1: no repeat)")
	}
	*f.n = v
	return nil
}

// seed is repeat r's request seed (r from 0): the run's own for the
// first, then one drawn from it per repeat, so repeats see different
// requests and each is reproducible from the seed printed.
func (r *repeatSpec) seed(seed uint64, i int) uint64 {
	if i == 0 {
		return seed
	}
	return randdist.Hash(seed, uint64(i), 0x726570656174, 0) // "repeat"
}

// note is the line each repeat opens with; "" when not repeated.
func (r *repeatSpec) note(i int, seed uint64) string {
	if r.n < 2 {
		return ""
	}
	return fmt.Sprintf("repeat %d of %d: request seed %d", i+1, r.n, seed)
}

// reloadGraph drops the session's graph and loads the same one again,
// the graph info records (its workload resolved by name as a file or
// built-in, or w when it is w's).
func reloadGraph(ctx context.Context, e *env, s *session.Session, info *result.Run, w *workload.Workload, threads int) error {
	if _, ok := s.Database(); !ok || info == nil {
		fmt.Fprintf(e.stderr, "--reload: %s keeps no data: nothing to reload\n", s.Name())
		return nil
	}
	gw := w
	if info.GraphWorkload != w.Name {
		var err error
		if gw, err = loadWorkload(e, info.GraphWorkload, false); err != nil {
			return err
		}
	}
	fmt.Fprintf(e.stderr, "--reload: dropping the graph and loading it again (workload %s's, %d edges, graph seed %d)\n", gw.Name, info.Edges, info.GraphSeed)
	return s.Load(ctx, session.LoadSpec{Workload: gw, Seed: info.GraphSeed, Edges: info.Edges, Threads: threads, Drop: true})
}

// repeatPaper runs a paper experiment (do, one repeat of all its
// configurations) r.n times, each repeat printing its own table, and
// returns them as one: the experiments of every repeat in the order they
// ran, tagged with their repeat, and the tables' rows one after another.
func (r *repeatSpec) repeatPaper(ctx context.Context, e *env, s *session.Session, l session.Ladder, first *workload.Workload,
	do func(*session.Session, session.Ladder) (*session.Paper, error)) (*session.Paper, error) {
	var all *session.Paper
	seed := l.Config.Seed
	for i := range r.n {
		if i > 0 && r.reload && all != nil {
			if err := reloadGraph(ctx, e, s, all.Info, first, l.Graph.LoadThreads); err != nil {
				return all, err
			}
		}
		l.Config.Seed = r.seed(seed, i)
		if note := r.note(i, l.Config.Seed); note != "" {
			fmt.Fprintln(e.stderr, note)
			fmt.Fprintf(e.stdout, "\n%s\n", note)
		}
		p, err := do(s, l)
		writePaperTable(e.stdout, p, l.Experiment.Threads)
		if p != nil {
			if r.n > 1 {
				for _, x := range p.Done {
					x.Repeat = i + 1
				}
			}
			all = joinPapers(all, p)
		}
		if err != nil || ctx.Err() != nil {
			return all, err
		}
	}
	return all, nil
}

// joinPapers appends b's experiments, labels and table rows to a's.
func joinPapers(a, b *session.Paper) *session.Paper {
	if a == nil {
		return b
	}
	a.Done = append(a.Done, b.Done...)
	a.Labels = append(a.Labels, b.Labels...)
	ta, tb := reflect.ValueOf(a.Table), reflect.ValueOf(b.Table)
	if ta.Kind() == reflect.Slice && tb.Kind() == reflect.Slice && ta.Type() == tb.Type() {
		a.Table = reflect.AppendSlice(ta, tb).Interface()
	}
	return a
}

// writeRepeats prints the repeats' summary of a paper experiment: labels
// are its configurations, those of one repeat.
func writeRepeats(e *env, r *repeatSpec, p *session.Paper) error {
	if r.n < 2 || p == nil || len(p.Done) == 0 {
		return nil
	}
	n := len(p.Done)
	for i, x := range p.Done {
		if x.Repeat != 1 {
			n = i
			break
		}
	}
	return textreport.WriteRepeats(e.stdout, p.Done, p.Labels[:min(n, len(p.Labels))])
}
