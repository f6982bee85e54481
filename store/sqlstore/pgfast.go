package sqlstore

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"slices"
	"strconv"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/jackc/pgx/v5/pgtype"
)

// The single reads of a run (object and edge point reads, counts, range
// reads, which are counted, not decoded) are most of a read-heavy
// workload's requests, and on the watched path (pgwatch.go) they skip
// pgx's query layer: each connection prepares them once under its own
// names and runs them below pgconn's ExecStatement (fastExec), with
// integer parameters written straight into a buffer the connection keeps
// (16-21% fewer of the client's own instructions per read than through
// ExecStatement, by bench/instructions.sh). pgx's
// Query looked the statement up by its text, planned each argument's
// encoding through its type map and set up its Rows: 4.8% of a
// closed-loop client's CPU samples on workload o, a saving of 0-5% of its
// CPU when measured (docs/performance.md); the messages the server gets
// (Bind, Execute, Sync on a prepared statement, binary formats) are the
// same. Anything the fast path does not know (another context, an
// argument type or parameter type it does not encode, a value out of its
// parameter's range) goes to pgx as before, before anything is sent, and
// so does everything when the URL's default_query_exec_mode asks pgx for
// no named prepared statements. Read transactions of point reads
// (pgReadTxn, one statement over six arrays: pipeline.go) take the same
// path, with their arrays written here too: half the client's own
// instructions per transaction of ten reads.

// pgFastConn is a connection's fast-path state.
type pgFastConn struct {
	sd     [numFast]*pgconn.StatementDescription // prepared here, nil until first used
	cols   [numFast][]pgconn.FieldDescription    // each one's result columns, as the binary results decode them
	buf    []byte                                // the parameters' bytes
	ends   []int                                 // where each parameter ends in buf
	params [][]byte                              // slices of buf, one per parameter
	msg    []byte                                // the request's messages, built in place
	one    oneRead                               // the single read in progress

	// On a plain socket (not TLS) the request is written in a raw write of
	// the socket and the answer read in a raw read (roundTrip): raw is the
	// socket, writer and reader the callbacks (writeRequest and
	// readAnswer, method values made once), sent how much of msg is
	// written, werr the write's error. The answer is read into in, up to
	// its ReadyForQuery; rerr is the read's error, scan where the next
	// message not yet looked at starts, vals a row's columns.
	raw    syscall.RawConn
	writer func(fd uintptr) bool
	reader func(fd uintptr) bool
	sent   int
	werr   error
	in     []byte
	rerr   error
	scan   int
	vals   [][]byte
}

// init readies f for the dialled connection c.
func (f *pgFastConn) init(c net.Conn) {
	if sc, ok := c.(syscall.Conn); ok {
		if raw, err := sc.SyscallConn(); err == nil {
			f.raw, f.writer, f.reader = raw, f.writeRequest, f.readAnswer
		}
	}
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
	args  []any
	first bool
	n     int
	v     int64
}

func (r *oneRead) encode(f *pgFastConn, sd *pgconn.StatementDescription) bool {
	return f.encode(sd.ParamOIDs, r.args)
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

// fast runs read statement s on the watched path. It returns the rows'
// number and, when first is set, the first row's first column as an
// integer. handled is false when the fast path does not apply: nothing
// was sent, and the caller runs the statement through pgx.
func (p *watchedPool) fast(ctx context.Context, s stmt, sql string, args []any, first bool) (n int, v int64, handled bool, err error) {
	if !fastArgs(args) {
		return 0, 0, false, nil
	}
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

// fastRun runs fast statement k (text sql) on the watched path, with the
// read read returns for the connection's state; handled as fast's. done,
// when not nil, is called after an answer read without error, while the
// connection is still held: a read kept in the connection's state must be
// taken out of it then, as the next client to acquire the connection
// starts its own read in the same place.
func (p *watchedPool) fastRun(ctx context.Context, k int, sql string, read func(*pgFastConn) fastRead, done func()) (handled bool, err error) {
	if !p.prepare {
		return false, nil
	}
	q := p.w.quiet(ctx)
	if q == nil {
		return false, nil
	}
	c, g, err := p.acquire(ctx, q)
	if err != nil {
		return true, err
	}
	defer c.Release()
	if g == nil {
		return false, nil
	}
	defer g.end()
	pc := c.Conn().PgConn()
	f := &g.fast
	raw := f.raw
	if pc.Conn() != net.Conn(g) {
		raw = nil // TLS over the socket: its bytes are not the request's
	}
	r := read(f)
	for try := 0; ; try++ {
		sd := f.sd[k]
		if sd == nil {
			if sd, err = pc.Prepare(q, fastName(k), sql, nil); err != nil {
				return true, err
			}
			f.sd[k], f.cols[k] = sd, binaryCols(sd.Fields)
		}
		if !r.encode(f, sd) || len(sd.Fields) == 0 {
			return false, nil // (no columns known: pgx asks the server to describe them)
		}
		if pc.IsClosed() {
			return false, nil // pgx says why
		}
		err = fastExec(q, pc, raw, f, sd, f.cols[k], r)
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
		if err := pc.Deallocate(q, fastName(k)); err != nil {
			return true, err
		}
		r = read(f) // from the start: the rows taken so far go
	}
}

// binaryCols returns the columns as the results come: binary.
func binaryCols(fd []pgconn.FieldDescription) []pgconn.FieldDescription {
	cols := slices.Clone(fd)
	for i := range cols {
		cols[i].Format = pgtype.BinaryFormatCode
	}
	return cols
}

// fastExec executes a prepared read and reads its rows below pgconn's
// ExecStatement: it writes the Bind, Execute and Sync itself
// (appendRequest), in one write as ExecStatement does. What it leaves out
// is what ExecStatement does for queries in general: a timer reset and
// stopped around every write (pgconn's guard against a write that blocks
// while the server blocks writing to us, which cannot happen when every
// answer is read before the next request), a context watch per query (the
// watched path has its own, pgwatch.go) and the general message encoder.
// On a plain socket (raw) the request is written in a raw write and the
// answer read in a raw read (roundTrip) and parsed here (answer); over TLS
// the answer is read through pgconn's ReceiveMessage. Any failure but the
// server's error response leaves the connection mid-answer, so it is
// closed, as pgconn closes it.
func fastExec(q *quietCtx, pc *pgconn.PgConn, raw syscall.RawConn, f *pgFastConn, sd *pgconn.StatementDescription, cols []pgconn.FieldDescription, r fastRead) error {
	f.msg = appendRequest(f.msg[:0], sd.Name, f.params)
	if raw != nil {
		if err := f.roundTrip(q, pc, raw); err != nil {
			err = fastBroken(q, pc, err)
			if perr := f.firstError(); perr != nil {
				err = perr // the first error wins, as below
			}
			return err
		}
		return f.answer(q, pc, sd, cols, r)
	}
	if _, err := pc.Conn().Write(f.msg); err != nil {
		return fastBroken(q, pc, err)
	}
	var perr, derr error
	for {
		msg, err := pc.ReceiveMessage(context.Background())
		if err != nil {
			err = fastBroken(q, pc, err)
			if perr != nil {
				err = perr // the first error wins, as in pgx's ResultReader
			}
			return err
		}
		switch m := msg.(type) {
		case *pgproto3.DataRow:
			if err := r.row(cols, m.Values); err != nil && derr == nil {
				derr = fmt.Errorf("%s: %w", sd.SQL, err)
			}
		case *pgproto3.ErrorResponse:
			if perr == nil {
				perr = pgconn.ErrorResponseToPgError(m)
			}
		case *pgproto3.ReadyForQuery:
			if perr != nil {
				return perr
			}
			return derr
		}
	}
}

// keptAnswer is the most buffer a connection keeps from one answer to the
// next (a connection per client: 64 KiB each at most, where one range
// read of thousands of rows could otherwise pin a megabyte each).
const keptAnswer = 64 << 10

// roundTrip writes f.msg in a raw write of the socket and reads the
// answer into f.in, up to its ReadyForQuery, in a raw read. The read comes
// right after the write, before any wait: on a cheap request the answer is
// often there already, and a read that finds it spares the client a park
// and the poller's wakeup, while one that finds nothing costs an EAGAIN.
// Writing the request from within the raw read instead, which waits
// before it reads (the previous design), cost 11% more CPU per object
// read and 20% of the throughput at 16 clients (docs/performance.md, "The
// answer read right after the request"). The raw read holds the socket's
// read lock, so a read pgconn still has in progress in the background
// (its guard against slow writes, which a query through pgx may have
// started) is ended first by SyncConn, which is immediate when there is
// none.
func (f *pgFastConn) roundTrip(q *quietCtx, pc *pgconn.PgConn, raw syscall.RawConn) error {
	if err := pc.SyncConn(q); err != nil {
		return err
	}
	in := f.in[:0]
	if cap(in) > keptAnswer {
		in = nil // a large answer's buffer is not kept for every request after it
	}
	f.sent, f.werr, f.rerr, f.in, f.scan = 0, nil, nil, in, 0
	if err := raw.Write(f.writer); err != nil {
		return err
	}
	if f.werr != nil {
		return f.werr
	}
	if err := raw.Read(f.reader); err != nil {
		return err
	}
	return f.rerr
}

// writeRequest is the raw write's callback: it writes the rest of f.msg,
// asking to wait for room when the socket's buffer is full.
func (f *pgFastConn) writeRequest(fd uintptr) bool {
	for f.sent < len(f.msg) {
		n, err := syscall.Write(int(fd), f.msg[f.sent:])
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EAGAIN:
			return false
		case err != nil:
			f.werr = err
			return true
		}
		f.sent += n
	}
	return true
}

// readAnswer is the raw read's callback: it reads what has come, and ends
// the raw read with the answer whole, or asks to wait when the socket has
// nothing more (having read until EAGAIN, so that the next bytes mark the
// socket ready anew: the poller is edge-triggered).
func (f *pgFastConn) readAnswer(fd uintptr) bool {
	for {
		if len(f.in) == cap(f.in) {
			f.in = slices.Grow(f.in, max(4096, len(f.in)))
		}
		n, err := syscall.Read(int(fd), f.in[len(f.in):cap(f.in)])
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EAGAIN:
			return false
		case err != nil:
			f.rerr = err
			return true
		case n == 0:
			f.rerr = io.ErrUnexpectedEOF
			return true
		}
		f.in = f.in[:len(f.in)+n]
		if f.whole() {
			return true
		}
	}
}

// whole reports whether f.in holds a ReadyForQuery, looking only at the
// messages not looked at before.
func (f *pgFastConn) whole() bool {
	for {
		n := message(f.in[f.scan:])
		switch {
		case n < 0:
			return true // a length no message has: answer says so
		case n == 0:
			return false
		case f.in[f.scan] == 'Z':
			return true
		}
		f.scan += n
	}
}

// message returns the length of the backend message at the start of b
// (type, length, body): 0 while b does not hold all of it, -1 for a length
// no message has.
func message(b []byte) int {
	if len(b) < 5 {
		return 0
	}
	l := int(binary.BigEndian.Uint32(b[1:]))
	switch {
	case l < 4:
		return -1
	case len(b) < 1+l:
		return 0
	}
	return 1 + l
}

// errFastProtocol is an answer the fast path cannot read; the connection
// is closed.
var errFastProtocol = errors.New("fast path: unexpected answer from the server")

// answer parses the answer in f.in for read r, as fastExec's
// ReceiveMessage loop does over TLS: rows to r, the first error wins, and
// the server's error response is returned as pgx returns it. pgconn does
// not see these messages, so what it would have kept from them must not
// be there: a ReadyForQuery whose transaction status is not idle (the
// status pgconn holds, and the pool checks), a parameter's new value, or
// bytes after the ReadyForQuery close the connection once the answer is
// taken, as does a FATAL error (pgconn's default OnPgError). Notices and
// notifications are dropped, as pgconn drops them with no handler set.
func (f *pgFastConn) answer(q *quietCtx, pc *pgconn.PgConn, sd *pgconn.StatementDescription, cols []pgconn.FieldDescription, r fastRead) error {
	var perr, derr error
	closeAfter := false
	b := f.in
	for n := message(b); n > 0; n = message(b) {
		typ, body := b[0], b[5:n]
		b = b[n:]
		switch typ {
		case 'D':
			vals, ok := f.row(body)
			if !ok {
				return fastBroken(q, pc, errFastProtocol)
			}
			if err := r.row(cols, vals); err != nil && derr == nil {
				derr = fmt.Errorf("%s: %w", sd.SQL, err)
			}
		case 'E':
			var m pgproto3.ErrorResponse
			if err := m.Decode(body); err != nil {
				return fastBroken(q, pc, err)
			}
			if perr == nil {
				pe := pgconn.ErrorResponseToPgError(&m)
				perr = pe
				closeAfter = closeAfter || pe.Severity == "FATAL" || pe.Severity == "PANIC"
			}
		case 'S':
			closeAfter = true
		case 'Z':
			if len(body) != 1 || body[0] != 'I' || len(b) != 0 {
				closeAfter = true
			}
			if closeAfter {
				fastClose(pc)
			}
			if perr != nil {
				return perr
			}
			return derr
		case '2', 'C', 'n', 'I', 's', 'N', 'A':
		default:
			return fastBroken(q, pc, fmt.Errorf("%w: message %q", errFastProtocol, typ))
		}
	}
	return fastBroken(q, pc, errFastProtocol) // no ReadyForQuery: whole was wrong
}

// firstError returns the first whole error response in f.in, nil for
// none: a server that ends the connection says why first.
func (f *pgFastConn) firstError() error {
	for b, n := f.in, message(f.in); n > 0; b, n = b[n:], message(b[n:]) {
		if b[0] == 'E' {
			var m pgproto3.ErrorResponse
			if m.Decode(b[5:n]) != nil {
				return nil
			}
			return pgconn.ErrorResponseToPgError(&m)
		}
	}
	return nil
}

// row splits a DataRow's body into its columns' values (nil for NULL),
// in a slice f keeps.
func (f *pgFastConn) row(body []byte) ([][]byte, bool) {
	if len(body) < 2 {
		return nil, false
	}
	n := int(binary.BigEndian.Uint16(body))
	body = body[2:]
	f.vals = f.vals[:0]
	for range n {
		if len(body) < 4 {
			return nil, false
		}
		l := int(int32(binary.BigEndian.Uint32(body)))
		body = body[4:]
		if l < 0 {
			f.vals = append(f.vals, nil)
			continue
		}
		if len(body) < l {
			return nil, false
		}
		f.vals = append(f.vals, body[:l:l])
		body = body[l:]
	}
	return f.vals, len(body) == 0
}

// executeSync is an Execute of the unnamed portal, all rows, and a Sync.
var executeSync = []byte{'E', 0, 0, 0, 9, 0, 0, 0, 0, 0, 'S', 0, 0, 0, 4}

// appendRequest appends the messages of one read to b: a Bind of prepared
// statement name to the unnamed portal with params, every parameter and
// result in binary, then Execute and Sync; the bytes pgproto3 encodes for
// them (TestPgFastRequest), without the general encoder's per-request work
// (a tenth of the client's own instructions for a point read, by
// bench/instructions.sh).
func appendRequest(b []byte, name string, params [][]byte) []byte {
	b = append(b, 'B')
	at := len(b)
	b = append(b, 0, 0, 0, 0) // the length, set below
	b = append(b, 0)          // the unnamed portal
	b = append(b, name...)
	b = append(b, 0)
	b = binary.BigEndian.AppendUint16(b, 1) // one format code for every parameter:
	b = binary.BigEndian.AppendUint16(b, pgtype.BinaryFormatCode)
	b = binary.BigEndian.AppendUint16(b, uint16(len(params)))
	for _, p := range params {
		b = binary.BigEndian.AppendUint32(b, uint32(len(p)))
		b = append(b, p...)
	}
	b = binary.BigEndian.AppendUint16(b, 1) // and one for every result column
	b = binary.BigEndian.AppendUint16(b, pgtype.BinaryFormatCode)
	binary.BigEndian.PutUint32(b[at:], uint32(len(b)-at))
	return append(b, executeSync...)
}

// fastClose closes the connection, which the pool then drops.
func fastClose(pc *pgconn.PgConn) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	_ = pc.Close(ctx)
	cancel()
}

// fastBroken closes a connection left mid-answer by err and returns err
// as pgx would: the watched context's own error when its end set the
// deadline that interrupted the exchange.
func fastBroken(q *quietCtx, pc *pgconn.PgConn, err error) error {
	fastClose(pc)
	if cerr := q.Err(); cerr != nil && isTimeout(err) {
		return cerr
	}
	return err
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

// fastArgs reports whether the fast path encodes every argument's type.
func fastArgs(args []any) bool {
	for _, a := range args {
		if _, ok := intArg(a); !ok {
			return false
		}
	}
	return true
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
func (f *pgFastConn) encode(oids []uint32, args []any) bool {
	if len(oids) != len(args) {
		return false
	}
	f.begin()
	for i, a := range args {
		x, ok := intArg(a)
		if !ok {
			return false
		}
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
