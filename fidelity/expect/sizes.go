package expect

import (
	"fmt"
	"github.com/taobench/taobench/fidelity"
	"math"
	"sort"

	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/workload"
)

// ModelBytes is the model error of a mean value size, in bytes: sizes are
// drawn exactly by the workload's weights, runs write from the same.
const ModelBytes = 0.5

// sizeRows set the stored values' sizes beside the workload's (TAO §7,
// Fig. 6 measures associations' and objects' data sizes): the share of
// forward edges with no data, their mean size when they have some, and
// objects' mean size.
func sizeRows(w *workload.Workload, inv store.Inventory) []result.FidelityRow {
	var fwd int64
	for _, n := range inv.EdgesByBase {
		fwd += n
	}
	empty, meanNE, sdNE := sizeStats(w.PayloadSizes, true)
	rows := []result.FidelityRow{fidelity.Share("associations with no data", empty, fidelity.ModelTargeted, inv.EdgeValuesEmpty, fwd,
		edgeSizeSource(empty, 0.395, 0.49, "%", 100))}
	rows = append(rows, meanRow("association bytes when not empty (mean)", meanNE, sdNE, inv.EdgeValueBytes, fwd-inv.EdgeValuesEmpty,
		edgeSizeSource(meanNE, 97.8, 22.2, " B", 1)))
	_, meanO, sdO := sizeStats(w.ObjectPayloads(), false)
	note := objectSizeSource(meanO)
	if len(w.ObjectPayloadSizes.Values) == 0 {
		note = "payload_sizes (objects and associations alike)"
	}
	rows = append(rows, meanRow("object bytes (mean)", meanO, sdO, inv.ObjectValueBytes, inv.ObjectValues, note))
	return append(rows, typeSizeRows(w, inv)...)
}

// typeSizeRows are the value-size rows of each stored forward base type
// (payload_sizes holds for every type alike), so damage to one type's
// values is not diluted by the others'; none of a store that does not
// count them, or with one type (the rows above say it).
func typeSizeRows(w *workload.Workload, inv store.Inventory) []result.FidelityRow {
	if inv.EmptyByBase == nil || len(inv.EdgesByBase) < 2 {
		return nil
	}
	types := make([]int64, 0, len(inv.EdgesByBase))
	for t := range inv.EdgesByBase {
		types = append(types, t)
	}
	sort.Slice(types, func(i, j int) bool { return types[i] < types[j] })
	empty, meanNE, sdNE := sizeStats(w.PayloadSizes, true)
	var rows []result.FidelityRow
	for _, t := range types {
		n, e := inv.EdgesByBase[t], inv.EmptyByBase[t]
		rows = append(rows, fidelity.Share(fmt.Sprintf("associations with no data, type %d", t), empty, fidelity.ModelTargeted, e, n,
			"payload_sizes, the same for every type"))
		rows = append(rows, meanRow(fmt.Sprintf("association bytes when not empty (mean), type %d", t), meanNE, sdNE, inv.ValueBytesByBase[t], n-e,
			"payload_sizes, the same for every type"))
	}
	return rows
}

// sizeStats returns d's share of 0, and the mean and standard deviation of
// its sizes (of the sizes above 0 when nonEmpty).
func sizeStats(d workload.Dist[int], nonEmpty bool) (zero, mean, sd float64) {
	var all, w, s1, s2 float64
	for i, v := range d.Values {
		all += d.Weights[i]
		if v == 0 {
			zero += d.Weights[i]
			if nonEmpty {
				continue
			}
		}
		w += d.Weights[i]
		s1 += d.Weights[i] * float64(v)
		s2 += d.Weights[i] * float64(v) * float64(v)
	}
	if all == 0 || w == 0 {
		return 0, 0, 0
	}
	mean = s1 / w
	return zero / all, mean, math.Sqrt(math.Max(s2/w-mean*mean, 0))
}

// meanRow makes a row of a mean of n values summing to sum against target,
// passing within fidelity.Sigmas standard errors (sd/sqrt(n)) plus ModelBytes.
func meanRow(figure string, target, sd float64, sum, n int64, note string) result.FidelityRow {
	r := result.FidelityRow{Figure: figure, Target: target, N: n, P: -1, Note: note}
	if n > 0 {
		r.Observed = float64(sum) / float64(n)
	}
	r.Tolerance = fidelity.Sigmas*sd/math.Sqrt(math.Max(float64(n), 1)) + ModelBytes
	r.Verdict = fidelity.Verdict(n, math.Abs(r.Observed-target) <= r.Tolerance)
	if n > 0 && r.Verdict == result.Fail {
		r.Note = fmt.Sprintf("%s; off by %.1f B", note, r.Observed-target)
	}
	return r
}

// objectSizeSource names the source of an object_payload_sizes mean: TAO's
// Fig. 6 (673 B) or LinkBench's §3.3.2 (87.6 B) when it is theirs (within
// their rounding), else the workload's field.
func objectSizeSource(mean float64) string {
	switch {
	case math.Abs(mean-673) < 0.5:
		return "object_payload_sizes: TAO §7, Fig. 6: 673 B"
	case math.Abs(mean-87.6) < 0.05:
		return "object_payload_sizes: LinkBench §3.3.2: 87.6 B"
	}
	return fmt.Sprintf("object_payload_sizes: the workload's, %.1f B (no published source)", mean)
}

// edgeSizeSource names the source of a payload_sizes figure v: TAO's Fig. 6
// (tao) or LinkBench's §3.3.2 (lbn) when v is theirs (within 0.5 of the
// figure as printed, in unit × scale), else the workload's field.
func edgeSizeSource(v, tao, lbn float64, unit string, scale float64) string {
	switch {
	case math.Abs(v-tao)*scale < 0.5:
		return fmt.Sprintf("payload_sizes: TAO §7, Fig. 6: %g%s", tao*scale, unit)
	case math.Abs(v-lbn)*scale < 0.5:
		return fmt.Sprintf("payload_sizes: LinkBench §3.3.2: %g%s", lbn*scale, unit)
	}
	return fmt.Sprintf("payload_sizes: the workload's, %.4g%s (no published source)", v*scale, unit)
}
