// Package resources records what an experiment costs: the driver's CPU and
// resident memory every second, and, from a store that can tell
// (store.StatsReader), the server's table sizes before and after and the
// growth of its own counters over the experiment. A reading that fails is
// recorded as an error string, never failing the run.
package resources

import (
	"context"
	"sync"
	"time"

	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/store"
)

// Interval is the time between driver samples.
const Interval = time.Second

// serverTimeout bounds each reading of the server's statistics;
// hurriedTimeout the last one after requests timed out, when the server
// may not answer at all and must not hold the run.
const (
	serverTimeout  = 10 * time.Second
	hurriedTimeout = 250 * time.Millisecond
)

// Sampler samples one experiment, from Start to Stop.
type Sampler struct {
	srv     *Server // nil: no server view
	start   time.Time
	u0      usage
	u0ok    bool // u0 was read
	stop    chan struct{}
	wg      sync.WaitGroup
	mu      sync.Mutex // guards samples, maxRSS and err, written by the sampling goroutine
	samples []result.DriverSample
	maxRSS  int64
	err     error // the first failed driver reading
}

// Start reads the server's statistics, when st can give them, and starts
// sampling the driver every Interval.
func Start(ctx context.Context, st store.Store) *Sampler {
	s := &Sampler{stop: make(chan struct{}), srv: StartServer(ctx, st)}
	s.start = time.Now()
	s.u0, s.err = readUsage()
	s.u0ok = s.err == nil
	s.wg.Add(1)
	go s.loop()
	return s
}

func (s *Sampler) loop() {
	defer s.wg.Done()
	t := time.NewTicker(Interval)
	defer t.Stop()
	prev, prevAt := s.u0, s.start
	for {
		select {
		case <-s.stop:
			return
		case now := <-t.C:
			u, err := readUsage()
			s.mu.Lock()
			if err != nil {
				if s.err == nil {
					s.err = err
				}
			} else {
				s.samples = append(s.samples, result.DriverSample{At: now.Sub(s.start), CPUPct: cpuPct(u.cpu()-prev.cpu(), now.Sub(prevAt)), RSS: u.rss})
				s.maxRSS = max(s.maxRSS, u.rss)
				prev, prevAt = u, now
			}
			s.mu.Unlock()
		}
	}
}

// Stop ends the sampling and returns the experiment's resources. It reads
// the server's statistics once more, after the server's Lag, even when ctx
// was cancelled (Ctrl-C): the experiment's results still need them. When
// hurried (requests timed out: the server may be hung) it reads them at
// once and gives up after hurriedTimeout.
func (s *Sampler) Stop(ctx context.Context, hurried bool) *result.Resources {
	end := time.Now()
	u, uErr := readUsage()
	close(s.stop)
	s.wg.Wait()
	res := &result.Resources{Interval: Interval}
	d := &res.Driver
	d.Samples = s.samples
	if d.Samples == nil {
		d.Samples = []result.DriverSample{}
	}
	d.MaxRSS = s.maxRSS
	err := s.err
	if err == nil {
		err = uErr
	}
	if err != nil {
		d.Error = err.Error()
	}
	if s.u0ok && uErr == nil {
		d.User, d.Sys = u.user-s.u0.user, u.sys-s.u0.sys
		d.CPUPct = cpuPct(d.User+d.Sys, end.Sub(s.start))
		d.MaxRSS = max(d.MaxRSS, u.rss)
	}
	res.Server = s.srv.Stop(ctx, hurried)
	return res
}

// Server reads one server's statistics before and after an experiment:
// the run's other endpoints' (docs/distributed.md), beside the first's
// that the Sampler reads.
type Server struct {
	st     store.StatsReader
	before store.ServerStats
	bErr   error
}

// StartServer reads the server's statistics when st can give them; nil
// when it cannot (the null store).
func StartServer(ctx context.Context, st store.Store) *Server {
	r, ok := st.(store.StatsReader)
	if !ok {
		return nil
	}
	s := &Server{st: r}
	s.before, s.bErr = readServer(ctx, r, serverTimeout)
	return s
}

// Stop reads the server's statistics again, as Sampler.Stop does, and
// returns their growth; nil for a nil Server.
func (s *Server) Stop(ctx context.Context, hurried bool) *result.ServerUsage {
	if s == nil {
		return nil
	}
	ctx = context.WithoutCancel(ctx)
	timeout := serverTimeout
	switch {
	case hurried:
		timeout = hurriedTimeout
	case s.before.Lag > 0:
		time.Sleep(s.before.Lag)
	}
	after, aErr := readServer(ctx, s.st, timeout)
	su := &result.ServerUsage{Engine: after.Engine, Product: after.Product,
		Before: state(s.before), After: state(after),
		Deltas: map[string]int64{}, TableDeltas: map[string]map[string]int64{}}
	if su.Engine == "" {
		su.Engine, su.Product = s.before.Engine, s.before.Product
	}
	switch {
	case s.bErr != nil && aErr != nil && s.bErr.Error() == aErr.Error():
		su.Error = "before and after: " + aErr.Error()
	case s.bErr != nil && aErr != nil:
		su.Error = "before: " + s.bErr.Error() + "; after: " + aErr.Error()
	case s.bErr != nil:
		su.Error = "before: " + s.bErr.Error()
	case aErr != nil:
		su.Error = "after: " + aErr.Error()
	}
	// A counter read only once has no delta, unless the first reading
	// succeeded without it: a server that creates a counter at its first
	// event (TiDB's errors by code) counted from 0.
	for k, v := range after.Counters {
		if b, ok := s.before.Counters[k]; ok {
			su.Deltas[k] = v - b
		} else if s.bErr == nil {
			su.Deltas[k] = v
		}
	}
	for t, cs := range after.Tables {
		bt, ok := s.before.Tables[t]
		if !ok {
			continue
		}
		m := map[string]int64{}
		for k, v := range cs {
			if b, ok := bt[k]; ok {
				m[k] = v - b
			}
		}
		su.TableDeltas[t] = m
	}
	return su
}

func readServer(ctx context.Context, r store.StatsReader, timeout time.Duration) (store.ServerStats, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return r.ServerStats(ctx)
}

func state(st store.ServerStats) result.ServerState {
	s := result.ServerState{SizeBytes: st.SizeBytes, Gauges: st.Gauges}
	if s.SizeBytes == nil {
		s.SizeBytes = map[string]int64{}
	}
	if s.Gauges == nil {
		s.Gauges = map[string]int64{}
	}
	return s
}

func cpuPct(cpu, wall time.Duration) float64 {
	if wall <= 0 {
		return 0
	}
	return float64(cpu) / float64(wall) * 100
}

// usage is the process's CPU time so far and its resident set now.
type usage struct {
	user, sys time.Duration
	rss       int64 // bytes
}

func (u usage) cpu() time.Duration { return u.user + u.sys }
