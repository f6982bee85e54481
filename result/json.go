package result

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/taobench/taobench/metrics"
	"github.com/taobench/taobench/tao"
)

// The JSON document. Keys are a contract (docs/results.md): every key is
// always present, so tools need no existence checks.
type jsonDoc struct {
	Run         jsonRun          `json:"run"`
	Experiments []jsonExperiment `json:"experiments"`
	// Repeats: the figures across the repeats of each configuration of a
	// run given --repeat (repeats.go); null when not repeated.
	Repeats *jsonRepeats `json:"repeats"`
}

type jsonRun struct {
	Database      string    `json:"database"`
	Workload      string    `json:"workload"`
	GraphWorkload string    `json:"graph_workload"`
	GraphSeed     uint64    `json:"graph_seed"`
	Seed          uint64    `json:"seed"`
	Edges         int64     `json:"edges"`
	Retries       int       `json:"retries"`
	Started       time.Time `json:"started"`
	Version       string    `json:"version"`
	Revision      string    `json:"revision"`
	NotApplied    []string  `json:"not_applied"`
	// Client: how the driver talked to the database (client.go).
	Client jsonClient `json:"client"`

	jsonDriverRun // run_id, drivers, driver_indexes: driver_json.go
}

type jsonExperiment struct {
	Threads     int                    `json:"threads"`
	WarmupS     float64                `json:"warmup_s"`
	DurationS   float64                `json:"duration_s"`
	RuntimeS    float64                `json:"runtime_s"`
	MeasuredS   float64                `json:"measured_s"`
	Interrupted bool                   `json:"interrupted"`
	Ops         int64                  `json:"ops"`
	Throughput  float64                `json:"throughput"`
	Failed      int64                  `json:"failed"`
	Attempts    int64                  `json:"attempts"`
	LatencyUS   map[string]jsonLatency `json:"latency_us"`
	ServiceUS   map[string]jsonLatency `json:"service_us"`
	InjectedUS  map[string]jsonLatency `json:"injected_us"`
	// LatencyByTierUS: reads by the read tier that served them (runs with
	// tiers; all zero without).
	LatencyByTierUS map[string]jsonLatency `json:"latency_by_tier_us"`
	TargetRate      float64                `json:"target_rate"`
	Arrival         string                 `json:"arrival"`
	Scheduled       int64                  `json:"scheduled"`
	NotIssued       int64                  `json:"not_issued"`
	RateReached     bool                   `json:"rate_reached"`
	Overtime        int64                  `json:"overtime"`
	// NoServiceS and LongestNoServiceS are Experiment.NoService's, null for
	// results written before taobench recorded when requests ended.
	NoServiceS        *int             `json:"no_service_s"`
	LongestNoServiceS *int             `json:"longest_no_service_s"`
	Outcomes          map[string]int64 `json:"outcomes"`
	Contention        jsonContention   `json:"contention"`
	// ErrorCodes: outcome -> the database's code -> attempts (codes.go).
	ErrorCodes map[string]map[string]int64 `json:"error_codes"`
	Lost       jsonLost                    `json:"lost"`
	Fidelity   jsonFidelity                `json:"fidelity"`
	Resources  jsonResources               `json:"resources"`
	// Endpoints: each endpoint's part of a run over several (endpoints.go).
	Endpoints []jsonEndpoint `json:"endpoints"`
	// Intervals: the figures' confidence intervals (intervals.go).
	Intervals *jsonIntervals `json:"intervals"`
	// Repeat: which repeat of --repeat, from 1; 0 when not repeated.
	Repeat int `json:"repeat"`

	// Exact data, from which merge rebuilds everything above.
	Started    time.Time                     `json:"started"`
	Processes  int                           `json:"processes"`
	Histograms map[string]metrics.SeriesData `json:"histograms"`
	// The service-time and injected-delay series by class, exact.
	ServiceHistograms  map[string]metrics.SeriesData `json:"service_histograms"`
	InjectedHistograms map[string]metrics.SeriesData `json:"injected_histograms"`
	TierHistograms     map[string]metrics.SeriesData `json:"latency_by_tier_histograms"`
	Counters           *jsonCounters                 `json:"counters"`
	Timeline           []metrics.SecondData          `json:"timeline"`

	jsonDriverExperiment // shared_start, late_s, ...: driver_json.go

	jsonConsistencyExperiment // consistency: consistency.go

	jsonConcurrentExperiment // concurrent_runs: concurrent.go
}

// jsonFidelity is the run's own evidence that the database saw the
// workload: each figure beside its target, and the counts behind them.
type jsonFidelity struct {
	Rows    []FidelityRow `json:"rows"`
	Counts  *Counters     `json:"counts"`
	Targets *Targets      `json:"targets,omitempty"`
}

type jsonLatency struct {
	Count int64   `json:"count"`
	Mean  float64 `json:"mean"`
	Min   float64 `json:"min"`
	P50   float64 `json:"p50"`
	P90   float64 `json:"p90"`
	P99   float64 `json:"p99"`
	P999  float64 `json:"p999"`
	Max   float64 `json:"max"`
}

type jsonContention struct {
	ObjectLockConflictPct      float64 `json:"object_lock_conflict_pct"`
	AssociationLockConflictPct float64 `json:"association_lock_conflict_pct"`
	UniqueAssociationExistsPct float64 `json:"unique_association_exists_pct"`
	PreconditionFailedPct      float64 `json:"precondition_failed_pct"`
	OverallPct                 float64 `json:"overall_pct"`
	OverallWithUniquePct       float64 `json:"overall_with_unique_pct"`
	WriteWriteConflictPct      float64 `json:"write_write_conflict_pct"`
	WriteTxnConflictPct        float64 `json:"write_txn_conflict_pct"`
	RacingInsertConflictPct    float64 `json:"racing_insert_conflict_pct"`
	RacingInsertSharePct       float64 `json:"racing_insert_share_pct"`
	ServerSignalledConflictPct float64 `json:"server_signalled_conflict_pct"`
	WriteTxnSignalledPct       float64 `json:"write_txn_server_signalled_pct"`
	ResolvedWithoutErrorPct    float64 `json:"resolved_without_error_pct"`
	RacingCopiesResolvedPct    float64 `json:"racing_copies_resolved_pct"`
}

// jsonCounters is the counters object: the summary's counts, then the
// write-write conflict counts, which are Races' (fidelity.counts.races):
// written here too, beside the other contention counts, and not read back.
type jsonCounters struct {
	metrics.CountersData
	WriteTxns            int64 `json:"write_txns"`
	WriteWriteConflicted int64 `json:"write_write_conflicted"`
	WriteTxnsConflicted  int64 `json:"write_txns_conflicted"`
	RacingConflicted     int64 `json:"racing_conflicted"`
}

func contentionJSON(c Contention) jsonContention {
	return jsonContention{
		ObjectLockConflictPct: c.ObjectLockConflictPct, AssociationLockConflictPct: c.AssociationLockConflictPct,
		UniqueAssociationExistsPct: c.UniqueAssociationExistsPct, PreconditionFailedPct: c.PreconditionFailedPct,
		OverallPct: c.OverallPct, OverallWithUniquePct: c.OverallWithUniquePct,
		WriteWriteConflictPct: c.WriteWriteConflictPct, WriteTxnConflictPct: c.WriteTxnConflictPct,
		RacingInsertConflictPct: c.RacingInsertConflictPct, RacingInsertSharePct: c.RacingInsertSharePct,
		ServerSignalledConflictPct: c.ServerSignalledConflictPct, WriteTxnSignalledPct: c.WriteTxnSignalledPct,
		ResolvedWithoutErrorPct: c.ResolvedWithoutErrorPct, RacingCopiesResolvedPct: c.RacingCopiesResolvedPct,
	}
}

type jsonLost struct {
	Count    int64            `json:"count"`
	Timeline []jsonLostSecond `json:"timeline"`
}

type jsonLostSecond struct {
	Second   int   `json:"second"`
	Errors   int64 `json:"errors"`
	Timeouts int64 `json:"timeouts"`
}

// WriteJSON writes one document holding the run and all its experiments.
func WriteJSON(w io.Writer, run *Run, exps []*Experiment) error {
	doc := jsonDoc{Experiments: []jsonExperiment{}}
	if run != nil {
		doc.Run = jsonRun{
			Database: run.Database, Workload: run.Workload, GraphWorkload: run.GraphWorkload, GraphSeed: run.GraphSeed,
			Seed: run.Seed, Edges: run.Edges,
			Retries: run.Retries, Started: run.Started, Version: run.Version, Revision: run.Revision, NotApplied: run.NotApplied,
			Client: jsonClient(run.Client),
		}
		doc.Run.jsonDriverRun = driverRunJSON(run)
	} else {
		doc.Run.jsonDriverRun = driverRunJSON(&Run{})
	}
	if doc.Run.NotApplied == nil {
		doc.Run.NotApplied = []string{}
	}
	for i, e := range exps {
		if e != nil {
			x, err := experimentJSON(e)
			if err != nil {
				return fmt.Errorf("experiment %d: %w", i+1, err)
			}
			doc.Experiments = append(doc.Experiments, x)
		}
	}
	doc.Repeats = repeatsJSON(exps)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

func experimentJSON(e *Experiment) (jsonExperiment, error) {
	s := e.Sum()
	data, err := s.Data()
	if err != nil {
		return jsonExperiment{}, err
	}
	x := jsonExperiment{
		Threads:         e.Threads,
		WarmupS:         e.Warmup.Seconds(),
		DurationS:       e.Duration.Seconds(),
		RuntimeS:        e.TotalRuntime.Seconds(),
		MeasuredS:       e.Measured.Seconds(),
		Interrupted:     e.Interrupted,
		Ops:             s.Requests(),
		Throughput:      e.Throughput(),
		Failed:          s.Failed(),
		Attempts:        s.Attempts(),
		LatencyUS:       map[string]jsonLatency{},
		ServiceUS:       map[string]jsonLatency{},
		InjectedUS:      map[string]jsonLatency{},
		LatencyByTierUS: map[string]jsonLatency{},
		TargetRate:      e.OpenLoop.Rate,
		Arrival:         e.OpenLoop.Arrivals(),
		Scheduled:       e.OpenLoop.Scheduled,
		NotIssued:       e.OpenLoop.NotIssued,
		RateReached:     e.OpenLoop.Reached(),
		Overtime:        e.Overtime,
		Outcomes:        outcomesJSON(s),
		Contention:      contentionJSON(e.Contention()),
		ErrorCodes:      errorCodesJSON(e.ErrorCodes),
		Lost:            lostJSON(s),
		Fidelity:        jsonFidelity{Rows: e.Fidelity, Counts: e.Counters, Targets: e.Targets},
		Resources:       resourcesJSON(e.Resources, e.Procs()),
		Intervals:       intervalsJSON(e),
		Repeat:          e.Repeat,
		Started:         e.Started.UTC(),
		Processes:       e.Procs(),
		Histograms:      data.Series,

		ServiceHistograms:  data.Service,
		InjectedHistograms: data.Injected,
		TierHistograms:     data.Tiers,
		Counters:           &jsonCounters{CountersData: data.Counters},
		Timeline:           data.Timeline,

		jsonDriverExperiment: driverExperimentJSON(e),

		jsonConcurrentExperiment: concurrentJSON(e.Concurrent),
	}
	if x.jsonConsistencyExperiment, err = consistencyJSON(e.Consistency); err != nil {
		return jsonExperiment{}, err
	}
	if n, longest, known := e.NoService(); known {
		x.NoServiceS, x.LongestNoServiceS = &n, &longest
	}
	if x.Timeline == nil {
		x.Timeline = []metrics.SecondData{}
	}
	if x.Fidelity.Rows == nil {
		x.Fidelity.Rows = []FidelityRow{}
	}
	if x.Fidelity.Counts == nil {
		x.Fidelity.Counts = &Counters{}
	}
	r := &x.Fidelity.Counts.Races
	x.Counters.WriteTxns, x.Counters.WriteWriteConflicted = r.WriteTxns, r.Conflicted
	x.Counters.WriteTxnsConflicted, x.Counters.RacingConflicted = r.TxnConflicted, r.RacingConflicted
	for _, name := range metrics.SeriesNames() {
		x.LatencyUS[name] = jsonLatency(s.Stats(name))
	}
	for c := range tao.NumClasses {
		x.ServiceUS[c.String()] = jsonLatency(s.ServiceStats(c.String()))
		x.InjectedUS[c.String()] = jsonLatency(s.InjectedStats(c.String()))
	}
	for t := range tao.NumTiers {
		x.LatencyByTierUS[t.String()] = jsonLatency(s.TierStats(t.String()))
	}
	if x.Endpoints, err = endpointsJSON(e); err != nil {
		return jsonExperiment{}, err
	}
	return x, nil
}

func outcomesJSON(s *metrics.Summary) map[string]int64 {
	m := map[string]int64{}
	for o := range tao.NumOutcomes {
		m[o.String()] = s.Outcome(o)
	}
	return m
}

func lostJSON(s *metrics.Summary) jsonLost {
	x := jsonLost{Timeline: []jsonLostSecond{}}
	var tl []metrics.LostSecond
	x.Count, tl = s.Lost()
	for _, l := range tl {
		x.Timeline = append(x.Timeline, jsonLostSecond(l))
	}
	return x
}
