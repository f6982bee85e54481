package htmlreport

import (
	"math"
	"strings"

	"github.com/taobench/taobench/result"
)

// endpointChart draws, for a run over several endpoints, each endpoint's
// requests served per second (a line each) and its lost requests (errors
// and timeouts, dashed with every point marked), so an outage on one
// endpoint and its recovery show against the others. nil for one endpoint.
func endpointChart(id string, e *result.Experiment) *Chart {
	if len(e.Endpoints) < 2 {
		return nil
	}
	var per [][]float64 // served, lost per second, by endpoint
	n := 0
	for _, ep := range e.Endpoints {
		secs := ep.Sum().PerSecond(e.Measured)
		n = max(n, len(secs))
		served, lost := make([]float64, len(secs)), make([]float64, len(secs))
		for i, s := range secs {
			served[i], lost[i] = float64(s.Served), float64(s.Errors+s.Timeouts)
		}
		per = append(per, served, lost)
	}
	if n == 0 {
		return nil
	}
	c := &Chart{ID: id + "-endpoints", Title: "Requests served per second by endpoint; errors and timeouts dashed",
		XLabel: "second (from the start of measurement)", YLabel: "requests/s", Points: true, X: make([]float64, n)}
	for i := range c.X {
		c.X[i] = float64(i)
	}
	for k, ep := range e.Endpoints {
		served, lost := make([]Num, n), make([]Num, n)
		anyLost := false
		for i := range n {
			served[i], lost[i] = 0, Num(math.NaN())
			if i < len(per[2*k]) {
				served[i] = Num(per[2*k][i])
				if per[2*k+1][i] > 0 {
					lost[i], anyLost = Num(per[2*k+1][i]), true
				}
			}
		}
		c.Series = append(c.Series, Series{Label: ep.Name, Color: color(k), Y: served})
		if anyLost {
			c.Series = append(c.Series, Series{Label: ep.Name + " errors", Color: color(k), Dash: true, Y: lost})
		}
	}
	return c
}

// endpointCodesChart draws each endpoint's failed attempts per second by
// outcome and the database's code (a marked line per endpoint and code,
// in the endpoint's colour), so the codes of an outage line up with its
// seconds in endpointChart. nil when no endpoint has codes by second.
func endpointCodesChart(id string, e *result.Experiment) *Chart {
	n := 0
	for _, ep := range e.Endpoints {
		if len(ep.CodesBySecond.Sum()) > 0 {
			n = max(n, len(ep.Sum().PerSecond(e.Measured)), len(ep.CodesBySecond))
		}
	}
	if n == 0 {
		return nil
	}
	c := &Chart{ID: id + "-endpoint-codes", Title: "Failed attempts per second by endpoint and code (conflicts, timeouts, errors)",
		XLabel: "second (from the start of measurement)", YLabel: "attempts/s", Points: true, X: make([]float64, n)}
	for i := range c.X {
		c.X[i] = float64(i)
	}
	for k, ep := range e.Endpoints {
		for _, code := range ep.CodesBySecond.Sum().Sorted() {
			y := make([]Num, n)
			for i := range y {
				y[i] = Num(math.NaN())
				if i < len(ep.CodesBySecond) && ep.CodesBySecond[i][code.ErrorCode] > 0 {
					y[i] = Num(ep.CodesBySecond[i][code.ErrorCode])
				}
			}
			label := strings.TrimSuffix(result.ErrorCodeCount{ErrorCode: code.ErrorCode}.String(), " ×0")
			c.Series = append(c.Series, Series{Label: ep.Name + " " + label, Color: color(k), Dash: true, Y: y})
		}
	}
	return c
}
