package textreport

import (
	"bytes"
	"strings"
	"testing"

	"github.com/taobench/taobench/result"
)

// FuzzReadJSON: no document makes ReadJSON panic, and whatever it accepts
// it writes back and reads again to the same figures.
func FuzzReadJSON(f *testing.F) {
	var b bytes.Buffer
	if err := result.WriteJSON(&b, testRun(1), []*result.Experiment{experimentOf(1, samples(20), nil)}); err != nil {
		f.Fatal(err)
	}
	f.Add(b.String())
	f.Add(`{"run":{"workload":"a"},"experiments":[]}`)
	f.Add(strings.Replace(b.String(), `"second": 0`, `"second": -3`, 1))
	f.Fuzz(func(t *testing.T, doc string) {
		d, err := result.ReadJSON(strings.NewReader(doc))
		if err != nil {
			return
		}
		var out bytes.Buffer
		if err := result.WriteJSON(&out, d.Run, d.Experiments); err != nil {
			return // e.g. a histogram that cannot be encoded: refused, not a panic
		}
		again, err := result.ReadJSON(&out)
		if err != nil {
			t.Fatalf("a document ReadJSON accepted, written back, is refused: %v", err)
		}
		for i, e := range d.Experiments {
			if g, w := again.Experiments[i].Sum().Requests(), e.Sum().Requests(); g != w {
				t.Errorf("experiment %d: %d requests after a round trip, %d before", i+1, g, w)
			}
		}
	})
}
