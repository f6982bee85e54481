package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/taobench/taobench/run"
	"github.com/taobench/taobench/session"
	"github.com/taobench/taobench/store"
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
func parse(fs *flag.FlagSet, args []string) error {
	fs.SetOutput(io.Discard)
	if err := givenTwice(fs, args); err != nil {
		return &exitError{exitBadInput, &usageError{fmt.Errorf("%s: %v", fs.Name(), err), flagUsage(fs)}}
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return &usageError{errHelp, flagUsage(fs)}
		}
		return &exitError{2, &usageError{fmt.Errorf("%s: %v", fs.Name(), err), flagUsage(fs)}}
	}
	if fs.NArg() > 0 {
		return &exitError{2, &usageError{fmt.Errorf("%s: unexpected argument %q (flags start with --)", fs.Name(), fs.Arg(0)), flagUsage(fs)}}
	}
	return dbFromEnv(fs)
}

// dbFromEnv replaces --db env:NAME by the URL in the environment variable
// NAME, so a URL with a password can come from a secret (a Kubernetes
// Secret, docs/distributed.md) without appearing in the command line.
// Every message and result redacts it as it does a typed URL.
func dbFromEnv(fs *flag.FlagSet) error {
	f := fs.Lookup("db")
	if f == nil {
		return nil
	}
	name, ok := strings.CutPrefix(f.Value.String(), "env:")
	if !ok {
		return nil
	}
	v := strings.TrimSpace(os.Getenv(name))
	if name == "" || v == "" {
		return badInput("%s: --db env:%s: the environment variable %q is unset or empty; set it to the database URL, or give the URL itself", fs.Name(), name, name)
	}
	return f.Value.Set(v)
}

// givenTwice reports a flag given more than once: the flag package would
// silently keep the last value, and "--threads 4 ... --threads 8" is more
// likely a mistake than a wish. It reads args as fs.Parse will: "-f" and
// "--f", "--f=v", a non-boolean flag's value in the next argument (even one
// starting with "-"), up to "--" or the first non-flag; an unknown flag
// stops it, for fs.Parse to report.
func givenTwice(fs *flag.FlagSet, args []string) error {
	seen := map[flag.Value]string{} // by value: -o and --out share one
	for i := 0; i < len(args); i++ {
		a := args[i]
		if len(a) < 2 || a[0] != '-' || a == "--" {
			return nil
		}
		name := strings.TrimPrefix(a[1:], "-")
		name, _, hasValue := strings.Cut(name, "=")
		f := fs.Lookup(name)
		if f == nil {
			return nil
		}
		written := a
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); !hasValue && !(ok && b.IsBoolFlag()) && i+1 < len(args) {
			i++
			written += " " + args[i]
		}
		if r, ok := f.Value.(interface{ Repeatable() bool }); ok && r.Repeatable() {
			continue // a list, such as rate's --sla
		}
		if first, dup := seen[f.Value]; dup {
			return fmt.Errorf("flag --%s given twice (%s, then %s); give it once", name, first, written)
		}
		seen[f.Value] = written
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
// It says which fields of the workload a run that injects latency (or
// not) reads but does not apply.
func loadWorkload(e *env, name string, inject bool) (*workload.Workload, error) {
	ws, err := loadWorkloads(e, []string{name}, inject)
	if err != nil {
		return nil, err
	}
	return ws[0], nil
}

// loadWorkloads is loadWorkload for several, noting the first whose fields
// are not all applied.
func loadWorkloads(e *env, names []string, inject bool) ([]*workload.Workload, error) {
	ws := make([]*workload.Workload, len(names))
	noted := false
	for i, name := range names {
		w, err := workload.Resolve(name)
		if err != nil {
			return nil, badInputErr(err)
		}
		if na := session.NotApplied(w, inject); len(na) > 0 && !noted {
			noted = true
			fmt.Fprintf(e.stderr, "workload %s: fields read but not applied yet: %s\n", w.Name, strings.Join(na, ", "))
		}
		ws[i] = w
	}
	return ws, nil
}

func openStoreOpts(ctx context.Context, raw string, opts store.Options) (store.Store, error) {
	st, err := store.Default.Open(ctx, raw, opts)
	if err != nil {
		return nil, badInputErr(err)
	}
	return st, nil
}

func openDatabase(ctx context.Context, raw string, clients int) (store.Database, error) {
	return openDatabaseOpts(ctx, raw, store.Options{Clients: clients})
}

func openDatabaseOpts(ctx context.Context, raw string, opts store.Options) (store.Database, error) {
	st, err := openStoreOpts(ctx, raw, opts)
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

// openSession opens the database of a command, printing what the store
// says about how it opened; close it with closeSession.
func openSession(ctx context.Context, e *env, name, dbURL string, clients int, split session.Split, sink session.Sink) (*session.Session, error) {
	s, err := session.Open(ctx, dbURL, session.Options{Name: name, Clients: clients, Split: split, Sink: sink})
	if err != nil {
		return nil, err
	}
	for _, n := range s.Notes() {
		fmt.Fprintln(e.stderr, n)
	}
	return s, nil
}

// closeSession closes the session's store, waiting at most closeWait.
func closeSession(e *env, s *session.Session) { closeStore(e, s.Store(), s.Name()) }
