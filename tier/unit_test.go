package tier

import (
	"testing"
	"time"

	"github.com/taobench/taobench/store/sqlstore"
	"github.com/taobench/taobench/tao"
)

func TestDefaultLimitIsTheStores(t *testing.T) {
	if defaultLimit != sqlstore.DefaultLimit {
		t.Errorf("tier serves list reads with no limit as %d rows at most, the SQL stores as %d", defaultLimit, sqlstore.DefaultLimit)
	}
}

func TestRangeAnsweredFromListSize(t *testing.T) {
	e := Entry{Outcome: tao.OK, Rows: 25}
	for _, c := range []struct{ offset, limit, want int }{{0, 10, 10}, {20, 10, 5}, {30, 10, 0}, {0, 0, 25}, {-3, 100, 25}} {
		var res tao.Result
		res.Reset(1)
		e.answer(&tao.Op{Kind: tao.EdgeRangeRead, Offset: c.offset, Limit: c.limit}, &res)
		if res.Ops[0].Rows != c.want {
			t.Errorf("offset %d limit %d of a 25-edge list: %d rows, want %d", c.offset, c.limit, res.Ops[0].Rows, c.want)
		}
	}
}

func TestClientCacheTTLAndLRU(t *testing.T) {
	c := newCSC(time.Second, cscShards*2) // two entries per shard
	now := time.Now()
	k := Key{Kind: 'o', ID1: 1}
	c.put(k, Entry{Version: 3}, now)
	if e, ok := c.get(k, now.Add(999*time.Millisecond)); !ok || e.Version != 3 {
		t.Errorf("within the TTL: %+v, %v; want version 3", e, ok)
	}
	if _, ok := c.get(k, now.Add(time.Second)); ok {
		t.Errorf("at the TTL the entry is still served")
	}
	// Fill one shard past its bound: the least recently used goes.
	var same []Key
	for id := int64(0); len(same) < 3; id++ {
		x := Key{Kind: 'o', ID1: id}
		if c.shard(x) == c.shard(same0(same, x)) {
			same = append(same, x)
		}
	}
	c.put(same[0], Entry{Version: 1}, now)
	c.put(same[1], Entry{Version: 2}, now)
	c.get(same[0], now) // same[1] is now the least recently used
	c.put(same[2], Entry{Version: 3}, now)
	if _, ok := c.get(same[1], now); ok {
		t.Errorf("the least recently used entry survived a put into a full shard")
	}
	if _, ok := c.get(same[0], now); !ok {
		t.Errorf("a recently used entry was evicted")
	}
	if n := c.len(); n > cscShards*2 {
		t.Errorf("the cache holds %d entries, bound %d", n, cscShards*2)
	}
}

func same0(keys []Key, x Key) Key {
	if len(keys) == 0 {
		return x
	}
	return keys[0]
}

// The commit log classes a read stale only when a write began after the
// answer's database read returned and ended before the read began.
func TestCommitLogIsSound(t *testing.T) {
	l := newCommitLog(1000)
	k := Key{Kind: 'o', ID1: 9}
	l.add(k, 100, 200) // began 100, committed by 200
	for _, c := range []struct {
		basis, begin int64
		stale        bool
		age          int64
	}{
		{50, 250, true, 50},   // filled before the write began, read after it ended
		{150, 250, false, 0},  // the fill may have seen it: it overlapped the write
		{50, 200, false, 0},   // the read began as the write returned: maybe not committed
		{50, 150, false, 0},   // the read began during the write
		{250, 300, false, 0},  // filled after the write
		{99, 1000, true, 800}, // age: since the write ended
	} {
		stale, age := l.stale(k, c.basis, c.begin)
		if stale != c.stale || age != c.age {
			t.Errorf("write [100,200], answer from %d, read at %d: stale %v age %d; want %v %d", c.basis, c.begin, stale, age, c.stale, c.age)
		}
	}
	if stale, _ := l.stale(Key{Kind: 'o', ID1: 10}, 0, 1000); stale {
		t.Errorf("a key never written is stale")
	}
	// Bounded: past its bound the log forgets keys, never invents writes.
	small := newCommitLog(logShards)
	for id := range int64(10000) {
		small.add(Key{Kind: 'o', ID1: id}, 100, 200)
	}
	n := 0
	for i := range small.shards {
		n += len(small.shards[i].m)
	}
	if n > logShards {
		t.Errorf("a log bounded to %d keys holds %d", logShards, n)
	}
}

func TestWrittenKeys(t *testing.T) {
	bidir := tao.TypeBidirectional
	inv, _ := bidir.Inverse()
	changed, invalid := written(&tao.Op{Kind: tao.EdgeDelete, ID1: 1, Type: bidir, ID2: 2}, &tao.OpResult{Found: true}, nil, nil)
	want := []Key{{Kind: 'e', ID1: 1, Type: bidir, ID2: 2}, {Kind: 'l', ID1: 1, Type: bidir}, {Kind: 'c', ID1: 1, Type: bidir}}
	if len(changed) != len(want) {
		t.Fatalf("delete of a bidirectional edge changed %v; want %v (the inverse's delete may have found nothing)", changed, want)
	}
	for i := range want {
		if changed[i] != want[i] {
			t.Errorf("changed[%d] = %v, want %v", i, changed[i], want[i])
		}
	}
	if len(invalid) != 4 || invalid[2] != (Key{Kind: 'e', ID1: 2, Type: inv, ID2: 1}) {
		t.Errorf("invalidated %v; want the edge, its list, the inverse edge and its list", invalid)
	}
	if changed, _ := written(&tao.Op{Kind: tao.ObjUpdate, ID1: 5}, &tao.OpResult{Found: false}, nil, nil); len(changed) != 0 {
		t.Errorf("an update that found no row changed %v", changed)
	}
}

// The heartbeat's bound: a replica that shows version v lacks v+1, so the
// end of v+1 bounds its answer; a replica without the object is bounded
// by the first version known; nothing is claimed for versions unknown.
func TestHeartbeatBound(t *testing.T) {
	h := &heartbeat{}
	if _, ok := h.bound(true, 1); ok {
		t.Errorf("a bound with no version known")
	}
	h.commit(5, 500)
	h.commit(6, 600)
	h.commit(8, 800) // 7's outcome was unknown
	h.commit(6, 650) // a later sight of 6 keeps the earlier end
	for _, c := range []struct {
		found bool
		v     int64
		want  int64
		ok    bool
	}{{true, 4, 500, true}, {true, 5, 600, true}, {true, 6, 0, false}, {true, 7, 800, true}, {true, 8, 0, false}, {true, 2, 0, false}, {false, 0, 500, true}} {
		got, ok := h.bound(c.found, c.v)
		if ok != c.ok || (ok && got != c.want) {
			t.Errorf("replica at version %d (found %v): bound %d, %v; want %d, %v", c.v, c.found, got, ok, c.want, c.ok)
		}
	}
	for v := int64(9); v < 9+maxBeats; v++ {
		h.commit(v, v*100)
	}
	if len(h.ends) > maxBeats {
		t.Errorf("the heartbeat remembers %d versions, more than %d", len(h.ends), maxBeats)
	}
	v := int64(maxBeats)
	if got, ok := h.bound(true, v); !ok || got != (v+1)*100 {
		t.Errorf("after trimming, a replica at version %d: bound %d, %v; want %d", v, got, ok, (v+1)*100)
	}
}
