package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/taobench/taobench/internal/flagx"
	"github.com/taobench/taobench/internal/termsafe"
	"github.com/taobench/taobench/session"
	"github.com/taobench/taobench/textreport"
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
	flagArgs, files := flagx.SplitArgs(fs, args)
	if err := parse(fs, flagArgs); err != nil {
		return err
	}
	if given := flagx.Given(fs); *out == "" && (given["o"] || given["out"]) {
		return badInput("merge: -o '': give a file name, or leave -o out")
	}
	if len(files) == 0 {
		return badInput("merge: no results files; give two or more, e.g. taobench merge a.json b.json -o all.json")
	}
	reporters, err := textreport.ParseFormats("merge: --format", *format)
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
	m, lost, err := session.Merge(files)
	if err != nil {
		return err
	}
	if lost != nil {
		fmt.Fprintf(e.stderr, "merge: fidelity rows left out (the counts are merged): %s\n", termsafe.Lines(lost.Error()))
	}
	for i := range m.Experiments {
		if err := textreport.WriteReports(e.stdout, reporters, m.Run, m.Experiments[:i+1], i == len(m.Experiments)-1); err != nil {
			return err
		}
	}
	if err := outF.WriteRun(m.Run, m.Experiments, true); err != nil {
		return err
	}
	if err := logF.WriteWith(func(w io.Writer) error { return textreport.WriteHDRLog(w, m.Experiments) }, true); err != nil {
		return err
	}
	if *out != "" {
		fmt.Fprintf(e.stderr, "merged %d results into %s\n", len(files), *out)
	}
	return nil
}
