package session

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/taobench/taobench/graph"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/run"
	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/tier"
	"github.com/taobench/taobench/workload"
)

// TierSpec is a run's read tiers (docs/tiers.md). The zero value puts
// nothing before the database. Its errors name its fields (TierSpec.TTL):
// a command that takes them as flags names its flags instead.
type TierSpec struct {
	// Cache is the URL of the tao tier's cache (tier.Options.Cache): a
	// program takes redis:// URLs when it imports tier/rediscache.
	Cache string
	// TTL and Size are the client cache's (tier.Options.ClientCacheTTL,
	// ClientCacheSize): none without a TTL; DefaultClientCacheSize
	// entries when Size is 0.
	TTL  time.Duration
	Size int
	// Locality is the client cache's locality (tier.Options.
	// ClientCacheLocality), TxnsAtDB sends read transactions to the
	// database (tier.Options.TxnsAtDB).
	Locality float64
	TxnsAtDB bool
	// Invalidate has writes delete the tao tier's entries rather than
	// apply TAO's changeset (tier.Options.Invalidate).
	Invalidate bool
	// Replicas are the URLs of read replicas of the database: the
	// database tier's reads go to them. A session opened ReadOnly is
	// on Replicas[0] itself.
	Replicas []string
}

// DefaultClientCacheSize is the client cache's bound when only its TTL is
// given.
const DefaultClientCacheSize = 100000

// DefaultClientCacheLocality is TierSpec.Locality's usual value, the
// locality that models TAO's client cache (tier.DefaultLocality).
const DefaultClientCacheLocality = tier.DefaultLocality

// Options checks the spec and returns the tiers' options for clients
// clients; its errors are InputErrors naming the spec's fields.
func (t TierSpec) Options(clients int) (tier.Options, error) {
	switch {
	case t.TTL < 0:
		return tier.Options{}, badInput("TierSpec.TTL %v: give a positive duration such as 2s", t.TTL)
	case t.Size < 0:
		return tier.Options{}, badInput("TierSpec.Size %d: give a positive number of entries", t.Size)
	case t.Locality < 0 || t.Locality > 1 || t.Locality != t.Locality:
		return tier.Options{}, badInput("TierSpec.Locality %v: give a share from 0 to 1 (1, the default, models TAO's client cache)", t.Locality)
	case t.Size > 0 && t.TTL == 0:
		return tier.Options{}, badInput("TierSpec.Size %d without TierSpec.TTL: give the client cache a TTL too, such as 2s", t.Size)
	}
	if t.Cache != "" {
		if err := tier.CheckCache(t.Cache); err != nil {
			return tier.Options{}, badInput("TierSpec.Cache %v", err)
		}
	}
	size := t.Size
	if t.TTL > 0 && size == 0 {
		size = DefaultClientCacheSize
	}
	return tier.Options{Cache: t.Cache, ClientCacheTTL: t.TTL, ClientCacheSize: size, Clients: clients,
		ClientCacheLocality: t.Locality, TxnsAtDB: t.TxnsAtDB, Invalidate: t.Invalidate}, nil
}

// Check checks the spec as Options does, for a command to refuse bad
// flags before it opens the database.
func (t TierSpec) Check() error {
	_, err := t.Options(1)
	return err
}

// PrepareTiered is Prepare, then Tiers for clients clients: cfg's store
// is the tiers' front. Call close when the run is over.
func (s *Session) PrepareTiered(ctx context.Context, spec GraphSpec, cfg run.Config, t TierSpec, clients int) (run.Config, *result.Run, func(), error) {
	cfg, info, err := s.Prepare(ctx, spec, cfg)
	if err != nil {
		return cfg, nil, nil, err
	}
	front, close, err := s.Tiers(ctx, t, clients, info)
	cfg.Store = front
	return cfg, info, close, err
}

// openReplica is a replica of TierSpec.Replicas opened for the session's tiers.
type openReplica struct {
	url string // as given: shown redacted
	st  store.Store
}

// preTiers are read tiers checked before the session's database is
// opened (prepareTiers), with the replicas opened for them.
type preTiers struct {
	spec TierSpec
	reps []openReplica
}

// close closes the replicas; nil has none.
func (p *preTiers) close() {
	if p == nil {
		return
	}
	for _, r := range p.reps {
		r.st.Close()
	}
	p.reps = nil
}

// prepareTiers checks what can refuse the tiers of t before the database
// of the session named name is opened (a new SQLite file is created then,
// and Prepare loads a graph), so that a refused tier leaves nothing
// behind: the spec, one database endpoint of endpoints, the tao tier's
// cache (it must answer), and every replica (but the first, the
// session's own store, when readOnly): it must exist and replay the
// database of db. primary is db's identity, nil when it cannot be had
// without creating the database (checkRoles compares again once it is
// open). nil when t puts nothing before the database.
func prepareTiers(ctx context.Context, name string, t TierSpec, readOnly bool, endpoints, clients int, db string, primary func(context.Context) *store.Identity) (*preTiers, error) {
	opts, err := t.Options(clients)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if !opts.Enabled() && len(t.Replicas) == 0 {
		return nil, nil
	}
	if endpoints > 1 {
		return nil, badInput("%s: read tiers and replicas (TierSpec.Cache, TierSpec.TTL, TierSpec.Replicas) stand before one database endpoint; give one, or drop them", name)
	}
	if opts.Cache != "" {
		if err := tier.PingCache(ctx, opts.Cache); err != nil {
			return nil, badInput("%s: TierSpec.Cache %v", name, err)
		}
	}
	urls := t.Replicas
	if readOnly {
		urls = urls[1:]
	}
	var pid *store.Identity
	if len(urls) > 0 && !readOnly {
		pid = primary(ctx)
	}
	p := &preTiers{spec: t}
	for _, u := range urls {
		r, err := store.Default.Open(ctx, u, store.Options{Clients: clients, MustExist: true})
		if err != nil {
			p.close()
			return nil, badInput("%s: TierSpec.Replicas: %v", name, err)
		}
		p.reps = append(p.reps, openReplica{u, r})
		if err := checkReplica(ctx, name, db, pid, nil, r, u); err != nil {
			p.close()
			return nil, err
		}
	}
	return p, nil
}

// identifyURL is the identity of the database at url, opened as it is
// (MustExist: nothing is created); nil when it cannot be opened or tell.
func identifyURL(url string) func(context.Context) *store.Identity {
	return func(ctx context.Context) *store.Identity {
		st, err := store.Default.Open(ctx, url, store.Options{Clients: 1, MustExist: true})
		if err != nil {
			return nil
		}
		defer st.Close()
		if id, ok, _ := identify(ctx, st); ok {
			return &id
		}
		return nil
	}
}

// takePre returns the tiers Open checked when they are t's, handing
// their replicas over to the caller; nil otherwise.
func (s *Session) takePre(t TierSpec) *preTiers {
	p := s.pre
	if p == nil || p.spec.Cache != t.Cache || !slices.Equal(p.spec.Replicas, t.Replicas) {
		return nil
	}
	s.pre = nil
	return p
}

// Tiers puts the spec's tiers before the session's store for clients
// clients, noting what they say, and drops read_tiers from the fields
// info says the run does not apply. With no tiers it returns the store
// itself. Call close when the run is over. The tiers given to Open
// (Options.Tiers) were checked there, before anything was created;
// others are checked here.
func (s *Session) Tiers(ctx context.Context, t TierSpec, clients int, info *result.Run) (front store.Store, close func(), err error) {
	opts, err := t.Options(clients)
	if err != nil {
		return s.st, func() {}, fmt.Errorf("%s: %w", s.opts.Name, err)
	}
	if !opts.Enabled() && len(t.Replicas) == 0 {
		return s.checker(ctx, opts)
	}
	pre := s.takePre(t)
	if pre == nil {
		self := func(ctx context.Context) *store.Identity {
			if id, ok, _ := identify(ctx, s.st); ok {
				return &id
			}
			return nil
		}
		if pre, err = prepareTiers(ctx, s.opts.Name, t, s.opts.ReadOnly, max(1, len(s.eps)), clients, s.url, self); err != nil {
			return nil, nil, err
		}
		if err := s.checkRoles(ctx, t, pre.reps); err != nil {
			pre.close()
			return nil, nil, err
		}
	}
	closeReps := pre.close
	primary := s.st
	if s.opts.ReadOnly {
		primary = nil
		opts.Replicas = append(opts.Replicas, s.st)
		opts.ReplicaNames = append(opts.ReplicaNames, store.Redact(t.Replicas[0]))
	}
	// A replica that fails, answers again or is promoted is said at once,
	// from the tiers' watchers: one line at a time.
	var warnMu sync.Mutex
	opts.Warn = func(msg string) {
		warnMu.Lock()
		defer warnMu.Unlock()
		s.sink.Note(s.opts.Name + ": " + msg)
	}
	// Each replica must hold the graph the database holds, now loaded.
	for _, r := range pre.reps {
		opts.Replicas = append(opts.Replicas, r.st)
		opts.ReplicaNames = append(opts.ReplicaNames, store.Redact(r.url))
		if err := s.sameGraph(ctx, r.st, r.url); err != nil {
			closeReps()
			return nil, nil, err
		}
	}
	if n := len(opts.Replicas); n > 0 {
		s.sink.Note(fmt.Sprintf("note: the database tier's reads go to %d replica(s) in turn; writes to %s", n, primaryName(primary, s.url)))
	}
	if opts.Cache != "" {
		// The tao tier's keys name the database (store.Scope): the
		// primary's, which its replicas share.
		from := primary
		if from == nil {
			from = opts.Replicas[0]
		}
		if opts.Scope, err = store.Scope(ctx, from); err != nil {
			closeReps()
			return nil, nil, fmt.Errorf("%s: naming the database for the tao tier's keys: %w", s.opts.Name, err)
		}
	}
	ts, err := tier.Open(ctx, primary, opts)
	if err != nil {
		closeReps()
		return nil, nil, badInput("%s: %v", s.opts.Name, err)
	}
	for _, n := range ts.Notes() {
		s.sink.Note("note: " + n)
	}
	info.NotApplied = s.tiersApplied(opts, info.NotApplied)
	return ts.Front(), func() { ts.Close(); closeReps() }, nil
}

// checker puts the staleness checker alone before a real database, so
// that every run carries its self-check (docs/tiers.md): reads and writes
// go to the database as without it, each read is classed against the
// writes committed. The null store has nothing to read back: it runs
// without it. A session of several endpoints has each endpoint's stale
// reads measured instead (endpointChecker).
func (s *Session) checker(ctx context.Context, opts tier.Options) (store.Store, func(), error) {
	if len(s.eps) > 1 {
		return s.endpointChecker(ctx, opts)
	}
	if _, ok := s.st.(store.Database); !ok {
		return s.st, func() {}, nil
	}
	ts, err := tier.Open(ctx, s.st, opts)
	if err != nil {
		return s.st, func() {}, err
	}
	return ts.Front(), func() { ts.Close() }, nil
}

// endpointChecker measures the stale reads of each endpoint of a session
// over several (docs/distributed.md, "Stale reads per endpoint"): a
// heartbeat written on the first endpoint every tier.DefaultHeartbeat,
// polled on each, and one log of the writes committed on any. The run's
// clients then use the endpoints' fronts (endpointConfig). A session
// opened read-only writes nothing, so it runs without.
func (s *Session) endpointChecker(ctx context.Context, opts tier.Options) (store.Store, func(), error) {
	if s.opts.ReadOnly {
		s.sink.Note(s.opts.Name + ": note: stale reads per endpoint not measured: a read-only session writes no heartbeat")
		return s.st, func() {}, nil
	}
	opts.FirstName = s.eps[0].Name
	for _, e := range s.eps[1:] {
		opts.Endpoints = append(opts.Endpoints, e.Store)
		opts.EndpointNames = append(opts.EndpointNames, e.Name)
	}
	var warnMu sync.Mutex
	opts.Warn = func(msg string) {
		warnMu.Lock()
		defer warnMu.Unlock()
		s.sink.Note(s.opts.Name + ": " + msg)
	}
	ts, err := tier.Open(ctx, s.st, opts)
	if err != nil {
		return s.st, func() {}, fmt.Errorf("%s: measuring stale reads per endpoint: %w", s.opts.Name, err)
	}
	s.fronts = ts.Endpoints()
	s.sink.Note(fmt.Sprintf("note: stale reads measured per endpoint: a heartbeat written on %s every %v, polled on each of the %d endpoints (docs/distributed.md)",
		s.eps[0].Name, tier.DefaultHeartbeat, len(s.eps)))
	return s.fronts[0], func() { s.fronts = nil; ts.Close() }, nil
}

func primaryName(primary store.Store, url string) string {
	if primary == nil {
		return "none (a read-only workload)"
	}
	return "the primary " + url
}

// Alone reports whether the run reads from its replicas alone: replicas
// given and no primary (dbGiven false). Such a run cannot write, so w must
// be read-only; its error is an InputError naming the fix.
func (t TierSpec) Alone(dbGiven bool, w *workload.Workload) (bool, error) {
	if len(t.Replicas) == 0 || dbGiven {
		return false, nil
	}
	for i, c := range w.Requests.Values {
		if (c == tao.Write || c == tao.WriteTxn) && w.Requests.Weights[i] > 0 {
			return false, badInput("TierSpec.Replicas without a primary: workload %s writes (%s %g%% of requests), and a replica takes no writes: give the primary database, or a workload of reads only", w.Name, c, 100*w.Requests.Weights[i]/sum(w.Requests.Weights))
		}
	}
	return true, nil
}

func sum(ws []float64) float64 {
	var n float64
	for _, w := range ws {
		n += w
	}
	return n
}

// sameGraph checks that replica r (of URL u) holds the graph the
// session's database holds: a replica of another database, or one that
// has not replayed the load yet, would answer reads of another graph.
func (s *Session) sameGraph(ctx context.Context, r store.Store, u string) error {
	pdb, ok := s.Database()
	rdb, rok := r.(store.Database)
	if !ok || !rok {
		return nil
	}
	want, err := pdb.Meta(ctx)
	if err != nil {
		return fmt.Errorf("%s: reading the graph record of %s: %w", s.opts.Name, s.url, err)
	}
	got, err := rdb.Meta(ctx)
	if err != nil {
		return badInput("%s: TierSpec.Replicas %s: reading its graph record: %v", s.opts.Name, store.Redact(u), err)
	}
	for _, k := range []string{"format_version", "edges", "seed", "graph_hash", "shards", "nodes", graph.MetaState, store.MetaLoadID} {
		if got[k] != want[k] {
			return badInput("%s: TierSpec.Replicas %s holds another graph than %s (%s %q there, %q on the primary): give a replica of the primary, or wait until it has replayed the load", s.opts.Name, store.Redact(u), s.url, k, got[k], want[k])
		}
	}
	return nil
}
