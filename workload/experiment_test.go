package workload

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/taobench/taobench/tao"
)

const injectedBase = "operations write:1\nwrite_operation_types obj_update:1\nedge_types other:1\n"

func TestInjectedFields(t *testing.T) {
	w, err := Parse(strings.NewReader(injectedBase+"lock_hold 0:9 5ms:1\n   1.5s:0.5\nerrors success:98 fail_after_reserve:1\ntxn_errors fail_after_primary_commit:1\n"), "i.workload")
	if err != nil {
		t.Fatal(err)
	}
	if want := []time.Duration{0, 5 * time.Millisecond, 1500 * time.Millisecond}; !reflect.DeepEqual(w.LockHold.Values, want) ||
		!reflect.DeepEqual(w.LockHold.Weights, []float64{9, 1, 0.5}) {
		t.Errorf("lock_hold = %v", w.LockHold)
	}
	if want := []tao.FailPoint{tao.Success, tao.FailAfterReserve}; !reflect.DeepEqual(w.Errors.Values, want) {
		t.Errorf("errors = %v", w.Errors)
	}
	pw, err := Parse(strings.NewReader(injectedBase+"precondition_wait 30ms:1 150ms:1\n"), "p.workload")
	if err != nil {
		t.Fatal(err)
	}
	if want := []time.Duration{30 * time.Millisecond, 150 * time.Millisecond}; !reflect.DeepEqual(pw.PreconditionWait.Values, want) || !pw.Waits() || w.Waits() {
		t.Errorf("precondition_wait = %v, Waits %v (and %v without it)", pw.PreconditionWait, pw.Waits(), w.Waits())
	}
	if !w.Holds() || !w.Injects() || len(w.NotApplied) != 0 {
		t.Errorf("Holds %v, Injects %v, NotApplied %v: want true, true, none", w.Holds(), w.Injects(), w.NotApplied)
	}
	none, err := Parse(strings.NewReader(injectedBase+"lock_hold 0:1 1s:0\nerrors success:1 fail_after_reserve:0\n"), "n.workload")
	if err != nil {
		t.Fatal(err)
	}
	if none.Holds() || none.Injects() {
		t.Errorf("zero-weight holds and failures count: Holds %v, Injects %v", none.Holds(), none.Injects())
	}
	for _, d := range []time.Duration{0, time.Microsecond, 5 * time.Millisecond, time.Minute, 90 * time.Second, 1500 * time.Millisecond} {
		got, err := time.ParseDuration(formatHold(d))
		if err != nil || got != d {
			t.Errorf("formatHold(%v) = %q reads back as %v, %v", d, formatHold(d), got, err)
		}
	}
}

func TestInjectedFieldErrors(t *testing.T) {
	cases := []struct {
		name, text  string
		line        int
		field, want string
	}{
		{"bad duration", injectedBase + "lock_hold 0:1\n   5parsecs:1\n", 5, "lock_hold", "is not a duration"},
		{"unitless", injectedBase + "lock_hold 5:1\n", 4, "lock_hold", "such as 0, 500us, 5ms"},
		{"negative", injectedBase + "lock_hold -5ms:1\n", 4, "lock_hold", "give 0 to 1m0s"},
		{"too long", injectedBase + "lock_hold 2m:1\n", 4, "lock_hold", "give 0 to 1m0s"},
		{"unknown failure", injectedBase + "errors success:1 fail_later:1\n", 4, "errors", `"fail_later" is not an injected failure; use one of: success, fail_after_reserve`},
		{"all zero", injectedBase + "txn_errors success:0\n", 4, "txn_errors", "all weights are 0"},
		{"bad wait", injectedBase + "precondition_wait 30:1\n", 4, "precondition_wait", "is not a duration"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(c.text), "x.workload")
			wantError(t, err, "x.workload", c.line, c.field, c.want)
		})
	}
	// The original format reads errors by name too.
	_, err := ParseOriginal(strings.NewReader(`{"name": "operations", "weights": [0, 1, 0, 0]}
{"name": "write_operation_types", "values": ["obj_update"], "weights": [1]}
{"name": "edge_types", "values": ["other"], "weights": [1]}
{"name": "errors", "values": ["success", "fail_after_commit"], "weights": [1, 0]}
`), "o.json")
	wantError(t, err, "o.json", 4, "errors", `"fail_after_commit" is not an injected failure`)
}

// workloadT are the reconstructed built-ins of TAOBench's workload T.
var workloadT = map[string]bool{"t1": true, "t2": true, "t3": true}

// TestWorkloadTBuiltins: t1, t2 and t3 say they are reconstructed, issue
// write transactions of the shape §5-§6 describe, and share one graph, so
// one load serves `taobench experiment compare` across them.
func TestWorkloadTBuiltins(t *testing.T) {
	ws := map[string]*Workload{}
	for name := range workloadT {
		w, err := Builtin(name)
		if err != nil {
			t.Fatal(err)
		}
		ws[name] = w
		if !strings.Contains(w.Description, "reconstructed (not published)") {
			t.Errorf("%s: description %q does not say the paper did not publish it", name, w.Description)
		}
		if !reflect.DeepEqual(w.Requests.Values, []tao.Class{tao.WriteTxn}) || !reflect.DeepEqual(w.WriteTxnSizes.Values, []int{2}) {
			t.Errorf("%s: requests %v, sizes %v; want write transactions of two operations", name, w.Requests, w.WriteTxnSizes)
		}
		if !reflect.DeepEqual(w.EdgeTypes.Values, []tao.EdgeCategory{tao.Unique}) || w.KeySkew.Kind != Zipf {
			t.Errorf("%s: edge types %v, skew %v; want unique associations and zipf keys", name, w.EdgeTypes, w.KeySkew)
		}
		if len(w.NotApplied) != 0 || w.Holds() || w.Injects() {
			t.Errorf("%s: not applied %v, holds %v, injects %v; want none", name, w.NotApplied, w.Holds(), w.Injects())
		}
	}
	kinds := func(name string) []tao.Kind { return ws[name].WriteTxnKinds.Values }
	if !reflect.DeepEqual(kinds("t1"), []tao.Kind{tao.ObjUpdate, tao.EdgeUpdate}) ||
		!reflect.DeepEqual(kinds("t3"), []tao.Kind{tao.ObjAdd, tao.EdgeAdd}) ||
		!reflect.DeepEqual(kinds("t2"), []tao.Kind{tao.EdgeAdd, tao.ObjUpdate}) {
		t.Errorf("kinds: t1 %v, t2 %v, t3 %v; want updates, a unique add with an update, creates", kinds("t1"), kinds("t2"), kinds("t3"))
	}
	if ws["t1"].MultiShardWriteTxns != 0 || ws["t3"].MultiShardWriteTxns != 0 || ws["t2"].MultiShardWriteTxns != 1 {
		t.Error("t1 and t3 are single-shard, t2 multi-shard")
	}
	if c := ws["t2"].TxnPredicateCounts; !reflect.DeepEqual(c.Values, []int{0, 1}) || c.Weights[0] != 0 {
		t.Errorf("t2: predicate counts %v; want one precondition per transaction", c)
	}
	if ws["t3"].EdgeAddNew != 1 || ws["t3"].UniqueAddRace != 0 {
		t.Errorf("t3: edge_add_new %v, unique_add_race %v; T.3 creates", ws["t3"].EdgeAddNew, ws["t3"].UniqueAddRace)
	}
	if h := ws["t1"].GraphHash(); ws["t2"].GraphHash() != h || ws["t3"].GraphHash() != h {
		t.Error("t1, t2 and t3 have different graphs; one load should serve all three")
	}
}

// TestFanoutBuiltin: fanout is t2 with workload A's write transaction
// sizes, and nothing else changed, so `experiment compare --workload t2
// --workload fanout` measures fan-out alone (Table 7).
func TestFanoutBuiltin(t *testing.T) {
	f, err := Builtin("fanout")
	if err != nil {
		t.Fatal(err)
	}
	t2, _ := Builtin("t2")
	a, _ := Builtin("a")
	if !reflect.DeepEqual(f.WriteTxnSizes, a.WriteTxnSizes) {
		t.Errorf("fanout's write_txn_sizes are not workload A's")
	}
	if !strings.Contains(f.Description, "reconstructed (not published)") {
		t.Errorf("description %q does not say the paper did not publish it", f.Description)
	}
	same := *f
	same.Name, same.Description, same.WriteTxnSizes = t2.Name, t2.Description, t2.WriteTxnSizes
	if !reflect.DeepEqual(&same, t2) {
		t.Errorf("fanout differs from t2 beyond its sizes:\n%s", diff(&same, t2))
	}
	var mean, n float64
	for i, v := range f.WriteTxnSizes.Values {
		mean += float64(v) * f.WriteTxnSizes.Weights[i]
		n += f.WriteTxnSizes.Weights[i]
	}
	if mean /= n; mean < 5 || mean > 5.6 {
		t.Errorf("mean transaction size %.2f; the docs say 5.3", mean)
	}
}

// TestPreconditionedBuiltin: t1's updates as single writes after reads,
// each with a write_version precondition, on t1's graph, no wait of its own.
func TestPreconditionedBuiltin(t *testing.T) {
	p, err := Builtin("preconditioned")
	if err != nil {
		t.Fatal(err)
	}
	t1, _ := Builtin("t1")
	if !strings.Contains(p.Description, "reconstructed (not published)") {
		t.Errorf("description %q does not say the paper did not publish it", p.Description)
	}
	if !reflect.DeepEqual(p.WriteKinds, t1.WriteTxnKinds) || p.GraphHash() != t1.GraphHash() {
		t.Error("preconditioned's writes are not t1's updates, or its graph is not t1's")
	}
	if !reflect.DeepEqual(p.OpPredicates.Values, []tao.Predicate{tao.PredWriteVersion}) {
		t.Errorf("predicates %v; want write_version on every write", p.OpPredicates)
	}
	if p.Waits() || p.Holds() || p.Injects() {
		t.Error("preconditioned waits, holds or injects by itself; the experiment sets the wait")
	}
}
