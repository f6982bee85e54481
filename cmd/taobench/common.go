package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/taobench/taobench/internal/flagx"
	"github.com/taobench/taobench/internal/sysmon"
	"github.com/taobench/taobench/livemetrics"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/run"
	"github.com/taobench/taobench/session"
	"github.com/taobench/taobench/workload"
)

var (
	errHelp        = errors.New("help shown")
	errInterrupted = session.ErrInterrupted
)

// Defaults of the newcomer's path: small enough to load and run in seconds.
const (
	defaultEdges    = 100_000
	defaultSeed     = 1
	defaultWorkload = "o"
)

// defaultDBPath is where the embedded database lives when --db is not given.
func defaultDBPath() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	return filepath.Join(dir, "taobench", "default.db")
}

func defaultDB() string { return "sqlite:" + defaultDBPath() }

// parse parses a command's flags, mapping their errors to exit status 2.
// The command's flags travel in a *usageError: realMain prints them to its
// stdout for -h and to its stderr after a flag error.
//
// A value a flag refuses, or a flag given twice, is said in one line that
// names the flag and the form it wants (flagForms), without the usage: it
// would bury the line. An unknown flag comes with the usage, which lists
// the flags there are.
func parse(fs *flag.FlagSet, args []string) error {
	fs.SetOutput(io.Discard)
	if err := flagx.GivenTwice(fs, args); err != nil {
		return &exitError{exitBadInput, fmt.Errorf("%s: %v", fs.Name(), err)}
	}
	if err := flagx.Parse(fs, args, flagForms()); err != nil {
		var ve *flagx.ValueError
		switch {
		case errors.Is(err, flag.ErrHelp):
			return &usageError{errHelp, flagx.Usage(fs)}
		case errors.As(err, &ve):
			return &exitError{exitBadInput, fmt.Errorf("%s: %v (taobench %s -h lists the flags)", fs.Name(), err, fs.Name())}
		}
		return &exitError{exitBadInput, &usageError{fmt.Errorf("%s: %v", fs.Name(), err), flagx.Usage(fs)}}
	}
	if fs.NArg() > 0 {
		return &exitError{2, &usageError{fmt.Errorf("%s: unexpected argument %q (flags start with --)", fs.Name(), fs.Arg(0)), flagx.Usage(fs)}}
	}
	return dbFromEnv(fs)
}

// dbFromEnv replaces --db env:NAME by the URL in the environment variable
// NAME (store.FromEnv).
func dbFromEnv(fs *flag.FlagSet) error {
	f := fs.Lookup("db")
	if f == nil {
		return nil
	}
	if err := f.Value.(*dbSpec).fromEnv(); err != nil {
		return badInput("%s: --db %v", fs.Name(), err)
	}
	return nil
}

// usageError is an error that comes with the command's flags.
type usageError struct {
	err   error
	usage string
}

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// durationFlag accepts Go syntax and bare seconds.
type durationFlag struct{ d *time.Duration }

func (f durationFlag) String() string {
	if f.d == nil {
		return ""
	}
	return f.d.String()
}

func (f durationFlag) Set(s string) error {
	d, err := run.ParseDuration(s)
	if err != nil {
		return err
	}
	*f.d = d
	return nil
}

// loadWorkload resolves a built-in name or a file; errors are bad input.
// It prints session.Workloads's notes: which fields of the workload a run
// that injects latency (or not) reads but does not apply, what it injects.
func loadWorkload(e *env, name string, inject bool) (*workload.Workload, error) {
	ws, err := loadWorkloads(e, []string{name}, inject)
	if err != nil {
		return nil, err
	}
	return ws[0], nil
}

// loadWorkloads is loadWorkload for several.
func loadWorkloads(e *env, names []string, inject bool) ([]*workload.Workload, error) {
	ws, notes, err := session.Workloads(names, inject)
	for _, n := range notes {
		fmt.Fprintln(e.stderr, n)
	}
	return ws, err
}

// openSession opens the database of a command, printing what the store
// says about how it opened (through the sink); close it with
// closeSession. The sink is the command's (sink) unless opts gives one.
// db gives the URL and any further endpoints with their weights.
// metricsAddr, unless "", serves live metrics there (--metrics-addr) as
// the session's Monitor, bound before the database is opened so that a
// bad address or a port in use leaves nothing behind.
func openSession(ctx context.Context, e *env, db *dbSpec, metricsAddr string, opts session.Options) (*session.Session, error) {
	ws, err := db.weights(opts.Name)
	if err != nil {
		return nil, err
	}
	opts.More, opts.Weights = db.More, ws
	if opts.Sink == nil {
		opts.Sink = e.sink(nil, nil)
	}
	if opts.RuntimeMonitor == "" {
		opts.RuntimeMonitor = sysmon.State()
	}
	var srv *livemetrics.Server
	if metricsAddr != "" {
		if srv, err = livemetrics.Listen(metricsAddr); err != nil {
			return nil, &session.InputError{Err: fmt.Errorf("%s: --metrics-addr: %v", opts.Name, err)}
		}
		opts.Monitor = srv
	}
	s, err := session.Open(ctx, db.URL, opts)
	if err != nil {
		if srv != nil {
			srv.Close()
		}
		return nil, err
	}
	if srv != nil {
		opts.Sink.Note(fmt.Sprintf("serving Prometheus metrics at http://%s/metrics", srv.Addr()))
		if n := srv.Note(); n != "" {
			opts.Sink.Note(n)
		}
	}
	return s, nil
}

// sink is how a command shows a session's work: notes and load progress
// on stderr, experiments through started and ended (nil: nothing).
func (e *env) sink(started func(k, n int, label string, x run.Experiment), ended func([]*result.Experiment, bool) error) *textSink {
	return &textSink{W: e.stderr, Started: started, Ended: ended}
}

// closeWait bounds how long a command waits for its store to close
// (session.CloseWithin says why).
const closeWait = 500 * time.Millisecond

// closeSession closes the session's store, waiting at most closeWait.
func closeSession(e *env, s *session.Session) {
	if !s.CloseWithin(closeWait) {
		fmt.Fprintf(e.stderr, "closing the connections to %s took more than %v: leaving them to the operating system\n", s.Name(), closeWait)
	}
}
