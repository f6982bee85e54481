package main

import (
	"context"
	"flag"
	"fmt"
	"runtime"

	"github.com/taobench/taobench/buildinfo"
)

func cmdVersion(_ context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	if err := parse(fs, args); err != nil {
		return err
	}
	b := buildinfo.Read()
	fmt.Fprintf(e.stdout, "taobench %s\n", b.Version)
	rev := b.Revision
	if b.Time != "" {
		rev += ", committed " + b.Time
	}
	if b.Modified {
		rev += ", with uncommitted changes"
	}
	if b.Revision == "unknown" {
		rev += " (built without VCS information, e.g. with -buildvcs=false)"
	}
	fmt.Fprintf(e.stdout, "revision %s\n", rev)
	fmt.Fprintf(e.stdout, "built with %s for %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return nil
}
