// Package session is taobench's work behind its command: open a database
// (or take a store.Store value, as sql.OpenDB takes a connector), find the
// graph it holds or load one, reserve run numbers, build a run's metadata
// and run experiments, reporting through a Sink. The command parses flags
// and prints; another Go program can drive the same work without it.
package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/taobench/taobench/buildinfo"
	"github.com/taobench/taobench/bulkload"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/run"
	"github.com/taobench/taobench/store"
)

// ErrInterrupted is returned, wrapped, when the context ended a command's
// work early; what was measured until then has been reported.
var ErrInterrupted = errors.New("interrupted")

// InputError is an error in what the caller gave (a workload, a size, a
// database that holds another graph): fixing the input fixes it. The
// command exits 2 on it.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

func badInput(format string, args ...any) error {
	return &InputError{fmt.Errorf(format, args...)}
}

func badInputErr(err error) error { return &InputError{err} }

// Sink receives what a session has to say while it works. The command's
// printing and the live metrics server implement it; Discard ignores all.
type Sink interface {
	// Note is a line for a person: what is loaded, what is waited for.
	Note(msg string)
	// LoadProgress reports a graph load as it goes; LoadEnded follows the
	// last report.
	LoadProgress(p bulkload.Progress)
	LoadEnded()
	// ExperimentStarted opens experiment k (from 0) of n; label names it
	// (a step of a ladder) or is "".
	ExperimentStarted(k, n int, label string, x run.Experiment)
	// ExperimentEnded gets each experiment's result as it ends, with all
	// results so far; final says no experiment follows. An error stops the
	// run.
	ExperimentEnded(done []*result.Experiment, final bool) error
}

// Discard is a Sink that ignores everything.
var Discard Sink = discard{}

type discard struct{}

func (discard) Note(string)                                        {}
func (discard) LoadProgress(bulkload.Progress)                     {}
func (discard) LoadEnded()                                         {}
func (discard) ExperimentStarted(int, int, string, run.Experiment) {}
func (discard) ExperimentEnded([]*result.Experiment, bool) error   { return nil }

// Options configure a session; the zero value works (the null sink, one
// driver, two loaders).
type Options struct {
	// Name starts the session's messages, such as "run" or "experiment
	// lock-hold".
	Name string
	// Clients sizes the store's pool when the session opens it.
	Clients int
	// Sink receives notes, load progress and experiments; nil: Discard.
	Sink Sink
	// Split is this process's share of a run split across drivers; the
	// zero value is the whole run.
	Split Split
	// Version and Revision are recorded in results and the graph's record;
	// "": the running binary's (package buildinfo).
	Version, Revision string
	// MustExist opens only a database that exists: commands that read
	// what a database holds (info, check) never create one.
	MustExist bool
	// ReadOnly opens a read replica as the session's database (a run on
	// TierSpec.Replicas alone): nothing is created or written on it (no
	// setup, no load, no run number reserved), and only reads run.
	// Without it (or MustExist), Open refuses a server that takes no
	// writes (an InputError naming it).
	ReadOnly bool
	// Monitor, when set, watches the session's load progress and, unless
	// an experiment's run.Config gives its own Live, every experiment's
	// requests (livemetrics.Server serves them as Prometheus metrics). A
	// program that sets none links no metrics library. Close closes it
	// when it is an io.Closer: it lives as long as the session it watches.
	Monitor Monitor
	// More are further endpoints of the database Open opens (New takes
	// one store and ignores them), and Weights every endpoint's share of
	// the clients, Open's URL first (nil for equal shares; endpoints.go).
	More    []string
	Weights []int
	// Tiers are the read tiers the session's runs will put before its
	// database (Session.Tiers): Open checks them before it opens the
	// database, which may create it (a new SQLite file), so that a tier
	// refused leaves nothing behind: the Redis of TierSpec.Cache must
	// answer, every replica must exist and replay the database (roles.go). Tiers
	// then takes the replicas opened here.
	Tiers TierSpec
	// RuntimeMonitor is the Go runtime's system monitor the process runs
	// with ("awake" or "default", internal/sysmon), recorded in results.
	RuntimeMonitor string
}

// Session is one database (or store) and the graph it holds.
type Session struct {
	st    store.Store
	url   string // redacted
	opts  Options
	sink  Sink
	owned bool // Close closes st
	// eps are the endpoints when Open opened several, the first s.st.
	eps []run.Endpoint
	// fronts are the endpoints' stores with the staleness checker before
	// them (endpointChecker), in eps order, while Tiers's close has not
	// run; nil otherwise.
	fronts []store.Store
	// token names the session's run records (concurrent.go).
	token string
	// pre are Options.Tiers as Open checked them, until Tiers takes them.
	pre *preTiers
}

// Open opens the store of a URL (sqlite:PATH, postgres://..., mysql://...,
// null) registered in store.Default, and tells the sink what the store
// says about how it opened (Notes). A failure to connect is an
// InputError; no message shows the URL's password.
func Open(ctx context.Context, url string, opts Options) (*Session, error) {
	ws, err := checkWeights(opts)
	if err != nil {
		return nil, err
	}
	pre, err := prepareTiers(ctx, opts.Name, opts.Tiers, opts.ReadOnly, 1+len(opts.More), opts.Clients, store.Redact(url), identifyURL(url))
	var st store.Store
	if err == nil {
		if st, err = store.Default.Open(ctx, url, store.Options{Clients: opts.Clients, MustExist: opts.MustExist || opts.ReadOnly}); err != nil {
			pre.close()
			err = badInputErr(err)
		}
	}
	if err != nil {
		return nil, err
	}
	s := New(st, store.Redact(url), opts)
	s.owned, s.pre = true, pre
	if err := s.openMore(ctx, ws); err != nil {
		s.Close()
		return nil, err
	}
	// A command that writes is refused a server that takes no writes at
	// once (roles.go), not request by request; info and check
	// (MustExist) and a run on replicas alone (ReadOnly) only read.
	if !opts.ReadOnly && !opts.MustExist {
		if err := s.checkWritable(ctx); err != nil {
			s.Close()
			return nil, err
		}
	}
	if pre != nil {
		if err := s.checkRoles(ctx, opts.Tiers, pre.reps); err != nil {
			s.Close()
			return nil, err
		}
	}
	for _, n := range s.Notes() {
		s.sink.Note(n)
	}
	return s, nil
}

// New makes a session on a store the caller opened and closes; name
// identifies it in messages and results (a redacted URL, say).
func New(st store.Store, name string, opts Options) *Session {
	sink := opts.Sink
	if sink == nil {
		sink = Discard
	}
	if opts.Monitor != nil {
		sink = monitorSink{sink, opts.Monitor}
	}
	if opts.Version == "" && opts.Revision == "" {
		b := buildinfo.Read()
		opts.Version, opts.Revision = b.Version, b.Commit()
	}
	return &Session{st: st, url: name, opts: opts, sink: sink, token: newToken()}
}

// Store is the session's store.
func (s *Session) Store() store.Store { return s.st }

// Name is the database as messages and results show it, password redacted.
func (s *Session) Name() string { return s.url }

// Database is the store as a database, when it keeps data.
func (s *Session) Database() (store.Database, bool) {
	db, ok := s.st.(store.Database)
	return db, ok
}

// Notes are what the store says about how it opened, such as a pool
// smaller than the clients.
func (s *Session) Notes() []string {
	if n, ok := s.st.(interface{ Notes() []string }); ok {
		return n.Notes()
	}
	return nil
}

// Monitor watches a session's work as it goes (Options.Monitor).
type Monitor interface {
	// LoadProgress gets every report of a load's progress.
	LoadProgress(bulkload.Progress)
	// Live watches each experiment's requests (run.Config.Live).
	Live() run.Live
}

// monitorSink also gives the load's progress to the monitor.
type monitorSink struct {
	Sink
	m Monitor
}

func (l monitorSink) LoadProgress(p bulkload.Progress) {
	l.m.LoadProgress(p)
	l.Sink.LoadProgress(p)
}

// Close closes the store when Open opened it, and the Monitor when it is
// an io.Closer.
func (s *Session) Close() error {
	if c, ok := s.opts.Monitor.(io.Closer); ok {
		s.opts.Monitor = nil
		if err := c.Close(); err != nil {
			s.sink.Note(fmt.Sprintf("monitor: %v", err))
		}
	}
	s.pre.close()
	s.pre = nil
	if !s.owned {
		return nil
	}
	s.closeMore()
	return s.st.Close()
}

// config is cfg with the session's defaults: its store and live metrics.
func (s *Session) config(cfg run.Config, wrap func(store.Store) store.Store) run.Config {
	if cfg.Store == nil {
		cfg.Store = s.st
	}
	cfg = s.endpointConfig(cfg, wrap)
	if cfg.Live == nil && s.opts.Monitor != nil {
		cfg.Live = s.opts.Monitor.Live()
	}
	return cfg
}

// CloseWithin closes the store as Close does, waiting at most d: a hung
// server (or a client still stuck in a request the run abandoned) can make
// a driver's Close wait for connections that never answer, pgx's pool for
// 15 s per connection, and the results are already out. What is left
// unclosed the operating system closes when the process exits. It reports
// whether the store closed in time.
func (s *Session) CloseWithin(d time.Duration) bool {
	closed := make(chan struct{})
	go func() {
		defer close(closed)
		s.Close()
	}()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-closed:
		return true
	case <-t.C:
		return false
	}
}

// Schema is the DDL taobench runs on the database of url. It needs no
// connection where the store can tell it without one: an SQLite file is
// then neither opened nor created.
func Schema(ctx context.Context, url string) ([]string, error) {
	st, err := store.Default.Open(ctx, url, store.Options{Clients: 1, SchemaOnly: true})
	if err != nil {
		return nil, badInputErr(err)
	}
	defer st.Close()
	db, ok := st.(store.Database)
	if !ok {
		return nil, badInput("%s keeps no data; give a database URL (sqlite:PATH, postgres://..., mysql://...)", store.Redact(url))
	}
	return db.Schema(), nil
}

// needDatabase returns the store as a database, or an InputError saying a
// database URL is needed.
func (s *Session) needDatabase() (store.Database, error) {
	db, ok := s.Database()
	if !ok {
		return nil, badInput("%s: %s keeps no data; give a database URL (sqlite:PATH, postgres://..., mysql://...)", s.opts.Name, s.url)
	}
	return db, nil
}

// interrupted wraps err from work the context cut short.
func interrupted(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("%w: %v", ErrInterrupted, err)
	}
	return err
}
