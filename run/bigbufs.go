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
	ops freeList[tao.Op]
	res freeList[tao.OpResult]
}

const (
	bigClasses  = 14 // capacities up to 1<<13 = 8,192 operations
	bigPerClass = 8  // kept per size: about 2 big requests are in flight at 1024 clients
)

// bigClass is the size class of a buffer for n operations: capacity 1<<k.
func bigClass(n int) int { return bits.Len(uint(n - 1)) }

// Ops returns an empty buffer for n operations (gen.Buffers).
func (b *bigBufs) Ops(n int) []tao.Op {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.ops.get(n)
}

// results returns an empty buffer for a request's n results.
func (b *bigBufs) results(n int) []tao.OpResult {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.res.get(n)
}

// put takes back a request's buffers.
func (b *bigBufs) put(ops []tao.Op, res []tao.OpResult) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.ops.put(ops)
	b.res.put(res)
}

// freeList keeps up to bigPerClass buffers of each class's capacity.
type freeList[T any] [bigClasses][][]T

func (f *freeList[T]) get(n int) []T {
	k := bigClass(n)
	if k >= bigClasses {
		return make([]T, 0, n)
	}
	if s := f[k]; len(s) > 0 {
		f[k] = s[:len(s)-1]
		return s[len(s)-1][:0]
	}
	return make([]T, 0, 1<<k)
}

// put keeps buf when it has a class's exact capacity (one get made) above
// keepOps and the class has room.
func (f *freeList[T]) put(buf []T) {
	k := bigClass(cap(buf))
	if cap(buf) > keepOps && k < bigClasses && cap(buf) == 1<<k && len(f[k]) < bigPerClass {
		f[k] = append(f[k], buf[:0])
	}
}
