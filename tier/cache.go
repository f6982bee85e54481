package tier

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/tao"
)

// Cache is the tao tier's shared cache: a server that every client and
// driver process naming it shares (tier/rediscache's Redis). It keeps
// entries by Key under a namespace (an experiment's), each list's keys
// together, and the shared commit log (shared.go). It must be safe for
// concurrent use; an error leaves the read to the database.
type Cache interface {
	// Get looks up in one round trip the keys whose want is set; a hit
	// sets its entry in es and clears its want. An edge's key (Kind 'e')
	// is also answered by its list's completeness ('a', prefill.go): an
	// edge the complete list lacks is absent.
	Get(ctx context.Context, ns string, keys []Key, want []bool, es []Entry) (hits int, err error)
	// Put stores the fills under ns in one round trip.
	Put(ctx context.Context, ns string, fills ...Fill) error
	// Commit applies a committed write's changeset in one round trip;
	// dropped is how many lists it dropped whole (a list the write
	// changed whose entry could not be updated in place).
	Commit(ctx context.Context, w *Changeset) (dropped int64, err error)
	// List tells why a read of list k's key (Kind 'n', a list's size
	// entry) missed: whether the cache holds anything of the list, and
	// the size entry when it holds one (result.Consistency.Misses).
	List(ctx context.Context, ns string, k Key) (held bool, size Entry, ok bool)
	// Writes returns the writes the shared log keeps of each key (the
	// last LogWrites, any order) in one round trip; a key it cannot
	// look up has none.
	Writes(ctx context.Context, keys []LogKey) [][]Span
	// Bound describes the server's size bound, for a note.
	Bound(ctx context.Context) string
	Close() error
}

// Fill is an entry to store under its key.
type Fill struct {
	Key   Key
	Entry Entry
}

// Changeset is what a committed write changed (through.go), for the tao
// tier: the entries it updates (Changes) or drops (Invalid, a list's key
// dropping the whole list), under NS, and the keys it logs in the shared
// commit log under LogNS with its span.
type Changeset struct {
	NS      string
	Changes []Change
	Invalid []Key
	LogNS   string
	Logged  []Key
	Span    Span
}

// LogKey is a key of the shared commit log under a graph's namespace.
type LogKey struct {
	NS  string
	Key Key
}

// LogWrites is how many writes of a key a commit log keeps.
const LogWrites = logWrites

// CacheSettings are taobench's own options of a cache URL.
type CacheSettings struct {
	// Prefix starts every key (the database's scope follows it).
	Prefix string
	// Prefill: fill each experiment's keys from the database before its
	// clock starts (Store.Warm).
	Prefill bool
}

// CacheDriver opens the caches of its URL schemes (RegisterCache).
type CacheDriver interface {
	// Check reads a cache URL without connecting.
	Check(url string) error
	// Open connects for clients concurrent requests and checks the
	// server answers.
	Open(ctx context.Context, url string, clients int) (Cache, CacheSettings, error)
}

// CacheRegistry maps URL schemes to cache drivers, as store.Registry maps
// them to stores. The zero value is empty; Caches is the registry the
// cache packages register with.
type CacheRegistry struct {
	mu      sync.RWMutex
	drivers map[string]CacheDriver
}

// Caches is filled by the cache packages' init functions, as database/sql's
// drivers fill its registry: a program links go-redis only when it
// imports tier/rediscache.
var Caches = &CacheRegistry{}

// RegisterCache makes a scheme available in Caches. It panics on a
// duplicate, a programming error caught at start-up.
func RegisterCache(scheme string, d CacheDriver) { Caches.Register(scheme, d) }

// Register makes a scheme available.
func (r *CacheRegistry) Register(scheme string, d CacheDriver) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.drivers == nil {
		r.drivers = map[string]CacheDriver{}
	}
	if _, dup := r.drivers[scheme]; dup {
		panic("tier: cache scheme registered twice: " + scheme)
	}
	r.drivers[scheme] = d
}

// Schemes lists the registered schemes, sorted.
func (r *CacheRegistry) Schemes() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	s := make([]string, 0, len(r.drivers))
	for k := range r.drivers {
		s = append(s, k)
	}
	sort.Strings(s)
	return s
}

// cachePackages names the package of this module that registers each
// scheme when imported.
var cachePackages = map[string]string{"redis": "tier/rediscache", "rediss": "tier/rediscache", "unix": "tier/rediscache"}

// driver returns the driver of raw's scheme. Its error, as every cache
// URL's, starts with the URL redacted and quoted: the caller says where
// it came from.
func (r *CacheRegistry) driver(raw string) (CacheDriver, error) {
	scheme, _, _ := strings.Cut(raw, ":")
	scheme = strings.ToLower(scheme)
	r.mu.RLock()
	d, ok := r.drivers[scheme]
	r.mu.RUnlock()
	if ok {
		return d, nil
	}
	known := strings.Join(r.Schemes(), ", ")
	if known == "" {
		known = "none: no cache package is imported"
	}
	msg := fmt.Sprintf("not a cache URL of a registered scheme (%s); registered: %s", strconv.Quote(scheme), known)
	if !strings.Contains(raw, ":") {
		msg = "not a cache URL; registered schemes: " + known
	}
	if pkg, ok := cachePackages[scheme]; ok {
		msg += fmt.Sprintf(`; import _ "github.com/taobench/taobench/%s" to register it`, pkg)
	} else {
		msg += "; use e.g. redis://127.0.0.1:6379/0?prefix=taobench (tier/rediscache registers redis, rediss and unix)"
	}
	return nil, fmt.Errorf("%s: %s", strconv.Quote(store.Redact(raw)), msg)
}

// Check checks a cache URL as Open reads it, without connecting: a
// command refuses a bad one before it opens the database. Its error
// starts with the URL redacted and quoted, and says the fix.
func (r *CacheRegistry) Check(raw string) error {
	d, err := r.driver(raw)
	if err != nil {
		return err
	}
	return d.Check(raw)
}

// Ping connects to the cache of a URL and checks it answers, as Open
// does, then lets it go: a command refuses a cache it cannot use before
// it creates or loads anything. Errors as Check's.
func (r *CacheRegistry) Ping(ctx context.Context, raw string) error {
	c, err := r.open(ctx, raw, 1)
	if err != nil {
		return err
	}
	return c.c.Close()
}

func (r *CacheRegistry) open(ctx context.Context, raw string, clients int) (*taoTier, error) {
	d, err := r.driver(raw)
	if err != nil {
		return nil, err
	}
	c, set, err := d.Open(ctx, raw, clients)
	if err != nil {
		return nil, err
	}
	return &taoTier{c: c, prefix: set.Prefix, prefill: set.Prefill}, nil
}

// CheckCache is Caches.Check.
func CheckCache(raw string) error { return Caches.Check(raw) }

// PingCache is Caches.Ping.
func PingCache(ctx context.Context, raw string) error { return Caches.Ping(ctx, raw) }

// taoTier is TAO's cache tier on a Cache, shared by every client and
// driver process that names it: filled on a miss, updated by a write's
// changeset after it commits (through.go).
type taoTier struct {
	c Cache
	// prefix is the URL's prefix with the database's scope
	// (store.Scope): two databases never share keys, whatever the URL.
	prefix string
	// prefill: fill each experiment's keys from the database before its
	// clock starts (prefill.go, warm.go).
	prefill bool
}

// namespace is the key prefix of one experiment: every process of a run
// shares it (the same database, graph and run number) and no other run
// does.
func (t *taoTier) namespace(graphSeed uint64, run int64) string {
	return t.prefix + ":" + strconv.FormatUint(graphSeed, 10) + ":" + strconv.FormatInt(run, 10) + ":"
}

// logNamespace is the shared log's namespace of a graph: not of a run, so
// that writes of earlier experiments and of every driver count.
func (t *taoTier) logNamespace(graphSeed uint64) string {
	return t.prefix + ":" + strconv.FormatUint(graphSeed, 10) + ":w:"
}

// get returns k's entry; ok false on a miss.
func (t *taoTier) get(ctx context.Context, ns string, k Key) (Entry, bool, error) {
	var e [1]Entry
	want := [1]bool{true}
	n, err := t.c.Get(ctx, ns, []Key{k}, want[:], e[:])
	return e[0], n == 1 && err == nil, err
}

// getTxn looks up the reads of ops that want (by index) in one round
// trip, storing each hit in es, clearing its want and setting its from to
// the tao tier.
func (t *taoTier) getTxn(ctx context.Context, ns string, ops []tao.Op, want []bool, es []Entry, from []tao.Tier) (int, error) {
	keys := make([]Key, len(ops))
	asked := make([]bool, len(ops))
	for i := range ops {
		if want[i] {
			keys[i], asked[i] = cacheKey(&ops[i]), true
		}
	}
	hits, err := t.c.Get(ctx, ns, keys, want, es)
	for i := range asked {
		if asked[i] && !want[i] {
			from[i] = tao.TierTAO
		}
	}
	return hits, err
}
