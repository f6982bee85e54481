package workload

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/taobench/taobench/internal/termsafe"
	"github.com/taobench/taobench/tao"
)

// Limits of the values Validate accepts.
const (
	// MaxShards is the shard count ids can carry: the shard sits in bits
	// 57-62 of a positive int64, as in the original (shard << 57).
	MaxShards = 64
	// MaxTxnSize bounds the operations of one transaction.
	MaxTxnSize = 100000
	// MaxPayload bounds payload sizes in bytes.
	MaxPayload = 1 << 20
	// MaxPredicateCount bounds the preconditions of one write transaction.
	MaxPredicateCount = 1000
)

// Validate reports the first broken invariant of w as an *Error naming the
// field. A distribution with no values is absent, which is allowed only
// where nothing draws from it (the kinds and sizes of a request class of
// weight zero) or where absence has a meaning (predicates: none; predicate
// counts: zero; read tiers: db).
func (w *Workload) Validate() error {
	for _, check := range []func() error{w.checkText, w.checkClassDists, w.checkShards, w.checkValueDists, w.checkBounds} {
		if err := check(); err != nil {
			return err
		}
	}
	return w.checkScalars()
}

// checkText checks the name and description print safely on one line.
func (w *Workload) checkText() error {
	for _, s := range []struct{ field, v string }{{"name", w.Name}, {"description", w.Description}} {
		if strings.ContainsAny(s.v, "\r\n") {
			return errorf(s.field, "contains a line break; keep it on one line")
		}
		if !termsafe.Safe(s.v) {
			// Commands print names and descriptions to terminals, which
			// act on escape sequences (ESC, BEL, ...) instead of showing them.
			return errorf(s.field, "%q holds a control character or invalid UTF-8; terminals act on these rather than show them: remove it", cut(s.v))
		}
	}
	return nil
}

// checkClassDists checks the request classes' weights and the
// distributions of each class: those a class with weight needs.
func (w *Workload) checkClassDists() error {
	if err := checkDist("operations", w.Requests, "give the weights of read, write, read_txn and write_txn", func(c tao.Class) string {
		if c >= tao.NumClasses {
			return fmt.Sprintf("%v is not a request class; use one of: %s", c, classList)
		}
		return ""
	}); err != nil {
		return err
	}
	var cw [tao.NumClasses]float64
	for i, c := range w.Requests.Values {
		cw[c] += w.Requests.Weights[i]
	}
	need := func(c tao.Class) string {
		if cw[c] == 0 {
			return ""
		}
		return fmt.Sprintf("operations give %s weight %s; add this field", c, formatFloat(cw[c]))
	}
	sizeOK := func(n int) string {
		if n < 1 || n > MaxTxnSize {
			return fmt.Sprintf("size %d: a transaction has 1 to %d operations", n, MaxTxnSize)
		}
		return ""
	}
	if err := checkDist("read_txn_sizes", w.ReadTxnSizes, need(tao.ReadTxn), sizeOK); err != nil {
		return err
	}
	if err := checkDist("write_txn_sizes", w.WriteTxnSizes, need(tao.WriteTxn), sizeOK); err != nil {
		return err
	}
	kindOK := func(read bool) func(tao.Kind) string {
		return func(k tao.Kind) string {
			switch {
			case k >= tao.NumKinds:
				return fmt.Sprintf("%v is not an operation kind", k)
			case read && !k.IsRead():
				return fmt.Sprintf("%v is a write kind; this field takes read kinds: %s", k, readKindList)
			case !read && k.IsRead():
				return fmt.Sprintf("%v is a read kind; this field takes write kinds: %s", k, writeKindList)
			}
			return ""
		}
	}
	for _, k := range []struct {
		field string
		d     Dist[tao.Kind]
		class tao.Class
		read  bool
	}{
		{"read_operation_types", w.ReadKinds, tao.Read, true},
		{"write_operation_types", w.WriteKinds, tao.Write, false},
		{"read_txn_operation_types", w.ReadTxnKinds, tao.ReadTxn, true},
		{"write_txn_operation_types", w.WriteTxnKinds, tao.WriteTxn, false},
	} {
		if err := checkDist(k.field, k.d, need(k.class), kindOK(k.read)); err != nil {
			return err
		}
	}
	return nil
}

// checkValueDists checks the distributions over edge categories,
// predicates, read tiers and payload sizes.
func (w *Workload) checkValueDists() error {
	if err := checkDist("edge_types", w.EdgeTypes, "give the weights of "+categoryList, func(c tao.EdgeCategory) string {
		if c >= tao.NumEdgeCategories {
			return fmt.Sprintf("%v is not an edge category; use one of: %s", c, categoryList)
		}
		return ""
	}); err != nil {
		return err
	}
	if err := checkDist("operation_predicates", w.OpPredicates, "", func(p tao.Predicate) string {
		if p >= tao.PredReadVisibility {
			return fmt.Sprintf("%v is not a precondition of a single write; use one of: %s", p, opPredicateList)
		}
		return ""
	}); err != nil {
		return err
	}
	if err := checkDist("txn_predicates", w.TxnPredicates, "", func(p tao.Predicate) string {
		if p >= tao.NumPredicates {
			return fmt.Sprintf("%v is not a predicate; use one of: %s", p, predicateList)
		}
		return ""
	}); err != nil {
		return err
	}
	if err := checkDist("txn_predicate_counts", w.TxnPredicateCounts, "", func(n int) string {
		if n < 0 || n > MaxPredicateCount {
			return fmt.Sprintf("count %d: a write transaction has 0 to %d preconditions", n, MaxPredicateCount)
		}
		return ""
	}); err != nil {
		return err
	}
	if err := checkDist("read_tiers", w.ReadTiers, "", func(t tao.Tier) string {
		if t >= tao.NumTiers {
			return fmt.Sprintf("%v is not a read tier; use one of: %s", t, tierList)
		}
		return ""
	}); err != nil {
		return err
	}
	if err := checkDist("payload_sizes", w.PayloadSizes, "give sizes in bytes with their weights", func(n int) string {
		if n < 0 || n > MaxPayload {
			return fmt.Sprintf("size %d: payloads have 0 to %d bytes", n, MaxPayload)
		}
		return ""
	}); err != nil {
		return err
	}
	return nil
}

// checkBounds checks the piecewise distributions: bounds ascending, and
// a popularity that accesses some key.
func (w *Workload) checkBounds() error {
	for _, f := range []struct {
		name string
		d    Dist[int]
	}{{"outdegree", w.Outdegree}, {"edge_read_popularity", w.EdgeReadPopularity},
		{"object_read_popularity", w.ObjectReadPopularity}, {"object_write_popularity", w.ObjectWritePopularity}} {
		prev := -1
		need := ""
		if f.name == "outdegree" {
			need = "give piece bounds with their weights"
		}
		if err := checkDist(f.name, f.d, need, func(n int) string {
			if n <= prev {
				return fmt.Sprintf("bound %d follows %d: bounds must be >= 0 and strictly ascending", n, prev)
			}
			prev = n
			return ""
		}); err != nil {
			return err
		}
		if f.name != "outdegree" && len(f.d.Values) > 0 && !accessed(f.d) {
			return errorf(f.name, "only bound 0 has weight: no key would ever be accessed; give weight to a bound above 0")
		}
	}
	return nil
}

func (w *Workload) checkShards() error {
	n := w.Shards()
	if n == 0 {
		return errorf("primary_shards", "missing: give one weight per shard")
	}
	if n > MaxShards {
		return errorf("primary_shards", "%d shards; ids carry at most %d", n, MaxShards)
	}
	for _, f := range []struct {
		field string
		d     Dist[int]
	}{{"primary_shards", w.PrimaryShards}, {"remote_shards", w.RemoteShards}} {
		if err := checkDist(f.field, f.d, "give one weight per shard", nil); err != nil {
			return err
		}
		for i, s := range f.d.Values {
			if s != i {
				return errorf(f.field, "entry %d is shard %d; shards are numbered 0..%d in order", i, s, len(f.d.Values)-1)
			}
		}
	}
	if m := len(w.RemoteShards.Values); m != n {
		return errorf("remote_shards", "%d shards but primary_shards has %d; give both one weight per shard", m, n)
	}
	return nil
}

func (w *Workload) checkScalars() error {
	if w.MaxOutdegree < 0 {
		return errorf("max_outdegree", "%d: give 0 (no cap) or a positive cap", w.MaxOutdegree)
	}
	if !(w.EmptySlots >= 0 && w.EmptySlots < 1) {
		return errorf("empty_slots", "%v: give a fraction in [0, 1)", w.EmptySlots)
	}
	for _, k := range []struct {
		name string
		s    Skew
	}{{"key_skew", w.KeySkew}, {"read_key_skew", w.ClassSkew(tao.Read)}, {"write_key_skew", w.ClassSkew(tao.Write)},
		{"write_txn_key_skew", w.ClassSkew(tao.WriteTxn)}} {
		switch k.s.Kind {
		case Uniform:
		case Zipf:
			if !(k.s.Theta > 0) || math.IsInf(k.s.Theta, 0) {
				return errorf(k.name, "zipf:%v: give a finite THETA > 0 (YCSB uses 0.99)", k.s.Theta)
			}
		default:
			return errorf(k.name, "unknown skew kind %d: give uniform or zipf:THETA", k.s.Kind)
		}
	}
	if w.RacingCopies != 0 && (w.RacingCopies < 2 || w.RacingCopies > MaxRacingCopies) {
		return errorf("racing_copies", "%d: give the number of identical requests of a race, 2 to %d (0 in code: 2)", w.RacingCopies, MaxRacingCopies)
	}
	if w.RangeLimit < 1 {
		return errorf("range_limit", "%d: give a positive row limit (TAO uses 6000)", w.RangeLimit)
	}
	if err := checkDist("range_limits", w.RangeLimits, "", func(n int) string {
		if n < 1 || n > w.RangeLimit {
			return fmt.Sprintf("limit %d: give limits from 1 to range_limit (%d), the cap of every list read", n, w.RangeLimit)
		}
		return ""
	}); err != nil {
		return err
	}
	if len(w.ObjectPayloadSizes.Values) > 0 {
		if err := checkDist("object_payload_sizes", w.ObjectPayloadSizes, "give sizes in bytes with their weights", func(n int) string {
			if n < 0 || n > MaxPayload {
				return fmt.Sprintf("size %d: payloads have 0 to %d bytes", n, MaxPayload)
			}
			return ""
		}); err != nil {
			return err
		}
	}
	for _, f := range []struct {
		name    string
		v       float64
		natural bool
	}{
		{"edge_hit_rate", w.EdgeHitRate, true}, {"range_nonempty", w.RangeNonEmpty, true},
		{"time_range_nonempty", w.TimeRangeNonEmpty, true}, {"range_size_one", w.RangeSizeOne, false},
		{"count_nonzero", w.CountNonZero, true},
		{"edge_read_correlation", w.EdgeReadCorrelation, true},
		{"multi_shard_write_txns", w.MultiShardWriteTxns, false}, {"multi_shard_read_txns", w.MultiShardReadTxns, false},
		{"edge_add_new", w.EdgeAddNew, false}, {"unique_add_race", w.UniqueAddRace, false},
		{"new_content_share", w.NewContentShare, false},
		{"hotspot_overlap", w.HotspotOverlap, false}, {"racing_inserts", w.RacingInserts, false},
	} {
		if f.natural && f.v == Natural {
			continue
		}
		if !(f.v >= 0 && f.v <= 1) {
			return errorf(f.name, "%v: give a fraction in [0, 1]", f.v)
		}
	}
	if w.RangeMeanRows != 0 && w.RangeNonEmpty == Natural {
		return errorf("range_mean_rows", "%v needs range reads aimed at lists: give range_nonempty a fraction, not natural", w.RangeMeanRows)
	}
	for _, l := range []struct {
		name string
		d    Dist[time.Duration]
	}{{"read_operation_latency", w.ReadLatency}, {"write_operation_latency", w.WriteLatency}, {"write_txn_latency", w.WriteTxnLatency}} {
		err := checkDist(l.name, l.d, "", func(v time.Duration) string {
			if v < 0 || v > MaxInjectedLatency {
				return fmt.Sprintf("delay %v out of range: give 0 to %v", v, MaxInjectedLatency)
			}
			return ""
		})
		if err != nil {
			return err
		}
	}
	if err := w.validateInjected(); err != nil {
		return err
	}
	for _, r := range w.Raw {
		if lookupField(r.Name) == nil || !lookupField(r.Name).raw {
			return errorf(r.Name, "not a field kept verbatim; only the not-applied fields are")
		}
		if err := checkDist(r.Name, Dist[string]{Values: r.Values, Weights: r.Weights}, "", nil); err != nil {
			return err
		}
	}
	return nil
}

// checkDist checks the weights and values of one distribution. need is why
// it must be present ("" when it may be absent); valid says what is wrong
// with a value ("" when nothing is).
func checkDist[T comparable](field string, d Dist[T], need string, valid func(T) string) error {
	if len(d.Values) == 0 && len(d.Weights) == 0 {
		if need != "" {
			return errorf(field, "missing: %s", need)
		}
		return nil
	}
	if len(d.Values) != len(d.Weights) {
		return errorf(field, "%d values but %d weights; give one weight per value", len(d.Values), len(d.Weights))
	}
	sum := 0.0
	seen := make(map[T]bool, len(d.Values))
	for i, v := range d.Values {
		wt := d.Weights[i]
		if math.IsNaN(wt) || math.IsInf(wt, 0) || wt < 0 {
			return errorf(field, "weight of %v is %v; weights must be finite and >= 0", v, wt)
		}
		sum += wt
		if seen[v] {
			return errorf(field, "%v is given twice; give each value once", v)
		}
		seen[v] = true
		if valid != nil {
			if msg := valid(v); msg != "" {
				return errorf(field, "%s", msg)
			}
		}
	}
	if sum == 0 {
		return errorf(field, "all weights are 0; give at least one positive weight")
	}
	if math.IsInf(sum, 0) {
		return errorf(field, "the weights add up to more than a float64 holds; scale them down")
	}
	return nil
}

// accessed reports whether a popularity gives some key an access: a piece
// of weight above 0 whose bound is above 0.
func accessed(d Dist[int]) bool {
	for i, v := range d.Values {
		if v > 0 && d.Weights[i] > 0 {
			return true
		}
	}
	return false
}
