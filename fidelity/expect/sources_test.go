package expect

import (
	"strings"
	"testing"
)

// TestSizeNotesNameTheirSource: the value-size rows' notes name the paper
// whose figure is the target, and none for a workload's own.
func TestSizeNotesNameTheirSource(t *testing.T) {
	for _, c := range []struct {
		got, want string
	}{
		{edgeSizeSource(0.395, 0.395, 0.49, "%", 100), "TAO §7, Fig. 6: 39.5%"},
		{edgeSizeSource(0.49, 0.395, 0.49, "%", 100), "LinkBench §3.3.2: 49%"},
		{edgeSizeSource(0.3, 0.395, 0.49, "%", 100), "no published source"},
		{edgeSizeSource(97.75, 97.8, 22.2, " B", 1), "TAO §7, Fig. 6: 97.8 B"},
		{edgeSizeSource(22.1553, 97.8, 22.2, " B", 1), "LinkBench §3.3.2: 22.2 B"},
		{objectSizeSource(673.0959), "TAO §7, Fig. 6: 673 B"},
		{objectSizeSource(87.5989), "LinkBench §3.3.2: 87.6 B"},
		{objectSizeSource(150), "no published source"},
	} {
		if !strings.Contains(c.got, c.want) {
			t.Errorf("note %q, want it to name %q", c.got, c.want)
		}
	}
}
