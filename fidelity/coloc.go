package fidelity

import (
	"fmt"
	"math"
	"slices"

	"github.com/taobench/taobench/randdist"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/tao"
)

// colocationTrials is how many random placements of the hot keys the
// colocation row's baseline draws; its threshold is their 99.9th
// percentile.
const colocationTrials = 2000

// pairsColocated is the share of the pairs of keys of l on one shard:
// sum over shards of c(c-1), over m(m-1). Unlike "shares its shard with
// another", it does not saturate when a few shards hold most keys.
func pairsColocated(l []result.KeyCount) (float64, int64) {
	shards := make([]int, len(l))
	for i, x := range l {
		shards[i] = tao.ShardOf(x.ID1)
	}
	return pairsOn(shards)
}

// pairsOn is pairsColocated of keys on shards (one a key; -1: a key on
// no known shard, which pairs with none).
func pairsOn(shards []int) (float64, int64) {
	m := int64(len(shards))
	if m < 2 {
		return 0, m
	}
	per := map[int]int64{}
	for _, s := range shards {
		if s >= 0 {
			per[s]++
		}
	}
	var same int64
	for _, c := range per {
		same += c * (c - 1)
	}
	return float64(same) / float64(m*(m-1)), m
}

// randomPairs is what random placement of m keys by placement (the
// workload's primary_shards weights) gives the share of pairs on one
// shard: its mean (the sum of the squared weights) and its 99.9th
// percentile over colocationTrials placements, drawn with a fixed seed.
func randomPairs(m int, placement []float64) (mean, high float64) {
	var sum float64
	for _, w := range placement {
		sum += w
	}
	if m < 2 || sum <= 0 {
		return 0, 0
	}
	cum := make([]float64, len(placement))
	acc := 0.0
	for i, w := range placement {
		acc += w / sum
		cum[i] = acc
		mean += (w / sum) * (w / sum)
	}
	rng := randdist.NewRand(0x636f6c6f)
	per := make([]int64, len(placement))
	shares := make([]float64, colocationTrials)
	for t := range shares {
		clear(per)
		for range m {
			s, _ := slices.BinarySearch(cum, rng.Float64())
			per[min(s, len(per)-1)]++
		}
		var same int64
		for _, c := range per {
			same += c * (c - 1)
		}
		shares[t] = float64(same) / float64(m*(m-1))
	}
	slices.Sort(shares)
	return mean, shares[len(shares)*999/1000]
}

// colocationRow is the hot write-transaction keys' colocation: the share
// of their pairs on one shard against the workload's model (target, the
// plan's draws counted alike), and against what random placement of as
// many keys by placement gives. It passes when the observed share is
// within tolerance of the target and above the random placements' 99.9th
// percentile; when the model itself is not above it, no count can tell
// colocated keys from random ones and it is skipped.
func colocationRow(hot []result.KeyCount, target float64, placement []float64) result.FidelityRow {
	obs, m := pairsColocated(hot)
	mean, high := randomPairs(int(m), placement)
	r := result.FidelityRow{Figure: "hot write_txn key pairs sharing a shard", Target: target, Observed: obs, N: m, P: -1,
		Note: fmt.Sprintf("pairs of the %d hottest write-transaction keys on one shard; random placement of %d keys by primary_shards gives %.3f (99.9th percentile %.3f), which the row must exceed; target: the workload's model (its plan's draws); TAOBench §3.3, Fig. 9: 93.9%%, 10.0%%, 17.0%% of hot keys colocated (product groups 1-3)", m, m, mean, high)}
	r.Tolerance = KeyTolerance + 4*math.Sqrt(math.Max(target*(1-target), 1/float64(max(m, 1)))/float64(max(m, 1)))
	r.Verdict = verdict(max(m, MinObservations), math.Abs(obs-target) <= r.Tolerance && obs > high)
	switch {
	case m < 10:
		r.Verdict = result.Skipped
	case target <= high:
		r.Verdict = result.Skipped
		r.Note = fmt.Sprintf("skipped: the model's %.3f is not above random placement's 99.9th percentile %.3f at %d keys; %s", target, high, m, r.Note)
	}
	return r
}

// PlacedColocationRow is the colocation row of validate --db (docs/
// results.md): the hot write-transaction keys of the plan's own draws
// (hot: enough of them, where a short run's transactions give a handful),
// placed as the database holds them (shards, by key: the shard of the
// object the key sits with as the database holds it, -1 when it holds
// none),
// against the model's share (target: HotColocated of the workload's plan) and
// against random placement of as many keys by placement. It fails when
// the database's placement is no more colocated than random placement's
// 99.9th percentile, or is off the model's; it is skipped when the model
// itself is not above it (nothing to tell) or has under 10 keys.
func PlacedColocationRow(hot []result.KeyCount, shards []int, target float64, placement []float64) result.FidelityRow {
	m := int64(len(hot))
	obs, _ := pairsOn(shards)
	r := colocationRow(hot, target, placement)
	mean, high := randomPairs(int(m), placement)
	var off int
	for _, s := range shards {
		if s < 0 {
			off++
		}
	}
	r.Figure = "hot write_txn key pairs sharing a shard, at the database"
	r.Observed = obs
	r.Note = fmt.Sprintf("pairs of the plan's %d hottest write-transaction keys (its write transactions drawn alone) on one shard as the database holds their objects (%d not found); random placement of %d keys by primary_shards gives %.3f (99.9th percentile %.3f), which the row must exceed; target: the model's keys as the plan places them; TAOBench §3.3, Fig. 9: 93.9%%, 10.0%%, 17.0%% of hot keys colocated (product groups 1-3)", m, off, m, mean, high)
	if r.Verdict == result.Skipped && m >= 10 && target <= high {
		r.Note = fmt.Sprintf("skipped: the model's %.3f is not above random placement's 99.9th percentile %.3f at %d keys; %s", target, high, m, r.Note)
		return r
	}
	if m >= 10 {
		r.Verdict = verdict(max(m, MinObservations), math.Abs(obs-target) <= r.Tolerance && obs > high)
	}
	return r
}

// HotColocated is the share of the pairs of hot keys on one shard, each
// where its id places it: the model's, for PlacedColocationRow.
func HotColocated(hot []result.KeyCount) float64 {
	f, _ := pairsColocated(hot)
	return f
}
