package stats

import "math"

// AcrossRuns is the interval of a figure measured in several runs of one
// configuration: their mean, with the runs' standard deviation over √n as
// its standard error and n-1 degrees of freedom. The spread between runs
// holds each run's own noise and what changed between them (the machine,
// the data's state, the seed), which the batches of one run cannot see.
// within are the runs' own standard errors (0 where unknown): their root
// mean square is the least standard deviation taken, so that a few runs
// that happened to agree do not claim more than one run's noise allows.
// Values are the runs' figures. Fewer than two runs give an interval that
// is not Valid.
func AcrossRuns(values, within []float64, confidence float64) Interval {
	mean, ss := 0.0, 0.0
	for _, v := range values {
		mean += v
	}
	if len(values) > 0 {
		mean /= float64(len(values))
	}
	for _, s := range within {
		ss += s * s
	}
	floor := 0.0
	if len(within) > 0 {
		floor = math.Sqrt(ss / float64(len(within)))
	}
	return BatchMeans(mean, values, floor, confidence)
}

// Ratio is the geometric mean of num[i]/den[i] over rounds, each round a
// pair measured side by side, with its interval: Student's t over the
// rounds' log ratios, taken back to a ratio (so the interval is not
// symmetric, and 2× and 0.5× are as far from 1). A ratio of medians or of
// means would hide how the rounds moved; pairing the two tools round by
// round cancels what the machine did to both in that round. Pairs with a
// value not above 0 are skipped and counted; with none left the estimate
// is NaN.
func Ratio(num, den []float64, confidence float64) (iv Interval, skipped int) {
	var logs []float64
	for i := range min(len(num), len(den)) {
		if !(num[i] > 0 && den[i] > 0) || math.IsInf(num[i], 0) || math.IsInf(den[i], 0) {
			skipped++
			continue
		}
		logs = append(logs, math.Log(num[i]/den[i]))
	}
	l := AcrossRuns(logs, nil, confidence)
	iv = Interval{Estimate: math.Exp(l.Estimate), Lo: math.Exp(l.Lo), Hi: math.Exp(l.Hi), SE: l.SE, DF: l.DF, Confidence: confidence}
	for _, v := range logs {
		iv.Values = append(iv.Values, math.Exp(v))
	}
	if len(logs) == 0 {
		iv.Estimate, iv.Lo, iv.Hi = math.NaN(), math.NaN(), math.NaN()
	}
	return iv, skipped
}
