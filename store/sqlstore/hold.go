package sqlstore

import (
	"context"
	"time"

	"github.com/taobench/taobench/tao"
)

// Lock holds and injected failures (docs/experiments.md).
//
// A write with a Hold keeps its transaction open for that long after its
// writes and before its commit, so the row locks its writes took stay
// taken (TAOBench §6.2, Fig. 12). A write with a Fail point follows TAO's
// write path — reserve the write set on every shard (two-phase locking),
// commit on the primary shard, then on the secondaries — and fails where
// the point says:
//
//	fail_after_reserve           checks and writes done (locks taken), then
//	                             rolled back before any hold: nothing written
//	fail_after_primary_rollback  checks, writes and the hold done, then
//	                             rolled back at the commit point: nothing written
//	fail_after_primary_commit    checks done; only the rows on the primary
//	                             shard (the shard of the first op's id1) are
//	                             written and committed; rows of other shards,
//	                             the secondaries, never are
//
// A write always runs in a transaction when it holds or fails, even a
// single-row one that would otherwise run in autocommit.

// injected reports whether req holds its locks or fails on purpose.
func injected(req *tao.Request) bool { return req.Hold > 0 || req.Fail != tao.Success }

// beforeCommit runs between a write's last statement and its commit: it
// fails at fail_after_reserve, holds, and fails at
// fail_after_primary_rollback. It reports whether the commit should go
// ahead; when not, it has rolled back and set res.
func (db *DB) beforeCommit(ctx context.Context, tx txn, req *tao.Request, res *tao.Result) bool {
	edge := req.Ops[0].Kind.IsEdge()
	if req.Fail == tao.FailAfterReserve {
		tx.rollback()
		res.Outcome = tao.FailedAfterReserve
		return false
	}
	if err := hold(ctx, req.Hold); err != nil {
		tx.rollback()
		db.finish(ctx, res, tao.OK, err, edge)
		return false
	}
	if req.Fail == tao.FailAfterPrimaryRollback {
		tx.rollback()
		res.Outcome = tao.FailedAfterPrimaryRollback
		return false
	}
	return true
}

// hold waits d, or until ctx ends (then it returns ctx's error).
func hold(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// primaryCommit writes and commits the rows of req on its primary shard
// (the checks have passed in tx), holds first if asked, and ends
// FailedAfterPrimaryCommit: the secondaries' rows are never written. A
// bidirectional edge whose id1 and id2 live on different shards is half
// written: the forward edge when id1 is on the primary, the inverse when
// id2 is. An error or conflict before the commit ends as it would without
// the fail point, having written nothing.
func (db *DB) primaryCommit(ctx context.Context, tx txn, req *tao.Request, res *tao.Result) {
	primary := tao.ShardOf(req.Ops[0].ID1)
	for i := range req.Ops {
		op := &req.Ops[i]
		out, err := db.primaryOp(ctx, tx, op, &res.Ops[i], primary)
		if err != nil || (out != tao.OK && out != tao.NotFound) {
			tx.rollback()
			db.finish(ctx, res, out, err, op.Kind.IsEdge())
			return
		}
	}
	if err := hold(ctx, req.Hold); err != nil {
		tx.rollback()
		db.finish(ctx, res, tao.OK, err, req.Ops[0].Kind.IsEdge())
		return
	}
	if err := tx.commit(ctx); err != nil {
		tx.rollback()
		db.finish(ctx, res, tao.OK, err, req.Ops[0].Kind.IsEdge())
		return
	}
	res.Outcome = tao.FailedAfterPrimaryCommit
}

// primaryOp runs the part of one write that lives on shard primary: an
// object's row, an edge's forward row (on id1's shard) and its inverse row
// (on id2's shard) each only when on primary.
func (db *DB) primaryOp(ctx context.Context, q querier, op *tao.Op, r *tao.OpResult, primary int) (tao.Outcome, error) {
	inv, bidir := op.Type.Inverse()
	fwdHere := tao.ShardOf(op.ID1) == primary
	if !op.Kind.IsEdge() || !bidir || op.Kind.IsRead() {
		if !fwdHere {
			return tao.OK, nil
		}
		return db.op(ctx, q, op, r)
	}
	invHere := tao.ShardOf(op.ID2) == primary
	if fwdHere && invHere {
		return db.op(ctx, q, op, r)
	}
	switch {
	case fwdHere:
		// The forward row alone: the statements of op without its inverse.
		switch op.Kind {
		case tao.EdgeAdd:
			return db.edgeAdd(ctx, q, op.ID1, op.Type, op.ID2, op.Time, op.Payload, r)
		case tao.EdgeUpdate:
			n, err := q.exec(ctx, sEdgeUpdate, op.Time, db.payload(op.Payload), op.ID1, int64(op.Type), op.ID2)
			return found(r, n, err)
		case tao.EdgeDelete:
			n, err := q.exec(ctx, sEdgeDelete, op.ID1, int64(op.Type), op.ID2)
			return found(r, n, err)
		}
	case invHere:
		// The inverse row alone, as the secondary of the forward edge's
		// shard would have written it.
		switch op.Kind {
		case tao.EdgeAdd, tao.EdgeUpdate:
			return db.edgeAdd(ctx, q, op.ID2, inv, op.ID1, op.Time, op.Payload, nil)
		case tao.EdgeDelete:
			_, err := q.exec(ctx, sEdgeDelete, op.ID2, int64(inv), op.ID1)
			return tao.OK, err
		}
	}
	return tao.OK, nil
}
