package result

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/taobench/taobench/internal/jsonerr"
	"github.com/taobench/taobench/metrics"
	"github.com/taobench/taobench/tao"
)

// ReadJSON reads a document WriteJSON wrote back into results, exactly:
// the summaries are rebuilt from the histograms and counters, not from the
// rounded figures beside them. Errors say what is missing or wrong; a
// document written before histograms were kept cannot be read.
func ReadJSON(r io.Reader) (*Doc, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	var doc jsonDoc
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("not a taobench results document: %w", jsonerr.Explain(data, err))
	}
	if doc.Run.Workload == "" {
		return nil, fmt.Errorf("not a taobench results document: no run.workload")
	}
	out := &Doc{Run: &Run{
		Database: doc.Run.Database, Workload: doc.Run.Workload, GraphWorkload: doc.Run.GraphWorkload,
		GraphSeed: doc.Run.GraphSeed, Seed: doc.Run.Seed, Edges: doc.Run.Edges, Retries: doc.Run.Retries,
		Started: doc.Run.Started, Version: doc.Run.Version, Revision: doc.Run.Revision, NotApplied: doc.Run.NotApplied,
		Client: Client(doc.Run.Client),
	}}
	if err := driverRunFromJSON(doc.Run.jsonDriverRun, out.Run); err != nil {
		return nil, err
	}
	for i, x := range doc.Experiments {
		e, err := experimentFromJSON(&x)
		if err != nil {
			return nil, fmt.Errorf("experiment %d: %w", i+1, err)
		}
		out.Experiments = append(out.Experiments, e)
	}
	return out, nil
}

func seconds(s float64) time.Duration { return time.Duration(math.Round(s * 1e9)) }

func experimentFromJSON(x *jsonExperiment) (*Experiment, error) {
	if x.Histograms == nil || x.Counters == nil {
		return nil, fmt.Errorf("no histograms or counters: written by a taobench that kept only percentiles, so it cannot be merged exactly; run it again with this version")
	}
	sum, err := summaryFromJSON(&metrics.Data{Series: x.Histograms, Service: x.ServiceHistograms, Injected: x.InjectedHistograms, Tiers: x.TierHistograms,
		Counters: x.Counters.CountersData, Timeline: x.Timeline}, x.Outcomes, x.Ops, x.Lost)
	if err != nil {
		return nil, err
	}
	eps, err := endpointsFromJSON(x.Endpoints)
	if err != nil {
		return nil, err
	}
	var open OpenLoop
	if x.TargetRate < 0 || math.IsNaN(x.TargetRate) || math.IsInf(x.TargetRate, 0) {
		return nil, fmt.Errorf("target_rate %v: want 0 (closed loop) or a positive rate", x.TargetRate)
	}
	if x.TargetRate > 0 {
		open = OpenLoop{Rate: x.TargetRate, Arrival: x.Arrival, Scheduled: x.Scheduled, NotIssued: x.NotIssued}
		if open.Scheduled < 0 || open.NotIssued < 0 || open.NotIssued > open.Scheduled {
			return nil, fmt.Errorf("scheduled %d, not_issued %d: do not hang together", open.Scheduled, open.NotIssued)
		}
	}
	if x.Overtime < 0 {
		return nil, fmt.Errorf("overtime %d: negative", x.Overtime)
	}
	codes, err := errorCodesFromJSON(x.ErrorCodes)
	if err != nil {
		return nil, err
	}
	counts := x.Fidelity.Counts
	if counts == nil {
		counts = &Counters{}
	}
	e := &Experiment{
		Threads:      x.Threads,
		Warmup:       seconds(x.WarmupS),
		Duration:     seconds(x.DurationS),
		TotalRuntime: seconds(x.RuntimeS),
		Measured:     seconds(x.MeasuredS),
		Interrupted:  x.Interrupted,
		Started:      x.Started,
		Processes:    x.Processes,
		Summary:      sum,
		Fidelity:     x.Fidelity.Rows,
		Counters:     counts,
		Targets:      x.Fidelity.Targets,
		OpenLoop:     open,
		Overtime:     x.Overtime,
		Resources:    resourcesFromJSON(&x.Resources),
		ErrorCodes:   codes,
		Endpoints:    eps,
		Repeat:       x.Repeat,
	}
	if x.Repeat < 0 {
		return nil, fmt.Errorf("repeat %d: want 0 (not repeated) or the repeat's number from 1", x.Repeat)
	}
	if err := driverExperimentFromJSON(x.jsonDriverExperiment, e); err != nil {
		return nil, err
	}
	if err := consistencyFromJSON(x.jsonConsistencyExperiment, e); err != nil {
		return nil, err
	}
	if err := concurrentFromJSON(x.jsonConcurrentExperiment, e); err != nil {
		return nil, err
	}
	return e, nil
}

// summaryFromJSON rebuilds a summary from its exact data d, the outcomes
// (which must add up to ops) and the lost requests.
func summaryFromJSON(d *metrics.Data, outcomes map[string]int64, ops int64, lost jsonLost) (*metrics.Summary, error) {
	var n int64
	for o := range tao.NumOutcomes {
		v, ok := outcomes[o.String()]
		if !ok {
			return nil, fmt.Errorf("outcomes has no %s", o)
		}
		d.Outcomes[o] = v
		n += v
	}
	if n != ops {
		return nil, fmt.Errorf("the outcomes add up to %d requests, ops says %d", n, ops)
	}
	for _, l := range lost.Timeline {
		d.Lost = append(d.Lost, metrics.LostSecond(l))
	}
	return metrics.FromData(d)
}
