package tier

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// taoTier is TAO's cache tier on a real Redis server, shared by every
// client and driver process that names it: filled on a miss, invalidated
// after a write commits (write-through), each key expiring expire after
// it was filled so a run leaves nothing behind for long. Its size bound
// is Redis's own (maxmemory with an LRU policy; docs/tiers.md).
type taoTier struct {
	c *redis.Client
	// prefix is the URL's ?prefix with the database's scope
	// (store.Scope): two databases never share keys, whatever the URL.
	prefix string
	expire time.Duration
	// prefill: fill each experiment's keys from the database in its
	// warmup (prefill.go).
	prefill bool
}

// Defaults for a cache URL that does not say: a Redis that goes away must
// make reads fall through to the database quickly, not hold them.
const (
	defaultPrefix  = "taobench"
	defaultExpire  = time.Hour
	defaultTimeout = 500 * time.Millisecond
)

// openRedis connects to the Redis of raw (a --cache URL: parseCache) and
// pings it within 3 s. Errors name the URL redacted, what did not answer
// or what was refused, and the fix.
func openRedis(ctx context.Context, raw string, clients int) (*taoTier, error) {
	c, err := parseCache(raw, clients)
	if err != nil {
		return nil, err
	}
	t := &taoTier{prefix: c.prefix, expire: c.expire, prefill: c.prefill}
	// go-redis logs failed dials to standard error on its own; the tier
	// counts them as the tao tier's errors, and a log line mid-run would
	// break the text report. Its logger is the library's, set once.
	quietRedis.Do(func() { redis.SetLogger(silent{}) })
	t.c = redis.NewClient(c.opts)
	pctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	if err := t.c.Ping(pctx).Err(); err != nil {
		t.c.Close()
		return nil, pingError(pctx, c, err, raw)
	}
	return t, nil
}

// PingCache connects to the Redis of a --cache URL and pings it, as
// Open does, then lets it go: a command refuses a cache it cannot use
// before it creates or loads anything.
func PingCache(ctx context.Context, raw string) error {
	t, err := openRedis(ctx, raw, 1)
	if err != nil {
		return err
	}
	return t.c.Close()
}

// namespace is the key prefix of one experiment: every process of a run
// shares it (the same database, graph and run number) and no other run
// does.
func (t *taoTier) namespace(graphSeed uint64, run int64) string {
	return t.prefix + ":" + strconv.FormatUint(graphSeed, 10) + ":" + strconv.FormatInt(run, 10) + ":"
}

// get returns k's entry; ok false on a miss.
func (t *taoTier) get(ctx context.Context, ns string, k key) (e entry, ok bool, err error) {
	name, field := redisKey(ns, k)
	var s string
	if field == "" {
		s, err = t.c.Get(ctx, name).Result()
	} else {
		s, err = t.c.HGet(ctx, name, field).Result()
	}
	if errors.Is(err, redis.Nil) {
		return entry{}, false, nil
	}
	if err != nil {
		return entry{}, false, err
	}
	if e, err = decodeEntry(s); err != nil {
		return entry{}, false, fmt.Errorf("redis key %s: %v", name, err)
	}
	return e, true, nil
}

// getEdge returns the entry of an edge point read's key k: the edge's own,
// or when the tier has none, an absent edge's answer from its list's
// completeness (prefill.go): one HMGET of the list's hash.
func (t *taoTier) getEdge(ctx context.Context, ns string, k key) (e entry, ok bool, err error) {
	name, field := redisKey(ns, k)
	_, all := redisKey(ns, completeKey(k.id1, k.typ))
	vs, err := t.c.HMGet(ctx, name, field, all).Result()
	if err != nil {
		return entry{}, false, err
	}
	for _, v := range vs {
		s, isStr := v.(string)
		if !isStr {
			continue // nil: no such field
		}
		if e, err = decodeEntry(s); err != nil {
			return entry{}, false, fmt.Errorf("redis key %s: %v", name, err)
		}
		return e, true, nil // the complete list's entry is an absent edge's answer
	}
	return entry{}, false, nil
}

// putAll stores fills in one pipeline.
func (t *taoTier) putAll(ctx context.Context, ns string, fills []fill) error {
	p := t.c.Pipeline()
	for _, f := range fills {
		name, field := redisKey(ns, f.k)
		if field == "" {
			p.Set(ctx, name, f.e.encode(), t.expire)
			continue
		}
		p.HSet(ctx, name, field, f.e.encode())
		p.Expire(ctx, name, t.expire)
	}
	_, err := p.Exec(ctx)
	return err
}

// put stores e under k.
func (t *taoTier) put(ctx context.Context, ns string, k key, e entry) error {
	name, field := redisKey(ns, k)
	if field == "" {
		return t.c.Set(ctx, name, e.encode(), t.expire).Err()
	}
	p := t.c.Pipeline()
	p.HSet(ctx, name, field, e.encode())
	p.Expire(ctx, name, t.expire)
	_, err := p.Exec(ctx)
	return err
}

// bound describes the server's size bound, for a note: Redis's maxmemory
// and policy, or that it has none.
func (t *taoTier) bound(ctx context.Context) string {
	cfg, err := t.c.ConfigGet(ctx, "maxmemory*").Result()
	if err != nil {
		return "its size bound is unknown (CONFIG GET: " + err.Error() + ")"
	}
	if cfg["maxmemory"] == "0" || cfg["maxmemory"] == "" {
		return "it has no maxmemory: the tier is bounded only by key expiry (" + t.expire.String() + "); give it its own redis-server with --maxmemory and --maxmemory-policy allkeys-lru"
	}
	return "maxmemory " + cfg["maxmemory"] + " bytes, policy " + cfg["maxmemory-policy"]
}

var quietRedis sync.Once

type silent struct{}

func (silent) Printf(context.Context, string, ...any) {}
