package workload

import (
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/taobench/taobench/internal/termsafe"
	"github.com/taobench/taobench/tao"
)

// entry is one field as read from either format, before interpretation.
type entry struct {
	field   string
	line    int      // the field's first line
	values  []string // distribution values, as written
	lines   []int    // line of each value (a native field spans lines)
	weights []float64
	scalar  string // the value of a scalar field (native format only)
}

func (e *entry) valueLine(i int) int {
	if i < len(e.lines) {
		return e.lines[i]
	}
	return e.line
}

// field describes one field name of the formats.
type field struct {
	name   string
	scalar bool // native `field value`; absent from the original format
	// Original format: implied says the values are not written but given by
	// position (indices, or the request classes for operations); numeric
	// that the written values are integers; native that the field exists
	// only in the native format.
	implied, numeric, native bool
	raw                      bool // accepted, kept verbatim, not applied yet
	set                      func(w *Workload, e *entry) error
}

// fields lists every field in the order Write emits them.
var fields = []field{
	{name: "name", scalar: true, native: true, set: func(w *Workload, e *entry) error { w.Name = e.scalar; return nil }},
	{name: "description", scalar: true, native: true, set: func(w *Workload, e *entry) error { w.Description = e.scalar; return nil }},
	{name: "operations", implied: true, set: func(w *Workload, e *entry) (err error) {
		w.Requests, err = names(e, "a request class", tao.ParseClass, classList)
		return err
	}},
	{name: "read_txn_sizes", numeric: true, set: setInts(func(w *Workload) *Dist[int] { return &w.ReadTxnSizes })},
	{name: "write_txn_sizes", numeric: true, set: setInts(func(w *Workload) *Dist[int] { return &w.WriteTxnSizes })},
	{name: "primary_shards", implied: true, set: setInts(func(w *Workload) *Dist[int] { return &w.PrimaryShards })},
	{name: "remote_shards", implied: true, set: setInts(func(w *Workload) *Dist[int] { return &w.RemoteShards })},
	{name: "read_operation_types", set: setKinds(func(w *Workload) *Dist[tao.Kind] { return &w.ReadKinds }, true)},
	{name: "write_operation_types", set: setKinds(func(w *Workload) *Dist[tao.Kind] { return &w.WriteKinds }, false)},
	{name: "read_txn_operation_types", set: setKinds(func(w *Workload) *Dist[tao.Kind] { return &w.ReadTxnKinds }, true)},
	{name: "write_txn_operation_types", set: setKinds(func(w *Workload) *Dist[tao.Kind] { return &w.WriteTxnKinds }, false)},
	{name: "edge_types", set: func(w *Workload, e *entry) (err error) {
		w.EdgeTypes, err = names(e, "an edge category", tao.ParseEdgeCategory, categoryList)
		return err
	}},
	{name: "operation_predicates", set: func(w *Workload, e *entry) (err error) {
		w.OpPredicates, err = names(e, "a predicate", tao.ParsePredicate, opPredicateList)
		return err
	}},
	{name: "txn_predicates", set: func(w *Workload, e *entry) (err error) {
		w.TxnPredicates, err = names(e, "a predicate", tao.ParsePredicate, predicateList)
		return err
	}},
	{name: "txn_predicate_counts", implied: true, set: setInts(func(w *Workload) *Dist[int] { return &w.TxnPredicateCounts })},
	{name: "read_tiers", set: func(w *Workload, e *entry) (err error) {
		w.ReadTiers, err = names(e, "a read tier", tao.ParseTier, tierList)
		return err
	}},
	{name: "payload_sizes", native: true, set: setInts(func(w *Workload) *Dist[int] { return &w.PayloadSizes })},
	{name: "outdegree", native: true, set: setInts(func(w *Workload) *Dist[int] { return &w.Outdegree })},
	{name: "max_outdegree", scalar: true, native: true, set: setScalarInt(func(w *Workload) *int { return &w.MaxOutdegree })},
	{name: "empty_slots", scalar: true, native: true, set: func(w *Workload, e *entry) error {
		f, err := strconv.ParseFloat(e.scalar, 64)
		if err != nil {
			return errorf(e.field, "%q is not a number; give a fraction in [0, 1) such as 0.1", e.scalar)
		}
		w.EmptySlots = f
		return nil
	}},
	{name: "key_skew", scalar: true, native: true, set: func(w *Workload, e *entry) (err error) {
		w.KeySkew, err = parseSkew(e.scalar)
		return err
	}},
	{name: "read_key_skew", scalar: true, native: true, set: setSkew(func(w *Workload) **Skew { return &w.ReadKeySkew })},
	{name: "write_key_skew", scalar: true, native: true, set: setSkew(func(w *Workload) **Skew { return &w.WriteKeySkew })},
	{name: "write_txn_key_skew", scalar: true, native: true, set: setSkew(func(w *Workload) **Skew { return &w.WriteTxnKeySkew })},
	{name: "hotspot_overlap", scalar: true, native: true, set: setFraction(func(w *Workload) *float64 { return &w.HotspotOverlap }, "")},
	{name: "range_limit", scalar: true, native: true, set: setScalarInt(func(w *Workload) *int { return &w.RangeLimit })},
	{name: "range_limits", native: true, set: setInts(func(w *Workload) *Dist[int] { return &w.RangeLimits })},
	{name: "object_payload_sizes", native: true, set: setInts(func(w *Workload) *Dist[int] { return &w.ObjectPayloadSizes })},
	{name: "edge_hit_rate", scalar: true, native: true, set: setFraction(func(w *Workload) *float64 { return &w.EdgeHitRate }, "natural")},
	{name: "range_nonempty", scalar: true, native: true, set: setFraction(func(w *Workload) *float64 { return &w.RangeNonEmpty }, "natural")},
	{name: "time_range_nonempty", scalar: true, native: true, set: setFraction(func(w *Workload) *float64 { return &w.TimeRangeNonEmpty }, "natural")},
	{name: "count_nonzero", scalar: true, native: true, set: setFraction(func(w *Workload) *float64 { return &w.CountNonZero }, "natural")},
	{name: "range_size_one", scalar: true, native: true, set: setFraction(func(w *Workload) *float64 { return &w.RangeSizeOne }, "")},
	{name: "edge_read_correlation", scalar: true, native: true, set: setFraction(func(w *Workload) *float64 { return &w.EdgeReadCorrelation }, "auto")},
	{name: "range_mean_rows", scalar: true, native: true, set: func(w *Workload, e *entry) error {
		f, err := strconv.ParseFloat(e.scalar, 64)
		if err != nil || !(f >= 1 && f <= 1e9) {
			return errorf(e.field, "%q: give the mean rows of a range read, a number of at least 1 such as 21.9", e.scalar)
		}
		w.RangeMeanRows = f
		return nil
	}},
	{name: "edge_read_popularity", native: true, set: setInts(func(w *Workload) *Dist[int] { return &w.EdgeReadPopularity })},
	{name: "object_read_popularity", native: true, set: setInts(func(w *Workload) *Dist[int] { return &w.ObjectReadPopularity })},
	{name: "object_write_popularity", native: true, set: setInts(func(w *Workload) *Dist[int] { return &w.ObjectWritePopularity })},
	{name: "multi_shard_write_txns", scalar: true, native: true, set: setFraction(func(w *Workload) *float64 { return &w.MultiShardWriteTxns }, "")},
	{name: "multi_shard_read_txns", scalar: true, native: true, set: setFraction(func(w *Workload) *float64 { return &w.MultiShardReadTxns }, "")},
	{name: "edge_add_new", scalar: true, native: true, set: setFraction(func(w *Workload) *float64 { return &w.EdgeAddNew }, "")},
	{name: "unique_add_race", scalar: true, native: true, set: setFraction(func(w *Workload) *float64 { return &w.UniqueAddRace }, "")},
	{name: "racing_inserts", scalar: true, native: true, set: setFraction(func(w *Workload) *float64 { return &w.RacingInserts }, "")},
	{name: "racing_copies", scalar: true, native: true, set: func(w *Workload, e *entry) error {
		n, err := strconv.Atoi(e.scalar)
		if err != nil || n == 1 || n < 0 || n > MaxRacingCopies { // 0: the default, as in code
			return errorf(e.field, "%q: give the number of identical requests of a race, 2 to %d", e.scalar, MaxRacingCopies)
		}
		w.RacingCopies = n
		return nil
	}},
	{name: "new_content_share", scalar: true, native: true, set: setFraction(func(w *Workload) *float64 { return &w.NewContentShare }, "")},
	{name: "read_operation_latency", implied: true, set: setLatency(func(w *Workload) *Dist[time.Duration] { return &w.ReadLatency })},
	{name: "write_operation_latency", implied: true, set: setLatency(func(w *Workload) *Dist[time.Duration] { return &w.WriteLatency })},
	{name: "write_txn_latency", implied: true, set: setLatency(func(w *Workload) *Dist[time.Duration] { return &w.WriteTxnLatency })},
	{name: "errors", set: setFailPoints(func(w *Workload) *Dist[tao.FailPoint] { return &w.Errors })},
	{name: "txn_errors", set: setFailPoints(func(w *Workload) *Dist[tao.FailPoint] { return &w.TxnErrors })},
	{name: "lock_hold", native: true, set: setDurations(func(w *Workload) *Dist[time.Duration] { return &w.LockHold })},
	{name: "precondition_wait", native: true, set: setDurations(func(w *Workload) *Dist[time.Duration] { return &w.PreconditionWait })},
}

func lookupField(name string) *field {
	for i := range fields {
		if fields[i].name == name {
			return &fields[i]
		}
	}
	return nil
}

// fieldList names the fields of one format, for error messages.
func fieldList(original bool) string {
	var s []string
	for _, f := range fields {
		if !original || !f.native {
			s = append(s, f.name)
		}
	}
	return strings.Join(s, ", ")
}

func nameList[T fmt.Stringer](vs []T) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = v.String()
	}
	return strings.Join(s, ", ")
}

func enumerate[T ~uint8](n T) []T {
	s := make([]T, n)
	for i := range s {
		s[i] = T(i)
	}
	return s
}

var (
	classList       = nameList(enumerate(tao.NumClasses))
	categoryList    = nameList(enumerate(tao.NumEdgeCategories))
	predicateList   = nameList(enumerate(tao.NumPredicates))
	opPredicateList = nameList(enumerate(tao.PredReadVisibility))
	tierList        = nameList(enumerate(tao.NumTiers))
	readKindList    = nameList(tao.ReadKinds)
	writeKindList   = nameList(tao.WriteKinds)
)

// checkLengths reports values and weights of different lengths.
func checkLengths(e *entry) error {
	if len(e.values) != len(e.weights) {
		return errorf(e.field, "%d values but %d weights; give one weight per value", len(e.values), len(e.weights))
	}
	if len(e.values) == 0 {
		return errorf(e.field, "no entries; give at least one value with its weight")
	}
	return nil
}

// names converts an entry whose values are names.
func names[T comparable](e *entry, what string, parse func(string) (T, bool), list string) (Dist[T], error) {
	if err := checkLengths(e); err != nil {
		return Dist[T]{}, err
	}
	d := Dist[T]{Values: make([]T, len(e.values)), Weights: e.weights}
	for i, s := range e.values {
		v, ok := parse(s)
		if !ok {
			err := errorf(e.field, "%q is not %s; use one of: %s", s, what, list)
			err.Line = e.valueLine(i)
			return Dist[T]{}, err
		}
		d.Values[i] = v
	}
	return d, nil
}

func setKinds(dst func(*Workload) *Dist[tao.Kind], read bool) func(*Workload, *entry) error {
	list := writeKindList
	if read {
		list = readKindList
	}
	return func(w *Workload, e *entry) (err error) {
		*dst(w), err = names(e, "an operation kind", tao.ParseKind, list)
		return err
	}
}

func setInts(dst func(*Workload) *Dist[int]) func(*Workload, *entry) error {
	return func(w *Workload, e *entry) error {
		if err := checkLengths(e); err != nil {
			return err
		}
		d := Dist[int]{Values: make([]int, len(e.values)), Weights: e.weights}
		for i, s := range e.values {
			v, err := strconv.Atoi(s)
			if err != nil {
				err := errorf(e.field, "value %q is not an integer; values of this field are whole numbers", s)
				err.Line = e.valueLine(i)
				return err
			}
			d.Values[i] = v
		}
		*dst(w) = d
		return nil
	}
}

func setScalarInt(dst func(*Workload) *int) func(*Workload, *entry) error {
	return func(w *Workload, e *entry) error {
		v, err := strconv.Atoi(e.scalar)
		if err != nil {
			return errorf(e.field, "%q is not an integer; give a whole number", e.scalar)
		}
		*dst(w) = v
		return nil
	}
}

// setFraction reads a fraction in [0, 1], or word (if not "") meaning
// Natural/Auto.
func setFraction(dst func(*Workload) *float64, word string) func(*Workload, *entry) error {
	return func(w *Workload, e *entry) error {
		if word != "" && e.scalar == word {
			*dst(w) = Natural
			return nil
		}
		f, err := strconv.ParseFloat(e.scalar, 64)
		if err != nil || !(f >= 0 && f <= 1) {
			hint := "give a fraction in [0, 1] such as 0.25"
			if word != "" {
				hint += " or " + word
			}
			return errorf(e.field, "%q: %s", e.scalar, hint)
		}
		*dst(w) = f
		return nil
	}
}

// formatFraction writes a fraction, or word for Natural/Auto.
func formatFraction(f float64, word string) string {
	if f < 0 && word != "" {
		return word
	}
	return formatFloat(f)
}

// setLatency reads injected delays: durations (5ms, 58.1ms), or the
// original's bucket indices 0 to 6, taken as LatencyBucketValues.
func setLatency(dst func(*Workload) *Dist[time.Duration]) func(*Workload, *entry) error {
	return func(w *Workload, e *entry) error {
		if err := checkLengths(e); err != nil {
			return err
		}
		d := Dist[time.Duration]{Values: make([]time.Duration, len(e.values)), Weights: e.weights}
		for i, s := range e.values {
			if b, err := strconv.Atoi(s); err == nil {
				if b < 0 || b >= len(LatencyBucketValues) {
					err := errorf(e.field, "bucket %d: the original's buckets are 0 to %d; or give a duration such as 5ms", b, len(LatencyBucketValues)-1)
					err.Line = e.valueLine(i)
					return err
				}
				d.Values[i] = LatencyBucketValues[b]
				w.LatencyBuckets = true
				continue
			}
			v, err := time.ParseDuration(s)
			if err != nil || v < 0 || v > MaxInjectedLatency {
				err := errorf(e.field, "value %q: give a delay from 0 to %v such as 5ms or 58.1ms, or a bucket index 0 to %d", s, MaxInjectedLatency, len(LatencyBucketValues)-1)
				err.Line = e.valueLine(i)
				return err
			}
			d.Values[i] = v
		}
		*dst(w) = d
		return nil
	}
}

// parseSkew reads `uniform` or `zipf:THETA`.
func parseSkew(s string) (Skew, error) {
	if s == "uniform" {
		return Skew{Kind: Uniform}, nil
	}
	if t, ok := strings.CutPrefix(s, "zipf:"); ok {
		theta, err := strconv.ParseFloat(t, 64)
		if err == nil && theta > 0 && !math.IsInf(theta, 0) {
			return Skew{Kind: Zipf, Theta: theta}, nil
		}
	}
	return Skew{}, errorf("key_skew", "%q: give uniform or zipf:THETA with THETA > 0 (YCSB uses zipf:0.99)", s)
}

// setSkew sets a per-class key skew.
func setSkew(dst func(*Workload) **Skew) func(*Workload, *entry) error {
	return func(w *Workload, e *entry) error {
		k, err := parseSkew(e.scalar)
		if err != nil {
			return errorf(e.field, "%q: give uniform or zipf:THETA with THETA > 0 (YCSB uses zipf:0.99)", e.scalar)
		}
		*dst(w) = &k
		return nil
	}
}

func formatSkew(k Skew) string {
	if k.Kind == Zipf {
		return "zipf:" + formatFloat(k.Theta)
	}
	return "uniform"
}

func formatFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// build interprets the entries of one file: it sets every field, fills the
// defaults and validates, attaching the file and line to any error.
func build(entries []*entry, file string) (*Workload, error) {
	w := &Workload{}
	seen := map[string]bool{}
	lines := map[string]int{}
	for _, e := range entries {
		seen[e.field], lines[e.field] = true, e.line
		if err := lookupField(e.field).set(w, e); err != nil {
			return nil, at(err, file, e.line)
		}
	}
	applyDefaults(w, seen)
	if w.Name == "" && file != "" {
		base := filepath.Base(file)
		// A file name may hold what a workload name must not (see
		// Validate); it is shown escaped rather than refused.
		w.Name = termsafe.Escape(strings.TrimSuffix(base, filepath.Ext(base)))
	}
	if err := w.Validate(); err != nil {
		line := 0
		if e, ok := err.(*Error); ok {
			line = lines[e.Field]
		}
		return nil, at(err, file, line)
	}
	return w, nil
}

// at places an *Error in a file, at line unless it knows a better one.
func at(err error, file string, line int) error {
	if e, ok := err.(*Error); ok {
		e.File = file
		if e.Line == 0 {
			e.Line = line
		}
	}
	return err
}
