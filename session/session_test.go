package session_test

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/taobench/taobench/bulkload"
	"github.com/taobench/taobench/fleet"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/run"
	"github.com/taobench/taobench/session"
	_ "github.com/taobench/taobench/store/null"
	_ "github.com/taobench/taobench/store/sqlstore"
	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/workload"
)

// recorder is a Sink that keeps what it is told.
type recorder struct {
	notes   []string
	loads   int // progress reports
	ended   int // LoadEnded calls
	started []string
	finals  []bool
	stopAt  int // ExperimentEnded fails at this many results (0: never)
}

func (r *recorder) Note(m string)                  { r.notes = append(r.notes, m) }
func (r *recorder) LoadProgress(bulkload.Progress) { r.loads++ }
func (r *recorder) LoadEnded()                     { r.ended++ }
func (r *recorder) ExperimentStarted(k, n int, label string, x run.Experiment) {
	r.started = append(r.started, label)
}
func (r *recorder) ExperimentEnded(done []*result.Experiment, final bool) error {
	r.finals = append(r.finals, final)
	if r.stopAt > 0 && len(done) == r.stopAt {
		return errors.New("sink full")
	}
	return nil
}

func (r *recorder) noted(sub string) bool {
	return slices.ContainsFunc(r.notes, func(n string) bool { return strings.Contains(n, sub) })
}

func builtin(t *testing.T, name string) *workload.Workload {
	t.Helper()
	w, err := workload.Resolve(name)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func open(t *testing.T, url string, opts session.Options) *session.Session {
	t.Helper()
	s, err := session.Open(context.Background(), url, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func sqlite(t *testing.T) string { return "sqlite:" + filepath.Join(t.TempDir(), "t.db") }

// TestGraphFindOrLoad: an empty database gets the workload's graph, loaded
// once; the next session finds it; a size given that differs is bad input.
func TestGraphFindOrLoad(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url, w := sqlite(t), builtin(t, "o")
	rec := &recorder{}
	s := open(t, url, session.Options{Name: "run", Sink: rec})
	g, of, err := s.Graph(ctx, w, session.GraphSpec{Edges: 2000})
	if err != nil {
		t.Fatal(err)
	}
	if of.Name != "o" || g.Seed() != session.GraphSeed || !rec.noted("holds no graph yet: loading workload o's (2000 edges") || rec.loads == 0 || rec.ended != 1 {
		t.Errorf("first session: graph of %s seed %d, notes %q, %d progress reports, %d ends", of.Name, g.Seed(), rec.notes, rec.loads, rec.ended)
	}
	s.Close()

	rec2 := &recorder{}
	s2 := open(t, url, session.Options{Name: "run", Sink: rec2})
	g2, _, err := s2.Graph(ctx, w, session.GraphSpec{Edges: 999})
	if err != nil {
		t.Fatal(err)
	}
	if g2.Edges() != g.Edges() || rec2.loads != 0 || len(rec2.notes) != 0 {
		t.Errorf("second session: %d edges (want %d), %d progress reports, notes %q: want the graph found, nothing loaded", g2.Edges(), g.Edges(), rec2.loads, rec2.notes)
	}
	_, _, err = s2.Graph(ctx, w, session.GraphSpec{Edges: 999, EdgesGiven: true})
	var ie *session.InputError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "run: ") || !strings.Contains(err.Error(), "not 999") {
		t.Errorf("--edges 999 on a graph of %d: %v, want an InputError naming the command and the size", g.Edges(), err)
	}
}

// TestGraphNull: a store that keeps no data gets the workload's graph,
// computed, and nothing loaded.
func TestGraphNull(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	s := open(t, "null", session.Options{Sink: rec})
	g, of, err := s.Graph(context.Background(), builtin(t, "o"), session.GraphSpec{Edges: 500})
	if err != nil || of.Name != "o" || g.Edges() < 1 || rec.loads != 0 {
		t.Fatalf("null: %v, graph of %v, %d progress reports", err, of, rec.loads)
	}
	if n, err := s.ReserveRun(context.Background(), 0); n != 0 || err != nil {
		t.Errorf("null ReserveRun = %d, %v; want 0, nil", n, err)
	}
}

// TestGraphDriversDoNotLoad: a driver of a split run finds an empty
// database and says to load it first, loading nothing.
func TestGraphDriversDoNotLoad(t *testing.T) {
	t.Parallel()
	d, _ := fleet.Parse("--driver", "1/2")
	rec := &recorder{}
	s := open(t, sqlite(t), session.Options{Name: "run", Sink: rec, Split: session.Split{Driver: d, RunID: "r"}})
	_, _, err := s.Graph(context.Background(), builtin(t, "o"), session.GraphSpec{Edges: 500})
	var ie *session.InputError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "drivers do not load one") || rec.loads != 0 {
		t.Errorf("driver 1/2 on an empty database: %v, %d progress reports; want an InputError and no load", err, rec.loads)
	}
}

// TestLoadParts: two loaders of two parts make one complete graph; --drop
// with parts is refused.
func TestLoadParts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url, w := sqlite(t), builtin(t, "o")
	for i, want := range []string{"are loaded too", "the graph is complete"} {
		d, _ := fleet.Parse("--driver", []string{"0/2", "1/2"}[i])
		rec := &recorder{}
		s := open(t, url, session.Options{Name: "load", Sink: rec})
		if err := s.Load(ctx, session.LoadSpec{Workload: w, Seed: 1, Edges: 1000, Threads: 2, Part: d}); err != nil {
			t.Fatal(err)
		}
		if !rec.noted(want) || rec.loads == 0 {
			t.Errorf("part %s: notes %q, %d progress reports; want %q", d, rec.notes, rec.loads, want)
		}
		s.Close()
	}
	d, _ := fleet.Parse("--driver", "0/2")
	s := open(t, url, session.Options{Name: "load"})
	err := s.Load(ctx, session.LoadSpec{Workload: w, Seed: 1, Edges: 1000, Part: d, Drop: true})
	if !strings.Contains(err.Error(), "load: LoadSpec.Drop with LoadSpec.Part 0/2") {
		t.Errorf("--drop with parts: %v", err)
	}
	rec := &recorder{}
	s = open(t, url, session.Options{Name: "load", Sink: rec})
	if err := s.Load(ctx, session.LoadSpec{Workload: w, Seed: 1, Edges: 1000}); err != nil || !rec.noted("nothing to do") {
		t.Errorf("loading the complete graph again: %v, notes %q; want nothing to do", err, rec.notes)
	}
}

// TestReserveRun: each call a new number; drivers of one run id share
// experiment k's number.
func TestReserveRun(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := sqlite(t)
	s := open(t, url, session.Options{})
	if _, _, err := s.Graph(ctx, builtin(t, "o"), session.GraphSpec{Edges: 500}); err != nil {
		t.Fatal(err)
	}
	a, err1 := s.ReserveRun(ctx, 0)
	b, err2 := s.ReserveRun(ctx, 0)
	if err := errors.Join(err1, err2); err != nil || a == b || a < 1 {
		t.Errorf("two reservations: %d, %d, %v; want two different numbers", a, b, err)
	}
	var got []int64
	for _, spec := range []string{"0/2", "1/2"} {
		d, _ := fleet.Parse("--driver", spec)
		sd := open(t, url, session.Options{Split: session.Split{Driver: d, RunID: "shared"}})
		for k := range 2 {
			n, err := sd.ReserveRun(ctx, k)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, n)
		}
	}
	if got[0] != got[2] || got[1] != got[3] || got[0] == got[1] {
		t.Errorf("drivers 0/2 and 1/2 of run shared, experiments 0 and 1: numbers %v; want one per experiment, shared", got)
	}
}

// TestRunInfo: the run's metadata names its workloads once each and the
// fields none of them applies, the split and the session's versions.
func TestRunInfo(t *testing.T) {
	t.Parallel()
	d, _ := fleet.Parse("--driver", "1/3")
	s := open(t, "null", session.Options{Version: "v9", Revision: "abc", Split: session.Split{Driver: d, RunID: "id"}})
	w := builtin(t, "o")
	fake := &workload.Workload{Name: "f", NotApplied: []string{"x_field"}}
	g, _, err := s.Graph(context.Background(), w, session.GraphSpec{Edges: 500})
	if err != nil {
		t.Fatal(err)
	}
	info := s.RunInfo(session.Meta{Workloads: []*workload.Workload{w, fake, w}, GraphOf: "o", Graph: g, Seed: 7, Retries: 3})
	if info.Workload != "o,f" || !slices.Contains(info.NotApplied, "x_field") || info.Seed != 7 || info.Retries != 3 ||
		info.Version != "v9" || info.Revision != "abc" || info.RunID != "id" || info.Drivers != 3 || !slices.Equal(info.DriverIndexes, []int{1}) ||
		info.Database != "null" || info.Edges != g.Edges() {
		t.Errorf("RunInfo = %+v", info)
	}
}

// TestRunLoop: each experiment is announced, reported as it ends (final
// on the last only) and draws its own stream; a sink error stops the run.
func TestRunLoop(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rec := &recorder{}
	s := open(t, "null", session.Options{Sink: rec})
	w := builtin(t, "o")
	g, _, err := s.Graph(ctx, w, session.GraphSpec{Edges: 500})
	if err != nil {
		t.Fatal(err)
	}
	x := run.Experiment{Threads: 1, Duration: 50 * time.Millisecond}
	plan := session.Plan{
		Config:      run.Config{Workload: w, Graph: g, Seed: 5, Drain: time.Second},
		Experiments: []run.Experiment{x, x, x},
		Steps:       []session.Step{{Label: "a"}, {Label: "b"}, {Label: "c"}},
	}
	done, err := s.Run(ctx, plan)
	if err != nil || len(done) != 3 {
		t.Fatalf("Run: %d results, %v", len(done), err)
	}
	if !slices.Equal(rec.started, []string{"a", "b", "c"}) || !slices.Equal(rec.finals, []bool{false, false, true}) {
		t.Errorf("sink saw started %q, finals %v", rec.started, rec.finals)
	}
	rec2 := &recorder{stopAt: 2}
	s2 := open(t, "null", session.Options{Sink: rec2})
	done, err = s2.Run(ctx, plan)
	if err == nil || len(done) != 2 || len(rec2.started) != 2 {
		t.Errorf("sink error at 2: %d results, %d started, %v; want the run stopped there", len(done), len(rec2.started), err)
	}
}

// TestRunInterrupted: a cancelled context ends the run with the
// experiments done and ErrInterrupted, the last reported final.
func TestRunInterrupted(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	rec := &recorder{}
	s := open(t, "null", session.Options{Sink: rec})
	w := builtin(t, "o")
	g, _, err := s.Graph(ctx, w, session.GraphSpec{Edges: 500})
	if err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(100*time.Millisecond, cancel)
	x := run.Experiment{Threads: 1, Duration: time.Minute}
	done, err := s.Run(ctx, session.Plan{Config: run.Config{Workload: w, Graph: g, Drain: time.Second}, Experiments: []run.Experiment{x, x}})
	if !errors.Is(err, session.ErrInterrupted) || len(done) != 1 || !slices.Equal(rec.finals, []bool{true}) {
		t.Errorf("cancelled: %d results, finals %v, %v; want 1, [true], ErrInterrupted", len(done), rec.finals, err)
	}
}

// TestExperimentsDrawTheirOwnStreams: two identical experiments of one
// run on SQLite create distinct objects (before, the second's obj_adds
// overwrote the first's "new" ids): each experiment reserves a run number
// of its own and draws its own stream.
func TestExperimentsDrawTheirOwnStreams(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "s.db")
	w, err := workload.Parse(strings.NewReader("operations write:1\nwrite_operation_types obj_add:1\n"), "adds.workload")
	if err != nil {
		t.Fatal(err)
	}
	s := open(t, "sqlite:"+path, session.Options{Sink: &recorder{}})
	cfg, _, err := s.Prepare(ctx, session.GraphSpec{Edges: 2000}, run.Config{Workload: w, Seed: 1, Drain: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	x := run.Experiment{Threads: 1, Duration: 500 * time.Millisecond}
	done, err := s.Run(ctx, session.Plan{Config: cfg, Experiments: []run.Experiment{x, x}})
	if err != nil || len(done) != 2 {
		t.Fatalf("Run: %d results, %v", len(done), err)
	}
	s.Close()
	var adds int64
	for _, e := range done {
		adds += e.Summary.Outcome(tao.OK)
	}
	conn, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var created, overwritten int64
	// Bit 56 marks the ids runs create (tao.IsNew).
	if err := conn.QueryRow("SELECT COUNT(*), COALESCE(SUM(version > 1), 0) FROM objects WHERE (id >> 56) & 1 = 1").Scan(&created, &overwritten); err != nil {
		t.Fatal(err)
	}
	if adds < 100 || created != adds || overwritten != 0 {
		t.Errorf("%d obj_adds made %d new objects, %d of them overwritten: every experiment must create ids of its own", adds, created, overwritten)
	}
}
