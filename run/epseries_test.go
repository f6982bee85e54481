package run

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/store/storetest"
	"github.com/taobench/taobench/tao"
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
	// The stall measured to 0.1 s: about the store's 3 s on the stalled
	// endpoint (each stall in the window, less a request's 1 ms), none
	// on the other.
	for k, ep := range res.Endpoints {
		d, known := ep.Sum().LongestStall(res.Measured)
		t.Logf("%s: longest stall %v", ep.Name, d)
		if lo, hi := []time.Duration{0, 2800 * time.Millisecond}[k], []time.Duration{500 * time.Millisecond, 3200 * time.Millisecond}[k]; !known || d < lo || d > hi {
			t.Errorf("%s: longest stall %v (known %v); want %v to %v", ep.Name, d, known, lo, hi)
		}
	}
}

// TestEndpointsCodesPerSecond: the second of two endpoints fails every
// request with code 57P01 from 1.3 s to 1.7 s of the run and with 08006
// from 2.3 s to 2.7 s. Its per_second rows carry those codes in seconds 1
// and 2 only, each row's codes matching its errors; rows without errors,
// and every row of the healthy endpoint, have no error_codes; reading the
// file back gives the same codes by second.
func TestEndpointsCodesPerSecond(t *testing.T) {
	var start time.Time // set before Do; read by the clients only
	down := errors.New("terminating connection")
	var eps []Endpoint
	for i := range 2 {
		eps = append(eps, Endpoint{Name: fmt.Sprintf("ep%d", i), Weight: 1, Store: storetest.Func{
			ExecFunc: func(ctx context.Context, req *tao.Request, res *tao.Result) {
				time.Sleep(time.Millisecond)
				res.Outcome = tao.OK
				// Each code in the middle of its second, 300 ms from
				// either end: start is taken a little before the
				// measured window opens, and a request is counted in the
				// second it began, before this sleep.
				at := time.Since(start)
				switch {
				case i != 1:
				case at >= 1300*time.Millisecond && at < 1700*time.Millisecond:
					res.Outcome, res.Err, res.Code = tao.Error, down, "57P01"
				case at >= 2300*time.Millisecond && at < 2700*time.Millisecond:
					res.Outcome, res.Err, res.Code = tao.Error, down, "08006"
				}
			}}})
	}
	cfg := testConfig(t, "a", nil)
	cfg.Endpoints = eps
	start = time.Now()
	res := mustDo(t, context.Background(), cfg, Experiment{Threads: 4, Duration: 4 * time.Second})
	var buf bytes.Buffer
	if err := result.WriteJSON(&buf, &result.Run{Database: "ep0", Workload: "a", Started: time.Now()}, []*result.Experiment{res}); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Experiments []struct {
			Endpoints []struct {
				URL       string
				PerSecond []map[string]json.RawMessage `json:"per_second"`
			}
		}
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	wantCode := map[int]string{1: "57P01", 2: "08006"}
	for k, ep := range doc.Experiments[0].Endpoints {
		if len(ep.PerSecond) < 4 {
			t.Fatalf("%s: %d per_second rows, want 4", ep.URL, len(ep.PerSecond))
		}
		for i, row := range ep.PerSecond {
			var errs int64
			if err := json.Unmarshal(row["errors"], &errs); err != nil {
				t.Fatal(err)
			}
			raw, has := row["error_codes"]
			t.Logf("%s second %d: %d errors, error_codes %s", ep.URL, i, errs, raw)
			if !has {
				if errs > 0 || (k == 1 && wantCode[i] != "") {
					t.Errorf("%s: second %d: %d errors and no error_codes", ep.URL, i, errs)
				}
				continue
			}
			var codes map[string]map[string]int64
			if err := json.Unmarshal(raw, &codes); err != nil {
				t.Fatal(err)
			}
			want := map[string]map[string]int64{"error": {wantCode[i]: errs}}
			if k == 0 || wantCode[i] == "" || errs == 0 || !reflect.DeepEqual(codes, want) {
				t.Errorf("%s: second %d: %d errors, error_codes %v; want %v", ep.URL, i, errs, codes, want)
			}
		}
	}
	back, err := result.ReadJSON(&buf)
	if err != nil {
		t.Fatal(err)
	}
	for i, ep := range res.Endpoints {
		if got := back.Experiments[0].Endpoints[i].CodesBySecond; !reflect.DeepEqual(trimCodes(got), trimCodes(ep.CodesBySecond)) {
			t.Errorf("%s: codes by second read back as %v, wrote %v", ep.Name, got, ep.CodesBySecond)
		}
	}
}

// trimCodes drops trailing empty seconds, which a file does not keep.
func trimCodes(c result.CodesBySecond) result.CodesBySecond {
	for len(c) > 0 && len(c[len(c)-1]) == 0 {
		c = c[:len(c)-1]
	}
	return c
}
