package run

import (
	"testing"

	"github.com/taobench/taobench/tao"
)

// TestBigBufsReuse: a buffer given back is lent again for a request of its
// class, so big transactions stop allocating; what the lender did not make
// (another capacity) and what is past a class's bound is not kept.
func TestBigBufsReuse(t *testing.T) {
	var b bigBufs
	ops, res := b.Ops(100), b.results(100)
	if cap(ops) != 128 || len(ops) != 0 || cap(res) != 128 {
		t.Fatalf("Ops(100): len %d cap %d, results cap %d; want an empty buffer of 128", len(ops), cap(ops), cap(res))
	}
	ops = append(ops, make([]tao.Op, 100)...)
	b.put(ops, res[:100])
	again := b.Ops(120)
	if cap(again) != 128 || &again[:1][0] != &ops[0] {
		t.Error("a buffer given back was not lent again for its class")
	}
	if r := b.results(90); &r[:1][0] != &res[:1][0] {
		t.Error("a results buffer given back was not lent again")
	}
	b.put(make([]tao.Op, 0, 100), nil) // not a class's capacity
	if x := b.Ops(100); cap(x) != 128 {
		t.Errorf("lent a buffer of capacity %d for 100 operations", cap(x))
	}
	for range bigPerClass + 3 {
		b.put(make([]tao.Op, 0, 256), nil)
	}
	if n := len(b.ops[bigClass(256)]); n != bigPerClass {
		t.Errorf("class of 256 holds %d buffers, want at most %d", n, bigPerClass)
	}
	if x := b.Ops(20000); cap(x) < 20000 {
		t.Errorf("a request past the largest class got capacity %d", cap(x))
	}
}

// TestClientKeepsItsOwnBuffers: a client lent buffers for a big request gets
// its own back afterwards, so the small requests that follow do not allocate.
func TestClientKeepsItsOwnBuffers(t *testing.T) {
	c := &client{bufs: &bigBufs{}}
	c.req.Ops = make([]tao.Op, 0, keepOps)
	c.res.Ops = make([]tao.OpResult, 0, keepOps)
	own := &c.req.Ops[:1][0]
	c.req.Ops = c.Ops(300) // as the generator asks for a 300-op request
	c.req.Ops = c.req.Ops[:300]
	c.resetResult()
	if cap(c.req.Ops) != 512 || cap(c.res.Ops) != 512 {
		t.Fatalf("lent capacities %d, %d; want 512", cap(c.req.Ops), cap(c.res.Ops))
	}
	c.giveBack() // as the request's end does
	if cap(c.req.Ops) != keepOps || &c.req.Ops[:1][0] != own || cap(c.res.Ops) != keepOps {
		t.Errorf("after the big request: capacities %d, %d; want the client's own %d", cap(c.req.Ops), cap(c.res.Ops), keepOps)
	}
	if len(c.bufs.ops[bigClass(300)]) != 1 || len(c.bufs.res[bigClass(300)]) != 1 {
		t.Error("the lent buffers were not given back")
	}
}
