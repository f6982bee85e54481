package spannerstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"cloud.google.com/go/spanner"
	"google.golang.org/api/iterator"
	"google.golang.org/grpc/codes"

	"github.com/taobench/taobench/tao"
)

// DefaultLimit caps list reads that give no limit, as TAO caps them (the
// SQL stores' figure).
const DefaultLimit = 6000

var (
	objCols  = []string{"Id", "Time", "Version", "Value"}
	edgeCols = []string{"Id1", "Type", "Id2", "Time", "Version", "Value"}
)

// reader is what a single-use read, a read-only and a read-write
// transaction have in common.
type reader interface {
	ReadRow(ctx context.Context, table string, key spanner.Key, columns []string) (*spanner.Row, error)
	Query(ctx context.Context, statement spanner.Statement) *spanner.RowIterator
}

// Exec executes one request; see the package documentation.
func (db *DB) Exec(ctx context.Context, req *tao.Request, res *tao.Result) {
	if len(res.Ops) != len(req.Ops) {
		res.Reset(len(req.Ops))
	}
	if len(req.Ops) == 0 {
		return
	}
	readOnly := true
	for i := range req.Ops {
		if !req.Ops[i].Kind.IsRead() {
			readOnly = false
		}
	}
	edge := req.Ops[0].Kind.IsEdge()
	if readOnly {
		release, err := db.enter(ctx, false) // on the emulator, beside no write (emulator.go)
		if err != nil {
			db.finish(ctx, res, err, edge)
			return
		}
		defer release()
		var r reader
		if len(req.Ops) == 1 {
			ro := db.client.Single()
			defer ro.Close()
			r = ro
		} else {
			ro := db.client.ReadOnlyTransaction() // one snapshot for all reads
			defer ro.Close()
			r = ro
		}
		for i := range req.Ops {
			out, err := db.read(ctx, r, &req.Ops[i], &res.Ops[i])
			if err != nil {
				db.finish(ctx, res, err, req.Ops[i].Kind.IsEdge())
				return
			}
			if len(req.Ops) == 1 {
				res.Outcome = out // a miss inside a read transaction is a result
			}
		}
		return
	}
	db.write(ctx, req, res, edge)
}

// finish sets res from the error that ended a request.
func (db *DB) finish(ctx context.Context, res *tao.Result, err error, edge bool) {
	c := spanner.ErrCode(err)
	if c != codes.Unknown && c != codes.OK {
		res.Code = codeName(c)
	}
	switch {
	case ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) ||
		c == codes.DeadlineExceeded || c == codes.Canceled:
		res.Outcome, res.Err = tao.Timeout, err
	case c == codes.Aborted || db.emulatorConflict(err):
		// Spanner aborts a transaction that lost a lock conflict
		// (wound-wait) or found its snapshot gone, the emulator one that
		// lost to another transaction (emulator.go): a conflict the
		// runner retries.
		res.Outcome = tao.ConflictObject
		if edge {
			res.Outcome = tao.ConflictAssociation
		}
	default:
		res.Outcome, res.Err = tao.Error, err
	}
}

func limit(n int) int64 {
	if n <= 0 {
		return DefaultLimit
	}
	return int64(n)
}

// version reads one row's version; ok is false when it is absent.
func version(ctx context.Context, r reader, table string, key spanner.Key) (v int64, ok bool, err error) {
	row, err := r.ReadRow(ctx, table, key, []string{"Version"})
	if errors.Is(err, spanner.ErrRowNotFound) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	return v, true, row.Columns(&v)
}

// count runs a query and counts its rows (or returns its one value, when
// single).
func count(ctx context.Context, r reader, st spanner.Statement, single bool) (int, error) {
	it := r.Query(ctx, st)
	defer it.Stop()
	n := 0
	for {
		row, err := it.Next()
		if err == iterator.Done {
			return n, nil
		}
		if err != nil {
			return 0, err
		}
		if single {
			var c int64
			if err := row.Columns(&c); err != nil {
				return 0, err
			}
			return int(c), nil
		}
		n++
	}
}

// List reads use the time index, which Spanner uses only when told to.
const (
	listSQL  = "SELECT Id2 FROM Edges@{FORCE_INDEX=EdgesByTime} WHERE Id1 = @id1 AND Type = @type"
	rangeSQL = listSQL + " ORDER BY Time DESC LIMIT @lim OFFSET @off"
	timeSQL  = listSQL + " AND Time >= @lo AND Time <= @hi ORDER BY Time DESC LIMIT @lim"
	countSQL = "SELECT COUNT(*) FROM Edges WHERE Id1 = @id1 AND Type = @type"
)

// read runs one read. The outcome is OK or NotFound when err is nil.
func (db *DB) read(ctx context.Context, r reader, op *tao.Op, res *tao.OpResult) (tao.Outcome, error) {
	params := map[string]any{"id1": op.ID1, "type": int64(op.Type)}
	var err error
	switch op.Kind {
	case tao.ObjRead:
		res.Version, res.Found, err = version(ctx, r, "Objects", spanner.Key{op.ID1})
	case tao.EdgePointRead:
		res.Version, res.Found, err = version(ctx, r, "Edges", spanner.Key{op.ID1, int64(op.Type), op.ID2})
	case tao.EdgeRangeRead:
		params["lim"], params["off"] = limit(op.Limit), int64(max(op.Offset, 0))
		res.Rows, err = count(ctx, r, spanner.Statement{SQL: rangeSQL, Params: params}, false)
		return tao.OK, err
	case tao.EdgeCountRead:
		res.Rows, err = count(ctx, r, spanner.Statement{SQL: countSQL, Params: params}, true)
		return tao.OK, err
	case tao.EdgeTimeRead:
		params["lo"], params["hi"], params["lim"] = op.Low, op.High, limit(op.Limit)
		res.Rows, err = count(ctx, r, spanner.Statement{SQL: timeSQL, Params: params}, false)
		return tao.OK, err
	default:
		return tao.Error, errUnknownKind(op.Kind)
	}
	if err == nil && !res.Found {
		return tao.NotFound, nil
	}
	return tao.OK, err
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

func errUnknownKind(k tao.Kind) error {
	return fmt.Errorf("operation kind %v is not one taobench knows", k)
}
