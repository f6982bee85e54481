package result

import "github.com/taobench/taobench/stats"

// jsonIntervals is Intervals in a results file. Written, never read back:
// a reader recomputes them from the time series (Experiment.Intervals), so
// merge gives the merged series' intervals, not a mix of the drivers'.
type jsonIntervals struct {
	Confidence float64       `json:"confidence"`
	Method     string        `json:"method"`
	Batches    int           `json:"batches"`
	BatchS     float64       `json:"batch_s"`
	Throughput *jsonInterval `json:"throughput"`
	ErrorPct   *jsonInterval `json:"error_pct"`
	// LatencyUS: series ("all", classes) -> percentile ("p50") -> interval
	// (null when the batches cannot give one).
	LatencyUS map[string]map[string]*jsonInterval `json:"latency_us"`
}

type jsonInterval struct {
	Estimate float64 `json:"estimate"`
	Lo       float64 `json:"lo"`
	Hi       float64 `json:"hi"`
	SE       float64 `json:"se"`
	DF       float64 `json:"df"`
}

func intervalJSON(iv stats.Interval) *jsonInterval {
	if !iv.Valid() {
		return nil
	}
	return &jsonInterval{iv.Estimate, iv.Lo, iv.Hi, iv.SE, iv.DF}
}

func intervalsJSON(e *Experiment) *jsonIntervals {
	iv := e.Intervals(Confidence)
	j := &jsonIntervals{Confidence: iv.Confidence, Method: "batch_means", Batches: iv.Batches, BatchS: iv.BatchS,
		Throughput: intervalJSON(iv.Throughput), ErrorPct: intervalJSON(iv.ErrorPct), LatencyUS: map[string]map[string]*jsonInterval{}}
	for _, si := range iv.Latency {
		m := map[string]*jsonInterval{}
		for i, p := range Percentiles {
			m[p.Name] = intervalJSON(si.P[i])
		}
		j.LatencyUS[si.Name] = m
	}
	return j
}
