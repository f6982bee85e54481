package main

import (
	"context"
	"encoding/json"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/taobench/taobench/internal/cpuwait"
)

// TestServerHang: the server stops answering in the middle of a run, its
// connections open (a proxy that stops forwarding). The command ends
// within the drain and a second after the experiment, its results written
// and the requests the hang caught counted as timeouts; closing the
// connections to the hung server does not hold it. The outage is a result:
// the seconds without an answer are counted and the run exits 3.
func TestServerHang(t *testing.T) {
	srvEach(t, func(t *testing.T, s srvServer) {
		dbURL := s.fresh(t)
		srvLoad(t, dbURL, "o", 2000)
		u, err := url.Parse(dbURL)
		if err != nil {
			t.Fatal(err)
		}
		p := newSrvProxy(t, u.Host)
		u.Host = p.addr

		const duration, drain = 4 * time.Second, time.Second
		out := filepath.Join(t.TempDir(), "out.json")
		stdout, stderr := newCLISyncBuffer(""), newCLISyncBuffer("experiment 1 of 1")
		args := []string{"run", "--db", u.String(), "--threads", "4", "--warmup", "0",
			"--duration", duration.String(), "--drain", drain.String(), "--out", out}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		done := make(chan int, 1)
		go func() { done <- realMain(ctx, args, stdout, stderr) }()
		select {
		case <-stderr.seen:
		case code := <-done:
			t.Fatalf("the run ended before its experiment started: exit %d\n%s%s", code, stdout, stderr)
		}
		waitedBefore, _ := cpuwait.Total()
		time.Sleep(duration / 4)
		p.stall()
		var code int
		select {
		case code = <-done:
		case <-time.After(time.Minute):
			t.Fatalf("still running a minute after the hang:\n%s", stderr)
		}
		returned, waited := time.Now(), cpuwait.Since(waitedBefore)
		r := cliResult{args, code, stdout.String(), stderr.String()}
		doc, raw := srvReadJSON(t, out)
		if len(doc.Experiments) != 1 {
			t.Fatalf("%d experiments in the JSON\n%s", len(doc.Experiments), raw)
		}
		e := doc.Experiments[0]
		srvConsistent(t, "hang", e)
		if e.Outcomes["timeout"] == 0 || e.Outcomes["ok"] == 0 {
			t.Errorf("want requests done before the hang and timeouts after: ok %d, timeout %d\n%s", e.Outcomes["ok"], e.Outcomes["timeout"], r)
		}
		// Stalled a quarter in, the last 3 s of 4 had no answer: at
		// least 2 whole seconds in a row, more than --max-stall's 1 s.
		if code != exitLost || !strings.Contains(r.stderr, "no service") {
			t.Errorf("a 3 s hang in a 4 s window: exit %d, want %d and \"no service\"\n%s", code, exitLost, r)
		}
		var x struct {
			Experiments []struct {
				NoService *int      `json:"no_service_s"`
				Longest   *int      `json:"longest_no_service_s"`
				Started   time.Time `json:"started"`
			} `json:"experiments"`
		}
		if err := json.Unmarshal([]byte(raw), &x); err != nil || len(x.Experiments) != 1 || x.Experiments[0].NoService == nil ||
			*x.Experiments[0].NoService < 2 || *x.Experiments[0].Longest < 2 {
			t.Fatalf("no_service_s and longest_no_service_s: want 2 or more (%v)\n%s", err, raw)
		}
		// From the experiment's own start (connecting its clients comes
		// before); on a loaded machine the process also waits for a CPU:
		// that much more is allowed, no more (none where the kernel does
		// not say).
		took := returned.Sub(x.Experiments[0].Started)
		if limit := duration + drain + time.Second + waited; took > limit {
			t.Errorf("the command returned %v after the experiment began, more than the experiment, the drain, a second and the %v its threads waited for a CPU (%v)\n%s", took, waited, limit, r)
		}
		if !strings.Contains(r.stderr, "results written to "+out) {
			t.Errorf("stderr does not say where the results went:\n%s", r.stderr)
		}
		t.Logf("%s: returned %.2fs after the experiment began; %s; timeouts %d", s.kind, took.Seconds(), srvShares(e), e.Outcomes["timeout"])
	})
}
