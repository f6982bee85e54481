package gen_test

import (
	"math"
	"reflect"
	"slices"
	"testing"

	"github.com/taobench/taobench/gen"
	"github.com/taobench/taobench/tao"
)

// With locality 1 every read drawn to the client cache is one of its
// client's last RereadWindow fresh reads of its class; with 0 the stream
// is the generator's own, unchanged; and the reads again keep the draws'
// kinds.
func TestReread(t *testing.T) {
	w, g := setup(t, nil)
	off, plain := gen.New(w, g, 2, 1, 7), gen.New(w, g, 2, 1, 7)
	off.Reread(0)
	var a, b tao.Request
	for i := range 5000 {
		off.Next(&a)
		plain.Next(&b)
		if !reflect.DeepEqual(cloneReq(&a), cloneReq(&b)) {
			t.Fatalf("request %d: locality 0 changed the stream", i)
		}
	}

	on := gen.New(w, g, 2, 1, 7)
	on.Reread(1)
	var fresh [][]tao.Op // fresh reads, by class: single reads then transactions
	var freshTxn [][]tao.Op
	var again, freshKinds [tao.NumKinds]float64
	var rereads, cc int
	var req tao.Request
	for range 200000 {
		on.Next(&req)
		if req.Class != tao.Read && req.Class != tao.ReadTxn {
			continue
		}
		recent := &fresh
		if req.Class == tao.ReadTxn {
			recent = &freshTxn
		}
		if req.Tier != tao.TierClientCache || len(*recent) == 0 {
			*recent = append(*recent, slices.Clone(req.Ops))
			for _, op := range req.Ops {
				freshKinds[op.Kind]++
			}
			continue
		}
		cc++
		last := (*recent)[max(0, len(*recent)-gen.RereadWindow):]
		if !slices.ContainsFunc(last, func(ops []tao.Op) bool { return reflect.DeepEqual(ops, req.Ops) }) {
			t.Fatalf("a %v drawn to the client cache is none of the client's last %d fresh ones: %+v", req.Class, gen.RereadWindow, req.Ops)
		}
		rereads++
		for _, op := range req.Ops {
			again[op.Kind]++
		}
	}
	if cc == 0 || rereads != cc {
		t.Fatalf("%d reads drawn to the client cache, %d read again", cc, rereads)
	}
	// The reads again have the fresh draws' mix of kinds.
	var na, nf float64
	for k := range again {
		na, nf = na+again[k], nf+freshKinds[k]
	}
	for k := range again {
		if f := freshKinds[k] / nf; math.Abs(again[k]/na-f) > 0.02 {
			t.Errorf("%v: %.3f of the reads again, %.3f of the fresh draws", tao.Kind(k), again[k]/na, f)
		}
	}
}
