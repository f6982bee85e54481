package sqlstore

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/taobench/taobench/tao"
)

// Write transactions in one round trip (PostgreSQL protocol).
//
// Run statement by statement, a write that must run in a transaction (a
// write transaction, a write with preconditions, an association add that
// writes its inverse too) costs begin, each check, each statement and
// commit: four round trips for the commonest, a bidirectional add. Nothing
// in them needs the client between statements if every statement decides
// for itself: a precondition is a statement that fails (division by zero)
// when it does not hold, which aborts the transaction on the server, and an
// association add is one statement (insert, or overwrite the key that
// exists). The transaction then goes as one batch, begin to commit, and a
// failed statement turns the commit into a rollback on the server: what
// commits is what the statement-by-statement path would commit. An update
// or delete of a bidirectional association, which writes its inverse only
// when the forward row was found, is one statement too (pgEdgeUpdateBidir,
// pgEdgeDeleteBidir): the forward write and, in the same WITH, the inverse
// write conditioned on the forward one's returned rows; alone, without
// preconditions, it runs in autocommit, one statement and one round trip
// with no begin or commit. Injected holds and failures, and reads in a
// write transaction, go statement by statement as before.

const (
	// pgObjGuard and pgEdgeGuard lock the checked row (FOR SHARE, as
	// sObjCheck does) and divide by zero unless it exists (at the version,
	// when $2 is false).
	pgObjGuard  = "SELECT 1/count(*) FROM (SELECT 1 FROM objects WHERE id = $1 AND ($2::boolean OR version = $3) FOR SHARE) c"
	pgEdgeGuard = "SELECT 1/count(*) FROM (SELECT 1 FROM edges WHERE id1 = $1 AND type = $2 AND id2 = $3 AND ($4::boolean OR version = $5) FOR SHARE) c"
	// pgEdgeUpsert inserts an association or, when its key exists,
	// overwrites it, in one statement: the update sees the statement's
	// snapshot, so it never touches the row the insert added. It returns
	// whether it inserted, and divides by zero when it did neither (the
	// key's row went between the two), which the statement-by-statement
	// path would retry and a batch cannot: a conflict, retried whole.
	pgEdgeUpsert = "WITH ins AS (INSERT INTO edges (" + edgeCols + ") VALUES ($1, $2, $3, $4, $5, 1, $6) " +
		"ON CONFLICT (id1, type, id2) DO NOTHING RETURNING 1), " +
		"upd AS (UPDATE edges SET timestamp = $4, value = $5, version = version + 1 " +
		"WHERE id1 = $1 AND type = $3 AND id2 = $2 AND NOT EXISTS (SELECT 1 FROM ins) RETURNING 1) " +
		"SELECT (SELECT count(*) FROM ins), 1/((SELECT count(*) FROM ins) + (SELECT count(*) FROM upd))"
	// pgEdgeUpdateBidir updates the association ($1, $3, $2) and, only if
	// it found it, writes the inverse ($2, $6, $1) as the
	// statement-by-statement path does, with an upsert (insert it, or
	// overwrite it when it exists: an update also repairs a missing
	// inverse), all on the statement's one snapshot. It returns whether
	// the forward row was found, whether the inverse was inserted, and
	// divides by zero when the forward row was found but the inverse was
	// neither inserted nor overwritten (its row went between the two), as
	// pgEdgeUpsert does. $7 is the inverse's ukey.
	pgEdgeUpdateBidir = "WITH f AS (UPDATE edges SET timestamp = $4, value = $5, version = version + 1 " +
		"WHERE id1 = $1 AND type = $3 AND id2 = $2 RETURNING 1), " +
		"ins AS (INSERT INTO edges (" + edgeCols + ") SELECT $2, $1, $6, $4, $5, 1, $7 WHERE EXISTS (SELECT 1 FROM f) " +
		"ON CONFLICT (id1, type, id2) DO NOTHING RETURNING 1), " +
		"upd AS (UPDATE edges SET timestamp = $4, value = $5, version = version + 1 " +
		"WHERE id1 = $2 AND type = $6 AND id2 = $1 AND EXISTS (SELECT 1 FROM f) AND NOT EXISTS (SELECT 1 FROM ins) RETURNING 1) " +
		"SELECT (SELECT count(*) FROM f), (SELECT count(*) FROM ins), " +
		"1/(1 - (SELECT count(*) FROM f) + (SELECT count(*) FROM ins) + (SELECT count(*) FROM upd))"
	// pgEdgeDeleteBidir deletes the association ($1, $2, $3) and, only if
	// it found it, the inverse ($3, $4, $1). It returns how many forward
	// and inverse rows it deleted.
	pgEdgeDeleteBidir = "WITH f AS (DELETE FROM edges WHERE id1 = $1 AND type = $2 AND id2 = $3 RETURNING 1), " +
		"i AS (DELETE FROM edges WHERE id1 = $3 AND type = $4 AND id2 = $1 AND EXISTS (SELECT 1 FROM f) RETURNING 1) " +
		"SELECT (SELECT count(*) FROM f), (SELECT count(*) FROM i)"
)

// bidirWrite reports whether op is an update or delete of a bidirectional
// association, which pgEdgeUpdateBidir or pgEdgeDeleteBidir writes, and
// returns the inverse's type.
func bidirWrite(op *tao.Op) (tao.EdgeType, bool) {
	if op.Kind != tao.EdgeUpdate && op.Kind != tao.EdgeDelete {
		return 0, false
	}
	return op.Type.Inverse()
}

// queueBidir queues op's pgEdgeUpdateBidir or pgEdgeDeleteBidir.
func queueBidir(batch *pgx.Batch, db *DB, op *tao.Op, inv tao.EdgeType) {
	text, args := bidirArgs(db, op, inv)
	batch.Queue(text, args...)
}

// bidirArgs returns op's statement and its arguments.
func bidirArgs(db *DB, op *tao.Op, inv tao.EdgeType) (string, []any) {
	if op.Kind == tao.EdgeDelete {
		return pgEdgeDeleteBidir, []any{op.ID1, int64(op.Type), op.ID2, int64(inv)}
	}
	p := db.payload(op.Payload)
	return pgEdgeUpdateBidir, []any{op.ID1, op.ID2, int64(op.Type), op.Time, p, int64(inv), ukey(inv, op.ID1)}
}

// pgDivisionByZero is the SQLSTATE a failed guard or an upsert that found
// its key gone raises.
const pgDivisionByZero = "22012"

// writePipeliner is a backend that can send a whole write transaction in
// one round trip. writeTxn reports false, having sent nothing, when it
// cannot; Exec then runs the transaction statement by statement.
type writePipeliner interface {
	writeTxn(ctx context.Context, db *DB, req *tao.Request, res *tao.Result) bool
}

// pipelinable reports whether every statement of req's transaction can be
// sent before the previous one's result is known.
func pipelinable(req *tao.Request) bool {
	if injected(req) {
		return false
	}
	for i := range req.Ops {
		op := &req.Ops[i]
		switch op.Kind {
		case tao.ObjAdd, tao.ObjUpdate, tao.ObjDelete, tao.EdgeAdd, tao.EdgeUpdate, tao.EdgeDelete:
		default:
			return false
		}
	}
	return true
}

func (b *pgBackend) writeTxn(ctx context.Context, db *DB, req *tao.Request, res *tao.Result) bool {
	if !pipelinable(req) {
		return false
	}
	if inv, ok := bidirWrite(&req.Ops[0]); ok && len(req.Ops) == 1 && len(req.Checks) == 0 {
		b.bidirAuto(ctx, db, req, res, inv)
		return true
	}
	batch := &pgx.Batch{QueuedQueries: make([]*pgx.QueuedQuery, 0, len(req.Checks)+2*len(req.Ops)+2)}
	batch.Queue(b.txBegin)
	for i := range req.Checks {
		c := &req.Checks[i]
		anyVersion := c.Kind != tao.CheckVersion
		if c.Key.Edge {
			batch.Queue(pgEdgeGuard, c.Key.ID1, int64(c.Key.Type), c.Key.ID2, anyVersion, c.Version)
		} else {
			batch.Queue(pgObjGuard, c.Key.ID1, anyVersion, c.Version)
		}
	}
	for i := range req.Ops {
		op := &req.Ops[i]
		t := int64(op.Type)
		switch op.Kind {
		case tao.ObjAdd:
			batch.Queue(b.d.stmts[sObjAdd], op.ID1, op.Time, db.payload(op.Payload))
		case tao.ObjUpdate:
			batch.Queue(b.d.stmts[sObjUpdate], op.Time, db.payload(op.Payload), op.ID1)
		case tao.ObjDelete:
			batch.Queue(b.d.stmts[sObjDelete], op.ID1)
		case tao.EdgeAdd:
			batch.Queue(pgEdgeUpsert, op.ID1, op.ID2, t, op.Time, db.payload(op.Payload), ukey(op.Type, op.ID2))
			if inv, ok := op.Type.Inverse(); ok {
				batch.Queue(pgEdgeUpsert, op.ID2, op.ID1, int64(inv), op.Time, db.payload(op.Payload), ukey(inv, op.ID1))
			}
		case tao.EdgeUpdate:
			if inv, ok := bidirWrite(op); ok {
				queueBidir(batch, db, op, inv)
				continue
			}
			batch.Queue(b.d.stmts[sEdgeUpdate], op.Time, db.payload(op.Payload), op.ID1, t, op.ID2)
		case tao.EdgeDelete:
			if inv, ok := bidirWrite(op); ok {
				queueBidir(batch, db, op, inv)
				continue
			}
			batch.Queue(b.d.stmts[sEdgeDelete], op.ID1, t, op.ID2)
		}
	}
	batch.Queue("commit")

	c, err := b.pool.Acquire(ctx)
	if err != nil {
		db.finish(ctx, res, tao.OK, err, req.Ops[0].Kind.IsEdge())
		return true
	}
	defer c.Release() // runs after the rollback below
	br := c.SendBatch(ctx, batch)
	out, edge, err := b.writeResults(br, req, res)
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if c.Conn().PgConn().TxStatus() != 'I' {
		// A failed statement left the transaction open (and aborted);
		// if the rollback fails too, Release discards the connection.
		_, _ = c.Exec(context.Background(), "rollback")
	}
	var pe *pgconn.PgError
	switch {
	case err != nil && errors.As(err, &pe) && pe.Code == pgDivisionByZero:
		// A guard that did not hold, or an upsert whose key went: the
		// outcome says which; the server's code stays with it.
		res.Outcome, res.Code = out, pe.Code
	case err != nil:
		db.finish(ctx, res, out, err, edge)
	default:
		res.Outcome = tao.OK
		// A single update or delete that found no row ends NotFound, as
		// it does statement by statement.
		if req.Class == tao.Write && !res.Ops[0].Found && !isAdd(req.Ops[0].Kind) {
			res.Outcome = tao.NotFound
		}
	}
	return true
}

// writeResults reads a write batch's results in the order writeTxn queued
// them, filling res.Ops, up to the first error. It returns the error, the
// outcome it means when it is a division by zero (a failed precondition or
// a lost upsert), and whether an association statement met it.
func (b *pgBackend) writeResults(br pgx.BatchResults, req *tao.Request, res *tao.Result) (tao.Outcome, bool, error) {
	if _, err := br.Exec(); err != nil { // begin
		return tao.OK, req.Ops[0].Kind.IsEdge(), err
	}
	for i := range req.Checks {
		if _, err := br.Exec(); err != nil {
			return tao.PreconditionFailed, req.Checks[i].Key.Edge, err
		}
	}
	for i := range req.Ops {
		op := &req.Ops[i]
		r := &res.Ops[i]
		if _, ok := bidirWrite(op); ok {
			found, err := scanBidir(br.QueryRow(), op.Kind)
			if err != nil {
				// A division by zero is an update's inverse gone between
				// its insert and its overwrite: a conflict, as for an add.
				return tao.ConflictAssociation, true, err
			}
			r.Found = found
			continue
		}
		switch op.Kind {
		case tao.EdgeAdd:
			var inserted int64
			if err := br.QueryRow().Scan(&inserted, nil); err != nil {
				return tao.ConflictAssociation, true, err
			}
			r.Found = inserted == 0
			if _, ok := op.Type.Inverse(); ok {
				if err := br.QueryRow().Scan(&inserted, nil); err != nil {
					return tao.ConflictAssociation, true, err
				}
			}
		default:
			tag, err := br.Exec()
			if err != nil {
				return tao.OK, op.Kind.IsEdge(), err
			}
			if op.Kind != tao.ObjAdd {
				r.Found = tag.RowsAffected() > 0
			}
		}
	}
	_, err := br.Exec() // commit
	return tao.OK, req.Ops[0].Kind.IsEdge(), err
}

// scanBidir reads pgEdgeUpdateBidir's or pgEdgeDeleteBidir's row: whether
// the forward association was found.
func scanBidir(row pgx.Row, k tao.Kind) (bool, error) {
	var found int64
	var err error
	if k == tao.EdgeDelete {
		err = row.Scan(&found, nil)
	} else {
		err = row.Scan(&found, nil, nil)
	}
	return found > 0, err
}

// bidirAuto runs a single update or delete of a bidirectional association
// without preconditions as its one statement in autocommit: one round
// trip, no begin or commit. The statement is atomic and reads one
// snapshot (at the session's REPEATABLE READ; behind a pooler, the
// server's default), as the
// transaction the statement-by-statement path opens for the two writes.
func (b *pgBackend) bidirAuto(ctx context.Context, db *DB, req *tao.Request, res *tao.Result, inv tao.EdgeType) {
	op := &req.Ops[0]
	text, args := bidirArgs(db, op, inv)
	var found, seen bool
	err := b.autoQ.query(ctx, text, args, func(scan func(...any) error) error {
		var err error
		found, err = scanBidir(scanRow(scan), op.Kind)
		seen = true
		return err
	})
	if err == nil && !seen {
		err = errors.New("the bidirectional write returned no row")
	}
	var pe *pgconn.PgError
	switch {
	case err != nil && errors.As(err, &pe) && pe.Code == pgDivisionByZero:
		res.Outcome, res.Code = tao.ConflictAssociation, pe.Code
	case err != nil:
		db.finish(ctx, res, tao.OK, err, true)
	default:
		res.Ops[0].Found = found
		res.Outcome = tao.OK
		// A single update or delete that found no row ends NotFound.
		if req.Class == tao.Write && !found {
			res.Outcome = tao.NotFound
		}
	}
}

// scanRow is a pgx.Row over a query callback's scan.
type scanRow func(...any) error

func (s scanRow) Scan(dest ...any) error { return s(dest...) }
