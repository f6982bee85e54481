package sqlstore

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/taobench/taobench/tao"
)

// Read-only transactions in one round trip (PostgreSQL protocol).
//
// A read transaction's keys are all known before it starts (TAOBench's
// transactions are one-shot) and no read depends on another's result, so
// nothing obliges the client to wait for each statement before sending the
// next. Run statement by statement, a transaction of n reads costs n+2
// round trips (begin, the reads, commit), each a write and a read system
// call on the client and a wake-up of the server; sent as one pipeline they
// cost one. The server receives the same prepared statements in the same
// transaction at the same isolation level and executes every one of them;
// only the waiting between them is gone, so a read transaction's latency is
// one round trip plus the server's work, as with any pipelining driver.
//
// The statements are the ones db.op issues: it runs once against a querier
// that queues them, then once more against the results, in order. Write
// transactions are not pipelined: their checks and operations decide
// whether the rest runs at all.
//
// MySQL has no pipelining in go-sql-driver/mysql; its read transactions go
// in one round trip as one UNION ALL statement instead (mytxn.go).

// readTxn sends a read-only transaction as one pgx batch: Bind/Execute
// messages on the connection's prepared statements, then one Sync.
func (b *pgBackend) readTxn(ctx context.Context, db *DB, req *tao.Request, res *tao.Result) bool {
	batch := &pgx.Batch{QueuedQueries: make([]*pgx.QueuedQuery, 0, len(req.Ops)+2)}
	batch.Queue("begin read only")
	queue := pgQueue{d: b.d, b: batch}
	for i := range req.Ops {
		if _, err := db.op(ctx, &queue, &req.Ops[i], &res.Ops[i]); err != nil {
			return false
		}
	}
	if len(batch.QueuedQueries) != len(req.Ops)+1 {
		return false // an operation that is not one statement: run it step by step
	}
	batch.Queue("commit")

	c, err := b.pool.Acquire(ctx)
	if err != nil {
		db.finish(ctx, res, tao.OK, err, req.Ops[0].Kind.IsEdge())
		return true
	}
	defer c.Release() // runs after the rollback below
	br := c.SendBatch(ctx, batch)
	out, edge := tao.OK, req.Ops[0].Kind.IsEdge()
	if _, err = br.Exec(); err == nil { // begin
		q := pgQ{d: b.d, r: &batchRunner{br}}
		for i := range req.Ops {
			op := &req.Ops[i]
			if out, err = db.op(ctx, &q, op, &res.Ops[i]); err != nil {
				edge = op.Kind.IsEdge()
				break
			}
		}
		if err == nil {
			out = tao.OK
			_, err = br.Exec() // commit
		}
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if c.Conn().PgConn().TxStatus() != 'I' {
		// A failed statement left the transaction open (and aborted);
		// if the rollback fails too, Release discards the connection.
		_, _ = c.Exec(context.Background(), "rollback")
	}
	if err != nil {
		db.finish(ctx, res, out, err, edge)
	}
	return true
}

// pgQueue is a querier that queues statements in a batch and returns no
// rows; readTxn reads their results afterwards.
type pgQueue struct {
	d *dialect
	b *pgx.Batch
}

func (q *pgQueue) first(_ context.Context, s stmt, args ...any) (int64, bool, error) {
	q.b.Queue(q.d.stmts[s], args...)
	return 0, false, nil
}

func (q *pgQueue) count(_ context.Context, s stmt, args ...any) (int, error) {
	q.b.Queue(q.d.stmts[s], args...)
	return 0, nil
}

func (q *pgQueue) exec(_ context.Context, s stmt, args ...any) (int64, error) {
	q.b.Queue(q.d.stmts[s], args...)
	return 0, nil
}

func (q *pgQueue) execSQL(_ context.Context, sql string, args ...any) (int64, error) {
	q.b.Queue(sql, args...)
	return 0, nil
}

func (q *pgQueue) query(_ context.Context, sql string, args []any, _ func(func(...any) error) error) error {
	q.b.Queue(sql, args...)
	return nil
}

// batchRunner hands out a sent batch's results in the order they were queued.
type batchRunner struct{ br pgx.BatchResults }

func (r *batchRunner) Query(context.Context, string, ...any) (pgx.Rows, error) { return r.br.Query() }
func (r *batchRunner) Exec(context.Context, string, ...any) (pgconn.CommandTag, error) {
	return r.br.Exec()
}
