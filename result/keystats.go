package result

import (
	"cmp"
	"slices"
)

// Key classes of KeyStats: the hot keys of reads (single and in read
// transactions), single writes and write transactions (TAOBench §3.2).
const (
	KeyReads = iota
	KeyWrites
	KeyWriteTxns
	NumKeyClasses
)

// KeyClassNames name the key classes in figures.
var KeyClassNames = [NumKeyClasses]string{"reads", "writes", "write transactions"}

// KeyStats are the keys (each exact: an object's id, an association's or
// a list's key hashed beside its id1's shard, fidelity.KeyOf; KeyCount's
// ID1 holds it) the database was asked for, from a bounded table
// (fidelity.KeyTable): the hottest keys of each class and the totals
// behind their shares. Requests alternate between two
// halves: a class's hot keys are its TopN keys by half-0 count, and their
// share is measured on half 1, so chance does not make a uniform key
// choice look skewed (the hottest of a small sample are hot by luck).
type KeyStats struct {
	// Sampled is the share of keys the table admits (by a hash of the
	// key): 1 while the keys touched fit the table, halved each time
	// they fill it.
	Sampled float64 `json:"sampled"`
	// Universe is the graph's nodes, for reference: each class's top set
	// is 1% of the keys it touched (KeyClass.TopN), TopN the largest.
	Universe int64 `json:"universe"`
	TopN     int   `json:"top_n"`
	// Overflow counts admitted operations dropped because the table was
	// full (0 since the sample halves instead).
	Overflow int64 `json:"overflow"`
	// Requests are the requests counted: all measured ones of a client up
	// to its share of 262,144, a thinning share past it (fidelity.KeyTable).
	Requests int64                   `json:"requests"`
	Classes  [NumKeyClasses]KeyClass `json:"classes"`
}

// KeyClass is what one class's operations touched.
type KeyClass struct {
	Ops  [2]int64 `json:"ops"`  // admitted operations, by half
	Keys int64    `json:"keys"` // distinct admitted keys
	// TopN is the size of the class's top set: 1% of its Keys.
	TopN int        `json:"top_n"`
	Top  []KeyCount `json:"top"` // the TopN hottest by half 0, hottest first
	// Hot is the top list by both halves (for overlap and colocation).
	Hot []KeyCount `json:"hot"`
}

// KeyCount is one key's operations by half.
type KeyCount struct {
	ID1 int64    `json:"id1"`
	N   [2]int64 `json:"n"`
}

// MaxTopKeys bounds the keys kept per class.
const MaxTopKeys = 1024

// TopShare is the share of a class's half-1 operations on its top keys.
func (k *KeyClass) TopShare() (hits, n int64) {
	for _, c := range k.Top {
		hits += c.N[1]
	}
	return hits, k.Ops[1]
}

// Merge adds o (another driver's table) to k: counts of the same key add,
// and the lists are cut back to TopN. Keys one driver kept and another
// dropped are undercounted, so merged shares are approximate.
func (k *KeyStats) Merge(o *KeyStats) {
	if o == nil {
		return
	}
	k.Sampled = max(k.Sampled, o.Sampled)
	k.Universe = max(k.Universe, o.Universe)
	k.TopN = max(k.TopN, o.TopN)
	k.Overflow += o.Overflow
	k.Requests += o.Requests
	for c := range k.Classes {
		a, b := &k.Classes[c], &o.Classes[c]
		a.Ops[0] += b.Ops[0]
		a.Ops[1] += b.Ops[1]
		a.Keys = max(a.Keys, b.Keys)
		a.TopN = max(a.TopN, b.TopN)
		if a.TopN == 0 { // a file from before the top set was the class's own
			a.TopN = k.TopN
		}
		a.Top = mergeTop(a.Top, b.Top, a.TopN, func(x KeyCount) int64 { return x.N[0] })
		a.Hot = mergeTop(a.Hot, b.Hot, a.TopN, func(x KeyCount) int64 { return x.N[0] + x.N[1] })
	}
}

func mergeTop(a, b []KeyCount, n int, by func(KeyCount) int64) []KeyCount {
	m := map[int64][2]int64{}
	for _, l := range [][]KeyCount{a, b} {
		for _, x := range l {
			c := m[x.ID1]
			m[x.ID1] = [2]int64{c[0] + x.N[0], c[1] + x.N[1]}
		}
	}
	out := make([]KeyCount, 0, len(m))
	for id, c := range m {
		out = append(out, KeyCount{ID1: id, N: c})
	}
	SortKeys(out, by)
	return out[:min(len(out), n)]
}

// SortKeys orders keys by by, descending, then by a hash of the id: ties
// (many, in a small sample) fall in no order the ids' layout makes, since
// low ids are shard 0's, often the busiest.
func SortKeys(l []KeyCount, by func(KeyCount) int64) {
	slices.SortFunc(l, func(x, y KeyCount) int {
		if c := cmp.Compare(by(y), by(x)); c != 0 {
			return c
		}
		return cmp.Compare(tieHash(x.ID1), tieHash(y.ID1))
	})
}

// tieHash is a bijective mix of an id (splitmix64's finaliser).
func tieHash(id int64) uint64 {
	z := uint64(id) + 0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}
