// Command taobench benchmarks a database with Meta's social-graph workload.
// This file holds flags and wiring only; the work is done by the packages.
package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/taobench/taobench/internal/sysmon"
	"github.com/taobench/taobench/internal/termsafe"
	"github.com/taobench/taobench/store"
	"io"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"github.com/taobench/taobench/run"
	"github.com/taobench/taobench/session"
	_ "github.com/taobench/taobench/store/null"
	_ "github.com/taobench/taobench/store/spannerstore"
	_ "github.com/taobench/taobench/store/sqlstore"
	_ "github.com/taobench/taobench/tier/rediscache" // --cache redis://...
)

const usage = `taobench: Meta's social-graph workload (TAOBench) against a database.

Usage:
  taobench run       [--db URL] [--workload W] [--threads N --warmup D --duration D | --experiments FILE] [--rate R [--arrival poisson|uniform]] [--out FILE]
  taobench sweep     [--db URL] [--workload W] [--threads N] [--rates R1,R2,... | --start R --factor F] [--out FILE]
  taobench rate      [--db URL] [--workload W] [--threads N] --sla 'p99<=20ms' [--sla 'errors<=0.1%%'] [--out FILE]
  taobench load      [--db URL] [--workload W] [--edges N] [--load-threads T] [--seed S] [--drop]
  taobench validate  [--workload W] [--requests N] [--db URL --threads N --duration D]
  taobench check     [--db URL]
  taobench experiment lock-hold|precondition-wait|compare|fanout [--db URL] [...]   (docs/experiments.md)
  taobench info      [--db URL]
  taobench schema    [--db URL]
  taobench merge     RESULTS.json... [-o FILE] [--format text,json]
  taobench report    RESULTS.json... [-o report.html]   (one HTML page of charts; several files compared)
  taobench diff      BASE.json NEW.json [--confidence 0.95]   (each figure's change with its interval and a verdict)
  taobench ratio     [ROUNDS] [--label L]   (lines "NUM DEN", one per round: their ratio with a 95%% interval)
  taobench workloads
  taobench version   (also --version)

With no --db, taobench uses an embedded SQLite database at %s.
Run "taobench COMMAND -h" for a command's flags. Docs: README.md and docs/.
run, sweep, rate, validate and experiment re-execute taobench once with
GODEBUG=schedtrace set to 24.8 days, which keeps the Go runtime's monitor thread
awake (less client CPU per request): --runtime-monitor=default or
TAOBENCH_RUNTIME_MONITOR=default turns it off; the results record which
(client.runtime_monitor, docs/results.md).

` + exitCodesHelp

// exitError carries the process exit status (exitcodes.go): 2 for bad input
// (flags, files, URLs, an unreachable database), 3 for a run that lost too
// many requests, 1 for a failed check or run.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func badInput(format string, args ...any) error {
	return &exitError{exitBadInput, fmt.Errorf(format, args...)}
}

func badInputErr(err error) error { return &exitError{exitBadInput, err} }

func main() {
	if len(os.Args) < 2 || clientCommands[os.Args[1]] { // the others have no client to keep awake
		sysmon.Start(os.Args[1:]) // first: may re-execute (--runtime-monitor); see internal/sysmon
	}
	// SIGINT (Ctrl-C) and SIGTERM cancel the context with the signal as its
	// cause: the command ends early, reports what it measured, and exits
	// 130 or 143. After the first signal a second one ends the process at once.
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		sig := <-sigs
		signal.Reset(os.Interrupt, syscall.SIGTERM)
		cancel(signalCause{sig})
	}()
	// Only the process's main sizes the Go runtime (env.sizeProcs): a
	// command run in a test binary leaves it as it is.
	setProcs := func(n int) { runtime.GOMAXPROCS(n) }
	os.Exit(mainWith(ctx, os.Args[1:], os.Stdout, os.Stderr, setProcs))
}

// clientCommands are the commands that run clients against a database,
// and take --runtime-monitor (runSpec).
var clientCommands = map[string]bool{"run": true, "sweep": true, "rate": true, "validate": true, "experiment": true}

// commands are taobench's commands by name, each parsing its arguments.
var commands = map[string]func(context.Context, *env, []string) error{
	"run": cmdRun, "load": cmdLoad, "sweep": cmdSweep, "rate": cmdRate,
	"validate": cmdValidate, "check": cmdCheck, "experiment": cmdExperiment,
	"info": cmdInfo, "schema": cmdSchema, "workloads": cmdWorkloads,
	"merge": cmdMerge, "report": cmdReport, "diff": cmdDiff, "ratio": cmdRatio,
	"version": cmdVersion, "-version": cmdVersion, "--version": cmdVersion,
}

// realMain runs one command; cancelling ctx is Ctrl-C, unless its cause is a
// signalCause naming SIGTERM. Tests call it; it never changes GOMAXPROCS.
func realMain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return mainWith(ctx, args, stdout, stderr, nil)
}

// mainWith is realMain that sizes GOMAXPROCS with setProcs (nil: never).
func mainWith(ctx context.Context, args []string, stdout, stderr io.Writer, setProcs func(int)) int {
	if len(args) == 0 {
		// The newcomer's path: the default run.
		args = []string{"run"}
	}
	env := &env{stdout: stdout, stderr: stderr, launched: time.Now(), startProcs: runtime.GOMAXPROCS(0), setProcs: setProcs}
	var err error
	switch cmd, ok := commands[args[0]]; {
	case ok:
		err = cmd(ctx, env, args[1:])
	case args[0] == "-h" || args[0] == "-help" || args[0] == "--help" || args[0] == "help":
		fmt.Fprintf(stdout, usage, defaultDBPath())
		return exitOK
	default:
		fmt.Fprintf(stderr, "taobench: unknown command %q\n\n", args[0])
		fmt.Fprintf(stderr, usage, defaultDBPath())
		return exitBadInput
	}
	if err == nil {
		return exitOK
	}
	var ue *usageError
	hasUsage := errors.As(err, &ue)
	if errors.Is(err, errHelp) {
		if hasUsage {
			fmt.Fprint(stdout, ue.usage)
		}
		return exitOK
	}
	fmt.Fprintln(stderr, "taobench:", termsafe.Lines(store.RedactArgs(flagWords(err.Error()), args)))
	if hasUsage {
		fmt.Fprint(stderr, "\n"+ue.usage)
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	var ie *session.InputError
	if errors.As(err, &ie) {
		return exitBadInput
	}
	if errors.Is(err, errInterrupted) {
		return interruptCode(ctx)
	}
	return exitFailed
}

// env is where a command writes: results to stdout, progress and status to
// stderr, so results can be piped while a person watches.
type env struct {
	stdout, stderr io.Writer
	launched       time.Time // the command's start: "first request issued ... after start", the load's wall clock
	// startProcs is the GOMAXPROCS the command started with; setProcs,
	// when set (by main only), sizes it to a run (sizeProcs).
	startProcs int
	setProcs   func(int)
}

// sizeProcs sizes the Go runtime for a run of clients clients (--procs:
// procs): idle scheduler threads spin on the cores the database needs
// (run/procs.go, docs/performance.md). It returns the GOMAXPROCS advised.
func (e *env) sizeProcs(procs, clients int) int {
	n := run.AdvisedProcs(procs, clients, e.startProcs, os.Getenv("GOMAXPROCS") != "")
	if n > 0 && e.setProcs != nil {
		e.setProcs(n)
	}
	return n
}
