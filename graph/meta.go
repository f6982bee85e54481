package graph

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/taobench/taobench/workload"
)

// Load states recorded under MetaState: a load records StateLoading before
// its first row and StateComplete after its last, so an interrupted load is
// never taken for a graph.
const (
	MetaState     = "state"
	StateLoading  = "loading"
	StateComplete = "complete"
)

// Meta returns what the load records about the graph, so that a later run
// can rebuild it (FromMeta) with any workload's request mix: the graph's
// own workload travels in the native format under "graph_workload".
func (g *Graph) Meta(w *workload.Workload) map[string]string {
	var spec bytes.Buffer
	_ = workload.Write(&spec, w) // New has validated w
	m := g.identity()
	m["workload"], m["graph_workload"] = w.Name, spec.String()
	return m
}

// identity is what names the graph: a record must match it to be taken
// for this graph.
func (g *Graph) identity() map[string]string {
	return map[string]string{
		"seed":           strconv.FormatUint(g.seed, 10),
		"edges":          strconv.FormatInt(g.edges, 10),
		"nodes":          strconv.FormatInt(g.Nodes(), 10),
		"shards":         strconv.Itoa(g.shards),
		"graph_hash":     g.hash,
		"format_version": FormatVersion,
	}
}

// FromMeta rebuilds the graph a load recorded and returns it with the
// workload it was loaded with. It refuses an incomplete load and a record
// this version of taobench would compute differently, saying what to do.
func FromMeta(m map[string]string) (*Graph, *workload.Workload, error) {
	if len(m) == 0 {
		return nil, nil, fmt.Errorf("the database holds no graph: load one first (taobench load)")
	}
	if m[MetaState] == StateLoading {
		return nil, nil, fmt.Errorf("the database holds an interrupted load of workload %s (%s edges, seed %s): resume it with taobench load --workload %s --edges %s --seed %s, or start over with --drop",
			orUnknown(m["workload"]), orUnknown(m["edges"]), orUnknown(m["seed"]), orUnknown(m["workload"]), orUnknown(m["edges"]), orUnknown(m["seed"]))
	}
	if m["format_version"] != FormatVersion || m["graph_workload"] == "" {
		return nil, nil, fmt.Errorf("the database holds a graph of graph format %s, and this taobench computes format %s: load it again with taobench load --drop",
			orUnknown(m["format_version"]), FormatVersion)
	}
	w, err := workload.Parse(strings.NewReader(m["graph_workload"]), "taobench_meta graph_workload")
	if err != nil {
		return nil, nil, fmt.Errorf("the database's record of its graph is unreadable (%v): load it again with taobench load --drop", err)
	}
	seed, err1 := strconv.ParseUint(m["seed"], 10, 64)
	edges, err2 := strconv.ParseInt(m["edges"], 10, 64)
	if err1 != nil || err2 != nil {
		return nil, nil, fmt.Errorf("the database records an unreadable seed %q or size %q: load it again with taobench load --drop", m["seed"], m["edges"])
	}
	g, err := New(w, seed, edges)
	if err != nil {
		return nil, nil, fmt.Errorf("rebuilding the database's graph: %v", err)
	}
	if err := g.CheckMeta(m); err != nil {
		return nil, nil, err
	}
	return g, w, nil
}

// Compatible reports whether requests of w can run on g: the shards must
// match. Everything else of w (its mix, kinds, predicates, fidelity
// targets) is the run's to choose.
func (g *Graph) Compatible(w *workload.Workload, loaded string) error {
	if w.Shards() != g.shards {
		return fmt.Errorf("workload %s has %d shards, but the graph was loaded with workload %s, which has %d: run a workload with %d shards, or load %s's graph with taobench load --drop --workload %s",
			w.Name, w.Shards(), loaded, g.shards, g.shards, w.Name, w.Name)
	}
	return nil
}

// CheckMeta returns nil when m (as recorded by a load) describes g, and
// otherwise an error that says what differs and what to do.
func (g *Graph) CheckMeta(m map[string]string) error {
	if len(m) == 0 {
		return fmt.Errorf("the database holds no graph: load one first (taobench load --edges %d --seed %d)", g.edges, g.seed)
	}
	want := g.identity()
	var diff []string
	for _, k := range []string{"format_version", "edges", "seed", "graph_hash", "shards", "nodes"} {
		if m[k] != want[k] {
			diff = append(diff, fmt.Sprintf("%s %q here, %q there", k, want[k], m[k]))
		}
	}
	if len(diff) == 0 {
		return nil
	}
	return fmt.Errorf("the database holds the graph of workload %s: %s edges, seed %s, graph hash %s (format %s); "+
		"this asks for %d edges, seed %d, graph hash %s (format %s) [%s]; "+
		"load it again with --drop, or give the same --edges/--seed/--workload",
		orUnknown(m["workload"]), orUnknown(m["edges"]), orUnknown(m["seed"]), orUnknown(m["graph_hash"]), orUnknown(m["format_version"]),
		g.edges, g.seed, g.hash, FormatVersion, strings.Join(diff, "; "))
}

func orUnknown(s string) string {
	if s == "" {
		return "(unrecorded)"
	}
	return s
}
