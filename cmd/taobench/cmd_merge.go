package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/taobench/taobench/fidelity"
	"github.com/taobench/taobench/gen"
	"github.com/taobench/taobench/graph"
	"github.com/taobench/taobench/report"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/workload"
)

// cmdMerge merges the JSON results of runs of the same schedule, workload
// and graph (driver processes sharing a database) into one, exactly:
// docs/results.md, "Merging results".
func cmdMerge(_ context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("merge", flag.ContinueOnError)
	out := fs.String("o", "", "write the merged results as JSON to this file (also --out)")
	fs.StringVar(out, "out", "", "the same as -o")
	hdrLog := fs.String("hdr-log", "", "write the merged per-second histograms as an HdrHistogram interval log to this file")
	format := fs.String("format", "text", "formats written to standard output, comma-separated: text, json")
	flagArgs, files := splitArgs(fs, args)
	if err := parse(fs, flagArgs); err != nil {
		return err
	}
	if given := setFlags(fs); *out == "" && (given["o"] || given["out"]) {
		return badInput("merge: -o '': give a file name, or leave -o out")
	}
	if len(files) == 0 {
		return badInput("merge: no results files; give two or more, e.g. taobench merge a.json b.json -o all.json")
	}
	reporters, err := report.ParseFormats("merge: --format", *format)
	if err != nil {
		return badInputErr(err)
	}
	outF, err := checkOutAs(e, "merge: -o", *out)
	if err != nil {
		return err
	}
	logF, err := checkOutAs(e, "merge: --hdr-log", *hdrLog)
	if err != nil {
		return err
	}
	var runs []result.Named
	for _, name := range files {
		doc, err := readResults("merge", name)
		if err != nil {
			return err
		}
		runs = append(runs, result.Named{Name: name, Doc: doc})
	}
	m, err := result.Merge(runs)
	if err != nil {
		return badInput("merge: %v", err)
	}
	if err := refidelity(m); err != nil {
		fmt.Fprintf(e.stderr, "merge: fidelity rows left out (the counts are merged): %s\n", termLines(err.Error()))
	}
	for i := range m.Experiments {
		if err := writeReports(e.stdout, reporters, m.Run, m.Experiments[:i+1], i == len(m.Experiments)-1); err != nil {
			return err
		}
	}
	if err := outF.write(m.Run, m.Experiments, true); err != nil {
		return err
	}
	if err := logF.writeWith(func(w io.Writer) error { return report.WriteHDRLog(w, m.Experiments) }, true); err != nil {
		return err
	}
	if *out != "" {
		fmt.Fprintf(e.stderr, "merged %d results into %s\n", len(files), *out)
	}
	return nil
}

// splitArgs separates flags (with their values) from file names, so
// flags may come after the files: merge a.json b.json -o all.json.
func splitArgs(fs *flag.FlagSet, args []string) (flags, files []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return flags, append(files, args[i+1:]...)
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			files = append(files, a)
			continue
		}
		flags = append(flags, a)
		name := strings.TrimLeft(a, "-")
		if f := fs.Lookup(name); f != nil && !strings.Contains(name, "=") && i+1 < len(args) {
			if b, ok := f.Value.(interface{ IsBoolFlag() bool }); !ok || !b.IsBoolFlag() {
				i++
				flags = append(flags, args[i])
			}
		}
	}
	return flags, files
}

// readResults reads one results file, saying which and why when it cannot.
func readResults(cmd, name string) (*result.Doc, error) {
	const hint = "give the JSON files that taobench run, sweep, rate or merge wrote with --out"
	data, err := os.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, badInput("%s: %s does not exist; %s", cmd, name, hint)
	}
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the path is named below
		}
		return nil, badInput("%s: cannot read %s: %v; %s", cmd, name, err, hint)
	}
	doc, err := result.ReadJSON(bytes.NewReader(data))
	if err != nil {
		return nil, badInput("%s: %s: %v; give a JSON file that taobench run, sweep, rate or merge wrote with --out", cmd, name, err)
	}
	return doc, nil
}

// refidelity recomputes the fidelity rows of merged experiments from their
// merged counters: the targets come from the workload and graph, rebuilt
// from their names and seed, which works for the built-in workloads.
func refidelity(d *result.Doc) error {
	w, err := workload.Resolve(d.Run.Workload)
	if err != nil {
		return fmt.Errorf("workload %s: %v", d.Run.Workload, err)
	}
	gw := w
	if d.Run.GraphWorkload != "" && d.Run.GraphWorkload != w.Name {
		if gw, err = workload.Resolve(d.Run.GraphWorkload); err != nil {
			return fmt.Errorf("graph workload %s: %v", d.Run.GraphWorkload, err)
		}
	}
	g, err := graph.New(gw, d.Run.GraphSeed, d.Run.Edges)
	if err != nil {
		return err
	}
	plan, err := gen.NewPlan(w, g, d.Run.Seed)
	if err != nil {
		return err
	}
	for _, x := range d.Experiments {
		x.Fidelity = fidelity.Compare(w, plan.Targets(), x.Counters)
	}
	return nil
}
