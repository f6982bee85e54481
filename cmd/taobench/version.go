package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/taobench/taobench/buildinfo"
)

func cmdVersion(_ context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	if err := parse(fs, args); err != nil {
		return err
	}
	fmt.Fprint(e.stdout, buildinfo.Read().Describe())
	return nil
}
