package fidelity

import (
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/tao"
)

// askedTiers says which tiers the run of c asked for (a cache tier that
// no read looked up was not there: a read drawn to it fell through), and
// weights (read_tiers' by tier) with the share of each tier not asked for
// moved to the next tier down, which serves those reads. The database is
// always asked.
func askedTiers(c *result.Consistency, weights [tao.NumTiers]float64) (asked [tao.NumTiers]bool, served [tao.NumTiers]float64) {
	served = weights
	for i := range c.Tiers {
		asked[i] = tao.Tier(i) == tao.TierDB || c.Tiers[i].Lookups > 0
		if !asked[i] && i+1 < len(served) {
			served[i+1] += served[i]
			served[i] = 0
		}
	}
	return asked, served
}
