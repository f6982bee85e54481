package main

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// selectOne is the round trip --raw and --loop make unless given --query:
// its answer is the value sent, and every answer is checked.
const selectOne = "SELECT $1::bigint"

// target is what --raw and --loop send: the server, the statement (one
// bigint parameter) and the parameter's values, taken in turn (none: the
// request's own number, which selectOne sends back).
type target struct {
	url   string
	query string
	keys  []int64
}

// loopConn is one connection of --raw or --loop: its socket, the request
// being sent and the bytes of the answer read so far.
type loopConn struct {
	fd    int
	conn  net.Conn
	keys  []int64
	check bool // the answer must be the value sent (selectOne)
	req   []byte
	buf   []byte
	next  int64 // the request's number
	value int64 // the value it sends
}

// dialRaw connects, prepares the statement and takes the socket from
// pgconn; the connection's requests are numbered from start.
func dialRaw(t target, start int64) (*loopConn, error) {
	ctx := context.Background()
	pc, err := pgconn.Connect(ctx, t.url)
	if err != nil {
		return nil, err
	}
	sd, err := pc.Prepare(ctx, "rtt", t.query, nil)
	if err == nil && (len(sd.ParamOIDs) != 1 || sd.ParamOIDs[0] != 20) {
		err = fmt.Errorf("--query %q: give a statement of one bigint parameter ($1::bigint)", t.query)
	}
	if err != nil {
		pc.Close(ctx)
		return nil, err
	}
	hj, err := pc.Hijack()
	if err != nil {
		return nil, err
	}
	sc, ok := hj.Conn.(syscall.Conn)
	if !ok {
		hj.Conn.Close()
		return nil, errors.New("the connection is not a plain socket (use sslmode=disable)")
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return nil, err
	}
	var fd int
	if err := raw.Control(func(f uintptr) { fd = int(f) }); err != nil {
		return nil, err
	}
	return &loopConn{fd: fd, conn: hj.Conn, keys: t.keys, check: t.query == selectOne, buf: make([]byte, 0, 4096), next: start}, nil
}

// dialAll dials clients connections; on an error, those dialled so far.
func dialAll(t target, clients int) ([]*loopConn, error) {
	var conns []*loopConn
	for i := range clients {
		start := int64(i)
		if len(t.keys) > 0 { // each client from its own place in the keys
			start = int64(i * len(t.keys) / clients)
		}
		c, err := dialRaw(t, start)
		if err != nil {
			return conns, err
		}
		conns = append(conns, c)
	}
	return conns, nil
}

func closeAll(conns []*loopConn) {
	for _, c := range conns {
		c.conn.Close()
	}
}

// goroutines measures the hand-encoded protocol with a goroutine per client
// on Go's network poller: the event loop's work in taobench's architecture.
func goroutines(t target, clients int, duration time.Duration) (int64, time.Duration, error) {
	conns, err := dialAll(t, clients)
	defer closeAll(conns)
	if err != nil {
		return 0, 0, err
	}
	counts := make([]int64, clients)
	errs := make(chan error, clients)
	start := time.Now()
	end := start.Add(duration)
	for i, c := range conns {
		go func() {
			chunk := make([]byte, 65536)
			for time.Now().Before(end) {
				c.encode()
				if _, err := c.conn.Write(c.req); err != nil {
					errs <- err
					return
				}
				for {
					r, err := c.conn.Read(chunk)
					if err != nil {
						errs <- err
						return
					}
					c.buf = append(c.buf, chunk[:r]...)
					done, err := c.answered()
					if err != nil {
						errs <- err
						return
					}
					if done {
						break
					}
				}
				counts[i]++
			}
			errs <- nil
		}()
	}
	var n int64
	for range conns {
		if err := <-errs; err != nil {
			return 0, 0, err
		}
	}
	for _, k := range counts {
		n += k
	}
	return n, time.Since(start), nil
}

// encode puts Bind, Execute and Sync with the next value in c.req.
func (c *loopConn) encode() {
	c.next++
	c.value = c.next
	if len(c.keys) > 0 {
		c.value = c.keys[c.next%int64(len(c.keys))]
	}
	b := c.req[:0]
	b = append(b, 'B', 0, 0, 0, 0)
	b = append(b, 0)             // unnamed portal
	b = append(b, "rtt"...)      // statement
	b = append(b, 0, 0, 1, 0, 1) // one parameter format: binary
	b = append(b, 0, 1, 0, 0, 0, 8)
	b = binary.BigEndian.AppendUint64(b, uint64(c.value))
	b = append(b, 0, 1, 0, 1) // one result format: binary
	binary.BigEndian.PutUint32(b[1:], uint32(len(b)-1))
	b = append(b, 'E', 0, 0, 0, 9, 0, 0, 0, 0, 0)
	b = append(b, 'S', 0, 0, 0, 4)
	c.req = b
}

// answered parses the messages read so far and reports whether the answer
// is complete (ReadyForQuery), checking the value the server sent back.
func (c *loopConn) answered() (bool, error) {
	b := c.buf
	for len(b) >= 5 {
		l := int(binary.BigEndian.Uint32(b[1:5]))
		if len(b) < 1+l {
			break
		}
		typ, body := b[0], b[5:1+l]
		b = b[1+l:]
		switch typ {
		case 'D':
			if c.check && (len(body) != 14 || int64(binary.BigEndian.Uint64(body[6:])) != c.value) {
				return false, fmt.Errorf("loop: wrong answer % x for %d", body, c.value)
			}
		case 'E':
			return false, fmt.Errorf("loop: server error: %q", body)
		case 'Z':
			if len(b) != 0 {
				return false, errors.New("loop: bytes after ReadyForQuery")
			}
			c.buf = c.buf[:0]
			return true, nil
		}
	}
	c.buf = append(c.buf[:0], b...)
	return false, nil
}
