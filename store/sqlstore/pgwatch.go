package sqlstore

import (
	"context"
	"crypto/tls"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// A request's context reaches pgx with every query, and pgx watches it per
// query (context.AfterFunc on it: four allocations, half of a point read's,
// and the lock of the run's context, which every client shares; 4% of the
// client's CPU). During a run every client's requests carry the same
// context, the run's (WatchContext), so the store watches that one once
// instead: queries under it go to pgx with a quietCtx, which has no Done
// channel, on a connection the store has marked as serving it; when the
// context ends the store sets a deadline in the past on each such
// connection, which is what pgx's own watch does (pgconn's
// DeadlineContextWatcherHandler), so the query ends in the same error
// (pgx reads Err, which is the request's). Any other context, a
// transaction's queries and everything outside a run go to pgx as before.

// quietCtx is a context as pgx sees it on the watched path: the watched
// context without its Done channel.
type quietCtx struct{ context.Context }

func (*quietCtx) Done() <-chan struct{} { return nil }

// pgWatch is a store's watch of one context and the connections it has
// dialled.
type pgWatch struct {
	cur atomic.Pointer[quietCtx] // the watched context, nil for none

	mu    sync.Mutex
	conns map[*guardConn]struct{}
}

// guardConn is a dialled connection, marked while it serves a query under
// the watched context.
type guardConn struct {
	net.Conn
	w *pgWatch

	mu     sync.Mutex
	q      *quietCtx   // the watched context of the query in progress
	poison bool        // the query's deadline was set to end it
	rows   []quietRows // rows for its next queries, handed out once each (as pgxpool's own)
	fast   pgFastConn  // the single reads' statements and buffers (pgfast.go)
}

// dial wraps a pgx dial function so every connection it makes is guarded.
func (w *pgWatch) dial(dial pgconn.DialFunc) pgconn.DialFunc {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		g := &guardConn{Conn: c, w: w}
		g.fast.init(c)
		w.mu.Lock()
		if w.conns == nil {
			w.conns = make(map[*guardConn]struct{})
		}
		w.conns[g] = struct{}{}
		w.mu.Unlock()
		return g, nil
	}
}

func (g *guardConn) Close() error {
	g.w.mu.Lock()
	delete(g.w.conns, g)
	g.w.mu.Unlock()
	return g.Conn.Close()
}

// watch starts watching ctx, until the returned function is called; with
// a context already watched, ctx is not (its queries go to pgx as before).
func (w *pgWatch) watch(ctx context.Context) func() {
	q := &quietCtx{ctx}
	if ctx.Done() == nil || !w.cur.CompareAndSwap(nil, q) {
		return func() {}
	}
	stop := context.AfterFunc(ctx, func() { w.interrupt(q) })
	return func() {
		stop()
		w.cur.CompareAndSwap(q, nil)
	}
}

// quiet returns the quiet form of ctx when ctx is the watched context and
// has not ended, else nil.
func (w *pgWatch) quiet(ctx context.Context) *quietCtx {
	q := w.cur.Load()
	if q == nil || q.Context != ctx {
		return nil
	}
	return q
}

// interrupt ends every query in progress under q.
func (w *pgWatch) interrupt(q *quietCtx) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for g := range w.conns {
		g.stop(q)
	}
}

// stop ends g's query if it runs under q.
func (g *guardConn) stop(q *quietCtx) {
	g.mu.Lock()
	if g.q == q {
		_ = g.Conn.SetDeadline(time.Now())
		g.poison = true
	}
	g.mu.Unlock()
}

// begin marks g as serving a query under q. A context that ended before
// the mark was seen by interrupt ends the query here.
func (g *guardConn) begin(q *quietCtx) {
	g.mu.Lock()
	g.q = q
	g.mu.Unlock()
	if q.Err() != nil {
		g.stop(q)
	}
}

// end unmarks g; a deadline set to end its query is cleared, as pgx's own
// handler clears it, for a connection that survived.
func (g *guardConn) end() {
	g.mu.Lock()
	g.q = nil
	if g.poison {
		_ = g.Conn.SetDeadline(time.Time{})
		g.poison = false
	}
	g.mu.Unlock()
}

// guardOf returns the guard under a pooled connection, nil for none.
func guardOf(c *pgxpool.Conn) *guardConn {
	nc := c.Conn().PgConn().Conn()
	if t, ok := nc.(*tls.Conn); ok {
		nc = t.NetConn()
	}
	g, _ := nc.(*guardConn)
	return g
}

// watchedPool runs a pool's queries, on the watched path when their
// context is the watched one.
type watchedPool struct {
	pool *pgxpool.Pool
	w    *pgWatch
	// prepare: single reads may prepare their own statements (pgfast.go); not
	// when the URL chose a mode of pgx's without named prepared statements
	// (default_query_exec_mode, as for PgBouncer's transaction pooling).
	prepare bool
}

// acquire returns a connection marked for q, or nil when the query should
// go the ordinary way. It waits for the connection under ctx itself: a
// pool smaller than the clients makes requests wait here.
func (p *watchedPool) acquire(ctx context.Context, q *quietCtx) (*pgxpool.Conn, *guardConn, error) {
	c, err := p.pool.Acquire(ctx)
	if err != nil {
		return nil, nil, err
	}
	g := guardOf(c)
	if g != nil {
		g.begin(q)
	}
	return c, g, nil
}

func (p *watchedPool) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	q := p.w.quiet(ctx)
	if q == nil {
		return p.pool.Query(ctx, sql, args...)
	}
	c, g, err := p.acquire(ctx, q)
	if err != nil {
		return nil, err
	}
	if g == nil {
		rows, err := c.Query(ctx, sql, args...)
		if err != nil {
			c.Release()
			return nil, err
		}
		return &quietRows{Rows: rows, c: c}, nil
	}
	rows, err := c.Query(q, sql, args...)
	if err != nil {
		g.end()
		c.Release()
		return nil, err
	}
	// A caller may read Err after Close, when the connection serves another
	// query: each query's rows are its own, from a chunk as pgxpool does.
	if len(g.rows) == 0 {
		g.rows = make([]quietRows, 64)
	}
	r := &g.rows[0]
	g.rows = g.rows[1:]
	*r = quietRows{Rows: rows, c: c, g: g}
	return r, nil
}

func (p *watchedPool) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	q := p.w.quiet(ctx)
	if q == nil {
		return p.pool.Exec(ctx, sql, args...)
	}
	c, g, err := p.acquire(ctx, q)
	if err != nil {
		return pgconn.CommandTag{}, err
	}
	defer c.Release()
	if g == nil {
		return c.Exec(ctx, sql, args...)
	}
	defer g.end()
	return c.Exec(q, sql, args...)
}

// quietRows releases the connection, and unmarks it, when closed.
type quietRows struct {
	pgx.Rows
	c *pgxpool.Conn
	g *guardConn
}

func (r *quietRows) Next() bool {
	if r.Rows.Next() {
		return true
	}
	r.Close()
	return false
}

func (r *quietRows) Close() {
	r.Rows.Close()
	if r.c == nil {
		return
	}
	if r.g != nil {
		r.g.end()
	}
	r.c.Release()
	r.c = nil
}
