package run

import (
	"fmt"

	"github.com/taobench/taobench/metrics"
	"github.com/taobench/taobench/resources"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/store"
)

// Endpoint is one of several servers of the same database a run spreads
// its clients over (docs/distributed.md): the nodes of a multi-primary
// cluster, say.
type Endpoint struct {
	Name   string // as results show it, password redacted
	Store  store.Store
	Weight int // its share of the clients; < 1 counts as 1
}

// EndpointOf is the endpoint (0-based) run-wide client k runs on, of
// endpoints weighted weights: a smooth weighted round robin (nginx's), so
// in every sum(weights) consecutive clients endpoint i gets weights[i], and
// its clients are spread through the cycle rather than bunched (weights
// 2,1,1 give 0,1,2,0, 0,1,2,0, ...; equal weights plain round robin).
// Drivers of one run agree, as it depends only on k.
func EndpointOf(weights []int, k int) int {
	if len(weights) < 2 {
		return 0
	}
	total := 0
	for _, w := range weights {
		total += max(w, 1)
	}
	cur := make([]int, len(weights))
	pick := 0
	for range k%total + 1 {
		pick = 0
		for i, w := range weights {
			cur[i] += max(w, 1)
			if cur[i] > cur[pick] {
				pick = i
			}
		}
		cur[pick] -= total
	}
	return pick
}

// endpointGroup is what the clients of one endpoint share: their store,
// recorders and per-second series, so the endpoint's figures are its
// clients' alone.
type endpointGroup struct {
	ep      Endpoint
	tl      *metrics.Timeline
	recs    []*metrics.Recorder
	clients []*client
	server  *resources.Server // the first endpoint's is the run sampler's
}

// groups splits threads clients, run-wide numbers first.., over the
// endpoints of cfg (one group for the store alone), each with recorders of
// its own: at most maxRecorders in all, at least one per endpoint with
// clients.
func groups(cfg *Config, threads int) ([]*endpointGroup, []int, error) {
	eps := cfg.Endpoints
	if len(eps) < 2 {
		eps = []Endpoint{{Store: cfg.Store, Weight: 1}}
	}
	weights := make([]int, len(eps))
	for i, e := range eps {
		if e.Store == nil {
			return nil, nil, fmt.Errorf("experiment: endpoint %d (%s) has no store", i+1, e.Name)
		}
		weights[i] = e.Weight
	}
	of := make([]int, threads)
	n := make([]int, len(eps))
	for i := range of {
		of[i] = EndpointOf(weights, cfg.FirstClient+i)
		n[of[i]]++
	}
	gs := make([]*endpointGroup, len(eps))
	per := max(1, maxRecorders/len(eps))
	for i, e := range eps {
		g := &endpointGroup{ep: e, tl: metrics.NewTimeline()}
		for range min(n[i], per) {
			g.recs = append(g.recs, metrics.NewRecorderSharing(g.tl))
		}
		gs[i] = g
	}
	return gs, of, nil
}

// summary is the group's measurements: its recorders' and its series.
func (g *endpointGroup) summary() *metrics.Summary {
	sum := metrics.NewSummary()
	for _, r := range g.recs {
		sum.Merge(r.Snapshot())
	}
	sum.Merge(g.tl.Snapshot())
	return sum
}

// result is the group's share of the experiment's result.
func (g *endpointGroup) result(sum *metrics.Summary, server *result.ServerUsage) result.Endpoint {
	var codes result.ErrorCodes
	var bySec result.CodesBySecond
	for _, c := range g.clients {
		codes.Merge(c.codes)
		bySec.Merge(c.codeSecs)
	}
	return result.Endpoint{Name: g.ep.Name, Weight: max(g.ep.Weight, 1), Clients: len(g.clients),
		Summary: sum, ErrorCodes: codes, CodesBySecond: bySec, Server: server}
}
