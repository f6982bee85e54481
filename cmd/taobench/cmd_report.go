package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"

	"github.com/taobench/taobench/htmlreport"
)

// cmdReport writes one self-contained HTML page of charts and tables from
// result files, comparing them when there are several: docs/results.md,
// "HTML report".
func cmdReport(_ context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	out := fs.String("o", "report.html", "write the HTML page to this file (also --out)")
	fs.StringVar(out, "out", "report.html", "the same as -o")
	flagArgs, names := splitArgs(fs, args)
	if err := parse(fs, flagArgs); err != nil {
		return err
	}
	if len(names) == 0 {
		return badInput("report: no results files; give one or more, e.g. taobench report a.json b.json -o report.html")
	}
	outF, err := checkOutAs(e, "report: -o", *out)
	if err != nil {
		return err
	}
	var files []*htmlreport.File
	for _, name := range names {
		f, err := readReportFile(name)
		if err != nil {
			return err
		}
		files = append(files, f)
	}
	err = outF.writeWith(func(w io.Writer) error { return htmlreport.Write(w, files, time.Now()) }, true)
	if err != nil {
		return err
	}
	if outF.stream == nil {
		fmt.Fprintf(e.stderr, "wrote the report of %d results files to %s\n", len(files), *out)
	}
	return nil
}

// readReportFile reads one results file, saying which and how to fix it
// when it cannot.
func readReportFile(name string) (*htmlreport.File, error) {
	data, err := os.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, badInput("report: %s does not exist; give the JSON files that taobench run, sweep, rate or merge wrote with --out", name)
	}
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the path is named below
		}
		return nil, badInput("report: cannot read %s: %v; give the JSON files that taobench run, sweep, rate or merge wrote with --out", name, err)
	}
	f, err := htmlreport.Parse(name, data)
	if err != nil {
		return nil, badInput("report: %s: %v; give a JSON file that taobench run, sweep, rate or merge wrote with --out", name, err)
	}
	return f, nil
}
