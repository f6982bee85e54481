package workload

import (
	"bytes"
	"strings"
	"testing"
)

// TestRangeMeanRows: range_mean_rows reads a mean of at least 1, writes
// back, and refuses a workload whose range reads are not aimed at lists.
func TestRangeMeanRows(t *testing.T) {
	base := "operations read:1\nread_operation_types edge_range_read:1\n"
	w, err := Parse(strings.NewReader(base+"range_mean_rows 21.9\n"), "m")
	if err != nil || w.RangeMeanRows != 21.9 {
		t.Fatalf("range_mean_rows 21.9: %v, %v", w, err)
	}
	var b bytes.Buffer
	if err := Write(&b, w); err != nil || !strings.Contains(b.String(), "\nrange_mean_rows 21.9\n") {
		t.Errorf("written back without range_mean_rows 21.9 (%v):\n%s", err, b.String())
	}
	for _, bad := range []struct{ text, want string }{
		{"range_mean_rows 0.5\n", "at least 1"},
		{"range_mean_rows many\n", "at least 1"},
		{"range_mean_rows 21.9\nrange_nonempty natural\n", "range_nonempty"},
	} {
		if _, err := Parse(strings.NewReader(base+bad.text), "m"); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: error %v, want one saying %q", bad.text, err, bad.want)
		}
	}
}
