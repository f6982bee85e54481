package sqlstore

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/taobench/taobench/internal/testenv"
	"github.com/taobench/taobench/tao"
)

// msg is one backend message's bytes.
func msg(typ byte, body []byte) []byte {
	b := []byte{typ, 0, 0, 0, 0}
	binary.BigEndian.PutUint32(b[1:], uint32(4+len(body)))
	return append(b, body...)
}

// dataRow is a DataRow of one int8 column.
func dataRow(v int64) []byte {
	b := []byte{0, 1, 0, 0, 0, 8}
	return msg('D', binary.BigEndian.AppendUint64(b, uint64(v)))
}

func errorResponse(t *testing.T, severity, code string) []byte {
	t.Helper()
	b, err := (&pgproto3.ErrorResponse{Severity: severity, SeverityUnlocalized: severity, Code: code, Message: "m"}).Encode(nil)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestPgFastAnswer: the fast path reads its answers itself (answer), so
// what pgconn would have kept from them must close the connection, and
// the rows and errors must come out as through pgconn. Each case runs on
// a real connection, whose closing is checked.
func TestPgFastAnswer(t *testing.T) {
	url := testenv.PostgresURL(t)
	ctx := context.Background()
	bind, done := msg('2', nil), msg('C', []byte("SELECT 1\x00"))
	ready := func(status byte) []byte { return msg('Z', []byte{status}) }
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	for _, c := range []struct {
		name   string
		in     []byte
		v      int64 // the first row's value; 0: no row
		code   string
		closed bool
	}{
		{"clean", cat(bind, dataRow(42), done, ready('I')), 42, "", false},
		{"notice and notification dropped", cat(bind, msg('N', []byte("SNOTICE\x00\x00")), dataRow(5), msg('A', []byte{0, 0, 0, 1, 'c', 0, 0}), done, ready('I')), 5, "", false},
		{"a parameter's new value", cat(bind, dataRow(42), msg('S', []byte("in_hot_standby\x00off\x00")), done, ready('I')), 42, "", true},
		{"in a transaction", cat(bind, dataRow(42), done, ready('T')), 42, "", true},
		{"bytes after the answer", cat(bind, dataRow(42), done, ready('I'), msg('N', []byte("SNOTICE\x00\x00"))), 42, "", true},
		{"the server's error", cat(errorResponse(t, "ERROR", "42P01"), ready('I')), 0, "42P01", false},
		{"the first error wins", cat(errorResponse(t, "ERROR", "42P01"), errorResponse(t, "ERROR", "22000"), ready('I')), 0, "42P01", false},
		{"a fatal error", cat(errorResponse(t, "FATAL", "57P01"), ready('I')), 0, "57P01", true},
		{"a broken row", cat(bind, msg('D', []byte{0, 1, 0, 0, 0, 9, 1}), done, ready('I')), 0, "protocol", true},
		{"an unknown message", cat(bind, msg('x', nil), ready('I')), 0, "protocol", true},
		{"no ready", cat(bind, dataRow(1), done), 0, "protocol", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			pc, err := pgconn.Connect(ctx, url)
			if err != nil {
				t.Fatal(err)
			}
			defer pc.Close(ctx)
			f := &pgFastConn{in: c.in}
			r := &oneRead{first: true}
			cols := []pgconn.FieldDescription{{DataTypeOID: pgtype.Int8OID, Format: pgtype.BinaryFormatCode}}
			err = f.answer(&quietCtx{ctx}, pc, &pgconn.StatementDescription{SQL: "q"}, cols, r)
			var pe *pgconn.PgError
			switch {
			case c.code == "protocol":
				if err == nil || errors.As(err, &pe) {
					t.Fatalf("err %v, want the fast path's own", err)
				}
			case c.code != "":
				if !errors.As(err, &pe) || pe.Code != c.code {
					t.Fatalf("err %v, want the server's %s", err, c.code)
				}
			case err != nil:
				t.Fatal(err)
			case c.v != 0 && (r.n != 1 || r.v != c.v):
				t.Fatalf("%d rows, first %d; want 1, %d", r.n, r.v, c.v)
			}
			if pc.IsClosed() != c.closed {
				t.Fatalf("connection closed %v, want %v", pc.IsClosed(), c.closed)
			}
		})
	}
}

// TestPgFastWhole: the answer is whole at its ReadyForQuery, however the
// bytes came, and not before.
func TestPgFastWhole(t *testing.T) {
	a := bytes.Join([][]byte{msg('2', nil), dataRow(1), dataRow(2), msg('C', []byte("SELECT 2\x00")), msg('Z', []byte{'I'})}, nil)
	for step := 1; step <= len(a); step++ {
		f := &pgFastConn{}
		for at := 0; at < len(a); at += step {
			f.in = append(f.in, a[at:min(at+step, len(a))]...)
			if got, want := f.whole(), at+step >= len(a); got != want {
				t.Fatalf("step %d, %d of %d bytes: whole %v", step, len(f.in), len(a), got)
			}
		}
	}
}

// TestPgFastPathLargeAnswer: a range read whose answer takes many reads of
// the socket (5,000 rows of 140 bytes) comes out whole, on the fast path.
func TestPgFastPathLargeAnswer(t *testing.T) {
	ctx := context.Background()
	var edges []tao.Edge
	for k := range int64(5000) {
		edges = append(edges, tao.Edge{ID1: 1, Type: tao.TypeOther, ID2: 10 + k, Time: k, Value: bytes.Repeat([]byte{'x'}, 140)})
	}
	db := openLoaded(t, "pool_max_conns=1", []tao.Object{{ID: 1, Time: 1, Value: []byte("v")}}, edges)
	watched, cancel := context.WithCancel(ctx)
	defer cancel()
	defer db.WatchContext(watched)()
	b := db.b.(*pgBackend)
	in := func() []byte { // the one connection's answer buffer
		b.watch.mu.Lock()
		defer b.watch.mu.Unlock()
		for g := range b.watch.conns {
			if g.fast.sd[sEdgeRange] == nil {
				t.Fatal("the range read did not take the fast path")
			}
			return g.fast.in
		}
		t.Fatal("no connection")
		return nil
	}
	for _, limit := range []int{5000, 7, 5000} {
		var res tao.Result
		res.Reset(1)
		db.Exec(watched, &tao.Request{Class: tao.Read, Ops: []tao.Op{{Kind: tao.EdgeRangeRead, ID1: 1, Type: tao.TypeOther, Limit: limit}}}, &res)
		if res.Err != nil || res.Ops[0].Rows != limit {
			t.Fatalf("range read of %d: %d rows, err %v", limit, res.Ops[0].Rows, res.Err)
		}
		switch buf := in(); {
		case limit == 5000 && len(buf) < 5000*140:
			t.Fatalf("the fast path read %d bytes of the answer, want it all (over %d)", len(buf), 5000*140)
		case limit == 7 && cap(buf) > keptAnswer:
			t.Fatalf("after the large answer a small one kept a buffer of %d bytes, want at most %d", cap(buf), keptAnswer)
		}
	}
}
