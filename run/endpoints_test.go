package run

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/store/storetest"
	"github.com/taobench/taobench/tao"
)

func TestEndpointOf(t *testing.T) {
	for _, c := range []struct {
		weights []int
		want    []int
	}{
		{nil, []int{0, 0, 0}},
		{[]int{1, 1, 1}, []int{0, 1, 2, 0, 1, 2}},
		{[]int{2, 1, 1}, []int{0, 1, 2, 0, 0, 1, 2, 0}},
		{[]int{1, 3}, []int{1, 0, 1, 1, 1, 0, 1, 1}},
	} {
		var got []int
		for k := range c.want {
			got = append(got, EndpointOf(c.weights, k))
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("weights %v: clients 0.. on endpoints %v, want %v", c.weights, got, c.want)
		}
	}
}

// TestEndpoints: clients spread over three stores by weight; each store
// sees only its clients' requests, the per-endpoint figures add up
// exactly to the whole, and an endpoint whose every request fails costs
// only its own clients' requests.
func TestEndpoints(t *testing.T) {
	var served [3]atomic.Int64
	down := errors.New("connection refused")
	eps := make([]Endpoint, 3)
	for i := range eps {
		eps[i] = Endpoint{Name: fmt.Sprintf("ep%d", i), Weight: []int{2, 1, 1}[i], Store: storetest.Func{
			ExecFunc: func(ctx context.Context, req *tao.Request, res *tao.Result) {
				served[i].Add(1)
				if i == 2 {
					res.Outcome, res.Err, res.Code = tao.Error, down, "2002"
					return
				}
				time.Sleep(200 * time.Microsecond)
				res.Outcome = tao.OK
			}}}
	}
	cfg := testConfig(t, "a", nil)
	cfg.Endpoints = eps
	res, err := Do(context.Background(), cfg, Experiment{Threads: 8, Duration: 1200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Endpoints) != 3 {
		t.Fatalf("%d endpoints in the result, want 3", len(res.Endpoints))
	}
	var clients int
	var ops, errs int64
	for i, ep := range res.Endpoints {
		s := ep.Sum()
		t.Logf("%s: %d clients, %d requests, %d errors, codes %v, served %d", ep.Name, ep.Clients, s.Requests(), s.Outcome(tao.Error), ep.ErrorCodes, served[i].Load())
		if want := []int{4, 2, 2}[i]; ep.Clients != want {
			t.Errorf("%s: %d clients, want %d (weights 2,1,1 of 8)", ep.Name, ep.Clients, want)
		}
		if s.Requests() == 0 || s.Requests() > served[i].Load() {
			t.Errorf("%s: %d requests measured, the store served %d", ep.Name, s.Requests(), served[i].Load())
		}
		if i < 2 && s.Outcome(tao.Error) != 0 {
			t.Errorf("%s: %d errors; only ep2 is down", ep.Name, s.Outcome(tao.Error))
		}
		if i == 2 && (s.Outcome(tao.Error) != s.Requests() || ep.ErrorCodes[result.ErrorCode{Outcome: tao.Error, Code: "2002"}] != s.Requests()) {
			t.Errorf("%s: %d of %d requests errors, codes %v; want all, with code 2002", ep.Name, s.Outcome(tao.Error), s.Requests(), ep.ErrorCodes)
		}
		clients += ep.Clients
		ops += s.Requests()
		errs += s.Outcome(tao.Error)
	}
	whole := res.Sum()
	if clients != 8 || ops != whole.Requests() || errs != whole.Outcome(tao.Error) {
		t.Errorf("endpoints: %d clients, %d requests, %d errors; the whole: 8, %d, %d", clients, ops, errs, whole.Requests(), whole.Outcome(tao.Error))
	}
	if _, longest, _ := res.Endpoints[2].Sum().NoService(res.Measured); longest == 0 {
		t.Errorf("the endpoint that answered nothing shows no stretch without service")
	}
	if _, longest, _ := res.NoService(); longest != 0 {
		t.Errorf("the whole run shows %d s without service; two endpoints answered", longest)
	}

	// The JSON carries each endpoint exactly, and merge adds them up.
	var buf bytes.Buffer
	run := &result.Run{Database: "ep0", Workload: "a", Seed: 1, Started: time.Now()}
	if err := result.WriteJSON(&buf, run, []*result.Experiment{res}); err != nil {
		t.Fatal(err)
	}
	doc, err := result.ReadJSON(&buf)
	if err != nil {
		t.Fatal(err)
	}
	run2 := *run
	run2.Seed = 2
	merged, err := result.Merge([]result.Named{{Name: "x", Doc: doc}, {Name: "y", Doc: &result.Doc{Run: &run2, Experiments: []*result.Experiment{res}}}})
	if err != nil {
		t.Fatal(err)
	}
	for i, ep := range res.Endpoints {
		back, m := doc.Experiments[0].Endpoints[i], merged.Experiments[0].Endpoints[i]
		if back.Name != ep.Name || back.Clients != ep.Clients || back.Sum().Requests() != ep.Sum().Requests() ||
			back.Sum().Stats("all") != ep.Sum().Stats("all") || !maps.Equal(back.ErrorCodes, ep.ErrorCodes) {
			t.Errorf("endpoint %d read back as %s, %d clients, %d requests; wrote %s, %d, %d",
				i, back.Name, back.Clients, back.Sum().Requests(), ep.Name, ep.Clients, ep.Sum().Requests())
		}
		if m.Clients != 2*ep.Clients || m.Sum().Requests() != 2*ep.Sum().Requests() {
			t.Errorf("endpoint %d merged twice: %d clients, %d requests; want twice %d, %d", i, m.Clients, m.Sum().Requests(), ep.Clients, ep.Sum().Requests())
		}
	}
}
