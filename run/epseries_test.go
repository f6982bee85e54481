package run

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/store"
)

// TestEndpointsPerSecond: a run over two null endpoints, the second
// stalling 3 s in every 3.05 s (requests arriving in a stall end with it).
// In the results file each endpoint's per_second rows add up to its
// totals, and the stalled endpoint's rows show its seconds without
// service, next to no request served, while the other served on.
func TestEndpointsPerSecond(t *testing.T) {
	var eps []Endpoint
	for _, url := range []string{"null?delay=1ms", "null?delay=1ms&stall=3s&every=3050ms"} {
		st, err := store.Default.Open(context.Background(), url, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		eps = append(eps, Endpoint{Name: url, Store: st, Weight: 1})
	}
	cfg := testConfig(t, "a", eps[0].Store)
	cfg.Endpoints = eps
	res := mustDo(t, context.Background(), cfg, Experiment{Threads: 4, Duration: 7 * time.Second})
	var buf bytes.Buffer
	if err := result.WriteJSON(&buf, &result.Run{Database: "null", Workload: "a", Started: time.Now()}, []*result.Experiment{res}); err != nil {
		t.Fatal(err)
	}
	type row struct {
		Second                             int
		Requests, Served, Errors, Timeouts int64
		P50US                              float64 `json:"p50_us"`
		P99US                              float64 `json:"p99_us"`
		NoService                          bool    `json:"no_service"`
	}
	var doc struct {
		Experiments []struct {
			Endpoints []struct {
				URL        string
				Ops        int64
				Outcomes   map[string]int64
				NoServiceS int   `json:"no_service_s"`
				PerSecond  []row `json:"per_second"`
			}
		}
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Experiments) != 1 || len(doc.Experiments[0].Endpoints) != 2 {
		t.Fatalf("want 1 experiment over 2 endpoints, got %+v", doc.Experiments)
	}
	ep := doc.Experiments[0].Endpoints
	for k, e := range ep {
		if len(e.PerSecond) < 7 {
			t.Fatalf("%s: %d per_second rows, want one per second of the 7 s window", e.URL, len(e.PerSecond))
		}
		var req, errs, tos int64
		noService := 0
		for i, r := range e.PerSecond {
			if r.Second != i || r.Requests != r.Served+r.Errors+r.Timeouts {
				t.Errorf("%s: row %d: %+v", e.URL, i, r)
			}
			if r.Served > 0 && (r.P50US < 900 || r.P99US < r.P50US) {
				t.Errorf("%s: second %d: p50 %v µs, p99 %v µs; want at least the 1 ms delay", e.URL, i, r.P50US, r.P99US)
			}
			req, errs, tos = req+r.Requests, errs+r.Errors, tos+r.Timeouts
			if r.NoService {
				noService++
			}
		}
		if req != e.Ops || errs != e.Outcomes["error"] || tos != e.Outcomes["timeout"] || noService != e.NoServiceS {
			t.Errorf("%s: rows add up to %d requests, %d errors, %d timeouts, %d s without service; totals %d, %d, %d, %d",
				e.URL, req, errs, tos, noService, e.Ops, e.Outcomes["error"], e.Outcomes["timeout"], e.NoServiceS)
		}
		if k == 0 && noService != 0 {
			t.Errorf("%s: %d s without service; it never stalls", e.URL, noService)
		}
	}
	// Target: a 7 s window holds a whole 3 s stall, 2 or 3 whole seconds
	// without service on the second endpoint.
	var stalled []int
	for i, r := range ep[1].PerSecond {
		if r.NoService {
			stalled = append(stalled, i)
			// At most a request per client begins in a stalled second (and
			// waits it out); the other endpoint serves about 2,000.
			if r.Served > 2 || ep[0].PerSecond[i].Served < 100 {
				t.Errorf("second %d: the stalled endpoint served %d, the other %d; want at most 2 and at least 100",
					i, r.Served, ep[0].PerSecond[i].Served)
			}
		}
	}
	if len(stalled) < 2 {
		t.Errorf("stalled endpoint: seconds without service %v, want at least 2", stalled)
	}
	t.Logf("stalled endpoint's seconds without service: %v", stalled)
}
