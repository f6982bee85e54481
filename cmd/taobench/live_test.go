package main

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/taobench/taobench/internal/testenv"
)

// liveSum adds up the samples of name whose labels include every one of want.
func liveSum(m map[string]float64, name string, want ...string) float64 {
	var s float64
	for k, v := range m {
		if !strings.HasPrefix(k, name+"{") {
			continue
		}
		ok := true
		for _, w := range want {
			ok = ok && strings.Contains(k, w)
		}
		if ok {
			s += v
		}
	}
	return s
}

var liveAddrRE = regexp.MustCompile(`serving Prometheus metrics at http://([^/]+)/metrics`)

// TestLiveMetricsRun scrapes a real two-experiment run: the counters are
// there, grow while experiment 2 runs, and experiment 1's, scraped once it
// has ended, equal its counts in the JSON results exactly.
func TestLiveMetricsRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	exps := filepath.Join(dir, "exps")
	if err := os.WriteFile(exps, []byte("2,0.3,0.7\n1,0,3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.json")
	stderr := newCLISyncBuffer("/metrics\n")
	var stdout cliSyncBuffer
	done := make(chan int, 1)
	go func() {
		done <- realMain(context.Background(), []string{"run", "--db", "null", "--experiments", exps, "--seed", "5",
			"--metrics-addr", "127.0.0.1:0", "--out", out}, &stdout, stderr)
	}()
	select {
	case <-stderr.seen:
	case code := <-done:
		t.Fatalf("run ended (exit %d) before serving metrics:\n%s", code, stderr.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("no metrics address announced:\n%s", stderr.String())
	}
	addr := liveAddrRE.FindStringSubmatch(stderr.String())[1]

	// Wait until experiment 2 runs: experiment 1 is then over.
	var first map[string]float64
	deadline := time.Now().Add(30 * time.Second)
	for {
		first = testenv.Scrape(t, addr)
		if first[`taobench_experiment_phase{experiment="1",phase="ended"}`] == 1 &&
			liveSum(first, "taobench_requests_total", `experiment="2"`) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("experiment 2 never showed requests: %v", first)
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(600 * time.Millisecond) // more than a client's flush period
	second := testenv.Scrape(t, addr)
	a := liveSum(first, "taobench_requests_total", `experiment="2"`)
	b := liveSum(second, "taobench_requests_total", `experiment="2"`)
	if b <= a {
		t.Errorf("experiment 2's requests did not grow between scrapes: %v then %v", a, b)
	}
	if v := second[`taobench_clients{experiment="2"}`]; v != 1 {
		t.Errorf("experiment 2 clients: %v, want 1", v)
	}
	if v := second[`taobench_experiment_phase{experiment="2",phase="measured"}`]; v != 1 {
		t.Errorf("experiment 2 not in its measured phase: %v", v)
	}
	if v := second[`taobench_achieved_rate_requests_per_second{experiment="2"}`]; v <= 0 {
		t.Errorf("experiment 2 achieved rate: %v", v)
	}
	if liveSum(second, "taobench_requests_total", `experiment="1"`, `phase="warmup"`) == 0 {
		t.Error("experiment 1's warmup requests are not distinguishable")
	}

	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("run: exit %d\n%s", code, stderr.String())
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the run did not end")
	}
	if c, err := net.Dial("tcp", addr); err == nil {
		c.Close()
		t.Error("the metrics server still listens after the run ended")
	}

	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var doc struct {
		Experiments []struct {
			Ops      int64            `json:"ops"`
			Outcomes map[string]int64 `json:"outcomes"`
		} `json:"experiments"`
	}
	if err := json.NewDecoder(f).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	x := doc.Experiments[0]
	if got := liveSum(second, "taobench_requests_total", `experiment="1"`, `phase="measured"`); int64(got) != x.Ops {
		t.Errorf("experiment 1: %v measured requests scraped, the results say %d", got, x.Ops)
	}
	for o, n := range x.Outcomes {
		if got := liveSum(second, "taobench_requests_total", `experiment="1"`, `phase="measured"`, `outcome="`+o+`"`); int64(got) != n {
			t.Errorf("experiment 1, outcome %s: %v scraped, the results say %d", o, got, n)
		}
	}
	hist := liveSum(second, "taobench_request_duration_seconds_count", `experiment="1"`, `phase="measured"`)
	if int64(hist) != x.Ops {
		t.Errorf("experiment 1: histogram counts %v, the results say %d requests", hist, x.Ops)
	}
}

// TestLiveMetricsAddrErrors: a bad address or a port in use is bad input
// naming the flag, before any work (no database is created).
func TestLiveMetricsAddrErrors(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			io.Copy(io.Discard, c)
		}
	}()
	for _, cmd := range []string{"run", "load", "sweep"} {
		for _, addr := range []string{ln.Addr().String(), "no-port", "127.0.0.1:notaport"} {
			path := filepath.Join(t.TempDir(), "never.db")
			r := cliRun(t, cmd, "--db", "sqlite:"+path, "--metrics-addr", addr)
			if r.code != exitBadInput || !strings.Contains(r.stderr, cmd+": --metrics-addr") {
				t.Errorf("%s --metrics-addr %s: want exit %d naming the flag\n%s", cmd, addr, exitBadInput, r)
			}
			cliNoFile(t, path, cmd+" with a bad --metrics-addr")
		}
	}
}
