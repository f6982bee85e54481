package main

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/taobench/taobench/bulkload"
	"github.com/taobench/taobench/chisquare"
	"github.com/taobench/taobench/fidelity"
	"github.com/taobench/taobench/gencheck"
	"github.com/taobench/taobench/graph"
	"github.com/taobench/taobench/session"
	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/textreport"
	"github.com/taobench/taobench/workload"
)

// What validate, check and info print of what the session found.

// writeValidation prints the rows of v and what they were measured on,
// and returns an error when a row failed, saying how to check a fresh
// load when runs since the load can explain it.
func writeValidation(w io.Writer, v *session.Validation, name string) error {
	if err := textreport.WriteFidelity(w, v.Rows); err != nil {
		return err
	}
	fmt.Fprintf(w, "workload %s on workload %s's graph, %d requests in %.0f s; a share passes within %d standard errors of its target plus the row's model error (%.3f targeted, %.3f graph expectation), a mean within %.0f%%, a distribution when p >= %g; range reads against the lists they draw counted in the database before and after the run\n",
		v.Workload, v.GraphOf, v.Result.Summary.Requests(), v.Result.Measured.Seconds(), fidelity.Sigmas, fidelity.ModelTargeted, fidelity.ModelGraph, 100*fidelity.MeanTolerance, chisquare.Alpha)
	if failed := fidelity.Failed(v.Rows); len(failed) > 0 {
		hint := ""
		if v.RunsBefore > 0 {
			hint = fmt.Sprintf("; the database has had %d run(s) since its load, whose writes move what it holds away from the graph the rows expect: validate a fresh load (taobench load --drop) to check the load itself", v.RunsBefore)
		}
		return fmt.Errorf("%s: %d figure(s) differ from their targets on %s%s", name, len(failed), v.Database, hint)
	}
	return nil
}

// writeGencheck prints the generator's check (session.CheckGenerator)
// of requests requests of w, and returns an error when a distribution
// differs.
func writeGencheck(out io.Writer, w *workload.Workload, requests int, rows []gencheck.Row) error {
	failed := gencheck.WriteTable(out, rows)
	fmt.Fprintf(out, "%d requests of workload %s; %d distributions tested: a distribution passes when its Holm-adjusted p >= %g (Holm–Bonferroni: p-values, smallest first, held to the levels shown until one passes), so a correct workload fails with chance at most %g in all (docs/workloads.md)\n",
		requests, w.Name, gencheck.Tested(rows), chisquare.Alpha, chisquare.Alpha)
	if failed > 0 {
		return fmt.Errorf("validate: %d distribution(s) differ from the workload's weights", failed)
	}
	return nil
}

// writeCheck prints the violations vs Session.Check found in the database
// db whose graph's record is meta, and returns an error when there are
// any.
func writeCheck(w io.Writer, db string, meta map[string]string, vs []store.Violation) error {
	if len(vs) == 0 {
		fmt.Fprintf(w, "%s: every invariant holds (the load of %s is complete with every index; bidirectional edges have their inverses; edges point at objects that exist; edges are timestamped within the load's time range or after it; unique types have at most one edge per (id1, type); loaded ids sit where the graph places them)\n",
			db, bulkload.Describe(meta))
		return nil
	}
	half := false
	for _, v := range vs {
		fmt.Fprintf(w, "VIOLATION %s: %d row(s), e.g. %s\n", v.Invariant, v.Count, flagWords(v.Example))
		half = half || v.Invariant == "bidirectional edge has its inverse" || v.Invariant == "inverse edge has its forward edge"
	}
	if half {
		fmt.Fprintln(w, "note: a run whose workload injects fail_after_primary_commit leaves exactly such rows by design: a cross-shard bidirectional write committed on its primary shard, never on the other (docs/experiments.md)")
	}
	return fmt.Errorf("check %s: %d invariant(s) violated", db, len(vs))
}

// writeInfo prints what the session's database holds: the graph its load
// recorded (meta) and the runs since.
func writeInfo(ctx context.Context, w io.Writer, s *session.Session, meta map[string]string) error {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "database\t%s\n", s.Name())
	for _, k := range []struct{ key, label string }{
		{"workload", "graph of workload"}, {"edges", "edges"}, {"nodes", "nodes"}, {"shards", "shards"},
		{"seed", "graph seed"}, {graph.MetaState, "load state"}, {"load_started", "load started"},
		{"load_finished", "load finished"}, {"taobench_version", "loaded by taobench"},
		{"format_version", "graph format"}, {"graph_hash", "graph hash"},
	} {
		v := meta[k.key]
		if v == "" {
			v = "(unrecorded)"
		}
		fmt.Fprintf(tw, "%s\t%s\n", k.label, v)
	}
	if runs, ok := s.Runs(ctx); ok {
		fmt.Fprintf(tw, "run numbers reserved\t%d (one per experiment)\n", runs)
	}
	return tw.Flush()
}
