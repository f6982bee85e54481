// Package rediscache is the tao tier's cache on a real Redis server
// (docs/tiers.md): importing it registers the schemes redis, rediss and
// unix with tier.Caches, as a store package registers its own, so a
// program that does not import it links no go-redis.
package rediscache

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/tier"
)

func init() {
	for _, s := range []string{"redis", "rediss", "unix"} {
		tier.RegisterCache(s, driver{})
	}
}

type driver struct{}

// Check checks a cache URL as Open reads it, without connecting. Its
// errors start with the URL redacted and quoted, and say the fix.
func (driver) Check(raw string) error {
	_, err := parseCache(raw, 1)
	return err
}

// Open connects to the Redis of raw and pings it within 3 s. Errors
// start with the URL redacted and quoted, and say what did not answer or
// what was refused, and the fix.
func (driver) Open(ctx context.Context, raw string, clients int) (tier.Cache, tier.CacheSettings, error) {
	c, err := openRedis(ctx, raw, clients)
	if err != nil {
		return nil, tier.CacheSettings{}, err
	}
	return c, tier.CacheSettings{Prefix: c.prefix, Prefill: c.prefill}, nil
}

// cache is TAO's cache tier on a real Redis server, shared by every
// client and driver process that names it, each key expiring expire
// after it was filled so a run leaves nothing behind for long. Its size
// bound is Redis's own (maxmemory with an LRU policy; docs/tiers.md).
// Each list's entries share one hash (redisKey): one DEL drops them all
// and one HMGET answers an edge point read from the edge or, when
// absent, from the complete list.
type cache struct {
	c       *redis.Client
	prefix  string // the URL's ?prefix
	expire  time.Duration
	prefill bool
}

// Defaults for a cache URL that does not say: a Redis that goes away must
// make reads fall through to the database quickly, not hold them.
const (
	defaultPrefix  = "taobench"
	defaultExpire  = time.Hour
	defaultTimeout = 500 * time.Millisecond
)

func openRedis(ctx context.Context, raw string, clients int) (*cache, error) {
	c, err := parseCache(raw, clients)
	if err != nil {
		return nil, err
	}
	t := &cache{prefix: c.prefix, expire: c.expire, prefill: c.prefill}
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

func (t *cache) Close() error { return t.c.Close() }

// Get looks the wanted keys up in one pipeline; an edge's key with its
// list's completeness field, in one HMGET.
func (t *cache) Get(ctx context.Context, ns string, keys []tier.Key, want []bool, es []tier.Entry) (hits int, err error) {
	if n := countWanted(want); n == 1 {
		return t.getOne(ctx, ns, keys, want, es)
	}
	p := t.c.Pipeline()
	cmds := make([]redis.Cmder, len(keys))
	for i, k := range keys {
		if !want[i] {
			continue
		}
		name, field := redisKey(ns, k)
		switch {
		case field == "":
			cmds[i] = p.Get(ctx, name)
		case k.Kind == 'e':
			_, all := redisKey(ns, completeKey(k))
			cmds[i] = p.HMGet(ctx, name, field, all)
		default:
			cmds[i] = p.HGet(ctx, name, field)
		}
	}
	if _, err := p.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return 0, err
	}
	for i, c := range cmds {
		var s string
		switch c := c.(type) {
		case nil:
			continue
		case *redis.StringCmd:
			if c.Err() != nil {
				continue
			}
			s = c.Val()
		case *redis.SliceCmd:
			if s = firstString(c.Val()); s == "" {
				continue
			}
		}
		e, err := decodeEntry(s)
		if err != nil {
			return hits, fmt.Errorf("redis entry of a read transaction: %v", err)
		}
		es[i], want[i] = e, false
		hits++
	}
	return hits, nil
}

func countWanted(want []bool) int {
	n := 0
	for _, w := range want {
		if w {
			n++
		}
	}
	return n
}

func firstString(vs []any) string {
	for _, v := range vs {
		if s, ok := v.(string); ok {
			return s // nil: no such field
		}
	}
	return ""
}

// getOne looks up the one wanted key without a pipeline: a single read's
// lookup, on the request path.
func (t *cache) getOne(ctx context.Context, ns string, keys []tier.Key, want []bool, es []tier.Entry) (int, error) {
	i := 0
	for !want[i] {
		i++
	}
	k := keys[i]
	name, field := redisKey(ns, k)
	var s string
	var err error
	switch {
	case field == "":
		s, err = t.c.Get(ctx, name).Result()
	case k.Kind == 'e':
		// The edge's own entry or, when the tier has none, an absent
		// edge's answer from its list's completeness.
		_, all := redisKey(ns, completeKey(k))
		var vs []any
		if vs, err = t.c.HMGet(ctx, name, field, all).Result(); err == nil {
			if s = firstString(vs); s == "" {
				return 0, nil
			}
		}
	default:
		s, err = t.c.HGet(ctx, name, field).Result()
	}
	if errors.Is(err, redis.Nil) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	e, err := decodeEntry(s)
	if err != nil {
		return 0, fmt.Errorf("redis key %s: %v", name, err)
	}
	es[i], want[i] = e, false
	return 1, nil
}

// completeKey is the key of the completeness of k's list.
func completeKey(k tier.Key) tier.Key { return tier.Key{Kind: 'a', ID1: k.ID1, Type: k.Type} }

// Put stores fills: one alone without a pipeline, as a single read's fill.
func (t *cache) Put(ctx context.Context, ns string, fills ...tier.Fill) error {
	if len(fills) == 1 {
		if name, field := redisKey(ns, fills[0].Key); field == "" {
			return t.c.Set(ctx, name, encode(fills[0].Entry), t.expire).Err()
		}
	}
	p := t.c.Pipeline()
	for _, f := range fills {
		name, field := redisKey(ns, f.Key)
		if field == "" {
			p.Set(ctx, name, encode(f.Entry), t.expire)
			continue
		}
		p.HSet(ctx, name, field, encode(f.Entry))
		p.Expire(ctx, name, t.expire)
	}
	_, err := p.Exec(ctx)
	return err
}

// Bound describes the server's size bound, for a note: Redis's maxmemory
// and policy, or that it has none.
func (t *cache) Bound(ctx context.Context) string {
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

// Commit applies a write's changeset (the script below), drops the
// entries of w.Invalid and logs w.Logged in one pipeline: the shared
// commit log keeps per key a Redis list of its last tier.LogWrites writes,
// "start,end" in Unix ns.
func (t *cache) Commit(ctx context.Context, w *tier.Changeset) (dropped int64, err error) {
	p := t.c.Pipeline()
	th := t.queueThrough(ctx, p, w.NS, w.Changes, w.Span.End)
	if len(w.Invalid) > 0 {
		names := make([]string, 0, len(w.Invalid))
		for _, k := range w.Invalid {
			name, _ := redisKey(w.NS, k)
			names = append(names, name)
		}
		p.Del(ctx, names...)
	}
	v := strconv.FormatInt(w.Span.Start, 10) + "," + strconv.FormatInt(w.Span.End, 10)
	for _, k := range w.Logged {
		n := logName(w.LogNS, k)
		p.LPush(ctx, n, v)
		p.LTrim(ctx, n, 0, tier.LogWrites-1)
		p.PExpire(ctx, n, t.expire)
	}
	if _, err = p.Exec(ctx); err != nil {
		return 0, err
	}
	if th != nil {
		dropped, _ = th.Int64()
	}
	return dropped, nil
}

// List tells whether Redis holds list k's hash at all, and its size
// entry ("n") when it holds one, in one round trip.
func (t *cache) List(ctx context.Context, ns string, k tier.Key) (held bool, size tier.Entry, ok bool) {
	name, field := redisKey(ns, k)
	p := t.c.Pipeline()
	exists := p.Exists(ctx, name)
	n := p.HGet(ctx, name, field)
	p.Exec(ctx) // a failed lookup holds nothing
	if exists.Val() == 0 {
		return false, tier.Entry{}, false
	}
	e, err := decodeEntry(n.Val())
	return true, e, err == nil
}

// Writes reads the shared log of keys in one pipeline.
func (t *cache) Writes(ctx context.Context, keys []tier.LogKey) [][]tier.Span {
	p := t.c.Pipeline()
	cmds := make([]*redis.StringSliceCmd, len(keys))
	for i, k := range keys {
		cmds[i] = p.LRange(ctx, logName(k.NS, k.Key), 0, tier.LogWrites-1)
	}
	p.Exec(ctx) // a failed lookup has no writes
	out := make([][]tier.Span, len(keys))
	for i, c := range cmds {
		vs, err := c.Result()
		if err != nil {
			continue
		}
		for _, v := range vs {
			if w, ok := parseSpan(v); ok {
				out[i] = append(out[i], w)
			}
		}
	}
	return out
}

// parseSpan reads a write as the shared log keeps it: "start,end".
func parseSpan(v string) (tier.Span, bool) {
	a, b, ok := strings.Cut(v, ",")
	if !ok {
		return tier.Span{}, false
	}
	start, err1 := strconv.ParseInt(a, 10, 64)
	end, err2 := strconv.ParseInt(b, 10, 64)
	return tier.Span{Start: start, End: end}, err1 == nil && err2 == nil
}

// logName is the Redis list of k's writes under the log namespace ns.
func logName(ns string, k tier.Key) string {
	b := make([]byte, 0, len(ns)+48)
	b = append(b, ns...)
	b = append(b, k.Kind, ':')
	b = strconv.AppendInt(b, k.ID1, 10)
	b = append(b, ':')
	b = strconv.AppendInt(b, int64(k.Type), 10)
	b = append(b, ':')
	b = strconv.AppendInt(b, k.ID2, 10)
	return string(b)
}

// redisKey returns the Redis key of k under the namespace ns and, for
// entries of a list, the field of the list's hash: its size, time-range
// reads, edges and completeness share one hash per list, so one DEL
// invalidates them all and one HMGET answers an edge point read from the
// edge or, when absent, from the complete list.
func redisKey(ns string, k tier.Key) (name, field string) {
	b := make([]byte, 0, len(ns)+48)
	b = append(b, ns...)
	if k.Kind == 'o' {
		b = append(b, "o:"...)
		b = strconv.AppendInt(b, k.ID1, 10)
		return string(b), ""
	}
	// 'e', 'n', 't', 'a', 'l', 'c': the list's hash
	b = append(b, "l:"...)
	b = strconv.AppendInt(b, k.ID1, 10)
	b = append(b, ':')
	b = strconv.AppendInt(b, int64(k.Type), 10)
	f := make([]byte, 0, 48)
	switch k.Kind {
	case 'n':
		f = append(f, 'n')
	case 'a': // the list is complete
		f = append(f, 'a')
	case 'e':
		f = append(f, "e:"...)
		f = strconv.AppendInt(f, k.ID2, 10)
	case 't':
		f = append(f, "t:"...)
		f = strconv.AppendInt(f, k.Low, 10)
		f = append(f, ':')
		f = strconv.AppendInt(f, k.High, 10)
		f = append(f, ':')
		f = strconv.AppendInt(f, int64(k.Limit), 10)
	}
	return string(b), string(f)
}

// encode is the entry as Redis keeps it: "outcome,found,version,rows,basis"
// (the script below reads it too).
func encode(e tier.Entry) string {
	b := make([]byte, 0, 48)
	b = strconv.AppendInt(b, int64(e.Outcome), 10)
	b = append(b, ',')
	if e.Found {
		b = append(b, '1')
	} else {
		b = append(b, '0')
	}
	b = append(b, ',')
	b = strconv.AppendInt(b, e.Version, 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(e.Rows), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, e.Basis, 10)
	return string(b)
}

var errEntry = errors.New("not a taobench cache entry")

func decodeEntry(s string) (tier.Entry, error) {
	f := strings.Split(s, ",")
	if len(f) != 5 {
		return tier.Entry{}, errEntry
	}
	var n [5]int64
	for i, x := range f {
		v, err := strconv.ParseInt(x, 10, 64)
		if err != nil {
			return tier.Entry{}, errEntry
		}
		n[i] = v
	}
	if n[0] < 0 || n[0] >= int64(tao.NumOutcomes) || n[1] < 0 || n[1] > 1 || n[3] < 0 {
		return tier.Entry{}, errEntry
	}
	return tier.Entry{Outcome: tao.Outcome(n[0]), Found: n[1] == 1, Version: n[2], Rows: int(n[3]), Basis: n[4]}, nil
}

// throughScript applies a write's changes (tier.Change, tier/through.go:
// TAO's changeset) atomically, each entry only if the tier holds it
// (KEYS: the entries' Redis keys; ARGV: the write's return, the expiry in
// ms, the outcomes OK and NotFound, then per key its hash field, "" for a
// plain key, its change and delta). Bases are Unix ns of 19 digits, past
// a double's exact range: compared as strings.
var throughScript = redis.NewScript(`
local e, px, okc, nfc = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local function later(a, b)
  if #a ~= #b then if #a > #b then return a end return b end
  if a > b then return a end return b
end
local function get(name, f)
  if f == '' then return redis.call('GET', name) end
  return redis.call('HGET', name, f)
end
local function set(name, f, v)
  if f == '' then redis.call('SET', name, v, 'PX', px) return end
  redis.call('HSET', name, f, v)
  redis.call('PEXPIRE', name, px)
end
local function del(name, f)
  if f == '' then redis.call('DEL', name) else redis.call('HDEL', name, f) end
end
local dropped = 0
for i, name in ipairs(KEYS) do
  local f, act, delta = ARGV[2 + 3 * i], ARGV[3 + 3 * i], tonumber(ARGV[4 + 3 * i])
  if act == 'iupsert' or act == 'idelete' then
    local v = redis.call('HGET', name, f)
    local fd, ver = nil, nil
    if v then
      fd, ver = string.match(v, '^%-?%d+,([01]),(%-?%d+),%d+,%d+$')
    elseif redis.call('HEXISTS', name, 'a') == 1 then
      fd = '0'
    end
    local n = redis.call('HGET', name, 'n')
    local function size(d)
      if not n then return end
      local o, nfd, nver, rows, b = string.match(n, '^(%-?%d+),([01]),(%-?%d+),(%d+),(%d+)$')
      if not o or tonumber(rows) + d < 0 then redis.call('HDEL', name, 'n') return end
      set(name, 'n', o .. ',' .. nfd .. ',' .. nver .. ',' .. (tonumber(rows) + d) .. ',' .. later(b, e))
    end
    if not fd then
      dropped = dropped + redis.call('DEL', name)
    else
      for _, h in ipairs(redis.call('HKEYS', name)) do
        if string.sub(h, 1, 2) == 't:' then redis.call('HDEL', name, h) end
      end
      if act == 'iupsert' and fd == '1' then
        set(name, f, okc .. ',1,' .. (tonumber(ver) + 1) .. ',0,' .. e)
        size(0)
      elseif act == 'iupsert' then
        set(name, f, okc .. ',1,1,0,' .. e)
        size(1)
      elseif fd == '1' then
        set(name, f, nfc .. ',0,0,0,' .. e)
        size(-1)
      end
    end
  elseif act == 'dropt' then
    for _, h in ipairs(redis.call('HKEYS', name)) do
      if string.sub(h, 1, 2) == 't:' then redis.call('HDEL', name, h) end
    end
  elseif act == 'new' then
    if f == '' or redis.call('EXISTS', name) == 1 then set(name, f, okc .. ',1,1,0,' .. e) end
  else
    local v = get(name, f)
    if v then
      local o, fd, ver, rows, b = string.match(v, '^(%-?%d+),([01]),(%-?%d+),(%d+),(%d+)$')
      if not o then
        del(name, f)
      else
        local nb = later(b, e)
        if act == 'bump' then
          if fd == '1' then set(name, f, okc .. ',1,' .. (tonumber(ver) + 1) .. ',' .. rows .. ',' .. nb) else del(name, f) end
        elseif act == 'gone' then
          set(name, f, nfc .. ',0,0,0,' .. nb)
        elseif act == 'count' then
          local n = tonumber(rows) + delta
          if n < 0 then del(name, f) else set(name, f, o .. ',' .. fd .. ',' .. ver .. ',' .. n .. ',' .. nb) end
        elseif act == 'touch' then
          set(name, f, o .. ',' .. fd .. ',' .. ver .. ',' .. rows .. ',' .. nb)
        end
      end
    end
  end
end
return dropped
`)

// queueThrough adds the changes' script to pipeline p; its command
// returns how many lists' hashes it deleted (nil: no change).
func (t *cache) queueThrough(ctx context.Context, p redis.Pipeliner, ns string, ch []tier.Change, end int64) *redis.Cmd {
	if len(ch) == 0 {
		return nil
	}
	keys := make([]string, 0, len(ch))
	args := make([]any, 0, 4+3*len(ch))
	args = append(args, strconv.FormatInt(end, 10), t.expire.Milliseconds(), int(tao.OK), int(tao.NotFound))
	for _, c := range ch {
		name, field := redisKey(ns, c.Key)
		keys = append(keys, name)
		args = append(args, field, c.Act, c.Delta)
	}
	return throughScript.Eval(ctx, p, keys, args...)
}
