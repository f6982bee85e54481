package textreport

import (
	"fmt"
	"strings"

	"github.com/taobench/taobench/internal/termsafe"
	"github.com/taobench/taobench/metrics"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/tao"
)

// writeConsistency writes one line per read tier (docs/tiers.md): what
// read_tiers drew, what the tier served and how much of it was stale, the
// latency inside the tiers and the latency the clients measured (sum's
// reads by the tier that served them).
func writeConsistency(b *strings.Builder, c *result.Consistency, sum *metrics.Summary) {
	if c == nil {
		return
	}
	if len(c.Endpoints) > 0 { // several endpoints: each one's stale reads
		writeEndpointStale(b, c.Endpoints)
		return
	}
	if c.CheckOnly { // no tier: the checker's self-check alone
		db := &c.Tiers[tao.TierDB]
		fmt.Fprintf(b, "staleness self-check: %d database reads checked (1 in %d, by key), %d stale (must be 0: docs/tiers.md)\n", db.Served, max(c.CheckEvery, 1), db.Stale)
		return
	}
	var served int64
	for i := range c.Tiers {
		served += c.Tiers[i].Served
	}
	if c.Replica != nil {
		served += c.Replica.Served
	}
	b.WriteString("read tiers (drawn; served, share; hit ratio; stale, share, age p50/p99/max ms; latency in the tiers p50/p99 ms; at the clients p50/p99 ms):\n")
	for i := range c.Tiers {
		cl := sum.TierStats(tao.Tier(i).String())
		writeTier(b, tao.Tier(i).String(), &c.Tiers[i], served, &cl)
	}
	if c.Replica != nil {
		writeTier(b, result.ReplicaTier, c.Replica, served, nil)
		writeReplicas(b, c.Replicas)
	}
	if p := c.Prefill; p != nil {
		state := "done"
		if !p.Done {
			state = "NOT done (the run was cut short before its clock started)"
		}
		fmt.Fprintf(b, "  tao tier prefilled from the database before the experiment's clock: %d objects, %d edges, %d lists (%d complete), %d errors, %.1f s, %s\n",
			p.Objects, p.Edges, p.Lists, p.Complete, p.Errors, p.Took.Seconds(), state)
	}
}

// writeTier writes one tier's line; cl is the latency the clients measured
// of the reads it served (nil: not recorded by tier, as for the
// replicas).
func writeTier(b *strings.Builder, name string, t *result.TierStats, served int64, cl *metrics.LatencyStats) {
	lat, age := orZero(t.Latency), orZero(t.Age)
	share := 0.0
	if served > 0 {
		share = 100 * float64(t.Served) / float64(served)
	}
	fmt.Fprintf(b, "  %-12s drawn %d; served %d, %.2f%%; hits %.2f%% of %d lookups", name, t.Drawn, t.Served, share, 100*t.HitRatio(), t.Lookups)
	if t.Errors > 0 {
		fmt.Fprintf(b, " (%d errors)", t.Errors)
	}
	fmt.Fprintf(b, "; stale %d, %.3f%%, age %.3f/%.3f/%.3f; latency %.3f/%.3f", t.Stale, 100*t.StaleShare(),
		age.P50/1000, age.P99/1000, age.Max/1000, lat.P50/1000, lat.P99/1000)
	if cl != nil {
		fmt.Fprintf(b, "; at the clients %.3f/%.3f", cl.P50/1000, cl.P99/1000)
	}
	b.WriteString("\n")
}

func orZero(s *metrics.Series) metrics.LatencyStats {
	if s == nil {
		return metrics.LatencyStats{}
	}
	return s.Stats()
}

// writeReplicas writes a line per replica under db_replica: what it
// served, its errors, stale reads, lag, outages, and its promotion in
// capitals (docs/tiers.md, "Replicas that fail or are promoted").
func writeReplicas(b *strings.Builder, rs []result.ReplicaStats) {
	for i := range rs {
		r := &rs[i]
		age, lag := orZero(r.Age), orZero(r.Lag)
		fmt.Fprintf(b, "    replica %s: served %d of %d reads sent, %d errors; stale %d, %.3f%%, age p50/p99/max %.3f/%.3f/%.3f; lag p50/p99/max %.3f/%.3f/%.3f",
			r.Name, r.Served, r.Lookups, r.Errors, r.Stale, 100*r.StaleShare(), age.P50/1000, age.P99/1000, age.Max/1000, lag.P50/1000, lag.P99/1000, lag.Max/1000)
		if r.Outages > 0 {
			fmt.Fprintf(b, "; out of rotation %d time(s), %.1f s in all, longest %.1f s (its reads went elsewhere)", r.Outages, r.Outage.Seconds(), r.Longest.Seconds())
		}
		if r.Promoted() {
			fmt.Fprintf(b, "; PROMOTED (left recovery) at %s: read as a replica no more", r.PromotedAt.UTC().Format("15:04:05.000"))
		}
		b.WriteString("\n")
	}
}

// writeEndpointStale writes a line per endpoint of a run over several: its
// reads, how many were stale and how old, and its poller's lag
// (docs/distributed.md, "Stale reads per endpoint").
func writeEndpointStale(b *strings.Builder, rs []result.ReplicaStats) {
	b.WriteString("stale reads per endpoint (each read against the heartbeat its endpoint showed after it; docs/distributed.md):\n")
	for i := range rs {
		r := &rs[i]
		age, lag := orZero(r.Age), orZero(r.Lag)
		fmt.Fprintf(b, "  endpoint %s: %d reads; stale %d, %.3f%%, age p50/p99/max %.3f/%.3f/%.3f ms; lag p50/p99/max %.3f/%.3f/%.3f ms",
			termsafe.Escape(r.Name), r.Served, r.Stale, 100*r.StaleShare(), age.P50/1000, age.P99/1000, age.Max/1000, lag.P50/1000, lag.P99/1000, lag.Max/1000)
		if r.Outages > 0 {
			fmt.Fprintf(b, "; its heartbeat poll failed %d time(s), %.1f s in all, longest %.1f s", r.Outages, r.Outage.Seconds(), r.Longest.Seconds())
		}
		b.WriteString("\n")
	}
}

// writeConcurrent writes, beside the stale-read figures, the other
// taobench runs that were active on the database during the measured
// window: their writes are among those the verdicts and the contention
// figures saw (docs/tiers.md, "Concurrent runs").
func writeConcurrent(b *strings.Builder, e *result.Experiment) {
	for _, c := range e.Concurrent {
		fmt.Fprintf(b, "another taobench run was active on this database during %.3f s of the %.3f s measured window (%s): stale-read verdicts and contention include its writes\n",
			c.Overlap.Seconds(), e.Measured.Seconds(), c.Describe())
	}
}
