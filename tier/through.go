package tier

import (
	"context"
	"strconv"

	"github.com/redis/go-redis/v9"

	"github.com/taobench/taobench/tao"
)

// Write-through (docs/tiers.md, "Writes: TAO's changeset"): TAO does not
// send a read to the database after a write. "TAO synchronously updates
// the cache with locally written values by having the master leader
// return a changeset when the write is successful", and "the leader sends
// a refill message" for an association rather than truncating the list
// (TAO paper §4.4, §6.1). So after a write commits, the tao tier updates
// what the write's result says it changed, in one Lua script, atomically
// on Redis, each entry only if the tier holds it (a key it does not hold
// is filled by the next read, as before):
//
//   - an object or edge updated (found): its version plus one, as the
//     database's "version = version + 1" (every committed update adds one,
//     in whatever order their scripts run);
//   - an object or edge inserted: found at version 1; deleted (found): not
//     found;
//   - a list's size plus or minus one for an edge inserted or deleted;
//     its time-range answers dropped on any change of its edges;
//   - every entry updated gets the write's return as its basis (the later
//     of the two), so the staleness check classes reads of it against the
//     writes after it, as a fill's.
//
// The inverse edge of a bidirectional type is upserted (an add, an update
// that found its edge) or deleted with it, and the store does not say
// whether it was there: the tier's entry says, when it holds the edge (at
// its version) or its list complete without it (absent); then the inverse
// is updated as above, else its list is invalidated as before. An entry
// whose state contradicts the write (an update that found a row the entry
// says is absent) is invalidated too. Like a fill, an update may race a fill that read the
// database before the write committed and stores after the script ran:
// the entry then lacks the write, and the staleness check misses the
// reads it serves (a lower bound, as for fills).

// change is one write-through update of an entry.
type change struct {
	k     key
	act   string // "bump", "new", "gone", "count", "touch", "dropt", "iupsert", "idelete"
	delta int
}

// through lists the write-through changes of a committed write op from
// its result r, and the keys to invalidate instead.
func through(op *tao.Op, r *tao.OpResult, ch []change, invalid []key) ([]change, []key) {
	obj := key{kind: 'o', id1: op.ID1}
	edge := key{kind: 'e', id1: op.ID1, typ: op.Type, id2: op.ID2}
	size := key{kind: 'n', id1: op.ID1, typ: op.Type}
	switch op.Kind {
	case tao.ObjAdd:
		if r.Found { // overwritten: version + 1
			return append(ch, change{k: obj, act: "bump"}), invalid
		}
		return append(ch, change{k: obj, act: "new"}), invalid
	case tao.ObjUpdate:
		if r.Found {
			ch = append(ch, change{k: obj, act: "bump"})
		}
		return ch, invalid
	case tao.ObjDelete:
		if r.Found {
			ch = append(ch, change{k: obj, act: "gone"})
		}
		return ch, invalid
	}
	if inv, ok := op.Type.Inverse(); ok {
		// The store upserts the inverse of an add or an update that found
		// its edge, and deletes it with the edge: whether it was there the
		// store does not say, the tier's complete list may (iupsert).
		ie := key{kind: 'e', id1: op.ID2, typ: inv, id2: op.ID1}
		switch {
		case op.Kind == tao.EdgeAdd || op.Kind == tao.EdgeUpdate && r.Found:
			ch = append(ch, change{k: ie, act: "iupsert"})
		case op.Kind == tao.EdgeDelete && r.Found:
			ch = append(ch, change{k: ie, act: "idelete"})
		case op.Kind == tao.EdgeDelete: // the inverse may have gone alone
			invalid = append(invalid, key{kind: 'l', id1: op.ID2, typ: inv})
		}
	}
	switch {
	case op.Kind == tao.EdgeAdd && !r.Found: // inserted: the list grew
		ch = append(ch, change{k: edge, act: "new"}, change{k: size, act: "count", delta: 1}, change{k: size, act: "dropt"})
	case op.Kind == tao.EdgeAdd, op.Kind == tao.EdgeUpdate && r.Found: // overwritten
		ch = append(ch, change{k: edge, act: "bump"}, change{k: size, act: "touch"}, change{k: size, act: "dropt"})
	case op.Kind == tao.EdgeDelete && r.Found:
		ch = append(ch, change{k: edge, act: "gone"}, change{k: size, act: "count", delta: -1}, change{k: size, act: "dropt"})
	}
	return ch, invalid
}

// throughScript applies changes (KEYS: the entries' Redis keys; ARGV: the
// write's return, the expiry in ms, the outcomes OK and NotFound, then per
// key its hash field, "" for a plain key, its change and delta). Bases are
// Unix ns of 19 digits, past a double's exact range: compared as strings.
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
func (t *taoTier) queueThrough(ctx context.Context, p redis.Pipeliner, ns string, ch []change, end int64) *redis.Cmd {
	if len(ch) == 0 {
		return nil
	}
	keys := make([]string, 0, len(ch))
	args := make([]any, 0, 4+3*len(ch))
	args = append(args, strconv.FormatInt(end, 10), t.expire.Milliseconds(), int(tao.OK), int(tao.NotFound))
	for _, c := range ch {
		name, field := redisKey(ns, c.k)
		keys = append(keys, name)
		args = append(args, field, c.act, c.delta)
	}
	return throughScript.Eval(ctx, p, keys, args...)
}
