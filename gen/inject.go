package gen

import (
	"time"

	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/workload"
)

// injectPlan draws the lock hold (lock_hold) and the injected failure
// (errors for single writes, txn_errors for write transactions) of a write.
// A workload without them draws nothing.
type injectPlan struct {
	holds            bool
	hold             picker[time.Duration]
	injects          bool
	errors, txnError picker[tao.FailPoint]
	waits            bool
	wait             picker[time.Duration]
}

func newInjectPlan(w *workload.Workload) (injectPlan, error) {
	ip := injectPlan{holds: w.Holds(), injects: w.Injects(), waits: w.Waits()}
	var err error
	if ip.waits {
		if ip.wait, err = newPicker(w.PreconditionWait, 0); err != nil {
			return ip, err
		}
	}
	if ip.holds {
		if ip.hold, err = newPicker(w.LockHold, 0); err != nil {
			return ip, err
		}
	}
	if ip.injects {
		if ip.errors, err = newPicker(w.Errors, tao.Success); err != nil {
			return ip, err
		}
		if ip.txnError, err = newPicker(w.TxnErrors, tao.Success); err != nil {
			return ip, err
		}
	}
	return ip, nil
}

// injectInto sets req's Hold and Fail, drawn for writes and write
// transactions, and its Wait, drawn for those with a version check on a
// key the client read; all zero for reads.
func (gen *Generator) injectInto(req *tao.Request) {
	req.Hold, req.Fail, req.Wait = 0, tao.Success, 0
	if req.Class != tao.Write && req.Class != tao.WriteTxn {
		return
	}
	ip := &gen.inject
	if ip.waits {
		for i := range req.Checks {
			if req.Checks[i].Kind == tao.CheckVersion {
				req.Wait = ip.wait.draw(&gen.injRng)
				break
			}
		}
	}
	if ip.holds {
		req.Hold = ip.hold.draw(&gen.injRng)
	}
	if ip.injects {
		if req.Class == tao.Write {
			req.Fail = ip.errors.draw(&gen.injRng)
		} else {
			req.Fail = ip.txnError.draw(&gen.injRng)
		}
	}
}

// newest returns the newest remembered key of the kind asked on shard (any
// when shard < 0) that is present (a positive version). A workload with
// precondition_wait aims its version checks at it, so the time between the
// client's read and its preconditioned write is the wait drawn, not the age
// of a random remembered read.
func (m *memory) newest(edge bool, shard int) (tao.Key, bool) {
	if edge {
		for i := m.nEdges - 1; i >= max(0, m.nEdges-memSize); i-- {
			e := &m.edges[i%memSize]
			if k := (tao.Key{Edge: true, ID1: e.id1, Type: e.typ, ID2: e.id2}); e.ver > 0 && (shard < 0 || tao.ShardOf(k.ID1) == shard) {
				return k, true
			}
		}
		return tao.Key{}, false
	}
	for i := m.nObj - 1; i >= max(0, m.nObj-memSize); i-- {
		if o := &m.objs[i%memSize]; o.ver > 0 && (shard < 0 || tao.ShardOf(o.id) == shard) {
			return tao.Key{ID1: o.id}, true
		}
	}
	return tao.Key{}, false
}
