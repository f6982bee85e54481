package spannerstore

import (
	"context"
	"time"

	"cloud.google.com/go/spanner"

	"github.com/taobench/taobench/tao"
)

// A write runs in one read-write transaction: it reads the preconditions
// and every row it changes (Spanner takes shared locks on what a
// read-write transaction reads, so the versions it computes are the ones
// it overwrites), buffers its changes as mutations and commits them
// together. Mutations are not visible to the transaction's own reads, so
// wtx remembers what the request has written so far: a write transaction
// that adds a row and then updates it sees its own add.
//
// Lock holds and injected failures follow sqlstore's (docs/experiments.md):
// fail_after_reserve rolls back after the reads and before the hold,
// fail_after_primary_rollback after the hold, fail_after_primary_commit
// commits only the mutations of rows on the primary shard (the shard of
// the first op's id1). The hold is a sleep inside the open transaction,
// after its reads, so the locks those reads took stay taken; its writes'
// exclusive locks Spanner takes only at the commit.

type rowKey struct {
	edge          bool
	id1, typ, id2 int64
}

type rowState struct {
	present bool
	version int64
}

type mutation struct {
	m     *spanner.Mutation
	shard int // of the row's partition id: an object's id, an edge's id1
}

type wtx struct {
	tx   *spanner.ReadWriteStmtBasedTransaction
	seen map[rowKey]rowState
	muts []mutation
}

// state returns a row's state as this transaction sees it.
func (w *wtx) state(ctx context.Context, k rowKey) (rowState, error) {
	if s, ok := w.seen[k]; ok {
		return s, nil
	}
	var v int64
	var ok bool
	var err error
	if k.edge {
		v, ok, err = version(ctx, w.tx, "Edges", spanner.Key{k.id1, k.typ, k.id2})
	} else {
		v, ok, err = version(ctx, w.tx, "Objects", spanner.Key{k.id1})
	}
	if err != nil {
		return rowState{}, err
	}
	s := rowState{present: ok, version: v}
	w.seen[k] = s
	return s, nil
}

func (w *wtx) put(k rowKey, s rowState, m *spanner.Mutation) {
	w.seen[k] = s
	w.muts = append(w.muts, mutation{m: m, shard: tao.ShardOf(k.id1)})
}

func payload(p []byte) []byte {
	if p == nil {
		return []byte{} // Value is NOT NULL
	}
	return p
}

func objKey(id int64) rowKey { return rowKey{id1: id} }
func edgeKey(id1 int64, t tao.EdgeType, id2 int64) rowKey {
	return rowKey{edge: true, id1: id1, typ: int64(t), id2: id2}
}

// check evaluates one precondition inside the transaction.
func (w *wtx) check(ctx context.Context, c *tao.Check) (bool, error) {
	k := objKey(c.Key.ID1)
	if c.Key.Edge {
		k = edgeKey(c.Key.ID1, c.Key.Type, c.Key.ID2)
	}
	s, err := w.state(ctx, k)
	if err != nil || !s.present {
		return false, err
	}
	return c.Kind != tao.CheckVersion || s.version == c.Version, nil
}

// InsertOrUpdate with every column stands for both insert and update: the
// transaction has read the row, so it knows which it is, and a server that
// applies mutations without isolation (spannertest) cannot fail the commit
// half-way on a row a concurrent writer removed.
func (w *wtx) putObject(id, t int64, p []byte, s rowState) {
	w.put(objKey(id), s, spanner.InsertOrUpdate("Objects", objCols, []any{id, t, s.version, payload(p)}))
}

func (w *wtx) putEdge(id1 int64, typ tao.EdgeType, id2, t int64, p []byte, s rowState) {
	w.put(edgeKey(id1, typ, id2), s, spanner.InsertOrUpdate("Edges", edgeCols, []any{id1, int64(typ), id2, t, s.version, payload(p)}))
}

func (w *wtx) del(k rowKey) {
	key := spanner.Key{k.id1}
	table := "Objects"
	if k.edge {
		key, table = spanner.Key{k.id1, k.typ, k.id2}, "Edges"
	}
	w.put(k, rowState{}, spanner.Delete(table, key))
}

// op runs one write. The outcome is OK, NotFound or UniqueViolation when
// err is nil.
func (w *wtx) op(ctx context.Context, op *tao.Op, r *tao.OpResult) (tao.Outcome, error) {
	switch op.Kind {
	case tao.ObjAdd, tao.ObjUpdate, tao.ObjDelete:
		s, err := w.state(ctx, objKey(op.ID1))
		if err != nil {
			return tao.OK, err
		}
		if op.Kind == tao.ObjAdd {
			w.putObject(op.ID1, op.Time, op.Payload, rowState{true, next(s)})
			return tao.OK, nil
		}
		r.Found = s.present
		if !s.present {
			return tao.NotFound, nil
		}
		if op.Kind == tao.ObjDelete {
			w.del(objKey(op.ID1))
		} else {
			w.putObject(op.ID1, op.Time, op.Payload, rowState{true, s.version + 1})
		}
		return tao.OK, nil
	case tao.EdgeAdd:
		out, err := w.edgeAdd(ctx, op.ID1, op.Type, op.ID2, op.Time, op.Payload, r)
		if err != nil || out != tao.OK {
			return out, err
		}
		if inv, ok := op.Type.Inverse(); ok {
			return w.edgeAdd(ctx, op.ID2, inv, op.ID1, op.Time, op.Payload, nil)
		}
		return tao.OK, nil
	case tao.EdgeUpdate, tao.EdgeDelete:
		k := edgeKey(op.ID1, op.Type, op.ID2)
		s, err := w.state(ctx, k)
		if err != nil {
			return tao.OK, err
		}
		r.Found = s.present
		if !s.present {
			return tao.NotFound, nil
		}
		inv, bidir := op.Type.Inverse()
		if op.Kind == tao.EdgeDelete {
			w.del(k)
			if bidir {
				w.del(edgeKey(op.ID2, inv, op.ID1))
			}
			return tao.OK, nil
		}
		w.putEdge(op.ID1, op.Type, op.ID2, op.Time, op.Payload, rowState{true, s.version + 1})
		if bidir {
			// An upsert, so an update also repairs a missing inverse.
			return w.edgeAdd(ctx, op.ID2, inv, op.ID1, op.Time, op.Payload, nil)
		}
		return tao.OK, nil
	}
	return tao.Error, errUnknownKind(op.Kind)
}

func next(s rowState) int64 {
	if s.present {
		return s.version + 1
	}
	return 1
}

// edgeAdd inserts or overwrites one edge, reporting in r.Found whether it
// overwrote one (r may be nil). A unique type admits one edge per
// (id1, type): the transaction reads that list's key range, which on
// Spanner locks it, so two adds racing for it serialize.
func (w *wtx) edgeAdd(ctx context.Context, id1 int64, t tao.EdgeType, id2, time int64, p []byte, r *tao.OpResult) (tao.Outcome, error) {
	if t.IsUnique() {
		others, err := w.others(ctx, id1, t, id2)
		if err != nil {
			return tao.OK, err
		}
		if others {
			return tao.UniqueViolation, nil
		}
	}
	s, err := w.state(ctx, edgeKey(id1, t, id2))
	if err != nil {
		return tao.OK, err
	}
	if r != nil {
		r.Found = s.present
	}
	w.putEdge(id1, t, id2, time, p, rowState{true, next(s)})
	return tao.OK, nil
}

// others reports whether list (id1, t) holds an edge to other than id2,
// as this transaction sees it.
func (w *wtx) others(ctx context.Context, id1 int64, t tao.EdgeType, id2 int64) (bool, error) {
	ids := map[int64]bool{}
	it := w.tx.Read(ctx, "Edges", spanner.Key{id1, int64(t)}.AsPrefix(), []string{"Id2"})
	err := it.Do(func(row *spanner.Row) error {
		var x int64
		if err := row.Columns(&x); err != nil {
			return err
		}
		ids[x] = true
		return nil
	})
	if err != nil {
		return false, err
	}
	for k, s := range w.seen {
		if k.edge && k.id1 == id1 && k.typ == int64(t) {
			ids[k.id2] = s.present
		}
	}
	for x, present := range ids {
		if present && x != id2 {
			return true, nil
		}
	}
	return false, nil
}

// write runs a write request in one read-write transaction.
func (db *DB) write(ctx context.Context, req *tao.Request, res *tao.Result, edge bool) {
	release, err := db.enter(ctx, true) // on the emulator, alone (emulator.go)
	if err != nil {
		db.finish(ctx, res, err, edge)
		return
	}
	defer release()
	tx, err := spanner.NewReadWriteStmtBasedTransaction(ctx, db.client)
	if err != nil {
		db.finish(ctx, res, err, edge)
		return
	}
	rollback := func() {
		// Even when ctx has ended: the transaction's locks go at once.
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		tx.Rollback(rctx)
	}
	w := &wtx{tx: tx, seen: map[rowKey]rowState{}}
	for i := range req.Checks {
		c := &req.Checks[i]
		ok, err := w.check(ctx, c)
		if err != nil || !ok {
			rollback()
			if err != nil {
				db.finish(ctx, res, err, c.Key.Edge)
			} else {
				res.Outcome = tao.PreconditionFailed
			}
			return
		}
	}
	for i := range req.Ops {
		op := &req.Ops[i]
		out, err := w.op(ctx, op, &res.Ops[i])
		// An update or delete that finds no row is a no-op, as TAO's
		// would be: the transaction goes on (res.Ops[i].Found says so).
		if err != nil || (out != tao.OK && out != tao.NotFound) {
			rollback()
			if err != nil {
				db.finish(ctx, res, err, op.Kind.IsEdge())
			} else {
				res.Outcome = out
			}
			return
		}
	}
	if req.Fail == tao.FailAfterReserve {
		rollback()
		res.Outcome = tao.FailedAfterReserve
		return
	}
	if err := hold(ctx, req.Hold); err != nil {
		rollback()
		db.finish(ctx, res, err, edge)
		return
	}
	if req.Fail == tao.FailAfterPrimaryRollback {
		rollback()
		res.Outcome = tao.FailedAfterPrimaryRollback
		return
	}
	primary := tao.ShardOf(req.Ops[0].ID1)
	ms := make([]*spanner.Mutation, 0, len(w.muts))
	for _, m := range w.muts {
		if req.Fail != tao.FailAfterPrimaryCommit || m.shard == primary {
			ms = append(ms, m.m)
		}
	}
	if err := tx.BufferWrite(ms); err != nil {
		rollback()
		db.finish(ctx, res, err, edge)
		return
	}
	if _, err := tx.Commit(ctx); err != nil {
		db.finish(ctx, res, err, edge)
		return
	}
	switch {
	case req.Fail == tao.FailAfterPrimaryCommit:
		// Only the primary shard's rows were written; the client sees
		// the failure.
		res.Outcome = tao.FailedAfterPrimaryCommit
	case req.Class == tao.Write && !res.Ops[0].Found && req.Ops[0].Kind != tao.ObjAdd && req.Ops[0].Kind != tao.EdgeAdd:
		// A single update or delete that found no row ends NotFound.
		res.Outcome = tao.NotFound
	}
}
