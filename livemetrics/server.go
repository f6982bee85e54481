// Package livemetrics serves Prometheus metrics of a run or a load while it
// goes on: requests and their outcomes, latency histograms, requests in
// flight, the target and achieved rate, and a load's rows and progress.
//
// The clients' hot path is untouched: the runner hands each client's batch of
// samples (run.Live) to a shard of plain counters under a mutex taken once per
// batch, as its recorders do, and the collector adds the shards up when
// Prometheus scrapes. Every Server has a registry of its own; nothing is
// registered globally. docs/results.md lists the metrics.
package livemetrics

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/taobench/taobench/bulkload"
	"github.com/taobench/taobench/run"
)

// Server serves /metrics on one address until Close.
type Server struct {
	// Runs and Load are the collectors the command feeds: Runs as the
	// runner's run.Live, Load from the load's progress reports.
	Runs *Runs
	Load *Load

	ln   net.Listener
	srv  *http.Server
	done chan error
	note string

	closeOnce sync.Once
	closeErr  error
}

// Listen binds addr (HOST:PORT; port 0 picks a free one) at once, so a bad
// address or a port in use is reported before any work starts, and serves
// /metrics there in the background.
//
// The server speaks plain HTTP with no authentication, so an address with
// no host (":9100") binds loopback only, not every interface as net.Listen
// would. An all-interfaces host (0.0.0.0, ::) is honoured, and Note then
// says so for the command to print.
func Listen(addr string) (*Server, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("%q: want HOST:PORT, such as 127.0.0.1:9100: %v", addr, err)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, port))
	if err != nil {
		return nil, err
	}
	reg := prometheus.NewRegistry()
	s := &Server{Runs: NewRuns(), Load: NewLoad(), ln: ln, done: make(chan error, 1)}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		_, bound, _ := net.SplitHostPort(s.Addr())
		s.note = fmt.Sprintf("metrics server at %s listens on every network interface, over plain HTTP without authentication: anyone who reaches this host can read the metrics; give 127.0.0.1:%s, or this host's own address on a trusted network, unless that is meant", s.Addr(), bound)
	}
	reg.MustRegister(s.Runs, s.Load,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg}))
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { s.done <- s.srv.Serve(ln) }()
	return s, nil
}

// LoadProgress counts a load's progress report (session.Monitor).
func (s *Server) LoadProgress(p bulkload.Progress) { s.Load.Observe(p) }

// Live watches the runs' requests (session.Monitor, run.Config.Live).
func (s *Server) Live() run.Live { return s.Runs }

// Addr is the address the server listens on, with the port it got.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Note is a warning for the operator when the server listens on every
// interface (0.0.0.0 or ::), empty otherwise. The command prints it.
func (s *Server) Note() string { return s.note }

// Close stops the server, letting a scrape in progress finish for up to a
// second. Closing it again returns the first Close's error.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		err := s.srv.Shutdown(ctx)
		if serr := <-s.done; !errors.Is(serr, http.ErrServerClosed) && err == nil {
			err = serr
		}
		s.closeErr = err
	})
	return s.closeErr
}
