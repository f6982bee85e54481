package main

import (
	"fmt"

	"github.com/taobench/taobench/livemetrics"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/run"
	"github.com/taobench/taobench/session"
)

const metricsAddrHelp = "serve Prometheus metrics at http://HOST:PORT/metrics while the command works (docs/results.md), e.g. 127.0.0.1:9100; port 0 picks a free one"

// startLive listens on addr, when given, before any work starts, so a bad
// address or a port in use is bad input naming the flag. The caller closes
// what it returns (nil without addr) when the command ends.
func startLive(e *env, cmd, addr string) (*livemetrics.Server, error) {
	if addr == "" {
		return nil, nil
	}
	srv, err := livemetrics.Listen(addr)
	if err != nil {
		return nil, badInput("%s: --metrics-addr: %v", cmd, err)
	}
	e.live = srv
	fmt.Fprintf(e.stderr, "serving Prometheus metrics at http://%s/metrics\n", srv.Addr())
	if n := srv.Note(); n != "" {
		fmt.Fprintln(e.stderr, n)
	}
	return srv, nil
}

// stopLive closes the server startLive returned; nil does nothing.
func stopLive(e *env, srv *livemetrics.Server) {
	if srv == nil {
		return
	}
	e.live = nil
	if err := srv.Close(); err != nil {
		fmt.Fprintf(e.stderr, "metrics server: %v\n", err)
	}
}

// liveRuns is the run.Live of the command's metrics server; nil without one.
func (e *env) liveRuns() run.Live {
	if e.live == nil {
		return nil
	}
	return e.live.Runs
}

// sink is how a command shows a session's work: notes and load progress
// on stderr, load progress also to the metrics server (started before),
// experiments through started and ended (nil: nothing).
func (e *env) sink(started func(k, n int, label string, x run.Experiment), ended func([]*result.Experiment, bool) error) *session.TextSink {
	s := &session.TextSink{W: e.stderr, Started: started, Ended: ended}
	if e.live != nil {
		s.Load = e.live.Load
	}
	return s
}
