package workload

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
)

// GraphHash returns a short stable hex digest of exactly the fields the
// computed graph depends on: primary_shards (which places the data),
// remote_shards, edge_types, payload_sizes (and object_payload_sizes), outdegree, max_outdegree and
// empty_slots. A load records it
// so that a run can refuse a database loaded with a different graph.
// Weights enter as written: scaling a distribution changes the hash.
func (w *Workload) GraphHash() string {
	h := sha256.New()
	fmt.Fprintf(h, "taobench graph v2\nshards %d\n", w.Shards())
	hashDist(h, "primary_shards", w.PrimaryShards.Values, w.PrimaryShards.Weights)
	hashDist(h, "remote_shards", w.RemoteShards.Values, w.RemoteShards.Weights)
	hashDist(h, "edge_types", w.EdgeTypes.Values, w.EdgeTypes.Weights)
	hashDist(h, "payload_sizes", w.PayloadSizes.Values, w.PayloadSizes.Weights)
	if d := w.ObjectPayloadSizes; len(d.Values) > 0 {
		// Only when given, so the graphs of workloads without it keep their hash.
		hashDist(h, "object_payload_sizes", d.Values, d.Weights)
	}
	hashDist(h, "outdegree", w.Outdegree.Values, w.Outdegree.Weights)
	fmt.Fprintf(h, "max_outdegree %d\nempty_slots %s\n", w.MaxOutdegree, formatFloat(w.EmptySlots))
	return hex.EncodeToString(h.Sum(nil)[:8])
}

func hashDist[T comparable](h io.Writer, name string, values []T, weights []float64) {
	fmt.Fprintf(h, "%s", name)
	for i, v := range values {
		wt := 0.0
		if i < len(weights) {
			wt = weights[i]
		}
		fmt.Fprintf(h, " %v:%s", v, formatFloat(wt))
	}
	fmt.Fprintf(h, " (%d weights)\n", len(weights))
}
