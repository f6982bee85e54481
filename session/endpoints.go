package session

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/taobench/taobench/graph"
	"github.com/taobench/taobench/run"
	"github.com/taobench/taobench/store"
)

// Several endpoints of one database (docs/distributed.md): Options.More
// names the servers beyond Open's URL, Options.Weights their shares; the
// session runs the clients of every experiment, and the loaders of a
// load, spread over all of them (run.EndpointOf), on one graph.

// checkWeights checks o's weights before anything is opened: none (equal
// shares) or one per endpoint, each from 1 to run.MaxClients.
func checkWeights(o Options) ([]int, error) {
	n := 1 + len(o.More)
	if len(o.Weights) == 0 {
		if n == 1 {
			return nil, nil
		}
		ws := make([]int, n)
		for i := range ws {
			ws[i] = 1
		}
		return ws, nil
	}
	if len(o.Weights) != n {
		return nil, badInput("%s: Options.Weights gives %d weight(s) for %d endpoint(s); give one per endpoint, in order, or none", o.Name, len(o.Weights), n)
	}
	for i, w := range o.Weights {
		if w < 1 || w > run.MaxClients {
			return nil, badInput("%s: Options.Weights: weight %d is %d; give whole numbers from 1 to %d", o.Name, i+1, w, run.MaxClients)
		}
	}
	if n == 1 {
		return nil, nil
	}
	return o.Weights, nil
}

// openMore opens the endpoints beyond the first (s.st, already open),
// weighted ws.
func (s *Session) openMore(ctx context.Context, ws []int) error {
	o := s.opts
	if len(o.More) == 0 {
		return nil
	}
	s.eps = []run.Endpoint{{Name: s.url, Store: s.st, Weight: ws[0]}}
	for i, url := range o.More {
		st, err := store.Default.Open(ctx, url, store.Options{Clients: o.Clients, MustExist: o.MustExist})
		if err != nil {
			return badInput("%s: endpoint %d: %v", o.Name, i+2, err)
		}
		s.eps = append(s.eps, run.Endpoint{Name: store.Redact(url), Store: st, Weight: ws[i+1]})
		if _, ok := st.(store.Database); !ok {
			return badInput("%s: endpoint %d (%s) keeps no data: every endpoint (Open's URL, Options.More) must be a server of the same database", o.Name, i+2, store.Redact(url))
		}
	}
	if _, ok := s.st.(store.Database); !ok {
		return badInput("%s: %s keeps no data: every endpoint (Open's URL, Options.More) must be a server of the same database", o.Name, s.url)
	}
	names := make([]string, len(s.eps))
	for i, e := range s.eps {
		names[i] = fmt.Sprintf("%s (weight %d)", e.Name, e.Weight)
	}
	s.sink.Note(fmt.Sprintf("%d endpoints of one database, clients spread over them by weight: %s", len(s.eps), strings.Join(names, ", ")))
	return nil
}

// Endpoints are the session's endpoints when it has several; nil for one.
func (s *Session) Endpoints() []run.Endpoint { return s.eps }

// closeMore closes the endpoints beyond the first.
func (s *Session) closeMore() {
	for _, e := range s.eps[min(1, len(s.eps)):] {
		e.Store.Close()
	}
}

// sameGraphEverywhere checks that every endpoint holds the first one's graph
// record: the endpoints must be servers of one database. A cluster that
// replicates asynchronously may show a load's record late, so a record
// missing or in another state is read again for up to sameGraphWait.
func (s *Session) sameGraphEverywhere(ctx context.Context) error {
	if len(s.eps) < 2 {
		return nil
	}
	meta := func(i int) (map[string]string, error) {
		return s.eps[i].Store.(store.Database).Meta(ctx)
	}
	want, err := meta(0)
	if err != nil {
		return fmt.Errorf("%s: reading the graph record of %s: %w", s.opts.Name, s.eps[0].Name, err)
	}
	deadline := time.Now().Add(sameGraphWait)
	for i := 1; i < len(s.eps); i++ {
		for {
			got, err := meta(i)
			if err != nil {
				return badInput("%s: reading the graph record of endpoint %d (%s): %v; every endpoint (Open's URL, Options.More) must be a server of the same database (a node of the same cluster)", s.opts.Name, i+1, s.eps[i].Name, err)
			}
			diff := metaDiff(want, got)
			if diff == "" {
				break
			}
			// Only a record not there yet, or not yet complete, may be late.
			late := len(got) == 0 || got[graph.MetaState] != want[graph.MetaState]
			if !late || time.Now().After(deadline) || ctx.Err() != nil {
				return badInput("%s: endpoint %d (%s) holds another graph record than endpoint 1 (%s): %s; every endpoint (Open's URL, Options.More) must be a server of the same database (a node of the same cluster)",
					s.opts.Name, i+1, s.eps[i].Name, s.eps[0].Name, diff)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	return nil
}

const sameGraphWait = 5 * time.Second

// metaDiff names the first key two graph records differ in; "" when they
// are the same.
func metaDiff(a, b map[string]string) string {
	if len(b) == 0 {
		return "it holds no graph"
	}
	keys := slices.Sorted(maps.Keys(a))
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	for _, k := range keys {
		if a[k] != b[k] {
			return fmt.Sprintf("%s is %q there, %q on endpoint 1", k, b[k], a[k])
		}
	}
	return ""
}

// endpointConfig gives cfg the session's endpoints when it runs on the
// session's own store, or on the first of the endpoints' fronts (Tiers:
// each endpoint's stale reads measured), then the fronts; a step's Wrap
// wraps each.
func (s *Session) endpointConfig(cfg run.Config, wrap func(store.Store) store.Store) run.Config {
	fronts := s.fronts != nil && cfg.Store == s.fronts[0]
	if len(s.eps) < 2 || (cfg.Store != s.st && !fronts) {
		if wrap != nil {
			cfg.Store = wrap(cfg.Store)
		}
		return cfg
	}
	cfg.Endpoints = slices.Clone(s.eps)
	for i := range cfg.Endpoints {
		if fronts {
			cfg.Endpoints[i].Store = s.fronts[i]
		}
		if wrap != nil {
			cfg.Endpoints[i].Store = wrap(cfg.Endpoints[i].Store)
		}
	}
	cfg.Store = cfg.Endpoints[0].Store
	return cfg
}

// loaders spreads threads loaders over the endpoints as a run spreads its
// clients; nil with one endpoint.
func (s *Session) loaders(threads int) []store.Database {
	if len(s.eps) < 2 {
		return nil
	}
	ws := make([]int, len(s.eps))
	for i, e := range s.eps {
		ws[i] = e.Weight
	}
	via := make([]store.Database, threads)
	for t := range via {
		via[t] = s.eps[run.EndpointOf(ws, t)].Store.(store.Database)
	}
	return via
}
