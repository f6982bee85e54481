package graph

import (
	"fmt"
	"strconv"
	"strings"
)

// Meta returns what the load records about the graph, so a later run can
// tell whether the database holds the graph it would compute.
func (g *Graph) Meta() map[string]string {
	return map[string]string{
		"seed":           strconv.FormatUint(g.seed, 10),
		"edges":          strconv.FormatInt(g.edges, 10),
		"nodes":          strconv.FormatInt(g.Nodes(), 10),
		"shards":         strconv.Itoa(g.shards),
		"graph_hash":     g.hash,
		"format_version": FormatVersion,
	}
}

// CheckMeta returns nil when m (as recorded by a load) describes g, and
// otherwise an error that says what differs and what to do.
func (g *Graph) CheckMeta(m map[string]string) error {
	if len(m) == 0 {
		return fmt.Errorf("the database holds no graph: load one first (taobench load --edges %d --seed %d)", g.edges, g.seed)
	}
	want := g.Meta()
	var diff []string
	for _, k := range []string{"format_version", "edges", "seed", "graph_hash", "shards", "nodes"} {
		if m[k] != want[k] {
			diff = append(diff, fmt.Sprintf("%s %q here, %q there", k, want[k], m[k]))
		}
	}
	if len(diff) == 0 {
		return nil
	}
	return fmt.Errorf("the database holds a graph of %s edges, seed %s, workload hash %s (format %s); "+
		"this run asks for %d edges, seed %d, workload hash %s (format %s) [%s]; "+
		"load it again with --drop or run with the same --edges/--seed/--workload",
		orUnknown(m["edges"]), orUnknown(m["seed"]), orUnknown(m["graph_hash"]), orUnknown(m["format_version"]),
		g.edges, g.seed, g.hash, FormatVersion, strings.Join(diff, "; "))
}

func orUnknown(s string) string {
	if s == "" {
		return "(unrecorded)"
	}
	return s
}
