package result

import (
	"fmt"
	"maps"

	"github.com/taobench/taobench/metrics"
)

// Endpoint is what the clients of one endpoint measured, in a run spread
// over several endpoints of one database (docs/distributed.md): its
// requests are a part of the experiment's, and the endpoints' parts add
// up exactly to the whole.
type Endpoint struct {
	Name       string // the URL, password redacted
	Weight     int    // its share of the clients (--db-weights)
	Clients    int
	Summary    *metrics.Summary
	ErrorCodes ErrorCodes
	// CodesBySecond is ErrorCodes by the second each request began in;
	// empty when no attempt failed, or read from a file written before
	// taobench recorded it.
	CodesBySecond CodesBySecond
	// Server is what the endpoint's server counted over the experiment;
	// nil when the store has no server to ask.
	Server *ServerUsage
}

// Sum returns the endpoint's summary; never nil.
func (e *Endpoint) Sum() *metrics.Summary {
	if e.Summary == nil {
		return metrics.NewSummary()
	}
	return e.Summary
}

// jsonEndpoint is an endpoint as docs/results.md ("endpoints") shows it:
// the figures, then the exact data merge adds up.
type jsonEndpoint struct {
	URL               string                      `json:"url"`
	Weight            int                         `json:"weight"`
	Clients           int                         `json:"clients"`
	Ops               int64                       `json:"ops"`
	Throughput        float64                     `json:"throughput"`
	Failed            int64                       `json:"failed"`
	Attempts          int64                       `json:"attempts"`
	LatencyUS         map[string]jsonLatency      `json:"latency_us"`
	Outcomes          map[string]int64            `json:"outcomes"`
	ErrorCodes        map[string]map[string]int64 `json:"error_codes"`
	NoServiceS        *int                        `json:"no_service_s"`
	LongestNoServiceS *int                        `json:"longest_no_service_s"`
	Server            *jsonServer                 `json:"server"` // null: no server to ask
	// PerSecond is derived from Timeline (not read back, but for each
	// row's error codes): the endpoint's outage and recovery second by
	// second.
	PerSecond []jsonSecond `json:"per_second"`

	Histograms         map[string]metrics.SeriesData `json:"histograms"`
	ServiceHistograms  map[string]metrics.SeriesData `json:"service_histograms"`
	InjectedHistograms map[string]metrics.SeriesData `json:"injected_histograms"`
	Counters           *metrics.CountersData         `json:"counters"`
	Timeline           []metrics.SecondData          `json:"timeline"`
	Lost               jsonLost                      `json:"lost"`
}

// jsonSecond is one per_second row: the second's figures and, only where
// there were any, the codes of its requests' failed attempts, as
// error_codes has them for the whole run.
type jsonSecond struct {
	metrics.SecondFigures
	ErrorCodes map[string]map[string]int64 `json:"error_codes,omitempty"`
	// Stale and MaxStaleAgeUS: the endpoint's stale reads that began in
	// the second and the oldest one's age, from its consistency row
	// (Consistency.Endpoints); absent without one. Not read back.
	Stale         *int64 `json:"stale,omitempty"`
	MaxStaleAgeUS *int64 `json:"max_stale_age_us,omitempty"`
}

// endpointsJSON converts the experiment's endpoints; [] for a run on one.
func endpointsJSON(e *Experiment) ([]jsonEndpoint, error) {
	out := []jsonEndpoint{}
	for i, ep := range e.Endpoints {
		s := ep.Sum()
		data, err := s.Data()
		if err != nil {
			return nil, err
		}
		x := jsonEndpoint{URL: ep.Name, Weight: ep.Weight, Clients: ep.Clients, Ops: s.Requests(), Failed: s.Failed(),
			Attempts: s.Attempts(), LatencyUS: map[string]jsonLatency{}, Outcomes: outcomesJSON(s),
			ErrorCodes: errorCodesJSON(ep.ErrorCodes), Server: serverJSON(ep.Server),
			Histograms: data.Series, ServiceHistograms: data.Service, InjectedHistograms: data.Injected,
			Counters: &data.Counters, Timeline: data.Timeline, Lost: lostJSON(s)}
		if e.Measured > 0 {
			x.Throughput = float64(x.Ops) / e.Measured.Seconds()
		}
		if x.Timeline == nil {
			x.Timeline = []metrics.SecondData{}
		}
		x.PerSecond = []jsonSecond{}
		for _, f := range s.PerSecond(e.Measured) {
			x.PerSecond = append(x.PerSecond, jsonSecond{SecondFigures: f})
		}
		for sec, codes := range ep.CodesBySecond {
			if len(codes) == 0 {
				continue
			}
			for len(x.PerSecond) <= sec { // past the rows: cannot be, as codes come with requests
				x.PerSecond = append(x.PerSecond, jsonSecond{SecondFigures: metrics.SecondFigures{Second: len(x.PerSecond)}})
			}
			x.PerSecond[sec].ErrorCodes = errorCodesJSON(codes)
		}
		if row := endpointRow(e, i, ep.Name); row != nil {
			for k := range x.PerSecond {
				var q StaleSecond
				if k < len(row.Seconds) {
					q = row.Seconds[k]
				}
				age := q.MaxAge.Microseconds()
				x.PerSecond[k].Stale, x.PerSecond[k].MaxStaleAgeUS = &q.Stale, &age
			}
		}
		if n, longest, known := s.NoService(e.Measured); known {
			x.NoServiceS, x.LongestNoServiceS = &n, &longest
		}
		for _, name := range append([]string{metrics.All}, metrics.SeriesNames()...) {
			x.LatencyUS[name] = jsonLatency(s.Stats(name))
		}
		out = append(out, x)
	}
	return out, nil
}

// endpointRow is the consistency row of endpoint i, named name (a run
// over several measures each one's stale reads): the row in its place
// when it has its name (two endpoints may share one), else the first of
// that name; nil without one.
func endpointRow(e *Experiment, i int, name string) *ReplicaStats {
	if e.Consistency == nil {
		return nil
	}
	if rs := e.Consistency.Endpoints; i < len(rs) && rs[i].Name == name {
		return &rs[i]
	}
	for i := range e.Consistency.Endpoints {
		if e.Consistency.Endpoints[i].Name == name {
			return &e.Consistency.Endpoints[i]
		}
	}
	return nil
}

// endpointsFromJSON reads back what endpointsJSON wrote.
func endpointsFromJSON(xs []jsonEndpoint) ([]Endpoint, error) {
	var out []Endpoint
	for i := range xs {
		x := &xs[i]
		if x.Counters == nil {
			return nil, fmt.Errorf("endpoint %d (%s): no counters", i+1, x.URL)
		}
		sum, err := summaryFromJSON(&metrics.Data{Series: x.Histograms, Service: x.ServiceHistograms, Injected: x.InjectedHistograms,
			Counters: *x.Counters, Timeline: x.Timeline}, x.Outcomes, x.Ops, x.Lost)
		if err != nil {
			return nil, fmt.Errorf("endpoint %d (%s): %w", i+1, x.URL, err)
		}
		codes, err := errorCodesFromJSON(x.ErrorCodes)
		if err != nil {
			return nil, fmt.Errorf("endpoint %d (%s): %w", i+1, x.URL, err)
		}
		var bySec CodesBySecond
		for k, row := range x.PerSecond {
			c, err := errorCodesFromJSON(row.ErrorCodes)
			if err != nil {
				return nil, fmt.Errorf("endpoint %d (%s): per_second row %d: %w", i+1, x.URL, k, err)
			}
			for code, n := range c {
				bySec.Add(k, code, n)
			}
		}
		if bySec != nil && !maps.Equal(bySec.Sum(), codes) {
			return nil, fmt.Errorf("endpoint %d (%s): its per_second rows' error_codes add up to %v, its error_codes are %v",
				i+1, x.URL, bySec.Sum().Sorted(), codes.Sorted())
		}
		out = append(out, Endpoint{Name: x.URL, Weight: x.Weight, Clients: x.Clients, Summary: sum, ErrorCodes: codes,
			CodesBySecond: bySec, Server: serverFromJSON(x.Server)})
	}
	return out, nil
}

// mergeEndpoints adds e's endpoints to m's, matched by URL: drivers of
// one run spread their clients over the same endpoints. As with the
// resources, a merge of several processes keeps no server readings (each
// process's own file has them).
func mergeEndpoints(m, e []Endpoint) []Endpoint {
	several := m != nil
	for _, ep := range e {
		i := 0
		for i < len(m) && m[i].Name != ep.Name {
			i++
		}
		if i == len(m) {
			m = append(m, Endpoint{Name: ep.Name, Weight: ep.Weight, Summary: metrics.NewSummary(), Server: ep.Server})
		}
		if several {
			m[i].Server = nil
		}
		m[i].Clients += ep.Clients
		m[i].Summary.Merge(ep.Summary)
		m[i].ErrorCodes.Merge(ep.ErrorCodes)
		m[i].CodesBySecond.Merge(ep.CodesBySecond)
	}
	return m
}
