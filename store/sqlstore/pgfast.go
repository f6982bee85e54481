package sqlstore

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"
)

// The single reads of a run (object and edge point reads, counts, range
// reads, which are counted, not decoded) are most of a read-heavy
// workload's requests, and they skip pgx's query layer, through pgconn's
// public API only: each connection prepares them once under its own names
// (PgConn.Prepare) and executes them with ExecStatement, its integer
// parameters pre-encoded in binary into buffers the connection keeps (in
// PgConn.CustomData), the rows taken off the ResultReader in binary
// without a copy. pgx's Query would look the statement up by its text,
// plan each argument's encoding through its type map and set up its Rows
// (4.8% of a closed-loop client's CPU samples on workload o,
// docs/performance.md); the messages the server gets (Bind, Execute, Sync
// on a prepared statement, binary formats) are the same. Anything the
// fast path does not know (an argument type or parameter type it does not
// encode, a value out of its parameter's range) goes to pgx as before,
// before anything is sent, and so does everything when the URL's
// default_query_exec_mode asks pgx for no named prepared statements (as
// behind PgBouncer's transaction pooling). Read transactions of point
// reads (pgReadTxn, one statement over six arrays: pipeline.go) take the
// same path, their arrays written here too. TLS and plain sockets take the
// same code: pgconn reads and writes the socket.

// pgFastConn is a connection's fast-path state.
type pgFastConn struct {
	sd     [numFast]*pgconn.StatementDescription // prepared here, nil until first used
	buf    []byte                                // the parameters' bytes
	ends   []int                                 // where each parameter ends in buf
	params [][]byte                              // slices of buf, one per parameter
	one    oneRead                               // the single read in progress
}

// fastKey is the fast path's entry in a connection's CustomData.
const fastKey = "taobench.fast"

// fastState returns pc's fast-path state, made on first use.
func fastState(pc *pgconn.PgConn) *pgFastConn {
	m := pc.CustomData()
	f, _ := m[fastKey].(*pgFastConn)
	if f == nil {
		f = &pgFastConn{}
		m[fastKey] = f
	}
	return f
}

// The fast path's statements: each single read's, by its stmt, and the
// read transaction's (pgReadTxn), after them.
const (
	fastTxn = int(numStmts)
	numFast = fastTxn + 1
)

// A fastRead is what runs on the fast path: it writes its parameters
// for a prepared statement and takes the rows.
type fastRead interface {
	// encode sets f.params for sd; false if sd's parameters are not the
	// ones it writes (nothing is sent then).
	encode(f *pgFastConn, sd *pgconn.StatementDescription) bool
	// row takes one row; an error is kept, the answer still read to its end.
	row(cols []pgconn.FieldDescription, values [][]byte) error
}

// oneRead is a single read: it counts the rows and, when first is set,
// decodes the first row's first column as an integer.
type oneRead struct {
	args  intArgs
	first bool
	n     int
	v     int64
}

func (r *oneRead) encode(f *pgFastConn, sd *pgconn.StatementDescription) bool {
	return f.encode(sd.ParamOIDs, r.args.ints())
}

func (r *oneRead) row(cols []pgconn.FieldDescription, values [][]byte) error {
	if r.n == 0 && r.first {
		v, ok := rawInt(cols, values)
		if !ok {
			return errFastNull
		}
		r.v = v
	}
	r.n++
	return nil
}

// binaryFormat is the one format code that applies to every parameter
// and every result column.
var binaryFormat = []int16{pgtype.BinaryFormatCode}

// fastName is fast statement k's prepared name on every connection.
func fastName(k int) string { return "taobench_fast_" + strconv.Itoa(k) }

// errFastNull: a statement first decodes returned NULL or a non-integer
// in its first column, which none of taobench's tables hold.
var errFastNull = errors.New("the first column is NULL or not an integer")

// pgPool is the store's pool; prepare says whether single reads may
// prepare their own statements (not when the URL chose a mode of pgx's
// without named prepared statements).
type pgPool struct {
	*pgxpool.Pool
	prepare bool
}

// fast runs read statement s on the fast path. It returns the rows'
// number and, when first is set, the first row's first column as an
// integer. handled is false when the fast path does not apply: nothing
// was sent, and the caller runs the statement through pgx.
func (p *pgPool) fast(ctx context.Context, s stmt, sql string, args []any, first bool) (n int, v int64, handled bool, err error) {
	a, ok := toInts(args)
	if !ok {
		return 0, 0, false, nil
	}
	return p.fastInts(ctx, s, sql, a, first)
}

// fastInts is fast with its integer arguments unboxed, as DB.op passes
// them.
func (p *pgPool) fastInts(ctx context.Context, s stmt, sql string, args intArgs, first bool) (n int, v int64, handled bool, err error) {
	var r *oneRead
	handled, err = p.fastRun(ctx, int(s), sql, func(f *pgFastConn) fastRead {
		r = &f.one
		*r = oneRead{args: args, first: first}
		return r
	}, func() { n, v = r.n, r.v })
	if !handled || err != nil {
		return 0, 0, handled, err
	}
	return n, v, true, nil
}

// fastRun runs fast statement k (text sql) with the read read returns for
// the connection's state; handled as fast's. done, when not nil, is called
// after an answer read without error, while the connection is still held:
// a read kept in the connection's state must be taken out of it then, as
// the next client to acquire the connection starts its own read in the
// same place.
func (p *pgPool) fastRun(ctx context.Context, k int, sql string, read func(*pgFastConn) fastRead, done func()) (handled bool, err error) {
	if !p.prepare {
		return false, nil
	}
	c, err := p.Acquire(ctx)
	if err != nil {
		return true, err
	}
	defer c.Release()
	pc := c.Conn().PgConn()
	f := fastState(pc)
	r := read(f)
	for try := 0; ; try++ {
		sd := f.sd[k]
		if sd == nil {
			if sd, err = pc.Prepare(ctx, fastName(k), sql, nil); err != nil {
				return true, err
			}
			f.sd[k] = sd
		}
		if !r.encode(f, sd) || len(sd.Fields) == 0 {
			return false, nil // (no columns known: pgx asks the server to describe them)
		}
		err = fastExec(ctx, pc, f, sd, r)
		if try > 0 || !stalePrepared(err) || pc.IsClosed() {
			if err == nil && done != nil {
				done()
			}
			return true, err
		}
		// The statement no longer matches the tables (they were dropped and
		// made anew, or the server forgot it): prepare it again, once. A
		// read's first attempt changed nothing.
		f.sd[k] = nil
		if err := pc.Deallocate(ctx, fastName(k)); err != nil {
			return true, err
		}
		r = read(f) // from the start: the rows taken so far go
	}
}

// fastExec executes a prepared read (Bind, Execute, Sync in one write,
// every parameter and column binary) and hands its rows to r as pgconn
// reads them. The server's error comes first; then one of r's.
func fastExec(ctx context.Context, pc *pgconn.PgConn, f *pgFastConn, sd *pgconn.StatementDescription, r fastRead) error {
	rr := pc.ExecStatement(ctx, sd, f.params, binaryFormat, binaryFormat)
	var derr error
	for rr.NextRow() {
		if err := r.row(rr.FieldDescriptions(), rr.Values()); err != nil && derr == nil {
			derr = fmt.Errorf("%s: %w", sd.SQL, err)
		}
	}
	if _, err := rr.Close(); err != nil {
		return err
	}
	return derr
}

// stalePrepared reports the server's refusal of a prepared statement it
// no longer has or whose result no longer matches its plan.
func stalePrepared(err error) bool {
	if err == nil {
		return false // (errors.As would allocate its target on every answer)
	}
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return false
	}
	return pe.Code == "26000" || (pe.Code == "0A000" && pe.Message == "cached plan must not change result type")
}

// toInts returns args as intArgs; false when one is of a type the fast
// path does not encode or there are more than intArgs holds.
func toInts(args []any) (a intArgs, ok bool) {
	if len(args) > len(a.v) {
		return a, false
	}
	for i, x := range args {
		if a.v[i], ok = intArg(x); !ok {
			return a, false
		}
	}
	a.n = len(args)
	return a, true
}

// intArg is an argument the fast path encodes, as an int64.
func intArg(a any) (int64, bool) {
	switch a := a.(type) {
	case int64:
		return a, true
	case int:
		return int64(a), true
	}
	return 0, false
}

// intWidth is the binary width of an integer parameter type, 0 for any
// other type.
func intWidth(oid uint32) int {
	switch oid {
	case pgtype.Int8OID:
		return 8
	case pgtype.Int4OID:
		return 4
	case pgtype.Int2OID:
		return 2
	}
	return 0
}

// encode writes args as the binary integers oids ask for; false if a
// parameter is of another type or a value outside its range.
func (f *pgFastConn) encode(oids []uint32, args []int64) bool {
	if len(oids) != len(args) {
		return false
	}
	f.begin()
	for i, x := range args {
		switch intWidth(oids[i]) {
		case 8:
			f.buf = binary.BigEndian.AppendUint64(f.buf, uint64(x))
		case 4:
			if x < math.MinInt32 || x > math.MaxInt32 {
				return false
			}
			f.buf = binary.BigEndian.AppendUint32(f.buf, uint32(x))
		case 2:
			if x < math.MinInt16 || x > math.MaxInt16 {
				return false
			}
			f.buf = binary.BigEndian.AppendUint16(f.buf, uint16(x))
		default:
			return false
		}
		f.end()
	}
	f.cut()
	return true
}

// begin starts writing a request's parameters into buf, end marks the end
// of the one just written, and cut slices params out of buf: after the
// appends, which may have moved it.
func (f *pgFastConn) begin() { f.buf, f.ends = f.buf[:0], f.ends[:0] }
func (f *pgFastConn) end()   { f.ends = append(f.ends, len(f.buf)) }
func (f *pgFastConn) cut() {
	f.params = f.params[:0]
	at := 0
	for _, e := range f.ends {
		f.params = append(f.params, f.buf[at:e])
		at = e
	}
}
