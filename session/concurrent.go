package session

import (
	"context"
	cryptorand "crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/taobench/taobench/fleet"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/run"
	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/tao"
)

// Concurrent runs (docs/tiers.md, "Concurrent runs"): each experiment of a
// process records itself in the database it runs on (store.RunRecorder),
// with a heartbeat, so that every run can say which other taobench runs
// were active there during its measured window: their writes are among
// those its stale-read verdicts and contention figures saw.

// beatEvery is how often an experiment's record is refreshed while it
// runs; a record not refreshed for staleAfter (a process that died without
// ending it) counts as active until its last refresh.
const (
	beatEvery  = 5 * time.Second
	staleAfter = 30 * time.Second
)

// runRecord is what a process records of one of its experiments, as JSON.
type runRecord struct {
	RunID  string    `json:"run_id,omitempty"`
	Run    int64     `json:"run"`
	Driver string    `json:"driver,omitempty"`
	Host   string    `json:"host"`
	PID    int       `json:"pid"`
	Start  time.Time `json:"start"`
	Beat   time.Time `json:"beat"`
	End    time.Time `json:"end,omitzero"`
}

// until is when the run was last known active, as of now.
func (r *runRecord) until(now time.Time) time.Time {
	switch {
	case !r.End.IsZero():
		return r.End
	case now.Sub(r.Beat) > staleAfter:
		return r.Beat
	}
	return now
}

// activity is an experiment's record while it runs.
type activity struct {
	db  store.RunRecorder
	key string // the session's token, then the run number
	rec runRecord
	// stop ends the heartbeat, cancelling a beat in flight: a beat
	// waiting on a hung server must not hold the results.
	stop context.CancelFunc
	done chan struct{}
}

func (a *activity) put(ctx context.Context) error {
	b, err := json.Marshal(a.rec)
	if err != nil {
		return err
	}
	return a.db.PutRunRecord(ctx, a.key, string(b))
}

// newToken names the session's records: unique per process and session.
func newToken() string {
	var b [8]byte
	_, _ = cryptorand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// recorder is the session's database where it records its runs; false on
// a store that keeps none (null) and on a replica, which is not written.
func (s *Session) recorder() (store.RunRecorder, bool) {
	rr, ok := s.st.(store.RunRecorder)
	return rr, ok && !s.opts.ReadOnly
}

// startActivity records experiment run n of this process as active and
// says which other runs are active now; nil when the database records no
// runs (or could not record this one, which it says).
func (s *Session) startActivity(ctx context.Context, n int64) *activity {
	rr, ok := s.recorder()
	if !ok {
		return nil
	}
	host, _ := os.Hostname()
	now := time.Now().UTC()
	sp := s.opts.Split
	a := &activity{db: rr, key: fmt.Sprintf("%s/%d", s.token, n), rec: runRecord{RunID: sp.RunID, Run: n, Host: host, PID: os.Getpid(), Start: now, Beat: now},
		done: make(chan struct{})}
	if sp.driver().Many() {
		a.rec.Driver = sp.driver().String()
	}
	if err := a.put(ctx); err != nil {
		s.sink.Note(fmt.Sprintf("%s: could not record this run in the database, so other taobench runs on it are not detected: %v", s.opts.Name, err))
		return nil
	}
	if recs, err := rr.RunRecords(ctx); err == nil {
		for _, c := range others(a, recs, now, now, now) {
			s.sink.Note(fmt.Sprintf("another taobench run (%s) is active on this database: while both run, this experiment's stale-read verdicts and contention include its writes (docs/tiers.md, \"Concurrent runs\")", c.Describe()))
		}
	}
	beatCtx, stop := context.WithCancel(context.Background())
	a.stop = stop
	go a.beat(beatCtx)
	return a
}

// beat refreshes the record until stopped.
func (a *activity) beat(stopped context.Context) {
	defer close(a.done)
	t := time.NewTicker(beatEvery)
	defer t.Stop()
	for {
		select {
		case <-stopped.Done():
			return
		case <-t.C:
			a.rec.Beat = time.Now().UTC()
			ctx, cancel := context.WithTimeout(stopped, beatEvery)
			_ = a.put(ctx) // a missed beat is caught up by the next, or by End
			cancel()
		}
	}
}

// endTimeout bounds each write a session makes after an experiment (its
// end, its deletes): a hung server delays the results no longer than
// this; after requests timed out (the server may be hung) a quarter
// second, as the server's own counters are read (package resources).
func endTimeout(res *result.Experiment) time.Duration {
	if res == nil || res.Interrupted || res.Sum().Outcome(tao.Timeout) > 0 {
		return 250 * time.Millisecond
	}
	return 5 * time.Second
}

// endActivity records the experiment's end, sets res.Concurrent to the
// other runs active during its measured window and says each, then drops
// records no run can need any more. It writes with a context of its own:
// an interrupted run records its end too.
func (s *Session) endActivity(a *activity, res *result.Experiment) {
	if a == nil {
		return
	}
	a.stop()
	<-a.done
	ctx, cancel := context.WithTimeout(context.Background(), endTimeout(res))
	defer cancel()
	now := time.Now().UTC()
	a.rec.Beat, a.rec.End = now, now
	if err := a.put(ctx); err != nil {
		s.sink.Note(fmt.Sprintf("%s: could not record this run's end in the database (other runs take it as active until its last heartbeat): %v", s.opts.Name, err))
	}
	recs, err := a.db.RunRecords(ctx)
	if err != nil {
		s.sink.Note(fmt.Sprintf("%s: could not read the runs recorded in the database, so other taobench runs on it are not detected: %v", s.opts.Name, err))
		return
	}
	if res != nil {
		from, to := measuredWindow(res)
		for _, c := range others(a, recs, from, to, now) {
			if c.Overlap <= 0 {
				continue
			}
			res.Concurrent = append(res.Concurrent, c)
			s.sink.Note(fmt.Sprintf("another taobench run (%s) was active on this database during %.3f s of this run's %.3f s measured window: stale-read verdicts and contention include its writes",
				c.Describe(), c.Overlap.Seconds(), res.Measured.Seconds()))
		}
	}
	if old := pruneable(a, recs, now); len(old) > 0 {
		_ = a.db.DeleteRunRecords(ctx, old) // the next run prunes what is left
	}
}

// measuredWindow is the wall-clock span of res's measured window: after
// the warmup, or after a late start that passed it (run.Do).
func measuredWindow(res *result.Experiment) (time.Time, time.Time) {
	from := res.Started.Add(max(res.Warmup, res.Late))
	return from, from.Add(res.Measured)
}

// others are the runs other than a's whose records were active at some
// point of [from, to], as of now, one entry per run: drivers of a's own
// run id and a's own session are not others; the processes of another run
// id are one run. Overlap is how much of [from, to] they were active.
func others(a *activity, recs map[string]string, from, to, now time.Time) []result.ConcurrentRun {
	token, _, _ := strings.Cut(a.key, "/")
	type group struct {
		c      result.ConcurrentRun
		tokens map[string]bool
		spans  [][2]time.Time
		best   time.Duration
	}
	var order []string
	groups := map[string]*group{}
	for _, key := range slices.Sorted(maps.Keys(recs)) {
		tok, _, _ := strings.Cut(key, "/")
		var r runRecord
		if tok == token || json.Unmarshal([]byte(recs[key]), &r) != nil || r.Start.IsZero() {
			continue
		}
		if r.RunID != "" && r.RunID == a.rec.RunID {
			continue
		}
		until := r.until(now)
		if r.Start.After(to) || until.Before(from) {
			continue
		}
		id := "token " + tok
		if r.RunID != "" {
			id = "run id " + r.RunID
		}
		g := groups[id]
		if g == nil {
			g = &group{c: result.ConcurrentRun{RunID: r.RunID, Run: r.Run, Started: r.Start, Ended: until}, tokens: map[string]bool{}}
			groups[id] = g
			order = append(order, id)
		}
		lo, hi := maxTime(r.Start, from), minTime(until, to)
		if d := hi.Sub(lo); d > g.best { // the run number of the record most in the window
			g.best, g.c.Run = d, r.Run
		}
		g.spans = append(g.spans, [2]time.Time{lo, hi})
		g.tokens[tok] = true
		if r.Start.Before(g.c.Started) {
			g.c.Started = r.Start
		}
		if until.After(g.c.Ended) {
			g.c.Ended = until
		}
		if r.End.IsZero() && until.Equal(now) {
			g.c.Ended = time.Time{} // still active
		}
		if !slices.Contains(g.c.Hosts, r.Host) {
			g.c.Hosts = append(g.c.Hosts, r.Host)
		}
		g.c.PID = r.PID
	}
	out := make([]result.ConcurrentRun, 0, len(order))
	for _, id := range order {
		g := groups[id]
		g.c.Processes = len(g.tokens)
		if g.c.Processes > 1 {
			g.c.PID = 0
		}
		g.c.Overlap = union(g.spans)
		out = append(out, g.c)
	}
	return out
}

// union is the length of the union of spans.
func union(spans [][2]time.Time) time.Duration {
	slices.SortFunc(spans, func(x, y [2]time.Time) int { return x[0].Compare(y[0]) })
	var total time.Duration
	var end time.Time
	for _, sp := range spans {
		lo := maxTime(sp[0], end)
		if sp[1].After(lo) {
			total += sp[1].Sub(lo)
		}
		end = maxTime(end, sp[1])
	}
	return total
}

// pruneable are the records no run can still need: those that ended (or
// went quiet) a minute before the earliest start of any active record and
// of a's, so that no active run's window, nor a's, reaches back to them.
func pruneable(a *activity, recs map[string]string, now time.Time) []string {
	cutoff := a.rec.Start
	parsed := map[string]runRecord{}
	for k, v := range recs {
		var r runRecord
		if json.Unmarshal([]byte(v), &r) != nil || r.Start.IsZero() {
			continue // not ours to judge: left alone
		}
		parsed[k] = r
		if r.until(now).Equal(now) && r.Start.Before(cutoff) {
			cutoff = r.Start
		}
	}
	cutoff = cutoff.Add(-time.Minute) // hosts' clocks may differ a little
	var old []string
	for k, r := range parsed {
		if r.until(now).Before(cutoff) {
			old = append(old, k)
		}
	}
	slices.Sort(old)
	return old
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// agreeStart returns the session's split with the start its drivers
// share: with a relative Split.Start and a run id on a database that
// records runs, the instant the first driver of the run id to arrive
// recorded there (docs/distributed.md); otherwise the split as given.
func (s *Session) agreeStart(ctx context.Context, exps []run.Experiment) (Split, error) {
	sp := s.opts.Split
	if !sp.Relative || sp.RunID == "" || sp.Start.IsZero() {
		return sp, nil
	}
	rr, ok := s.recorder()
	if !ok {
		if sp.driver().Many() {
			s.sink.Note(fmt.Sprintf("%s: %s records no runs, so each driver counts a relative Options.Split.Start from its own start; give an absolute instant to line up the drivers", sp.who(), s.url))
		}
		return sp, nil
	}
	var span time.Duration
	for _, x := range exps {
		span += x.Warmup + x.Duration
	}
	// An instant whose whole schedule is over is an earlier run's of the
	// same id: this one records its own.
	now := time.Now()
	at, err := rr.AgreeStart(ctx, fleet.StartKey(sp.RunID), sp.Start, now.Add(-span))
	if err != nil {
		return sp, fmt.Errorf("%s: %w", s.opts.Name, err)
	}
	switch {
	case at.Equal(sp.Start) && sp.driver().Many():
		s.sink.Note(fmt.Sprintf("%s: shared start of run %s recorded in the database: %s, for its other drivers", sp.who(), sp.RunID, at.UTC().Format(time.RFC3339Nano)))
	case !at.Equal(sp.Start):
		s.sink.Note(fmt.Sprintf("%s: shared start of run %s: %s, as its first driver recorded it in the database (this driver's Options.Split.Start alone gave %s)",
			sp.who(), sp.RunID, at.UTC().Format(time.RFC3339Nano), sp.Start.UTC().Format(time.RFC3339Nano)))
	}
	sp.Start = at
	return sp, nil
}
