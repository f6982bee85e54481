package expect

import (
	"testing"

	"github.com/taobench/taobench/gen"
	"github.com/taobench/taobench/result"
)

// TestPopularityBins: result carries as many popularity bins as gen draws.
func TestPopularityBins(t *testing.T) {
	if gen.PopularityBins != result.PopularityBins {
		t.Errorf("gen has %d popularity bins, result %d", gen.PopularityBins, result.PopularityBins)
	}
}
