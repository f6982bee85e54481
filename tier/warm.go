package tier

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/taobench/taobench/graph"
	"github.com/taobench/taobench/result"
)

// Warm prefills the tao tier of the experiment of graphSeed and run
// before that experiment's clock starts (docs/tiers.md, "A warm tier"):
// the measured window waits for a warm tier rather than starting with a
// half-filled one, as a prefill in the warmup did on a loaded machine. It
// says how far it got on status every two seconds (none when nil) and
// returns when the whole graph is read or ctx ends. BeginExperiment for
// the same keys then reports it as the experiment's prefill. It does
// nothing without a tao tier asked to prefill (prefill=1).
func (s *Store) Warm(ctx context.Context, g *graph.Graph, graphSeed uint64, run int64, status io.Writer) {
	if s.tao == nil || !s.tao.prefill || g == nil {
		return
	}
	x := s.newExperiment(graphSeed, run, 0, 0)
	p := &prefiller{s: s, x: x, g: g, begin: time.Now()}
	done := make(chan struct{})
	go func() {
		defer close(done)
		p.run(ctx)
	}()
	tick := time.NewTicker(2 * time.Second)
	defer tick.Stop()
	for {
		select {
		case <-done:
			x.mu.Lock()
			st := x.c.Prefill
			x.mu.Unlock()
			if status != nil && st != nil {
				fmt.Fprintf(status, "[prefill] tao tier warm: %d objects, %d edges, %d lists in %.1f s (done %v, %d errors); the measured window starts after it\n",
					st.Objects, st.Edges, st.Lists, st.Took.Seconds(), st.Done, st.Errors)
			}
			s.warmMu.Lock()
			s.warm = warmed{ns: x.ns, st: st}
			s.warmMu.Unlock()
			return
		case <-tick.C:
			if status != nil {
				fmt.Fprintf(status, "[prefill] %.1f s: %d of %d objects, %d lists; the experiment waits for it\n",
					time.Since(p.begin).Seconds(), p.stats.objects.Load(), g.Nodes(), p.stats.lists.Load())
			}
		}
	}
}

// warmed is the prefill Warm ran for the keys of namespace ns.
type warmed struct {
	ns string
	st *result.Prefill
}

// takeWarm returns the prefill Warm ran for x's keys, if any.
func (s *Store) takeWarm(x *experiment) (*result.Prefill, bool) {
	s.warmMu.Lock()
	defer s.warmMu.Unlock()
	if s.warm.st == nil || s.warm.ns != x.ns {
		return nil, false
	}
	st := *s.warm.st
	return &st, true
}

// DefaultLocality is the client cache's locality that models TAO's
// (gen's Reread): TAO's client cache serves 14.1% of reads (TAOBench
// §3.2) and the published read_tiers draw 14% of reads to it, so nearly
// every read drawn there is one TAO's cache could answer: a read again of
// what the client read moments ago.
const DefaultLocality = 1.0

// Reread is the locality the clients' generators draw (run's Rereader):
// the share of reads drawn to the client cache that read again what their
// client read moments ago; 0 without a client cache.
func (s *Store) Reread() float64 { return s.locality }
