package result

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/taobench/taobench/metrics"
	"github.com/taobench/taobench/tao"
)

// Consistency is what the read tiers (package tier, docs/tiers.md) served
// over an experiment's measured window and how much of it was stale. It is
// nil for a run without tiers.
type Consistency struct {
	// Tiers is indexed by tao.Tier: client_cache, tao, db.
	Tiers [tao.NumTiers]TierStats
	// Replica is what the read replicas served (--replica; JSON tier
	// "db_replica"), nil for a run without replicas. The db tier then
	// counts the reads the primary served.
	Replica *TierStats
	// Replicas are Replica by replica, in --replica order (JSON:
	// db_replica's "replicas"); nil without replicas. Replica's counts
	// are their sums.
	Replicas []ReplicaStats
	// Endpoints are the reads of a run over several endpoints of one
	// database (docs/distributed.md, "Stale reads per endpoint"), by
	// endpoint in --db order (JSON: "endpoints", rows shaped as
	// db_replica's "replicas"): each read classed against a heartbeat
	// polled on its own endpoint. Nil for a run on one endpoint. They
	// are no tier's: Tiers[db] is the checker's self-check alone.
	Endpoints []ReplicaStats
	// Prefill is what the tao tier was filled with from the database in
	// the warmup (--cache ...?prefill=1), nil without prefill.
	Prefill *Prefill
	// CheckOnly: no tier stood before the database; the staleness
	// checker ran alone, classing the database's reads (its self-check,
	// in every run on a real database). Tiers[TierDB] holds them.
	CheckOnly bool
	// CheckEvery: with CheckOnly, the checker classed one database read
	// in CheckEvery (a sample by key); the db tier counts those.
	CheckEvery int
	// TxnsAtDB: read transactions all went to the database (run's
	// --read-txns-at-db), not where TAO serves them (docs/tiers.md).
	TxnsAtDB bool
	// ReadOps are the read operations each tier answered, by tier, a read
	// transaction's one by one (its reads may come from several tiers);
	// replicas' are not counted.
	ReadOps [tao.NumTiers]int64
	// Misses are the read operations drawn to a cache tier that the
	// database answered, by cause (docs/tiers.md, "Where the database's
	// reads come from"): "redis" (the tao tier's lookup failed), or the
	// kind of entry the tier did not hold ("object", "edge", "list",
	// "time"; "edge_gone", "list_gone": of a list whose hash the tier held
	// nothing of); "lists_dropped" counts the lists writes left
	// unknown (their hash deleted). Nil without a tao tier.
	Misses map[string]int64
}

// Prefill counts what a warmup's prefill of the tao tier stored: objects,
// edges, lists (their counts read: a list too long for one read
// transaction once per transaction) and the lists found complete (an absent
// edge's point read is answered from them); Errors the read transactions
// or Redis pipelines that failed; Done whether it finished before the
// measured window began; Took how long it ran. Merged, counts add, Done
// holds when every driver's did and Took is the longest.
type Prefill struct {
	Objects, Edges, Lists, Complete, Errors int64
	Done                                    bool
	Took                                    time.Duration
}

// ReplicaStats are one read replica's reads and health over an
// experiment (docs/tiers.md, "Replicas that fail or are promoted").
type ReplicaStats struct {
	// Name is the replica's URL, redacted (no password).
	Name string
	// TierStats are its reads: Lookups the reads sent to it, Hits and
	// Served those it answered, Errors those that failed there (each
	// then went to the primary), Stale and Age as for any tier.
	TierStats
	// Lag is the replication lag each heartbeat poll found (a lower
	// bound: how long before the poll began the first write it had not
	// replayed had committed; 0 when it had replayed all but the last
	// heartbeat); empty without a primary.
	Lag *metrics.Series
	// Outages counts the times it was taken out of rotation for failing
	// in the measured window; Outage how long it was out in all, Longest
	// its longest stretch.
	Outages         int64
	Outage, Longest time.Duration
	// PromotedAt is when it was seen to have left recovery (a standby
	// promoted, a replica's read_only off): it was taken out of rotation
	// for good. Zero: it was not.
	PromotedAt time.Time
}

// Promoted reports whether the replica was seen to leave recovery.
func (r *ReplicaStats) Promoted() bool { return !r.PromotedAt.IsZero() }

func (r *ReplicaStats) merge(o *ReplicaStats) {
	r.TierStats.merge(&o.TierStats)
	if r.Lag == nil {
		r.Lag = &metrics.Series{}
	}
	r.Lag.Merge(o.Lag)
	// Each driver watched the same replica: its outage is the longest
	// any saw, not their sum.
	r.Outages, r.Outage, r.Longest = max(r.Outages, o.Outages), max(r.Outage, o.Outage), max(r.Longest, o.Longest)
	if o.Promoted() && (!r.Promoted() || o.PromotedAt.Before(r.PromotedAt)) {
		r.PromotedAt = o.PromotedAt
	}
}

// ReplicaTier is the name of Consistency.Replica among the tiers.
const ReplicaTier = "db_replica"

// EndpointRow names a row of Consistency.Endpoints in messages.
const EndpointRow = "endpoint"

// TierStats are one tier's reads.
type TierStats struct {
	// Drawn counts the reads read_tiers sent to this tier first.
	Drawn int64
	// Lookups counts the reads that asked this tier (those drawn to it and
	// those that fell through to it); Hits those it answered. Errors counts
	// the reads whose lookup or fill failed here (an unreachable Redis:
	// the read fell through) and the writes whose invalidation failed. The
	// database tier answers every lookup it gets: its Hits equal its
	// Served.
	Lookups, Hits, Errors int64
	// Served counts the reads this tier answered; Stale those of them that
	// returned data older than a version that had finished committing
	// before the read began.
	Served, Stale int64
	// Latency is the time each read this tier served spent in the tiers
	// (lookups that missed included); Age how long before each stale read
	// began the newer version had committed.
	Latency *metrics.Series
	Age     *metrics.Series
	// Seconds are the reads served and stale by the second of the
	// measured window they began in (the last holds any later ones).
	Seconds []StaleSecond
}

// StaleSecond is one second of a tier's reads: served, stale, and the
// oldest stale read's age.
type StaleSecond struct {
	Served, Stale int64
	MaxAge        time.Duration
}

// MaxSeconds bounds TierStats.Seconds (a day).
const MaxSeconds = 86400

// Second is second sec of t.Seconds, added when missing; seconds past
// MaxSeconds are the last.
func (t *TierStats) Second(sec int) *StaleSecond {
	sec = min(max(sec, 0), MaxSeconds-1)
	for len(t.Seconds) <= sec {
		t.Seconds = append(t.Seconds, StaleSecond{})
	}
	return &t.Seconds[sec]
}

// HitRatio is Hits / Lookups; 0 with no lookup.
func (t *TierStats) HitRatio() float64 { return ratio(t.Hits, t.Lookups) }

// StaleShare is Stale / Served; 0 with no read served.
func (t *TierStats) StaleShare() float64 { return ratio(t.Stale, t.Served) }

func ratio(n, d int64) float64 {
	if d == 0 {
		return 0
	}
	return float64(n) / float64(d)
}

// Merge adds o's reads to c's; o may be nil.
func (c *Consistency) Merge(o *Consistency) {
	if o == nil {
		return
	}
	for i := range c.Tiers {
		c.Tiers[i].merge(&o.Tiers[i])
		c.ReadOps[i] += o.ReadOps[i]
	}
	for k, n := range o.Misses {
		if c.Misses == nil {
			c.Misses = map[string]int64{}
		}
		c.Misses[k] += n
	}
	if o.Prefill != nil {
		if c.Prefill == nil {
			c.Prefill = &Prefill{Done: true}
		}
		p, q := c.Prefill, o.Prefill
		p.Objects, p.Edges, p.Lists, p.Complete, p.Errors = p.Objects+q.Objects, p.Edges+q.Edges, p.Lists+q.Lists, p.Complete+q.Complete, p.Errors+q.Errors
		p.Done, p.Took = p.Done && q.Done, max(p.Took, q.Took)
	}
	if o.Replica != nil {
		if c.Replica == nil {
			c.Replica = &TierStats{}
		}
		c.Replica.merge(o.Replica)
	}
	for i := range o.Replicas {
		q := &o.Replicas[i]
		j := slices.IndexFunc(c.Replicas, func(r ReplicaStats) bool { return r.Name == q.Name })
		if j < 0 {
			c.Replicas = append(c.Replicas, ReplicaStats{Name: q.Name})
			j = len(c.Replicas) - 1
		}
		c.Replicas[j].merge(q)
	}
	c.Endpoints = mergeRows(c.Endpoints, o.Endpoints)
}

// mergeRows adds o's rows to rs's, matched by name.
func mergeRows(rs, o []ReplicaStats) []ReplicaStats {
	for i := range o {
		q := &o[i]
		j := slices.IndexFunc(rs, func(r ReplicaStats) bool { return r.Name == q.Name })
		if j < 0 {
			rs = append(rs, ReplicaStats{Name: q.Name})
			j = len(rs) - 1
		}
		rs[j].merge(q)
	}
	return rs
}

func (t *TierStats) merge(u *TierStats) {
	t.Drawn += u.Drawn
	t.Lookups += u.Lookups
	t.Hits += u.Hits
	t.Errors += u.Errors
	t.Served += u.Served
	t.Stale += u.Stale
	if t.Latency == nil {
		t.Latency = &metrics.Series{}
	}
	if t.Age == nil {
		t.Age = &metrics.Series{}
	}
	t.Latency.Merge(u.Latency)
	t.Age.Merge(u.Age)
	for len(t.Seconds) < len(u.Seconds) {
		t.Seconds = append(t.Seconds, StaleSecond{})
	}
	for s, x := range u.Seconds {
		y := &t.Seconds[s]
		y.Served, y.Stale, y.MaxAge = y.Served+x.Served, y.Stale+x.Stale, max(y.MaxAge, x.MaxAge)
	}
}

// mergeConsistency returns a + b, either may be nil (no tiers).
func mergeConsistency(a, b *Consistency) *Consistency {
	if a == nil && b == nil {
		return nil
	}
	// Checked alone only when every part was: a run's drivers share
	// their flags, so the parts agree.
	m := &Consistency{CheckOnly: (a == nil || a.CheckOnly) && (b == nil || b.CheckOnly)}
	for _, x := range []*Consistency{a, b} {
		if x != nil {
			m.CheckEvery = max(m.CheckEvery, x.CheckEvery)
			m.TxnsAtDB = m.TxnsAtDB || x.TxnsAtDB
		}
	}
	m.Merge(a)
	m.Merge(b)
	return m
}

// The JSON of Consistency (docs/results.md, "Consistency"): the figures,
// then the exact data merge adds.
type jsonConsistencyExperiment struct {
	Consistency *jsonConsistency `json:"consistency"` // null: no tiers
}

type jsonConsistency struct {
	// CheckOnly: absent (false) in files written before taobench ran the
	// checker without tiers.
	CheckOnly  bool `json:"check_only"`
	CheckEvery int  `json:"check_every,omitempty"`
	TxnsAtDB   bool `json:"read_txns_at_db,omitempty"`
	// ReadOps: absent in files written before they were counted.
	ReadOps map[string]int64    `json:"read_ops,omitempty"`
	Tiers   map[string]jsonTier `json:"tiers"`
	Prefill *jsonPrefill        `json:"prefill,omitempty"`
	// Misses: absent in files written before they were counted.
	Misses map[string]int64 `json:"misses,omitempty"`
	// Endpoints: one row per endpoint of a run over several, shaped as
	// db_replica's replicas; absent for one endpoint and in files
	// written before taobench recorded them.
	Endpoints []jsonReplica `json:"endpoints,omitempty"`
}

type jsonPrefill struct {
	Objects  int64   `json:"objects"`
	Edges    int64   `json:"edges"`
	Lists    int64   `json:"lists"`
	Complete int64   `json:"complete_lists"`
	Errors   int64   `json:"errors"`
	Done     bool    `json:"done"`
	Seconds  float64 `json:"seconds"`
}

type jsonTier struct {
	Drawn      int64       `json:"drawn"`
	Lookups    int64       `json:"lookups"`
	Hits       int64       `json:"hits"`
	HitRatio   float64     `json:"hit_ratio"`
	Errors     int64       `json:"errors"`
	Served     int64       `json:"served"`
	Stale      int64       `json:"stale"`
	StaleShare float64     `json:"stale_share"`
	LatencyUS  jsonLatency `json:"latency_us"`
	StaleAgeUS jsonLatency `json:"stale_age_us"`

	LatencyHistogram metrics.SeriesData `json:"latency_histogram"`
	AgeHistogram     metrics.SeriesData `json:"stale_age_histogram"`
	// PerSecond: absent in files written before taobench recorded it.
	PerSecond []jsonStaleSecond `json:"per_second"`
	// Replicas: db_replica's rows, one per replica; absent elsewhere and
	// in files written before taobench recorded them.
	Replicas []jsonReplica `json:"replicas,omitempty"`
}

// jsonReplica is one replica's row: its URL (redacted), the tier's
// fields, and its health.
type jsonReplica struct {
	URL string `json:"url"`
	jsonTier
	LagUS          jsonLatency        `json:"lag_us"`
	LagHistogram   metrics.SeriesData `json:"lag_histogram"`
	Outages        int64              `json:"outages"`
	OutageSeconds  float64            `json:"outage_seconds"`
	LongestSeconds float64            `json:"longest_outage_seconds"`
	Promoted       bool               `json:"promoted"`
	PromotedAt     *time.Time         `json:"promoted_at,omitempty"`
}

type jsonStaleSecond struct {
	Served   int64 `json:"served"`
	Stale    int64 `json:"stale"`
	MaxAgeUS int64 `json:"max_age_us"`
}

func consistencyJSON(c *Consistency) (jsonConsistencyExperiment, error) {
	if c == nil {
		return jsonConsistencyExperiment{}, nil
	}
	x := &jsonConsistency{CheckOnly: c.CheckOnly, CheckEvery: c.CheckEvery, TxnsAtDB: c.TxnsAtDB, Tiers: map[string]jsonTier{}, Misses: maps.Clone(c.Misses)}
	for i, n := range c.ReadOps {
		if n > 0 {
			if x.ReadOps == nil {
				x.ReadOps = map[string]int64{}
			}
			x.ReadOps[tao.Tier(i).String()] = n
		}
	}
	if p := c.Prefill; p != nil {
		x.Prefill = &jsonPrefill{p.Objects, p.Edges, p.Lists, p.Complete, p.Errors, p.Done, p.Took.Seconds()}
	}
	for i := range c.Tiers {
		name := tao.Tier(i).String()
		j, err := c.Tiers[i].json(name)
		if err != nil {
			return jsonConsistencyExperiment{}, err
		}
		x.Tiers[name] = j
	}
	if c.Replica != nil {
		j, err := c.Replica.json(ReplicaTier)
		if err != nil {
			return jsonConsistencyExperiment{}, err
		}
		for i := range c.Replicas {
			r, err := c.Replicas[i].json(ReplicaTier)
			if err != nil {
				return jsonConsistencyExperiment{}, err
			}
			j.Replicas = append(j.Replicas, r)
		}
		x.Tiers[ReplicaTier] = j
	}
	for i := range c.Endpoints {
		r, err := c.Endpoints[i].json(EndpointRow)
		if err != nil {
			return jsonConsistencyExperiment{}, err
		}
		x.Endpoints = append(x.Endpoints, r)
	}
	return jsonConsistencyExperiment{Consistency: x}, nil
}

func (t *TierStats) json(name string) (jsonTier, error) {
	lat, age := orEmpty(t.Latency), orEmpty(t.Age)
	ld, err := lat.Data("consistency " + name + " latency")
	if err != nil {
		return jsonTier{}, err
	}
	ad, err := age.Data("consistency " + name + " stale age")
	if err != nil {
		return jsonTier{}, err
	}
	j := jsonTier{
		Drawn: t.Drawn, Lookups: t.Lookups, Hits: t.Hits, HitRatio: t.HitRatio(), Errors: t.Errors,
		Served: t.Served, Stale: t.Stale, StaleShare: t.StaleShare(),
		LatencyUS: jsonLatency(lat.Stats()), StaleAgeUS: jsonLatency(age.Stats()),
		LatencyHistogram: ld, AgeHistogram: ad, PerSecond: []jsonStaleSecond{},
	}
	for _, s := range t.Seconds {
		j.PerSecond = append(j.PerSecond, jsonStaleSecond{s.Served, s.Stale, s.MaxAge.Microseconds()})
	}
	return j, nil
}

// json is the row's JSON; kind names it in errors (ReplicaTier,
// EndpointRow).
func (r *ReplicaStats) json(kind string) (jsonReplica, error) {
	t, err := r.TierStats.json(kind + " " + r.Name)
	if err != nil {
		return jsonReplica{}, err
	}
	lag := orEmpty(r.Lag)
	ld, err := lag.Data("consistency " + kind + " " + r.Name + " lag")
	if err != nil {
		return jsonReplica{}, err
	}
	j := jsonReplica{URL: r.Name, jsonTier: t, LagUS: jsonLatency(lag.Stats()), LagHistogram: ld,
		Outages: r.Outages, OutageSeconds: r.Outage.Seconds(), LongestSeconds: r.Longest.Seconds(), Promoted: r.Promoted()}
	if j.Promoted {
		at := r.PromotedAt.UTC()
		j.PromotedAt = &at
	}
	return j, nil
}

func orEmpty(s *metrics.Series) *metrics.Series {
	if s == nil {
		return &metrics.Series{}
	}
	return s
}

func consistencyFromJSON(x jsonConsistencyExperiment, e *Experiment) error {
	if x.Consistency == nil {
		return nil
	}
	if x.Consistency.CheckEvery < 0 {
		return fmt.Errorf("consistency: check_every %d: want 1 or more, or absent", x.Consistency.CheckEvery)
	}
	c := &Consistency{CheckOnly: x.Consistency.CheckOnly, CheckEvery: x.Consistency.CheckEvery, TxnsAtDB: x.Consistency.TxnsAtDB}
	for name, n := range x.Consistency.ReadOps {
		t, ok := tao.ParseTier(name)
		if !ok || n < 0 {
			return fmt.Errorf("consistency: read_ops %q: %d: want a tier (client_cache, tao, db) and a count of 0 or more", name, n)
		}
		c.ReadOps[t] = n
	}
	for k, n := range x.Consistency.Misses {
		if n < 0 {
			return fmt.Errorf("consistency: misses %q: %d: want a count of 0 or more", k, n)
		}
		if c.Misses == nil {
			c.Misses = map[string]int64{}
		}
		c.Misses[k] = n
	}
	for i := range c.Tiers {
		name := tao.Tier(i).String()
		t, ok := x.Consistency.Tiers[name]
		if !ok {
			return fmt.Errorf("consistency: no tier %s", name)
		}
		s, err := t.stats(name)
		if err != nil {
			return err
		}
		c.Tiers[i] = s
	}
	if t, ok := x.Consistency.Tiers[ReplicaTier]; ok {
		s, err := t.stats(ReplicaTier)
		if err != nil {
			return err
		}
		c.Replica = &s
		for _, r := range t.Replicas {
			s, err := r.stats(ReplicaTier)
			if err != nil {
				return err
			}
			c.Replicas = append(c.Replicas, s)
		}
	}
	for _, r := range x.Consistency.Endpoints {
		s, err := r.stats(EndpointRow)
		if err != nil {
			return err
		}
		c.Endpoints = append(c.Endpoints, s)
	}
	if p := x.Consistency.Prefill; p != nil {
		if p.Objects < 0 || p.Edges < 0 || p.Lists < 0 || p.Complete > p.Lists || p.Errors < 0 || p.Seconds < 0 {
			return fmt.Errorf("consistency prefill: objects %d, edges %d, lists %d, complete %d, errors %d, %g s do not hang together",
				p.Objects, p.Edges, p.Lists, p.Complete, p.Errors, p.Seconds)
		}
		c.Prefill = &Prefill{p.Objects, p.Edges, p.Lists, p.Complete, p.Errors, p.Done, time.Duration(p.Seconds * float64(time.Second))}
	}
	e.Consistency = c
	return nil
}

func (r jsonReplica) stats(kind string) (ReplicaStats, error) {
	name := kind + " " + r.URL
	t, err := r.jsonTier.stats(name)
	if err != nil {
		return ReplicaStats{}, err
	}
	lag, err := metrics.SeriesFromData("consistency "+name+" lag", r.LagHistogram)
	if err != nil {
		return ReplicaStats{}, err
	}
	if r.Outages < 0 || r.OutageSeconds < 0 || r.LongestSeconds < 0 || r.LongestSeconds > r.OutageSeconds || r.Promoted != (r.PromotedAt != nil) {
		return ReplicaStats{}, fmt.Errorf("consistency %s: outages %d, %g s, longest %g s, promoted %v at %v do not hang together",
			name, r.Outages, r.OutageSeconds, r.LongestSeconds, r.Promoted, r.PromotedAt)
	}
	s := ReplicaStats{Name: r.URL, TierStats: t, Lag: lag, Outages: r.Outages,
		Outage: time.Duration(r.OutageSeconds * float64(time.Second)), Longest: time.Duration(r.LongestSeconds * float64(time.Second))}
	if r.PromotedAt != nil {
		s.PromotedAt = *r.PromotedAt
	}
	return s, nil
}

func (t jsonTier) stats(name string) (TierStats, error) {
	lat, err := metrics.SeriesFromData("consistency "+name+" latency", t.LatencyHistogram)
	if err != nil {
		return TierStats{}, err
	}
	age, err := metrics.SeriesFromData("consistency "+name+" stale age", t.AgeHistogram)
	if err != nil {
		return TierStats{}, err
	}
	switch {
	case t.Hits > t.Lookups || t.Stale > t.Served || t.Hits < 0 || t.Errors < 0 || t.Stale < 0 || t.Drawn < 0:
		return TierStats{}, fmt.Errorf("consistency %s: drawn %d, lookups %d, hits %d, errors %d, served %d, stale %d do not hang together",
			name, t.Drawn, t.Lookups, t.Hits, t.Errors, t.Served, t.Stale)
	case lat.Count() != t.Served || age.Count() != t.Stale:
		return TierStats{}, fmt.Errorf("consistency %s: %d reads served and %d stale, but the histograms hold %d and %d",
			name, t.Served, t.Stale, lat.Count(), age.Count())
	}
	var secs []StaleSecond
	var served, stale int64
	for s, x := range t.PerSecond {
		if x.Stale > x.Served || x.Stale < 0 || x.MaxAgeUS < 0 || s >= MaxSeconds {
			return TierStats{}, fmt.Errorf("consistency %s: second %d: %d served, %d stale, oldest %d µs do not hang together", name, s, x.Served, x.Stale, x.MaxAgeUS)
		}
		served, stale = served+x.Served, stale+x.Stale
		secs = append(secs, StaleSecond{x.Served, x.Stale, time.Duration(x.MaxAgeUS) * time.Microsecond})
	}
	if secs != nil && (served != t.Served || stale != t.Stale) {
		return TierStats{}, fmt.Errorf("consistency %s: %d reads served and %d stale, but its seconds add to %d and %d", name, t.Served, t.Stale, served, stale)
	}
	return TierStats{Drawn: t.Drawn, Lookups: t.Lookups, Hits: t.Hits, Errors: t.Errors,
		Served: t.Served, Stale: t.Stale, Latency: lat, Age: age, Seconds: secs}, nil
}
