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
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
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
}

// Listen binds addr (HOST:PORT; port 0 picks a free one) at once, so a bad
// address or a port in use is reported before any work starts, and serves
// /metrics there in the background.
func Listen(addr string) (*Server, error) {
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return nil, fmt.Errorf("%q: want HOST:PORT, such as 127.0.0.1:9100 or :9100: %v", addr, err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	reg := prometheus.NewRegistry()
	s := &Server{Runs: NewRuns(), Load: NewLoad(), ln: ln, done: make(chan error, 1)}
	reg.MustRegister(s.Runs, s.Load,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg}))
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { s.done <- s.srv.Serve(ln) }()
	return s, nil
}

// Addr is the address the server listens on, with the port it got.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Close stops the server, letting a scrape in progress finish for up to a
// second.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	if serr := <-s.done; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	return err
}
