package fidelity

import (
	"cmp"
	"fmt"
	"math"

	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/workload"
)

// Skew rows compare the keys the database was asked for with what the
// plan's own requests give through the same table and estimator, at the
// same number of requests (at most MaxSimulated): the split-half
// estimator's result depends on the sample's size, so only the same size
// compares. KeyTolerance is the model error allowed besides four standard
// errors of the observed share: the share of the top 1% of keys varies
// between two streams of one plan more than a binomial share does, the top
// keys' own counts being random (workload a at 20,000 requests: 0.384 and
// 0.439 at two seeds); uniform access gives under 0.08 against a's 0.44.
const (
	MaxSimulated = 1_000_000
	KeyTolerance = 0.06
)

// KeyRows sets the hot keys the database was asked for (c.Keys) beside
// the expectation exp (the plan's draws at the same number of requests,
// fidelity/expect.KeyTargets, KeyTargetsAt): the
// share of each class's operations on its top 1% of keys, how many hot
// write keys are hot read keys too, and how many pairs of hot
// write-transaction keys (hot write keys, for a workload without write
// transactions: ColocClass) share a shard, beside uniform placement
// (colocationRow). Nothing when c has no key table.
//
// Keys are exact (KeyOf), the top set 1% of the keys the class touched,
// chosen on one half of the requests and measured on the other; shards
// is the workload's shard count (workload.Workload.Shards), over which
// the colocation row's baseline places as many keys uniformly.
func KeyRows(c *result.Counters, exp *result.KeyTargets, shards int) []result.FidelityRow {
	k := c.Keys
	if k == nil || exp == nil {
		return nil
	}
	var rows []result.FidelityRow
	notes := [result.NumKeyClasses]string{
		"TAOBench Fig. 2: extreme skew; P90 of the top 400K keys 3.3 M reads/day",
		"TAOBench Fig. 2: P90 of the top 400K keys 3.3 K writes/day",
		"TAOBench Fig. 6: 3.89% to 67.2% of the top 400K keys over 1 K/day",
	}
	for cl := range result.NumKeyClasses {
		hits, n := k.Classes[cl].TopShare()
		if n == 0 {
			continue
		}
		target := exp.Top[cl]
		kc := &k.Classes[cl]
		top := cmp.Or(kc.TopN, k.TopN)
		r := result.FidelityRow{Figure: fmt.Sprintf("%s on the top 1%% of keys", result.KeyClassNames[cl]),
			Target: target, Observed: ratio(hits, n), N: n, P: -1,
			Note: fmt.Sprintf("top %d of the %d exact keys touched (objects; associations by (id1, type, id2); lists by (id1, type)), chosen on one half of the requests, measured on the other; target: the workload's model (its plan's draws, counted alike, at the same size); %s", top, kc.Keys, notes[cl])}
		r.Tolerance = KeyTolerance + 4*math.Sqrt(target*(1-target)/float64(n))
		r.Verdict = verdict(n, math.Abs(r.Observed-r.Target) <= r.Tolerance)
		// Uniform access puts the top set's own share of the keys
		// touched on it, up to four standard errors more: a target the
		// tolerance cannot hold above that cannot tell skew from none.
		uniform := ratio(int64(top), kc.Keys)
		uniformHi := uniform + 4*math.Sqrt(uniform*(1-uniform)/float64(max(n, 1)))
		r.Note = fmt.Sprintf("uniform access gives %.4f (at most %.4f); %s", uniform, uniformHi, r.Note)
		switch {
		case r.Verdict != result.Skipped && target-r.Tolerance <= uniformHi:
			r.Verdict = result.Skipped
			r.Note = fmt.Sprintf("skipped: the model's %.4f less the tolerance is not above what uniform access gives (%.4f) at %d operations; %s", target, uniformHi, n, r.Note)
		case kc.Keys < minTouched:
			// The top 1% of so few keys is a key or none.
			r.Verdict = result.Skipped
			r.Note = fmt.Sprintf("skipped: %d keys touched, fewer than %d; %s", kc.Keys, minTouched, r.Note)
		case kc.Ops[0] < 4*int64(top):
			// Too few operations to tell the hottest keys from lucky ones.
			r.Verdict = result.Skipped
			r.Note = fmt.Sprintf("skipped: %d operations in the half that picks the top %d, under 4 a key; %s", kc.Ops[0], top, r.Note)
		}
		rows = append(rows, r)
	}
	// A set of hot keys means something when the class touched more keys
	// than it: else it is most of what was touched, here and in the plan.
	enough := func(cl int) bool {
		return k.Classes[cl].Keys >= minTouched && exp.Keys[cl] >= minTouched
	}
	if w, rd := &k.Classes[result.KeyWrites], &k.Classes[result.KeyReads]; enough(result.KeyWrites) && enough(result.KeyReads) {
		o, n := overlap(w.Hot, rd.Hot)
		rows = append(rows, setRow("hot write keys also hot read keys", exp.HotOverlap, o, n,
			"TAOBench §3.2, Fig. 3: over 99.0% of hot Like write keys are read less than once a day"))
	}
	// The run and the plan's draws agree on the class: a run of a workload
	// with write transactions and a plan's draws without any (or the
	// reverse) have too few keys for the row either way.
	if cl := ColocClass(k.Classes[result.KeyWriteTxns].Keys + exp.Keys[result.KeyWriteTxns]); enough(cl) {
		rows = append(rows, colocationRow(k.Classes[cl].Hot, exp.HotColocated, shards, cl))
	}
	return rows
}

// setRow is a row of a share of a set of hot keys against the plan's.
func setRow(figure string, target float64, hits, n int64, note string) result.FidelityRow {
	r := result.FidelityRow{Figure: figure, Target: target, Observed: ratio(hits, n), N: n, P: -1,
		Note: note + "; target: the plan's draws at the same size"}
	// Few keys: allow for a handful of them, beside the model error.
	r.Tolerance = KeyTolerance + 4*math.Sqrt(math.Max(target*(1-target), 1/float64(max(n, 1)))/float64(max(n, 1)))
	// A set of hot keys is a small sample: verdict on it even below
	// MinObservations when it has some keys.
	r.Verdict = verdict(max(n, MinObservations), math.Abs(r.Observed-r.Target) <= r.Tolerance)
	if n < 10 {
		r.Verdict = result.Skipped
	}
	return r
}

func ratio(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// overlap counts the keys of a also in b, of len(a).
func overlap(a, b []result.KeyCount) (int64, int64) {
	in := make(map[int64]bool, len(b))
	for _, x := range b {
		in[x.ID1] = true
	}
	var n int64
	for _, x := range a {
		if in[x.ID1] {
			n++
		}
	}
	return n, int64(len(a))
}

// minTouched is the fewest keys a class must touch for its top 1% to be
// a set of keys (a few, not one or none).
const minTouched = 200

// KeyTargetsOf returns the targets of the plan's own draws counted into
// k (fidelity/expect.Keys); HotColocated is of the hot keys of the class
// ColocClass picks by k.
func KeyTargetsOf(k *result.KeyStats) result.KeyTargets {
	t := result.KeyTargets{Requests: k.Requests, TopN: k.TopN}
	for cl := range result.NumKeyClasses {
		t.Top[cl] = ratio(k.Classes[cl].TopShare())
		t.Keys[cl] = k.Classes[cl].Keys
	}
	t.HotOverlap = ratio(overlap(k.Classes[result.KeyWrites].Hot, k.Classes[result.KeyReads].Hot))
	t.HotColocated, _ = pairsColocated(k.Classes[ColocClass(k.Classes[result.KeyWriteTxns].Keys)].Hot)
	return t
}

// KeyTargetsAt returns the key targets at n requests from those recorded
// at increasing counts (result.Targets.Keys): the ones at n, or between
// the two counts around n, interpolated in log n (the note says which),
// and past MaxSimulated those at the last count, as drawn. ok is false
// when no recorded count reaches n.
func KeyTargetsAt(list []result.KeyTargets, n int64) (t *result.KeyTargets, note string, ok bool) {
	for i := range list {
		k := &list[i]
		switch {
		case k.Requests == n || (k.Requests >= MaxSimulated && n >= MaxSimulated):
			return k, "", true
		case k.Requests < n:
			continue
		case i == 0:
			return nil, "", false
		}
		lo := &list[i-1]
		f := math.Log(float64(n)/float64(lo.Requests)) / math.Log(float64(k.Requests)/float64(lo.Requests))
		mix := func(a, b float64) float64 { return a + f*(b-a) }
		in := result.KeyTargets{Requests: n, TopN: min(lo.TopN, k.TopN),
			HotOverlap: mix(lo.HotOverlap, k.HotOverlap), HotColocated: mix(lo.HotColocated, k.HotColocated)}
		for cl := range result.NumKeyClasses {
			in.Top[cl] = mix(lo.Top[cl], k.Top[cl])
			in.Keys[cl] = min(lo.Keys[cl], k.Keys[cl])
		}
		return &in, fmt.Sprintf("interpolated between the plan's draws at %d and %d requests", lo.Requests, k.Requests), true
	}
	return nil, "", false
}

// Rows are all of a run's rows: Compare's, then the hot keys' (KeyRows,
// against the plan's draws at the run's number of requests, t.Keys) and
// the races'. The hot keys' rows check a skew the workload asks for; a
// workload that asks for none makes no claim they could check, and where
// most of its writes follow its own earlier reads (preconditioned:
// write_version on every write) the plan's draws, which find every key
// they read, cannot say which keys a run's reads, finding some, made hot.
func Rows(w *workload.Workload, t *result.Targets, c *result.Counters) []result.FidelityRow {
	rows := Compare(w, t, c)
	rows = append(rows, ObjectRows(t, c)...)
	if c.Keys != nil && CheckKeys(w) {
		exp, note, ok := KeyTargetsAt(t.Keys, c.Keys.Requests)
		kr := KeyRows(c, exp, w.Shards())
		for i := range kr {
			if note != "" {
				kr[i].Note += "; " + note
			}
		}
		if !ok && len(t.Keys) > 0 {
			kr = append(kr, result.FidelityRow{Figure: "hot keys", N: c.Keys.Requests, P: -1, Verdict: result.Skipped,
				Note: fmt.Sprintf("the plan's draws were recorded up to %d requests, not %d", t.Keys[len(t.Keys)-1].Requests, c.Keys.Requests)})
		}
		rows = append(rows, kr...)
	}
	return append(rows, RaceRows(w, c)...)
}

// CheckKeys reports whether the hot keys' rows check w (Rows).
func CheckKeys(w *workload.Workload) bool {
	return w.AsksSkew() && w.AimedWrites() < 0.5
}

// ObjectRows set the objects the database was asked to read and update
// (c.ObjectReadBins, c.ObjectWriteBins) beside the workload's popularities:
// a chi-square over result.PopularityBins bins of equal share by
// popularity rank, against the bins' weights the run recorded
// (t.ObjectReadWeights, t.ObjectWriteWeights: fidelity/expect.Targets).
func ObjectRows(t *result.Targets, c *result.Counters) []result.FidelityRow {
	var rows []result.FidelityRow
	for _, x := range []struct {
		figure, field string
		weights       []float64
		bins          *[result.PopularityBins]int64
	}{
		{"obj_read objects by popularity", "object_read_popularity", t.ObjectReadWeights, c.ObjectReadBins},
		{"obj_update objects by popularity", "object_write_popularity", t.ObjectWriteWeights, c.ObjectWriteBins},
	} {
		if x.weights == nil || x.bins == nil {
			continue
		}
		rows = append(rows, Chi(x.figure, x.bins[:], x.weights,
			fmt.Sprintf("%s: objects by popularity rank in %d bins of equal share", x.field, result.PopularityBins)))
	}
	return rows
}
