package run

import (
	"math/bits"
	"sync"

	"github.com/taobench/taobench/tao"
)

// bigBufs lends buffers to requests of more than keepOps operations. A
// client keeps at most keepOps between requests, so that a rare big
// transaction does not pin its buffer in every client; without a lender each
// big request allocated afresh. On workload o, whose read transactions of
// over 64 operations are 0.2% of requests, that was about 36 bytes of
// garbage a request, 125 MB/s at 1024 clients on the null store, and the
// collector's chase of it set the process's peak memory. A few buffers of
// each power-of-two size are kept; bigger requests than the largest class
// allocate.
type bigBufs struct {
	mu  sync.Mutex
	ops [bigClasses][][]tao.Op
	res [bigClasses][][]tao.OpResult
}

const (
	bigClasses  = 14 // capacities up to 1<<13 = 8,192 operations
	bigPerClass = 8  // kept per size: about 2 big requests are in flight at 1024 clients
)

// bigClass is the size class of a buffer for n operations: capacity 1<<k.
func bigClass(n int) int { return bits.Len(uint(n - 1)) }

// Ops returns an empty buffer for n operations (gen.Buffers).
func (b *bigBufs) Ops(n int) []tao.Op {
	k := bigClass(n)
	if k < bigClasses {
		b.mu.Lock()
		if s := b.ops[k]; len(s) > 0 {
			buf := s[len(s)-1]
			b.ops[k] = s[:len(s)-1]
			b.mu.Unlock()
			return buf[:0]
		}
		b.mu.Unlock()
		return make([]tao.Op, 0, 1<<k)
	}
	return make([]tao.Op, 0, n)
}

// results returns a buffer of capacity at least n for a request's results.
func (b *bigBufs) results(n int) []tao.OpResult {
	k := bigClass(n)
	if k < bigClasses {
		b.mu.Lock()
		if s := b.res[k]; len(s) > 0 {
			buf := s[len(s)-1]
			b.res[k] = s[:len(s)-1]
			b.mu.Unlock()
			return buf[:0]
		}
		b.mu.Unlock()
		return make([]tao.OpResult, 0, 1<<k)
	}
	return make([]tao.OpResult, 0, n)
}

// put takes back a request's buffers: those of a class's exact capacity,
// while the class holds fewer than bigPerClass.
func (b *bigBufs) put(ops []tao.Op, res []tao.OpResult) {
	ko, kr := bigClass(cap(ops)), bigClass(cap(res))
	b.mu.Lock()
	defer b.mu.Unlock()
	if cap(ops) > keepOps && ko < bigClasses && cap(ops) == 1<<ko && len(b.ops[ko]) < bigPerClass {
		b.ops[ko] = append(b.ops[ko], ops[:0])
	}
	if cap(res) > keepOps && kr < bigClasses && cap(res) == 1<<kr && len(b.res[kr]) < bigPerClass {
		b.res[kr] = append(b.res[kr], res[:0])
	}
}
