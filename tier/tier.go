// Package tier puts TAO's read path in front of any store.Store (TAOBench
// §3.2; docs/tiers.md): a client-side cache in the process (client_cache),
// TAO's cache tier on a shared cache server (tao: a Cache, Redis's in
// tier/rediscache, which a program imports to take redis:// URLs), and
// the database (db).
// Each read goes to the tier the workload's read_tiers drew and falls
// through on a miss (client_cache → tao → db), filling the tiers it passed
// (a read transaction key by key, readtxn.go); writes go to the database
// and then apply their changeset to the tao tier (through.go). Every read
// is classed fresh or stale against a log of the writes this process
// committed (log.go), and each experiment's figures per tier come back as
// a result.Consistency.
package tier

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/taobench/taobench/metrics"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/tao"
)

// Options say which tiers to put in front of the database.
type Options struct {
	// Cache is the URL of the tao tier's cache, of a scheme a cache
	// package registered (RegisterCache; tier/rediscache: redis://...);
	// "" has none (reads drawn to it go to the database).
	Cache string
	// ClientCacheTTL and ClientCacheSize configure the client_cache tier;
	// a zero TTL or size has none (reads drawn to it go on to tao).
	ClientCacheTTL  time.Duration
	ClientCacheSize int
	// Clients is the most concurrent requests expected (the cache's pool).
	Clients int
	// LogKeys bounds the commit log; 0: DefaultLogKeys.
	LogKeys int
	// Replicas are read replicas of the database: the database tier's
	// reads (and the caches' fills) go to them in turn, writes to the
	// database (replica.go). With replicas the database may be nil: then
	// a write fails, and nothing is stale (the run writes nothing).
	Replicas []store.Store
	// ReplicaNames name the replicas in results and messages, in the
	// order of Replicas: their URLs, redacted ("replica N" when missing).
	ReplicaNames []string
	// ReplicaTimeout bounds a read on a replica when the request has no
	// deadline (0: DefaultReplicaTimeout); a read that outlasts it is the
	// replica's error, and the read goes to the primary.
	ReplicaTimeout time.Duration
	// Warn, when set, is told at once when a replica stops answering,
	// answers again, or leaves recovery (one line each); it must be safe
	// for concurrent use.
	Warn func(string)
	// HeartbeatEvery is how often the replicas' heartbeat writes on the
	// database (0: DefaultHeartbeat); HeartbeatID its object
	// (0: HeartbeatID()).
	HeartbeatEvery time.Duration
	HeartbeatID    int64
	// Scope names the database in the tao tier's keys (store.Scope):
	// "" has Open ask the database (the primary, else the first
	// replica), so that two databases sharing one Redis never share an
	// entry or a commit log, whatever the URL's prefix.
	Scope string
	// Trace, when set, sees every read a tier answered (tests check the
	// staleness classification with it); it must be safe for concurrent use.
	Trace func(Read)
	// ClientCacheLocality is the share of reads drawn to the client cache
	// that read again what their client read moments ago (gen's Reread;
	// docs/tiers.md): DefaultLocality models TAO's, 0 none.
	ClientCacheLocality float64
	// TxnsAtDB sends every read transaction to the database, as taobench
	// did before read transactions were served where TAO serves them
	// (readtxn.go): for comparison, and for tests that the model matters.
	TxnsAtDB bool
	// Endpoints are further servers of the database (the nodes of a
	// multi-primary cluster; the database passed to Open is the first):
	// Endpoints gives a front per endpoint, which runs every request on
	// its own server and classes its reads against a heartbeat written on
	// the first and polled on each (endpoints.go). No other tier may
	// stand with them. EndpointNames name them, in order, from the
	// second ("endpoint N" when missing); FirstName names the first.
	Endpoints     []store.Store
	EndpointNames []string
	FirstName     string
	// Invalidate has a write delete the tao tier's entries it touched
	// (and the lists' whole hashes), as taobench did before it applied
	// TAO's changeset (through.go): for comparison and tests.
	Invalidate bool
}

// Read is one answered read, as Options.Trace sees it.
type Read struct {
	Op     tao.Op
	Result tao.OpResult
	Served tao.Tier
	// Replica: a replica served it (Served is then TierDB).
	Replica bool
	// Basis is when the database read behind the answer returned; Begin
	// when this read began. Stale and Age are the classification.
	Basis, Begin time.Time
	Stale        bool
	Age          time.Duration
}

// DefaultLogKeys is how many keys the commit log remembers at most (about
// 150 bytes each).
const DefaultLogKeys = 1 << 20

// Enabled reports whether o configures any tier.
func (o Options) Enabled() bool {
	return o.Cache != "" || (o.ClientCacheTTL > 0 && o.ClientCacheSize > 0) || len(o.Replicas) > 0
}

// Store is a store.Store with read tiers in front of db.
type Store struct {
	db store.Store // the primary; nil: replicas alone
	// plain: no cache and no replica, the staleness checker alone (its
	// self-check, in every run on a real database): reads go straight
	// to the database, as without the tiers, and are classed.
	plain bool
	// base is when Open ran (with the monotonic clock): the checker
	// alone takes its instants from it (now), one clock reading each.
	base time.Time
	csc  *csc // nil: no client_cache tier
	// noTxnTier: read transactions go to the database (Options.TxnsAtDB).
	noTxnTier  bool
	invalidate bool    // Options.Invalidate
	locality   float64 // Options.ClientCacheLocality, with a client cache
	warmMu     sync.Mutex
	warm       warmed   // the last prefill Warm ran before a clock started
	tao        *taoTier // nil: no tao tier
	log        *commitLog
	trace      func(Read)
	notes      []string

	reps       []*replica
	eps        []*replica    // the endpoints, the first on db (endpoints.go); nil: one
	next       atomic.Uint64 // round robin over reps
	repTimeout time.Duration
	warnf      func(string)
	hb         *heartbeat // nil: no replica nor endpoint, or no primary
	shared     *shared    // nil: no tao tier, reads classed at once
	stop       context.CancelFunc
	stopWG     sync.WaitGroup
	closeOnce  sync.Once

	// exp is the experiment being measured (BeginExperiment); nil before.
	exp atomic.Pointer[experiment]
}

// experiment is one experiment's namespace, window and figures.
type experiment struct {
	ns           string // the tao tier's key prefix
	logNS        string // the shared commit log's key prefix
	measure, end int64  // Unix ns: reads that begin in [measure, end) count
	// readOps are the read operations each tier answered in the window
	// (a read transaction's reads one by one); under mu.
	readOps [tao.NumTiers]int64
	// misses are the reads drawn to a cache that reached the database,
	// by cause (result.Consistency.Misses); under mu.
	misses map[string]int64
	// whys are the misses whose cause is still being looked up (missed).
	whys atomic.Int64
	mu   sync.Mutex
	c    result.Consistency
	// reps are the replicas' rows, by replica (c.Replicas when it ends);
	// eps the endpoints' (c.Endpoints).
	reps, eps []result.ReplicaStats
	// chk are the database's reads with the checker alone, in shards
	// so that clients seldom wait for one another; EndExperiment adds
	// them to c.
	chk [chkShards]chkShard
}

const chkShards = 16

type chkShard struct {
	mu sync.Mutex
	t  result.TierStats
	_  [64]byte // a cache line of its own
}

// now is the instant (Unix ns): with the checker alone, the wall clock at
// Open plus the monotonic time since, one clock reading instead of two
// (no other process compares these instants); else the wall clock, which
// other processes share.
func (s *Store) now() int64 {
	if s.plain {
		return s.base.UnixNano() + int64(time.Since(s.base))
	}
	return time.Now().UnixNano()
}

// replica returns the replicas' figures; x.mu is held.
func (x *experiment) replica() *result.TierStats {
	if x.c.Replica == nil {
		x.c.Replica = &result.TierStats{Latency: &metrics.Series{}, Age: &metrics.Series{}}
	}
	return x.c.Replica
}

// row returns r's row; x.mu is held.
func (x *experiment) row(r *replica) *result.ReplicaStats {
	if r.endpoint {
		return &x.eps[r.idx]
	}
	return &x.reps[r.idx]
}

// Open puts the tiers of opts in front of db. It connects to the cache
// and checks it answers; errors never show the URL's password.
func Open(ctx context.Context, db store.Store, opts Options) (*Store, error) {
	if opts.LogKeys < 0 {
		return nil, fmt.Errorf("commit log: %d keys; give a positive bound, or 0 for the default", opts.LogKeys)
	}
	s := &Store{db: db, log: newCommitLog(cmp.Or(opts.LogKeys, DefaultLogKeys)), trace: opts.Trace}
	if opts.ClientCacheTTL < 0 || opts.ClientCacheSize < 0 {
		return nil, fmt.Errorf("client cache: TTL %v and size %d; give a positive TTL and size (entries), or neither", opts.ClientCacheTTL, opts.ClientCacheSize)
	}
	switch {
	case db == nil && len(opts.Replicas) == 0:
		return nil, fmt.Errorf("no database and no replica")
	case opts.HeartbeatEvery < 0:
		return nil, fmt.Errorf("replica heartbeat every %v: give a positive duration", opts.HeartbeatEvery)
	case opts.ReplicaTimeout < 0:
		return nil, fmt.Errorf("replica timeout %v: give a positive duration", opts.ReplicaTimeout)
	case len(opts.Endpoints) > 0 && (db == nil || opts.Enabled()):
		return nil, fmt.Errorf("endpoints: several endpoints of one database take no cache, client cache or replica, and need the first endpoint (the database)")
	}
	s.repTimeout, s.warnf = cmp.Or(opts.ReplicaTimeout, DefaultReplicaTimeout), opts.Warn
	if opts.ClientCacheTTL > 0 && opts.ClientCacheSize > 0 {
		s.csc = newCSC(opts.ClientCacheTTL, opts.ClientCacheSize)
	}
	if opts.Cache != "" {
		t, err := Caches.open(ctx, opts.Cache, opts.Clients)
		if err != nil {
			return nil, fmt.Errorf("Options.Cache %w", err)
		}
		scope := opts.Scope
		if scope == "" {
			from := db
			if from == nil && len(opts.Replicas) > 0 {
				from = opts.Replicas[0]
			}
			if scope, err = store.Scope(ctx, from); err != nil {
				t.c.Close()
				return nil, fmt.Errorf("naming the database for the tao tier's keys: %w", err)
			}
		}
		if scope != "" {
			t.prefix += ":" + scope
		}
		s.tao = t
		s.notes = append(s.notes, "tao tier on "+store.Redact(opts.Cache)+", keys "+t.prefix+":*: "+t.c.Bound(ctx))
	}
	for i, r := range opts.Replicas {
		name := fmt.Sprintf("replica %d", i+1)
		if i < len(opts.ReplicaNames) && opts.ReplicaNames[i] != "" {
			name = opts.ReplicaNames[i]
		}
		role, _ := r.(RecoveryReader)
		s.reps = append(s.reps, &replica{st: r, name: name, idx: i, role: role})
	}
	if len(opts.Endpoints) > 0 {
		s.eps = endpoints(db, opts)
	}
	s.plain, s.base = !opts.Enabled() && s.eps == nil, time.Now()
	s.noTxnTier, s.invalidate = opts.TxnsAtDB, opts.Invalidate
	if s.csc != nil {
		s.locality = opts.ClientCacheLocality
	}
	s.exp.Store(s.newExperiment(0, 0, 0, 0))
	var bg context.Context
	bg, s.stop = context.WithCancel(context.WithoutCancel(ctx))
	if s.tao != nil {
		s.shared = &shared{t: s.tao, wake: make(chan struct{}, 1)}
		s.stopWG.Add(1)
		go func() { defer s.stopWG.Done(); s.classify(bg) }()
	}
	if (len(s.reps) > 0 || len(s.eps) > 0) && db != nil {
		s.hb = &heartbeat{primary: db, id: cmp.Or(opts.HeartbeatID, HeartbeatID()), every: cmp.Or(opts.HeartbeatEvery, DefaultHeartbeat)}
		s.hb.sync(ctx)
		if s.hb.last == 0 {
			s.Close()
			who := "replica"
			if s.eps != nil {
				who = "endpoints'"
			}
			return nil, fmt.Errorf("%s heartbeat: cannot write object %d on the database", who, s.hb.id)
		}
		s.stopWG.Add(1)
		go func() { defer s.stopWG.Done(); s.hb.run(bg) }()
	}
	// Every replica is watched, with a primary or without: its lag, its
	// failures and its role.
	s.stopWG.Add(len(s.reps))
	for _, r := range s.reps {
		go func() { defer s.stopWG.Done(); s.watch(bg, r) }()
	}
	s.stopWG.Add(len(s.eps))
	for _, r := range s.eps {
		go func() { defer s.stopWG.Done(); s.watchEndpoint(bg, r) }()
	}
	return s, nil
}

func (s *Store) namespace(graphSeed uint64, run int64) string {
	if s.tao == nil {
		return ""
	}
	return s.tao.namespace(graphSeed, run)
}

// Notes say how the tiers opened, such as the cache's size bound.
func (s *Store) Notes() []string { return s.notes }

// Close stops the heartbeat (removing its object), the pollers and the
// classifier, and closes the cache's client; the database and replicas are
// their owner's to close. Closing again does nothing.
func (s *Store) Close() error {
	var err error
	s.closeOnce.Do(func() {
		s.stop()
		s.stopWG.Wait()
		if s.hb != nil {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			s.hb.remove(ctx)
			cancel()
		}
		if s.tao != nil {
			err = s.tao.c.Close()
		}
	})
	return err
}

// Front is s as the runner should see it: a store.StatsReader when the
// database is one, so an experiment's resources still show its server.
func (s *Store) Front() store.Store {
	db := s.db
	if db == nil {
		db = s.reps[0].st
	}
	if r, ok := db.(store.StatsReader); ok {
		return withStats{s, r}
	}
	return s
}

type withStats struct {
	*Store
	r store.StatsReader
}

func (w withStats) ServerStats(ctx context.Context) (store.ServerStats, error) {
	return w.r.ServerStats(ctx)
}

// WatchContext passes the run's context to the database and the replicas
// that watch it once rather than per query (sqlstore's WatchContext, run
// calls it): the tiers, the checker alone among them, must not hide that
// saving. The returned function ends every watch.
func (s *Store) WatchContext(ctx context.Context) func() {
	type watcher interface {
		WatchContext(context.Context) func()
	}
	var stops []func()
	sts := []store.Store{s.db}
	for _, r := range s.reps {
		sts = append(sts, r.st)
	}
	for _, st := range sts {
		if w, ok := st.(watcher); ok {
			stops = append(stops, w.WatchContext(ctx))
		}
	}
	return func() {
		for _, stop := range stops {
			stop()
		}
	}
}

// BeginExperiment starts counting reads that begin in [measure, end),
// with the tao tier's keys of this graph and run number: the drivers of a run
// share them and every other run starts cold.
func (s *Store) BeginExperiment(graphSeed uint64, run int64, measure, end time.Time) {
	x := s.newExperiment(graphSeed, run, measure.UnixNano(), end.UnixNano())
	if st, ok := s.takeWarm(x); ok {
		x.c.Prefill = st
	}
	s.exp.Store(x)
}

func (s *Store) newExperiment(graphSeed uint64, run int64, measure, end int64) *experiment {
	x := &experiment{ns: s.namespace(graphSeed, run), measure: measure, end: end, reps: make([]result.ReplicaStats, len(s.reps)),
		eps: make([]result.ReplicaStats, len(s.eps))}
	if s.tao != nil {
		x.logNS = s.tao.logNamespace(graphSeed)
	}
	return x
}

// EndExperiment returns what the tiers served since BeginExperiment.
func (s *Store) EndExperiment() *result.Consistency {
	x := s.exp.Load()
	s.settle(x)
	x.mu.Lock()
	defer x.mu.Unlock()
	c := x.c
	c.ReadOps = x.readOps
	if s.tao != nil {
		c.Misses = maps.Clone(x.misses)
		if c.Misses == nil {
			c.Misses = map[string]int64{}
		}
	}
	c.TxnsAtDB = s.noTxnTier && !s.plain && s.eps == nil
	if c.CheckOnly = s.plain || s.eps != nil; s.plain {
		c.CheckEvery = CheckEvery
	}
	for i := range c.Tiers {
		t := &c.Tiers[i]
		t.Latency, t.Age = orNew(t.Latency).Clone(), orNew(t.Age).Clone()
		t.Seconds = slices.Clone(t.Seconds)
	}
	for i := range x.chk { // after the clones: c shares nothing with x
		q := &x.chk[i]
		q.mu.Lock()
		c.Merge(&result.Consistency{Tiers: [tao.NumTiers]result.TierStats{tao.TierDB: q.t}})
		q.mu.Unlock()
	}
	if len(s.reps) > 0 {
		r := result.TierStats{}
		if c.Replica != nil {
			r = *c.Replica
		}
		r.Latency, r.Age = orNew(r.Latency).Clone(), orNew(r.Age).Clone()
		r.Seconds = slices.Clone(r.Seconds)
		c.Replica = &r
		c.Replicas = replicaRows(s.reps, x.reps, x)
	}
	c.Endpoints = s.endpointRows(x)
	return &c
}

func orNew(s *metrics.Series) *metrics.Series {
	if s == nil {
		return &metrics.Series{}
	}
	return s
}

// Exec runs a write on the database and then updates the tao tier; a
// single read goes through the tiers, a read transaction too, key by key
// (readTxn). Without tiers (plain) every read goes to the database.
func (s *Store) Exec(ctx context.Context, req *tao.Request, res *tao.Result) {
	switch {
	case s.eps != nil:
		s.onEndpoint(ctx, s.eps[0], req, res)
	case req.Class == tao.Write || req.Class == tao.WriteTxn:
		s.write(ctx, s.db, req, res)
	case s.plain:
		s.check(ctx, req, res)
	case req.Class == tao.Read && len(req.Ops) == 1:
		s.read(ctx, req, res)
	default:
		s.readTxn(ctx, req, res)
	}
}

// trace is what one read did, for the figures.
type trace struct {
	drawn, served tao.Tier
	looked, hit   [tao.NumTiers]bool
	failed        [tao.NumTiers]bool
	answered      bool     // a tier answered (not an error or timeout)
	replica       *replica // the replica that served it, if one did
	// repFailed are the replicas that failed it (it went on elsewhere).
	repFailed [2]*replica
}

// write runs a write on db (the database, or an endpoint's server) and
// logs what it changed.
func (s *Store) write(ctx context.Context, db store.Store, req *tao.Request, res *tao.Result) {
	if db == nil {
		res.Outcome, res.Err = tao.Error, errNoPrimary
		return
	}
	start := s.now()
	db.Exec(ctx, req, res)
	end := s.now()
	if res.Outcome != tao.OK {
		return // rolled back: nothing changed
	}
	// On the stack for the usual write (no garbage per request).
	var cbuf, ibuf [8]Key
	changed, invalid := cbuf[:0], ibuf[:0]
	var ch []Change
	for i := range req.Ops {
		if !req.Ops[i].Kind.IsRead() && i < len(res.Ops) {
			if s.tao != nil && !s.invalidate {
				// TAO's changeset (through.go): the log's keys from
				// written, the tier's updates from through.
				changed, _ = written(&req.Ops[i], &res.Ops[i], changed, nil)
				ch, invalid = through(&req.Ops[i], &res.Ops[i], ch, invalid)
				continue
			}
			changed, invalid = written(&req.Ops[i], &res.Ops[i], changed, invalid)
		}
	}
	for _, k := range changed {
		s.log.add(k, start, end)
	}
	if s.tao != nil && len(invalid)+len(changed)+len(ch) > 0 {
		// After the commit, even when the request's context has ended:
		// an invalidation left undone would leave the entry stale. The
		// shared log learns of the write in the same round trip.
		x := s.exp.Load()
		ictx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		dropped, err := s.tao.c.Commit(ictx, &Changeset{NS: x.ns, Changes: ch, Invalid: invalid, LogNS: x.logNS, Logged: changed, Span: Span{start, end}})
		cancel()
		if dropped > 0 && x.in(start) {
			x.miss("lists_dropped", dropped)
		}
		if err != nil {
			if x.in(start) {
				x.mu.Lock()
				x.c.Tiers[tao.TierTAO].Errors++
				x.mu.Unlock()
			}
		}
	}
}

func (x *experiment) in(t int64) bool { return t >= x.measure && t < x.end }

func (s *Store) read(ctx context.Context, req *tao.Request, res *tao.Result) {
	x := s.exp.Load()
	op := &req.Ops[0]
	begin := time.Now()
	tr := trace{drawn: req.Tier, served: tao.TierDB}
	ck := cacheKey(op)
	var e Entry
	ok := false
	useCSC := req.Tier == tao.TierClientCache && s.csc != nil
	useTAO := req.Tier <= tao.TierTAO && s.tao != nil
	if useCSC {
		tr.looked[tao.TierClientCache] = true
		if e, ok = s.csc.get(ck, begin); ok {
			tr.served = tao.TierClientCache
		}
	}
	if !ok && useTAO {
		tr.looked[tao.TierTAO] = true
		var err error
		e, ok, err = s.tao.get(ctx, x.ns, ck)
		tr.failed[tao.TierTAO] = err != nil
		if !ok && x.in(begin.UnixNano()) {
			s.missed(x, *op, err)
		}
		if ok {
			tr.served = tao.TierTAO
			if s.csc != nil {
				s.csc.put(ck, e, time.Now())
			}
		}
	}
	if ok {
		e.answer(op, res)
		tr.answered = true
	} else {
		ok = s.dbRead(ctx, req, res, &tr, func(ctx context.Context, db store.Store) bool {
			e, ok = s.fetch(ctx, db, req, res)
			return ok
		})
		if ok {
			tr.answered = true
			if useTAO {
				tr.failed[tao.TierTAO] = s.tao.c.Put(ctx, x.ns, Fill{ck, e}) != nil || tr.failed[tao.TierTAO]
			}
			if s.csc != nil {
				s.csc.put(ck, e, time.Now())
			}
		}
	}
	tr.hit[tr.served] = tr.answered && tr.replica == nil
	took := time.Since(begin)
	if tr.answered && tr.replica == nil {
		x.ops(tr.served, 1, begin)
	}
	if tr.answered {
		// A replica's reads are its own figure (Consistency.Replica), not db's.
		res.Served, res.Tiered = tr.served, tr.replica == nil || tr.served != tao.TierDB
		j := judged{x: x, op: *op, r: res.Ops[0], served: tr.served, basis: e.Basis, begin: begin.UnixNano(), logNS: x.logNS}
		if tr.served == tao.TierDB {
			j.rep = tr.replica
		}
		if j.rep != nil && s.hb != nil {
			// The replica's basis is known once a poll begins after it returned.
			tr.replica.wait(pendingRead{j: j, ret: e.Basis})
		} else {
			s.judge(j)
		}
	}
	x.record(&tr, begin, took)
}

// fetch runs a read op on the database and returns the entry to cache; ok
// is false when the database did not answer. A range read also counts the
// list, in the same read transaction, so that the list's size is cached
// and later range reads are served from it.
func (s *Store) fetch(ctx context.Context, db store.Store, req *tao.Request, res *tao.Result) (Entry, bool) {
	op := &req.Ops[0]
	if op.Kind != tao.EdgeRangeRead {
		db.Exec(ctx, req, res)
		basis := time.Now().UnixNano()
		if res.Outcome != tao.OK && res.Outcome != tao.NotFound {
			return Entry{}, false
		}
		r := &res.Ops[0]
		return Entry{Outcome: res.Outcome, Found: r.Found, Version: r.Version, Rows: r.Rows, Basis: basis}, true
	}
	fill := tao.Request{Class: tao.ReadTxn, Tier: tao.TierDB, Ops: []tao.Op{*op, {Kind: tao.EdgeCountRead, ID1: op.ID1, Type: op.Type}}}
	var fr tao.Result
	fr.Reset(2)
	db.Exec(ctx, &fill, &fr)
	basis := time.Now().UnixNano()
	res.Outcome, res.Err = fr.Outcome, fr.Err
	res.Ops[0] = fr.Ops[0]
	if fr.Outcome != tao.OK {
		return Entry{}, false
	}
	return Entry{Outcome: tao.OK, Rows: fr.Ops[1].Rows, Basis: basis}, true
}

// readTxn serves a read transaction at the database when read
// transactions go there (Options.TxnsAtDB) or replicas answer the
// database tier; else where TAO serves it (readtxn.go, txnTiered).
func (s *Store) readTxn(ctx context.Context, req *tao.Request, res *tao.Result) {
	if !s.noTxnTier && len(s.reps) == 0 && (s.csc != nil || s.tao != nil) {
		s.txnTiered(ctx, req, res)
		return
	}
	x := s.exp.Load()
	begin := time.Now()
	tr := trace{drawn: req.Tier, served: tao.TierDB}
	tr.answered = s.dbRead(ctx, req, res, &tr, func(ctx context.Context, db store.Store) bool {
		db.Exec(ctx, req, res)
		return res.Outcome == tao.OK || res.Outcome == tao.NotFound
	})
	ret := time.Now()
	rep := tr.replica
	tr.hit[tao.TierDB] = tr.answered && rep == nil
	res.Served, res.Tiered = tao.TierDB, tr.answered && rep == nil
	x.record(&tr, begin, ret.Sub(begin))
	if tr.answered {
		if rep == nil {
			x.ops(tao.TierDB, len(req.Ops), begin)
		}
		s.judgeTxn(x, req, res, tao.TierDB, rep, begin.UnixNano(), ret.UnixNano(), nil, nil)
	}
}

// check runs a read on the database with the checker alone, as it would
// run without it, and when the read is in the sample (Sampled) classes
// each of its ops against the commit log: the request counts once, stale
// when any op is. The database answered after the read began, so none can
// be: the self-check of the checker.
func (s *Store) check(ctx context.Context, req *tao.Request, res *tao.Result) {
	if len(req.Ops) == 0 || !Sampled(&req.Ops[0]) {
		s.db.Exec(ctx, req, res) // not in the sample: not timed, not classed
		return
	}
	x := s.exp.Load()
	begin := s.now()
	s.db.Exec(ctx, req, res)
	ret := s.now()
	if res.Outcome != tao.OK && res.Outcome != tao.NotFound {
		return
	}
	var stale bool
	var age int64
	for i := range min(len(req.Ops), len(res.Ops)) {
		st, a := s.log.stale(logKey(&req.Ops[i]), ret, begin)
		stale, age = stale || st, max(age, a)
		if s.trace != nil {
			s.show(&judged{op: req.Ops[i], r: res.Ops[i], served: tao.TierDB, basis: ret, begin: begin}, st, a)
		}
	}
	if !x.in(begin) {
		return
	}
	q := &x.chk[uint64(begin)%chkShards]
	q.mu.Lock()
	t := &q.t
	t.Lookups, t.Hits, t.Served = t.Lookups+1, t.Hits+1, t.Served+1
	t.Latency = orNew(t.Latency)
	t.Latency.Record(time.Duration(ret - begin))
	sec := t.Second(x.second(begin))
	sec.Served++
	if stale {
		t.Stale++
		sec.Stale, sec.MaxAge = sec.Stale+1, max(sec.MaxAge, time.Duration(age))
		t.Age = orNew(t.Age)
		t.Age.Record(time.Duration(age))
	}
	q.mu.Unlock()
}

// CheckEvery is the share of the database's reads the checker alone
// classes, one in CheckEvery (docs/tiers.md, "The self-check in every
// run"): classing all of them cost about 3% of a driver's CPU on
// PostgreSQL. Writes are all logged: a write left out could hide a stale
// read.
const CheckEvery = 8

// Sampled reports whether the checker alone classes a read whose first op
// is op: by its keys, so the sample is the same in every run and driver.
func Sampled(op *tao.Op) bool {
	h := uint64(op.ID1)*0x9e3779b97f4a7c15 ^ uint64(op.ID2)*0xbf58476d1ce4e5b9 ^ uint64(op.Type)<<7
	return (h>>32)%CheckEvery == 0
}

// judgeTxn classes each read op of a read transaction tier served
// answered, the request counting once, stale when any of its ops is (the
// oldest age). The database's answer has its return ret as basis, so the
// primary's cannot be stale unless the checker is wrong (the self-check);
// a replica's waits for its basis from the heartbeat, as a single read's
// does. Answers from a cache (es, by op; nil: none) carry their entries'
// bases.
//
// The reads of a transaction served key by key (from: each read's tier,
// nil when served answered them all) are classed each with its tier, and
// a stale transaction counts as a stale read of the tier that served its
// stale read: the database's only when one of its own reads was stale
// (the self-check's failure), a cache's otherwise.
func (s *Store) judgeTxn(x *experiment, req *tao.Request, res *tao.Result, served tao.Tier, rep *replica, begin, ret int64, es []Entry, from []tao.Tier) {
	n := min(len(req.Ops), len(res.Ops))
	async := s.shared != nil || (rep != nil && s.hb != nil)
	var agg *txnJudge
	if n > 1 && async {
		agg = &txnJudge{}
		agg.left.Store(int32(n))
		agg.tier.Store(-1)
	}
	var stale bool
	var age int64
	staleTier := served
	for i := range n {
		basis := ret
		if es != nil {
			basis = es[i].Basis
		}
		opTier := served
		if from != nil {
			opTier = from[i]
		}
		j := judged{x: x, op: req.Ops[i], r: res.Ops[i], served: opTier, rep: rep,
			basis: basis, begin: begin, logNS: x.logNS, txn: agg}
		switch {
		case rep != nil && s.hb != nil:
			rep.wait(pendingRead{j: j, ret: ret})
		case n == 1 || async:
			s.judge(j)
		default: // classed here, counted once below
			st, a := s.log.stale(logKey(&j.op), j.basis, j.begin)
			s.show(&j, st, a)
			if st && (!stale || opTier == tao.TierDB) {
				staleTier = opTier
			}
			stale, age = stale || st, max(age, a)
		}
	}
	if n > 1 && !async {
		s.count(x, staleTier, rep, begin, stale, age)
	}
}

// txnJudge gathers the classes of a read transaction's ops classed off
// the request path: the last one counts the request.
type txnJudge struct {
	left  atomic.Int32
	stale atomic.Bool
	age   atomic.Int64
	tier  atomic.Int32 // the tier of its stale read (judgeTxn); -1: none yet
}

var errNoPrimary = errors.New("a write with replicas alone: give the primary with --db")

// reader is where the database tier's next read goes: the next replica in
// rotation, or the database when there is none (the next replica in turn
// when there is no database either).
func (s *Store) reader() (store.Store, *replica) {
	n := uint64(len(s.reps))
	if n == 0 {
		return s.db, nil
	}
	first := s.next.Add(1) - 1
	for i := range n {
		if r := s.reps[(first+i)%n]; !r.out.Load() {
			return r.st, r
		}
	}
	if s.db != nil {
		return s.db, nil
	}
	r := s.reps[first%n]
	return r.st, r
}

// dbRead runs a read on the database tier through try (which reports
// whether the read was answered): on the next replica in rotation, its
// time bounded (replicaCtx). A replica that fails the read (an error, or
// its bound passed while the request's own time had not) is taken out of
// rotation, the failure counted as its error, and the read goes on to the
// primary (with none, to another replica in rotation), so the request is
// not lost to it. tr learns who served and who failed.
func (s *Store) dbRead(ctx context.Context, req *tao.Request, res *tao.Result, tr *trace, try func(context.Context, store.Store) bool) bool {
	st, rep := s.reader()
	for k := 0; ; k++ {
		tr.replica = rep
		tr.looked[tao.TierDB] = rep == nil
		if rep == nil {
			return try(ctx, st)
		}
		rctx, cancel, bound := s.replicaCtx(ctx)
		ok := try(rctx, st)
		cut := rctx.Err() != nil
		cancel()
		if ok || (res.Outcome != tao.Error && res.Outcome != tao.Timeout) || ctx.Err() != nil {
			return ok // answered, a conflict, or the request's own end
		}
		why := res.Err
		if cut {
			why = fmt.Errorf("no answer to a read within %v", bound.Round(time.Millisecond))
		}
		s.fail(rep, why)
		tr.repFailed[k] = rep
		if s.db == nil && (k == len(tr.repFailed)-1 || s.allOut()) {
			return false
		}
		res.Reset(len(req.Ops))
		st, rep = s.db, nil
		if s.db == nil {
			st, rep = s.reader()
		}
	}
}

// allOut reports whether every replica is out of rotation.
func (s *Store) allOut() bool {
	for _, r := range s.reps {
		if !r.out.Load() {
			return false
		}
	}
	return true
}

// replicaCtx bounds a read on a replica: by the replica timeout, and
// when the request has a deadline by half the time left before it, so a
// replica that hangs leaves the primary time to answer.
func (s *Store) replicaCtx(ctx context.Context) (context.Context, context.CancelFunc, time.Duration) {
	d := s.repTimeout
	if dl, ok := ctx.Deadline(); ok {
		d = min(d, time.Until(dl)/2)
	}
	c, cancel := context.WithTimeout(ctx, d)
	return c, cancel, d
}

// record counts a read that began at begin and took took, when it began
// in the measured window.
func (x *experiment) record(tr *trace, begin time.Time, took time.Duration) {
	if !x.in(begin.UnixNano()) {
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	c := &x.c
	if tr.drawn < tao.NumTiers {
		c.Tiers[tr.drawn].Drawn++
	}
	for i := range c.Tiers {
		t := &c.Tiers[i]
		if tr.looked[i] {
			t.Lookups++
		}
		if tr.hit[i] {
			t.Hits++
		}
		if tr.failed[i] {
			t.Errors++
		}
	}
	for _, f := range tr.repFailed {
		if f != nil {
			r, row := x.replica(), x.row(f)
			r.Lookups, r.Errors = r.Lookups+1, r.Errors+1
			row.Lookups, row.Errors = row.Lookups+1, row.Errors+1
		}
	}
	var row *result.TierStats
	if tr.replica != nil && tr.served == tao.TierDB {
		row = &x.row(tr.replica).TierStats
		for _, r := range []*result.TierStats{x.replica(), row} {
			r.Lookups++
			if tr.answered {
				r.Hits++
			}
		}
	}
	if !tr.answered {
		return
	}
	t := &c.Tiers[tr.served]
	if row != nil {
		t = x.replica()
	}
	sec := x.second(begin.UnixNano())
	for _, t := range []*result.TierStats{t, row} {
		if t == nil {
			continue
		}
		t.Served++
		t.Second(sec).Served++
		t.Latency = orNew(t.Latency)
		t.Latency.Record(took)
	}
}

// ops counts n read operations tier answered for a read that began at
// begin, when it began in the measured window.
func (x *experiment) ops(tier tao.Tier, n int, begin time.Time) {
	if n == 0 || !x.in(begin.UnixNano()) {
		return
	}
	x.mu.Lock()
	x.readOps[tier] += int64(n)
	x.mu.Unlock()
}

// miss counts n read ops of cause (result.Consistency.Misses).
func (x *experiment) miss(cause string, n int64) {
	x.mu.Lock()
	if x.misses == nil {
		x.misses = map[string]int64{}
	}
	x.misses[cause] += n
	x.mu.Unlock()
}

// missed counts read op's miss by its cause. An edge's or a list's cause
// takes one more Redis round trip, made off the request's path so that
// the read's latency is its own; settle waits for them.
func (s *Store) missed(x *experiment, op tao.Op, err error) {
	if err != nil || op.Kind == tao.ObjRead || op.Kind == tao.EdgeTimeRead {
		x.miss(s.tao.why(context.Background(), x.ns, &op, err), 1) // no round trip
		return
	}
	x.whys.Add(1)
	go func() {
		defer x.whys.Add(-1)
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		x.miss(s.tao.why(ctx, x.ns, &op, nil), 1)
	}()
}

// why is why the tao tier did not answer read op (result.Consistency.
// Misses): its lookup failed (err), or it held no entry of the op's kind;
// for a list's entry, whether it held nothing of the list ("_gone") or
// the list was one the prefill could not read whole ("_long": its count
// alone). One more round trip for an edge or a list (missed).
func (t *taoTier) why(ctx context.Context, ns string, op *tao.Op, err error) string {
	if err != nil {
		return "redis"
	}
	cause := "list"
	switch op.Kind {
	case tao.ObjRead:
		return "object"
	case tao.EdgeTimeRead:
		return "time"
	case tao.EdgePointRead:
		cause = "edge"
	}
	held, size, ok := t.c.List(ctx, ns, Key{Kind: 'n', ID1: op.ID1, Type: op.Type})
	if !held {
		return cause + "_gone"
	}
	if ok && size.Rows+1 >= prefillOps {
		return cause + "_long"
	}
	return cause
}

// second is the second of the measured window an instant (Unix ns) is in.
func (x *experiment) second(t int64) int { return int((t - x.measure) / int64(time.Second)) }

// judge classes an answered read: at once against this process's log, or,
// with a shared log, soon after against every process's.
func (s *Store) judge(j judged) {
	if s.shared != nil && s.shared.enqueue(j) {
		return
	}
	stale, age := s.log.stale(logKey(&j.op), j.basis, j.begin)
	s.decide(&j, stale, age)
}

// decide counts a classed read (when it began in its experiment's
// measured window) and shows it to the trace; a read transaction's op
// counts with its request's last.
func (s *Store) decide(j *judged, stale bool, age int64) {
	s.show(j, stale, age)
	if t := j.txn; t != nil {
		if stale {
			t.stale.Store(true)
			for a := t.age.Load(); age > a && !t.age.CompareAndSwap(a, age); a = t.age.Load() {
			}
			if j.served == tao.TierDB {
				t.tier.Store(int32(tao.TierDB))
			} else {
				t.tier.CompareAndSwap(-1, int32(j.served))
			}
		}
		if t.left.Add(-1) != 0 {
			return
		}
		stale, age = t.stale.Load(), t.age.Load()
		served := j.served
		if k := t.tier.Load(); k >= 0 {
			served = tao.Tier(k)
		}
		s.count(j.x, served, j.rep, j.begin, stale, age)
		return
	}
	s.count(j.x, j.served, j.rep, j.begin, stale, age)
}

// count counts a stale read that began at begin in x's measured window.
func (s *Store) count(x *experiment, served tao.Tier, rep *replica, begin int64, stale bool, age int64) {
	if !stale || !x.in(begin) {
		return
	}
	x.mu.Lock()
	ts := [2]*result.TierStats{&x.c.Tiers[served]}
	switch {
	case rep != nil && rep.endpoint: // no tier's: its own row alone
		ts = [2]*result.TierStats{&x.row(rep).TierStats}
	case rep != nil:
		ts = [2]*result.TierStats{x.replica(), &x.row(rep).TierStats}
	}
	for _, t := range ts {
		if t == nil {
			continue
		}
		t.Stale++
		q := t.Second(x.second(begin))
		q.Stale, q.MaxAge = q.Stale+1, max(q.MaxAge, time.Duration(age))
		t.Age = orNew(t.Age)
		t.Age.Record(time.Duration(age))
	}
	x.mu.Unlock()
}

// show shows a classed read op to the trace.
func (s *Store) show(j *judged, stale bool, age int64) {
	if s.trace != nil {
		s.trace(Read{Op: j.op, Result: j.r, Served: j.served, Replica: j.rep != nil, Basis: time.Unix(0, j.basis),
			Begin: time.Unix(0, j.begin), Stale: stale, Age: time.Duration(age)})
	}
}
