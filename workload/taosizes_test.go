package workload

import (
	"math"
	"testing"
)

// TestTaoObjectSizes: the tao workload's objects have Fig. 6's 673 B mean
// (TAO §7) and fit objects.value (4096 B); its associations fit edges'
// VARCHAR(150), the original's.
func TestTaoObjectSizes(t *testing.T) {
	w, err := Builtin("tao")
	if err != nil {
		t.Fatal(err)
	}
	var n, sum float64
	for i, v := range w.ObjectPayloadSizes.Values {
		n += w.ObjectPayloadSizes.Weights[i]
		sum += w.ObjectPayloadSizes.Weights[i] * float64(v)
		if v > 4096 {
			t.Errorf("object size %d exceeds objects.value's 4096", v)
		}
	}
	if m := sum / n; math.Abs(m-673) > 0.5 {
		t.Errorf("objects: %.2f B mean, TAO's Fig. 6 gives 673 B", m)
	}
	for _, v := range w.PayloadSizes.Values {
		if v > 150 {
			t.Errorf("association size %d exceeds edges' VARCHAR(150)", v)
		}
	}
}
