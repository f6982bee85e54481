package session_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/run"
	"github.com/taobench/taobench/session"
	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/workload"
)

// TestEndpointsSameGraph: endpoints must be one database. Two URLs of one
// SQLite file run as two endpoints, whose counts add up to the whole; a
// second file that holds another graph is refused, naming what differs,
// as bad input.
func TestEndpointsSameGraph(t *testing.T) {
	ctx := context.Background()
	w := builtin(t, "a")
	a, b := sqlite(t), sqlite(t)
	for i, u := range []string{a, b} {
		s := open(t, u, session.Options{})
		if _, _, err := s.Graph(ctx, w, session.GraphSpec{Edges: 500 + int64(i)*100}); err != nil {
			t.Fatal(err)
		}
		s.Close()
	}
	s := open(t, a, session.Options{Clients: 3, More: []string{a}, Weights: []int{2, 1}})
	g, _, err := s.Graph(ctx, w, session.GraphSpec{})
	if err != nil {
		t.Fatal(err)
	}
	exps, err := s.Run(ctx, session.Plan{Config: run.Config{Workload: w, Graph: g, Seed: 3},
		Experiments: []run.Experiment{{Threads: 3, Duration: 300 * time.Millisecond}}})
	if err != nil {
		t.Fatal(err)
	}
	e := exps[0]
	if len(e.Endpoints) != 2 || e.Endpoints[0].Clients != 2 || e.Endpoints[1].Clients != 1 ||
		e.Endpoints[0].Sum().Requests()+e.Endpoints[1].Sum().Requests() != e.Sum().Requests() {
		t.Fatalf("endpoints %+v; want 2 and 1 clients (weights 2,1) whose requests add up to %d", e.Endpoints, e.Sum().Requests())
	}

	other := open(t, a, session.Options{More: []string{b}})
	_, _, err = other.Graph(ctx, w, session.GraphSpec{})
	var in *session.InputError
	if !errors.As(err, &in) || !strings.Contains(err.Error(), "holds another graph record") {
		t.Errorf("endpoints of two databases: %v; want an input error saying endpoint 2 holds another graph", err)
	}

	for _, c := range []struct {
		more    string
		weights []int
		want    string
	}{
		{a, []int{1, 2, 3}, "Options.Weights gives 3 weight(s) for 2 endpoint(s)"},
		{a, []int{1, 0}, "give whole numbers from 1"},
		{"", []int{2, 1}, "2 weight(s) for 1 endpoint(s)"},
	} {
		opts := session.Options{Weights: c.weights}
		if c.more != "" {
			opts.More = []string{c.more}
		}
		_, err := session.Open(ctx, a, opts)
		if !errors.As(err, &in) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("weights %v: %v; want an input error saying %q", c.weights, err, c.want)
		}
	}
}

// TestEndpointsStaleReadsPerEndpoint: a run over two endpoints of one
// SQLite file, with the tiers a command puts before it (none: the
// checker), has each endpoint's reads classed by its own poller: a row per
// endpoint, named as the endpoint, with reads served, none stale (one
// file: nothing lags), and its poller's lag measured.
func TestEndpointsStaleReadsPerEndpoint(t *testing.T) {
	ctx := context.Background()
	w := *builtin(t, "a")
	w.Requests = workload.Dist[tao.Class]{Values: []tao.Class{tao.Read, tao.Write}, Weights: []float64{3, 1}}
	a := sqlite(t)
	s := open(t, a, session.Options{Clients: 4, More: []string{a}})
	g, _, err := s.Graph(ctx, &w, session.GraphSpec{Edges: 300})
	if err != nil {
		t.Fatal(err)
	}
	front, closeTiers, err := s.Tiers(ctx, session.TierSpec{}, 4, &result.Run{})
	if err != nil {
		t.Fatal(err)
	}
	defer closeTiers()
	exps, err := s.Run(ctx, session.Plan{Config: run.Config{Store: front, Workload: &w, Graph: g, Seed: 3},
		Experiments: []run.Experiment{{Threads: 4, Duration: 500 * time.Millisecond}}})
	if err != nil {
		t.Fatal(err)
	}
	e := exps[0]
	c := e.Consistency
	if c == nil || len(c.Endpoints) != 2 || len(e.Endpoints) != 2 {
		t.Fatalf("consistency %+v, %d endpoints; want a stale-read row for each of the 2 endpoints", c, len(e.Endpoints))
	}
	for i, row := range c.Endpoints {
		reads := e.Endpoints[i].Sum().Stats("read").Count
		t.Logf("%s: %d reads served (%d measured at its clients), %d stale, %d polls", row.Name, row.Served, reads, row.Stale, row.Lag.Count())
		if row.Name != e.Endpoints[i].Name || row.Served == 0 || row.Stale != 0 || row.Lag.Count() == 0 {
			t.Errorf("endpoint %d (%s): row %q, %d reads served, %d stale, %d polls; want its name, reads served, none stale, its poller's lag",
				i+1, e.Endpoints[i].Name, row.Name, row.Served, row.Stale, row.Lag.Count())
		}
	}
}
