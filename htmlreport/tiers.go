package htmlreport

import (
	"fmt"
	"math"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/taobench/taobench/metrics"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/tao"
)

// tierRow is one read tier's line of the page's read tiers table.
type tierRow struct {
	Name, Drawn, Served, Share, HitRatio, Stale, StaleShare, Age, Latency, Clients string
	// Health: the tier's errors; for a replica's row, its outages and
	// promotion too.
	Health string
}

// tierView returns the read tiers' table and charts of an experiment with
// tiers (docs/tiers.md): per tier, the stale share and age; per second,
// each tier's and each replica's stale share and its oldest stale read;
// the stale reads' age and the reads' latency at the clients, as
// distributions by tier. The
// replicas (db_replica) are a tier of their own; a run whose checker ran
// alone (CheckOnly) has no tier to show: its self-check is a fidelity row.
// A run over several endpoints has a row and a line per endpoint
// (docs/distributed.md, "Stale reads per endpoint").
func tierView(id string, e *result.Experiment) ([]tierRow, []*Chart) {
	c := e.Consistency
	if c == nil || (c.CheckOnly && len(c.Endpoints) == 0) {
		return nil, nil
	}
	s := e.Sum()
	type named struct {
		name  string
		t     *result.TierStats
		color string
	}
	var tiers []named
	for i := range c.Tiers {
		if !c.CheckOnly {
			tiers = append(tiers, named{tao.Tier(i).String(), &c.Tiers[i], color(i)})
		}
	}
	if c.Replica != nil {
		tiers = append(tiers, named{result.ReplicaTier, c.Replica, color(len(tiers))})
	}
	var all int64
	for _, n := range tiers {
		all += n.t.Served
	}
	for i := range c.Endpoints {
		all += c.Endpoints[i].Served
	}
	var rows []tierRow
	for _, n := range tiers {
		t := n.t
		age, lat := statsOf(t.Age), statsOf(t.Latency)
		clients := "–" // the replicas' reads are not a dimension of the clients' latency
		if n.name != result.ReplicaTier {
			cl := s.TierStats(n.name)
			clients = ms(cl.P50) + " / " + ms(cl.P99)
		}
		rows = append(rows, tierRow{Name: n.name, Drawn: fmt.Sprint(t.Drawn), Served: fmt.Sprint(t.Served),
			Share: pct(pctOf(t.Served, all)), HitRatio: pct(100 * t.HitRatio()), Stale: fmt.Sprint(t.Stale),
			StaleShare: pct(100 * t.StaleShare()), Age: ms(age.P50) + " / " + ms(age.P99) + " / " + ms(age.Max),
			Latency: ms(lat.P50) + " / " + ms(lat.P99), Clients: clients, Health: health(t.Errors, nil)})
	}
	// A row per replica after db_replica's, named by its redacted URL.
	for i := range c.Replicas {
		r := &c.Replicas[i]
		age, lat := statsOf(r.Age), statsOf(r.Latency)
		rows = append(rows, tierRow{Name: "replica " + r.Name, Drawn: "–", Served: fmt.Sprint(r.Served),
			Share: pct(pctOf(r.Served, all)), HitRatio: pct(100 * r.HitRatio()), Stale: fmt.Sprint(r.Stale),
			StaleShare: pct(100 * r.StaleShare()), Age: ms(age.P50) + " / " + ms(age.P99) + " / " + ms(age.Max),
			Latency: ms(lat.P50) + " / " + ms(lat.P99), Clients: "–", Health: health(r.Errors, r)})
	}
	// A row per endpoint: its reads, classed against its own heartbeat.
	for i := range c.Endpoints {
		r := &c.Endpoints[i]
		age, lat := statsOf(r.Age), statsOf(r.Latency)
		h := fmt.Sprintf("%d errors", r.Errors)
		if r.Outages > 0 {
			h += fmt.Sprintf("; heartbeat poll failed %d time(s), %.1f s (longest %.1f s)", r.Outages, r.Outage.Seconds(), r.Longest.Seconds())
		}
		rows = append(rows, tierRow{Name: "endpoint " + r.Name, Drawn: "–", Served: fmt.Sprint(r.Served),
			Share: pct(pctOf(r.Served, all)), HitRatio: pct(100 * r.HitRatio()), Stale: fmt.Sprint(r.Stale),
			StaleShare: pct(100 * r.StaleShare()), Age: ms(age.P50) + " / " + ms(age.P99) + " / " + ms(age.Max),
			Latency: ms(lat.P50) + " / " + ms(lat.P99), Clients: "–", Health: h})
	}
	var charts []*Chart
	// Per second, each replica and each endpoint too: where one lags
	// behind the others (a far region, a partition) its stale reads show
	// in its own line.
	lines := tiers
	for i := range c.Replicas {
		lines = append(lines, named{"replica " + c.Replicas[i].Name, &c.Replicas[i].TierStats, color(len(tiers) + i)})
	}
	var epLines []named
	for i := range c.Endpoints {
		epLines = append(epLines, named{"endpoint " + c.Endpoints[i].Name, &c.Endpoints[i].TierStats, color(len(lines) + i)})
	}
	lines = append(lines, epLines...)
	secs := 0
	for _, n := range lines {
		secs = max(secs, len(n.t.Seconds))
	}
	if secs > 0 {
		x := make([]float64, secs)
		for i := range x {
			x[i] = float64(i)
		}
		share := &Chart{ID: id + "-stale", Title: "Stale reads per second by tier (% of the reads it served)", XLabel: "second of the measured window",
			YLabel: "% stale", X: x}
		age := &Chart{ID: id + "-stale-age", Title: "Oldest stale read per second by tier", XLabel: "second of the measured window",
			YLabel: "age (ms, log)", YLog: true, Points: true, X: x}
		for _, n := range lines {
			t := n.t
			sh, ag := make([]Num, secs), make([]Num, secs)
			var served, stale bool
			for k := range sh {
				sh[k], ag[k] = Num(math.NaN()), Num(math.NaN())
				if k >= len(t.Seconds) || t.Seconds[k].Served == 0 {
					continue
				}
				q := t.Seconds[k]
				sh[k], served = Num(100*float64(q.Stale)/float64(q.Served)), true
				if q.Stale > 0 {
					ag[k], stale = Num(max(float64(q.MaxAge.Microseconds())/1000, lowestMS)), true
				}
			}
			if served {
				share.Series = append(share.Series, Series{Label: n.name, Color: n.color, Y: sh})
			}
			if stale {
				age.Series = append(age.Series, Series{Label: n.name, Color: n.color, Y: ag})
			}
		}
		for _, ch := range []*Chart{share, age} {
			if len(ch.Series) > 0 {
				charts = append(charts, ch)
			}
		}
	}
	var ages, lats []*hdrhistogram.Histogram
	var names, colors []string
	for _, n := range tiers {
		ages, names, colors = append(ages, n.t.Age.Histogram()), append(names, n.name), append(colors, n.color)
		if n.name != result.ReplicaTier {
			lats = append(lats, s.TierHistogram(n.name))
		}
	}
	// After the tiers, so that lats and names share their first indices;
	// the endpoints' latency is their clients' (the endpoints table).
	for _, n := range epLines {
		ages, names, colors = append(ages, n.t.Age.Histogram()), append(names, n.name), append(colors, n.color)
	}
	if ch := cdfByTier(id+"-stale-age-cdf", "Stale reads' age by tier (CDF)", "age (ms, log)", ages, names, colors); ch != nil {
		charts = append(charts, ch)
	}
	if ch := cdfByTier(id+"-tier-lat", "Read latency at the clients by the tier that served it (CDF; TAOBench Fig. 4d)", "latency (ms, log)", lats, names, colors); ch != nil {
		charts = append(charts, ch)
	}
	return rows, charts
}

// health says a tier's errors and, for a replica (r not nil), its
// outages and promotion.
func health(errors int64, r *result.ReplicaStats) string {
	h := fmt.Sprintf("%d errors", errors)
	if r == nil {
		return h
	}
	if r.Outages > 0 {
		h += fmt.Sprintf("; out of rotation %d time(s), %.1f s (longest %.1f s)", r.Outages, r.Outage.Seconds(), r.Longest.Seconds())
	}
	if r.Promoted() {
		h += "; PROMOTED (left recovery) at " + r.PromotedAt.UTC().Format("15:04:05.000")
	}
	return h
}

// cdfByTier overlays the CDFs of the tiers' histograms (nil: none), the
// tiers named and coloured by names and colors.
func cdfByTier(id, title, xlabel string, hs []*hdrhistogram.Histogram, names, colors []string) *Chart {
	var xs, ys [][]float64
	var labels, cs []string
	for i, h := range hs {
		if h == nil {
			continue
		}
		x, y := cdf(h)
		xs, ys = append(xs, x), append(ys, y)
		labels, cs = append(labels, names[i]), append(cs, colors[i])
	}
	if len(labels) == 0 {
		return nil
	}
	return overlay(&Chart{ID: id, Title: title, XLabel: xlabel, YLabel: "fraction of reads", XLog: true}, xs, ys, labels, cs)
}

func statsOf(s *metrics.Series) metrics.LatencyStats {
	if s == nil {
		return metrics.LatencyStats{}
	}
	return s.Stats()
}
