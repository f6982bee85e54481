package tier

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/tao"
)

// Several endpoints of one database (docs/distributed.md, "Stale reads
// per endpoint"): the nodes of a multi-primary cluster such as Galera,
// each taking reads and writes. The replicas' machinery (replica.go)
// measures their stale reads: one commit log for every endpoint's
// writes, wherever they committed; one heartbeat, written on the first
// endpoint; and a poller per endpoint, the first included, which gives
// the reads that endpoint answered their basis. A read's basis is the end
// of the heartbeat version after the one its endpoint showed at the next
// poll that began after the read returned: that holds on a server that
// commits every write in one global order shared by all (Galera's
// seqno), as a replica replays its primary's. There is no rotation: a
// request runs on the endpoint the run gave it; a poll that fails marks
// an outage of the endpoint's poller, its reads waiting for the next
// poll that answers.

// endpoints builds the endpoints' rows of opts, db the first.
func endpoints(db store.Store, opts Options) []*replica {
	sts := append([]store.Store{db}, opts.Endpoints...)
	eps := make([]*replica, len(sts))
	for i, st := range sts {
		name := fmt.Sprintf("endpoint %d", i+1)
		switch {
		case i == 0 && opts.FirstName != "":
			name = opts.FirstName
		case i > 0 && i-1 < len(opts.EndpointNames) && opts.EndpointNames[i-1] != "":
			name = opts.EndpointNames[i-1]
		}
		eps[i] = &replica{st: st, name: name, idx: i, endpoint: true}
	}
	return eps
}

// Endpoints returns a store per endpoint, in order, when s has several
// (Options.Endpoints): each runs its requests on its own server, its
// reads classed by its own poller. The first is s's Front (the one to
// give run as its Tiered store: its figures cover every endpoint). Nil
// with one endpoint.
func (s *Store) Endpoints() []store.Store {
	if s.eps == nil {
		return nil
	}
	out := []store.Store{s.Front()}
	for _, r := range s.eps[1:] {
		var f store.Store = &endpointFront{s: s, r: r}
		if sr, ok := r.st.(store.StatsReader); ok {
			f = endpointStats{f.(*endpointFront), sr}
		}
		out = append(out, f)
	}
	return out
}

// endpointFront is an endpoint beyond the first, as its clients see it.
type endpointFront struct {
	s *Store
	r *replica
}

func (f *endpointFront) Exec(ctx context.Context, req *tao.Request, res *tao.Result) {
	f.s.onEndpoint(ctx, f.r, req, res)
}

// Close does nothing: the endpoint's server is its owner's to close, the
// pollers the Store's.
func (f *endpointFront) Close() error { return nil }

// WatchContext passes the run's context to the endpoint's store when it
// watches contexts (sqlstore's), as Store.WatchContext does for the first.
func (f *endpointFront) WatchContext(ctx context.Context) func() {
	if w, ok := f.r.st.(interface {
		WatchContext(context.Context) func()
	}); ok {
		return w.WatchContext(ctx)
	}
	return func() {}
}

type endpointStats struct {
	*endpointFront
	r store.StatsReader
}

func (e endpointStats) ServerStats(ctx context.Context) (store.ServerStats, error) {
	return e.r.ServerStats(ctx)
}

// onEndpoint runs a request on endpoint r: a write is logged, a read
// counted in r's row and classed once r's next poll gives its basis.
func (s *Store) onEndpoint(ctx context.Context, r *replica, req *tao.Request, res *tao.Result) {
	if req.Class == tao.Write || req.Class == tao.WriteTxn {
		s.write(ctx, r.st, req, res)
		return
	}
	x := s.exp.Load()
	begin := time.Now()
	r.st.Exec(ctx, req, res)
	ret := time.Now()
	answered := res.Outcome == tao.OK || res.Outcome == tao.NotFound
	if x.in(begin.UnixNano()) {
		x.mu.Lock()
		t := &x.row(r).TierStats
		t.Lookups++
		if answered {
			t.Hits++
			t.Served++
			t.Second(x.second(begin.UnixNano())).Served++
			t.Latency = orNew(t.Latency)
			t.Latency.Record(ret.Sub(begin))
		} else {
			t.Errors++
		}
		x.mu.Unlock()
	}
	if answered {
		s.judgeTxn(x, req, res, tao.TierDB, r, begin.UnixNano(), ret.UnixNano(), nil, nil)
	}
}

// watchEndpoint polls r's heartbeat every half heartbeat until ctx ends,
// classing the reads r answered before each poll began; a poll that
// fails starts an outage of r's poller (said once), the next that
// answers ends it.
func (s *Store) watchEndpoint(ctx context.Context, r *replica) {
	req := tao.Request{Class: tao.Read, Tier: tao.TierDB, Ops: []tao.Op{{Kind: tao.ObjRead, ID1: s.hb.id}}}
	var res tao.Result
	for {
		err := s.poll(ctx, r, &req, &res)
		switch {
		case err == nil && r.out.Load():
			d := r.up(time.Now().UnixNano())
			s.warn("endpoint %s answers its heartbeat poll again after %.1f s: its reads are classed again", r.name, d.Seconds())
		case err != nil && ctx.Err() == nil && r.down(time.Now().UnixNano()):
			s.warn("endpoint %s does not answer its heartbeat poll (%s): its reads wait to be classed until it does", r.name, firstLine(err))
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(s.hb.every / 2):
		}
	}
}

// endpointRows are the endpoints' rows of x, for its result; nil with
// one endpoint. x.mu is held.
func (s *Store) endpointRows(x *experiment) []result.ReplicaStats {
	if s.eps == nil {
		return nil
	}
	return replicaRows(s.eps, x.eps, x)
}

// replicaRows are the result's rows of reps (replicas or endpoints), from
// their counts in x (rows, by replica): copies, each with its name and
// its health over x's measured window. x.mu is held.
func replicaRows(reps []*replica, rows []result.ReplicaStats, x *experiment) []result.ReplicaStats {
	to := min(x.end, time.Now().UnixNano())
	out := make([]result.ReplicaStats, len(reps))
	for i, r := range reps {
		row := rows[i]
		row.Name = r.name
		row.Latency, row.Age, row.Lag = orNew(row.Latency).Clone(), orNew(row.Age).Clone(), orNew(row.Lag).Clone()
		row.Seconds = slices.Clone(row.Seconds)
		r.health(&row, x.measure, to)
		out[i] = row
	}
	return out
}
