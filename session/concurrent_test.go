package session_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/taobench/taobench/fleet"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/run"
	"github.com/taobench/taobench/session"
	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/textreport"
	"github.com/taobench/taobench/workload"
)

// loaded returns the URL of an SQLite database holding a small graph of
// workload a (which writes).
func loaded(t *testing.T) string {
	t.Helper()
	url := sqlite(t)
	s := open(t, url, session.Options{Name: "load"})
	if err := s.Load(context.Background(), session.LoadSpec{Workload: builtin(t, "a"), Seed: 1, Edges: 2000}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	return url
}

// runner is one run on a database: a session of its own, as a separate
// process would have.
type runner struct {
	s    *session.Session
	rec  *recorder
	plan session.Plan
	info *result.Run
}

func newRunner(t *testing.T, url string, sp session.Split, x run.Experiment) *runner {
	t.Helper()
	r := &runner{rec: &recorder{}}
	r.s = open(t, url, session.Options{Name: "run", Sink: r.rec, Split: sp})
	cfg, info, err := r.s.Prepare(context.Background(), session.GraphSpec{}, run.Config{Workload: builtin(t, "a"), Seed: 3, Drain: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	r.plan, r.info = session.Plan{Config: cfg, Experiments: []run.Experiment{x}}, info
	return r
}

// beside runs a, a short run, while b, a long one, is active: b starts
// first, a once b's record is in the database, and b is stopped once a has
// ended. It returns each one's experiment.
func beside(t *testing.T, url string, a, b *runner) (*result.Experiment, *result.Experiment) {
	t.Helper()
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	var (
		bDone []*result.Experiment
		bErr  error
		wg    sync.WaitGroup
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		bDone, bErr = b.s.Run(ctx, b.plan)
	}()
	// b's record, seen through a third connection, as another process
	// would see it.
	watch := open(t, url, session.Options{})
	rr := watch.Store().(store.RunRecorder)
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		recs, err := rr.RunRecords(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the long run recorded nothing in a minute")
		}
	}
	aDone, aErr := a.s.Run(context.Background(), a.plan)
	stop()
	wg.Wait()
	if aErr != nil || len(aDone) != 1 {
		t.Fatalf("short run: %d results, %v", len(aDone), aErr)
	}
	if !errors.Is(bErr, session.ErrInterrupted) || len(bDone) != 1 {
		t.Fatalf("long run: %d results, %v; want 1, interrupted", len(bDone), bErr)
	}
	return aDone[0], bDone[0]
}

// TestConcurrentRunsReported: two runs at once on one database each say
// the other was active during its measured window, in the results (JSON
// round trip included), the text report and a note; drivers of one run
// id are not each other's others.
func TestConcurrentRunsReported(t *testing.T) {
	t.Parallel()
	url := loaded(t)
	short := run.Experiment{Threads: 2, Duration: 300 * time.Millisecond}
	long := run.Experiment{Threads: 2, Duration: 10 * time.Minute}
	a, b := newRunner(t, url, session.Split{}, short), newRunner(t, url, session.Split{}, long)
	ra, rb := beside(t, url, a, b)

	for _, c := range []struct {
		name string
		res  *result.Experiment
		rec  *recorder
	}{{"short run", ra, a.rec}, {"long run", rb, b.rec}} {
		if len(c.res.Concurrent) != 1 {
			t.Fatalf("%s: concurrent runs %+v; want the other run", c.name, c.res.Concurrent)
		}
		o := c.res.Concurrent[0]
		t.Logf("%s: %s, overlap %v of %v", c.name, o.Describe(), o.Overlap, c.res.Measured)
		if o.Overlap <= 0 || o.Overlap > c.res.Measured || o.PID != os.Getpid() || o.Run < 1 || o.Processes != 1 {
			t.Errorf("%s: %+v; want run number, this process's pid, an overlap within the %v window", c.name, o, c.res.Measured)
		}
		if !c.rec.noted("was active on this database during") || !c.rec.noted(fmt.Sprintf("(run %d,", o.Run)) {
			t.Errorf("%s: notes %q; want the other run said", c.name, c.rec.notes)
		}
	}
	if ra.Concurrent[0].Run == rb.Concurrent[0].Run {
		t.Errorf("both runs name run %d as the other", ra.Concurrent[0].Run)
	}
	// The short run began while the long one was active, and says so then.
	if !a.rec.noted("is active on this database") {
		t.Errorf("short run's notes %q; want the active run said at its start", a.rec.notes)
	}
	if !ra.Concurrent[0].Ended.IsZero() {
		t.Errorf("short run: the long run ended at %v; want it still active when the short one ended", ra.Concurrent[0].Ended)
	}
	if rb.Concurrent[0].Ended.IsZero() {
		t.Error("long run: the short run has no end; want the end it recorded")
	}

	// Results and text report.
	path := filepath.Join(t.TempDir(), "a.json")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := result.WriteJSON(f, a.info, []*result.Experiment{ra}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	doc, err := result.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	back := doc.Experiments[0].Concurrent
	if len(back) != 1 || back[0].Run != ra.Concurrent[0].Run || back[0].Overlap.Round(time.Microsecond) != ra.Concurrent[0].Overlap.Round(time.Microsecond) ||
		!back[0].Started.Equal(ra.Concurrent[0].Started) {
		t.Errorf("concurrent_runs read back %+v; want %+v", back, ra.Concurrent)
	}
	var text strings.Builder
	if err := textreport.WriteText(&text, ra); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "another taobench run was active on this database during") {
		t.Errorf("text report:\n%s\nwant the other run beside the stale-read figures", text.String())
	}

	// Drivers of one run id at once: one run, no other.
	sp := func(i int) session.Split {
		return session.Split{Driver: fleet.Driver{Index: i, Count: 2}, RunID: "together"}
	}
	d0, d1 := newRunner(t, url, sp(0), short), newRunner(t, url, sp(1), long)
	r0, r1 := beside(t, url, d0, d1)
	if len(r0.Concurrent)+len(r1.Concurrent) != 0 {
		t.Errorf("drivers of one run: concurrent runs %+v and %+v; want none", r0.Concurrent, r1.Concurrent)
	}
}

// TestRunAloneReportsNoOther: a run alone, then another after it on the
// same database, each report no other run, and records that no run can
// need any more are dropped.
func TestRunAloneReportsNoOther(t *testing.T) {
	t.Parallel()
	url := loaded(t)
	x := run.Experiment{Threads: 2, Duration: 200 * time.Millisecond}
	for i := range 2 {
		r := newRunner(t, url, session.Split{}, x)
		done, err := r.s.Run(context.Background(), r.plan)
		if err != nil || len(done) != 1 {
			t.Fatalf("run %d: %d results, %v", i+1, len(done), err)
		}
		if len(done[0].Concurrent) != 0 || r.rec.noted("another taobench run") {
			t.Errorf("run %d alone: concurrent runs %+v, notes %q; want none", i+1, done[0].Concurrent, r.rec.notes)
		}
	}
	watch := open(t, url, session.Options{})
	recs, err := watch.Store().(store.RunRecorder).RunRecords(context.Background())
	if err != nil || len(recs) != 2 {
		t.Errorf("records after two runs: %v, %v; want both (each ended within the last minute)", recs, err)
	}
}

// TestRelativeStartShared: drivers of one run id started 400 ms apart
// with --start-at +DURATION agree on the first one's instant, recorded in
// the database, and their results merge; a second run of the same id
// after the first's schedule is over records its own.
func TestRelativeStartShared(t *testing.T) {
	t.Parallel()
	url := loaded(t)
	dir := t.TempDir()
	const drivers = 3
	exps := []run.Experiment{{Threads: 2 * drivers, Duration: 300 * time.Millisecond}}
	files := make([]string, drivers)
	starts := make([]time.Time, drivers)
	errs := make([]error, drivers)
	var wg sync.WaitGroup
	for i := range drivers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(time.Duration(i) * 400 * time.Millisecond)
			files[i], starts[i], errs[i] = relativeDriver(url, dir, i, drivers, "rel", "+4s", exps)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	for i := range drivers {
		if !starts[i].Equal(starts[0]) {
			t.Errorf("driver %d's shared start %v, driver 0's %v; want one", i, starts[i], starts[0])
		}
	}
	if _, _, err := session.Merge(files); err != nil {
		t.Errorf("merging the drivers' results: %v", err)
	}
	// The same id again, once its schedule is over: a start of its own.
	_, again, err := relativeDriver(url, dir, 0, drivers, "rel", "+1s", exps)
	if err != nil || !again.After(starts[0].Add(exps[0].Duration)) {
		t.Errorf("run rel again: start %v, %v; want a new one after %v", again, err, starts[0].Add(exps[0].Duration))
	}
}

// relativeDriver runs driver i of n of run id with --start-at startAt, as
// the command does, writes its results into dir and returns the file and
// its shared start.
func relativeDriver(url, dir string, i, n int, id, startAt string, exps []run.Experiment) (string, time.Time, error) {
	w, err := workload.Resolve("a")
	if err != nil {
		return "", time.Time{}, err
	}
	// As the command resolves --driver, --run-id and --start-at: drivers
	// given no seed derive it from the run id.
	d, err := fleet.Parse("driver", fmt.Sprintf("%d/%d", i, n))
	if err != nil {
		return "", time.Time{}, err
	}
	start, relative, err := fleet.ParseStart("start", startAt, time.Now())
	if err != nil {
		return "", time.Time{}, err
	}
	split, seed := session.Split{Driver: d, RunID: id, Start: start, Relative: relative}, fleet.Seed("run-id "+id)
	s, err := session.Open(context.Background(), url, session.Options{Name: "run", Sink: &recorder{}, Split: split})
	if err != nil {
		return "", time.Time{}, err
	}
	defer s.Close()
	cfg, info, err := s.Prepare(context.Background(), session.GraphSpec{}, run.Config{Workload: w, Seed: seed, Drain: 5 * time.Second})
	if err != nil {
		return "", time.Time{}, err
	}
	done, err := s.Run(context.Background(), session.Plan{Config: cfg, Experiments: exps})
	if err != nil {
		return "", time.Time{}, err
	}
	path := filepath.Join(dir, fmt.Sprintf("d%d-%d.json", i, time.Now().UnixNano()))
	f, err := os.Create(path)
	if err != nil {
		return "", time.Time{}, err
	}
	defer f.Close()
	if err := result.WriteJSON(f, info, done); err != nil {
		return "", time.Time{}, err
	}
	return path, done[0].At, nil
}
