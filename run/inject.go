package run

import (
	"time"

	"github.com/taobench/taobench/randdist"
	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/workload"
)

// injector draws a request's injected latency (docs/target-load.md): an extra
// client-side delay by class, emulating a cross-region round trip. Reads
// and read transactions draw from read_operation_latency, single writes
// from write_operation_latency, write transactions from write_txn_latency.
type injector struct {
	by  [tao.NumClasses]*latencyDist
	rng randdist.Rand
}

type latencyDist struct {
	alias  randdist.Alias
	values []time.Duration
}

// newInjector returns the injector of w for one client, or nil when w gives
// no delays.
func newInjector(w *workload.Workload, seed uint64) (*injector, error) {
	in := &injector{rng: randdist.NewRand(seed)}
	any := false
	for c, d := range map[tao.Class]workload.Dist[time.Duration]{
		tao.Read: w.ReadLatency, tao.ReadTxn: w.ReadLatency, tao.Write: w.WriteLatency, tao.WriteTxn: w.WriteTxnLatency,
	} {
		if len(d.Values) == 0 {
			continue
		}
		a, err := randdist.NewAlias(d.Weights)
		if err != nil {
			return nil, err
		}
		in.by[c] = &latencyDist{alias: a, values: d.Values}
		any = true
	}
	if !any {
		return nil, nil
	}
	return in, nil
}

// draw returns the delay of a request of class c.
func (in *injector) draw(c tao.Class) time.Duration {
	if c >= tao.NumClasses || in.by[c] == nil {
		return 0
	}
	d := in.by[c]
	return d.values[d.alias.Draw(&in.rng)]
}
