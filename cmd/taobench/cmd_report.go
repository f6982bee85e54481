package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/taobench/taobench/htmlreport"
	"github.com/taobench/taobench/internal/flagx"
	"github.com/taobench/taobench/result"
)

// cmdReport writes one self-contained HTML page of charts and tables from
// result files, comparing them when there are several: docs/results.md,
// "HTML report".
func cmdReport(_ context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	out := fs.String("o", "report.html", "write the HTML page to this file (also --out)")
	fs.StringVar(out, "out", "report.html", "the same as -o")
	flagArgs, names := flagx.SplitArgs(fs, args)
	if err := parse(fs, flagArgs); err != nil {
		return err
	}
	if given := flagx.Given(fs); *out == "" && (given["o"] || given["out"]) {
		return badInput("report: -o '': give a file name, or leave -o out")
	}
	if len(names) == 0 {
		return badInput("report: no results files; give one or more, e.g. taobench report a.json b.json -o report.html")
	}
	outF, err := checkOutAs(e, "report: -o", *out)
	if err != nil {
		return err
	}
	runs, err := readResults("report", names)
	if err != nil {
		return err
	}
	files := make([]*htmlreport.File, len(runs))
	for i, r := range runs {
		files[i] = &htmlreport.File{Name: r.Name, Doc: r.Doc}
	}
	err = outF.WriteWith(func(w io.Writer) error { return htmlreport.Write(w, files, time.Now()) }, true)
	if err != nil {
		return err
	}
	if outF.Stream() == nil {
		fmt.Fprintf(e.stderr, "wrote the report of %d results files to %s\n", len(files), *out)
	}
	return nil
}

// readResults reads results files (result.ReadFile) in order; a file it
// cannot read is bad input starting with cmd, naming the fix.
func readResults(cmd string, names []string) ([]result.Named, error) {
	runs := make([]result.Named, len(names))
	for i, name := range names {
		doc, err := result.ReadFile(name)
		if err != nil {
			return nil, badInput("%s: %v", cmd, err)
		}
		runs[i] = result.Named{Name: name, Doc: doc}
	}
	return runs, nil
}
