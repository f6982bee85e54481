package fidelity

import (
	"fmt"

	"github.com/taobench/taobench/chisquare"
	"github.com/taobench/taobench/result"
)

// Chi makes a chi-square row: Target is the p-value a pass needs,
// Observed the p-value.
func Chi(figure string, obs []int64, weights []float64, note string) result.FidelityRow {
	var n int64
	for _, x := range obs {
		n += x
	}
	c2, df, p, _ := chisquare.Test(obs, weights)
	r := result.FidelityRow{Figure: figure, Target: chisquare.Alpha, Observed: p, N: n, P: p,
		Note: fmt.Sprintf("%s: chi2 %.1f, df %d", note, c2, df)}
	r.Verdict = verdict(n, df >= 1 && p >= chisquare.Alpha)
	if df < 1 {
		// One bin: nothing to test, and a NaN p-value JSON cannot carry.
		r.Verdict, r.Observed, r.P = result.Skipped, 1, 1
	}
	return r
}
