package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/taobench/taobench/graph"
	"github.com/taobench/taobench/load"
	"github.com/taobench/taobench/run"
	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/workload"
)

var (
	errHelp        = errors.New("help shown")
	errInterrupted = errors.New("interrupted")
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
func parse(fs *flag.FlagSet, args []string) error {
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return &usageError{errHelp, flagUsage(fs)}
		}
		return &exitError{2, &usageError{fmt.Errorf("%s: %v", fs.Name(), err), flagUsage(fs)}}
	}
	if fs.NArg() > 0 {
		return &exitError{2, &usageError{fmt.Errorf("%s: unexpected argument %q (flags start with --)", fs.Name(), fs.Arg(0)), flagUsage(fs)}}
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

func flagUsage(fs *flag.FlagSet) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Usage of taobench %s:\n", fs.Name())
	fs.SetOutput(&b)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
	return b.String()
}

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

// setFlags reports which flags were given on the command line.
func setFlags(fs *flag.FlagSet) map[string]bool {
	m := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { m[f.Name] = true })
	return m
}

// loadWorkload resolves a built-in name or a file; errors are bad input.
func loadWorkload(e *env, name string) (*workload.Workload, error) {
	w, err := workload.Resolve(name)
	if err != nil {
		return nil, badInputErr(err)
	}
	if len(w.NotApplied) > 0 {
		fmt.Fprintf(e.stderr, "workload %s: fields read but not applied yet: %s\n", w.Name, strings.Join(w.NotApplied, ", "))
	}
	return w, nil
}

// openStore opens the URL; a failure to connect is bad input (exit 2), and
// no message ever shows the password.
func openStore(ctx context.Context, raw string, clients int) (store.Store, error) {
	st, err := store.Default.Open(ctx, raw, store.Options{Clients: clients})
	if err != nil {
		return nil, badInputErr(err)
	}
	return st, nil
}

// printNotes shows on stderr what the store says about how it opened, such
// as a connection pool smaller than the clients.
func printNotes(e *env, st store.Store) {
	if n, ok := st.(interface{ Notes() []string }); ok {
		for _, s := range n.Notes() {
			fmt.Fprintln(e.stderr, s)
		}
	}
}

func openDatabase(ctx context.Context, raw string, clients int) (store.Database, error) {
	st, err := openStore(ctx, raw, clients)
	if err != nil {
		return nil, err
	}
	db, ok := st.(store.Database)
	if !ok {
		st.Close()
		return nil, badInput("%s keeps no data; give a database URL (sqlite:PATH, postgres://..., mysql://...)", store.Redact(raw))
	}
	return db, nil
}

// loadGraph writes g into db with a progress display on stderr.
func loadGraph(ctx context.Context, e *env, db store.Database, g *graph.Graph, threads int) error {
	fmt.Fprintf(e.stderr, "loading %d nodes (about %d edges) with %d loader(s)\n", g.Nodes(), g.Edges(), threads)
	bar := newProgress(e.stderr)
	res, err := load.Load(ctx, db, g, load.Options{Threads: threads, Report: bar.report})
	bar.finish()
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("%w: %v", errInterrupted, err)
		}
		return err
	}
	secs := res.Elapsed.Seconds()
	fmt.Fprintf(e.stderr, "loaded %d rows (%d nodes) in %.1fs: %.0f rows/s\n", res.Rows, res.Nodes, secs, float64(res.Rows)/max(secs, 1e-9))
	return nil
}

func parseUint(s string) (uint64, error) { return strconv.ParseUint(s, 10, 64) }
