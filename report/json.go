package report

import (
	"encoding/json"
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
}

type jsonRun struct {
	Database   string    `json:"database"`
	Workload   string    `json:"workload"`
	Seed       uint64    `json:"seed"`
	Edges      int64     `json:"edges"`
	Retries    int       `json:"retries"`
	Started    time.Time `json:"started"`
	Version    string    `json:"version"`
	NotApplied []string  `json:"not_applied"`
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
	Outcomes    map[string]int64       `json:"outcomes"`
	Contention  jsonContention         `json:"contention"`
	Lost        jsonLost               `json:"lost"`
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
			Database: run.Database, Workload: run.Workload, Seed: run.Seed, Edges: run.Edges,
			Retries: run.Retries, Started: run.Started, Version: run.Version, NotApplied: run.NotApplied,
		}
	}
	if doc.Run.NotApplied == nil {
		doc.Run.NotApplied = []string{}
	}
	for _, e := range exps {
		if e != nil {
			doc.Experiments = append(doc.Experiments, experimentJSON(e))
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

func experimentJSON(e *Experiment) jsonExperiment {
	s := e.summary()
	x := jsonExperiment{
		Threads:     e.Threads,
		WarmupS:     e.Warmup.Seconds(),
		DurationS:   e.Duration.Seconds(),
		RuntimeS:    e.TotalRuntime.Seconds(),
		MeasuredS:   e.Measured.Seconds(),
		Interrupted: e.Interrupted,
		Ops:         s.Requests(),
		Throughput:  e.throughput(),
		Failed:      s.Failed(),
		Attempts:    s.Attempts(),
		LatencyUS:   map[string]jsonLatency{},
		Outcomes:    map[string]int64{},
		Contention:  jsonContention(s.Contention()),
		Lost:        jsonLost{Timeline: []jsonLostSecond{}},
	}
	for _, name := range seriesNames() {
		x.LatencyUS[name] = jsonLatency(s.Stats(name))
	}
	for o := range tao.NumOutcomes {
		x.Outcomes[o.String()] = s.Outcome(o)
	}
	var tl []metrics.LostSecond
	x.Lost.Count, tl = s.Lost()
	for _, l := range tl {
		x.Lost.Timeline = append(x.Lost.Timeline, jsonLostSecond(l))
	}
	return x
}
