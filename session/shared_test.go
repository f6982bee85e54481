package session_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/taobench/taobench/session"
	"github.com/taobench/taobench/workload"
)

// sharedDir holds the graphs the package's tests share (loadedCopy), and
// is removed when they end.
var sharedDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "taobench-session-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, "session tests: a directory for their shared graphs:", err)
		os.Exit(1)
	}
	sharedDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// sharedKey names one shared load: a workload's graph of some edges at a
// graph seed.
type sharedKey struct {
	workload string
	edges    int64
	seed     uint64
}

// sharedLoad is one SQLite file loaded once for every test that asks.
type sharedLoad struct {
	once sync.Once
	path string
	err  error
}

var shared = struct {
	sync.Mutex
	loads map[sharedKey]*sharedLoad
}{loads: map[sharedKey]*sharedLoad{}}

// loadedCopy returns the path of a new SQLite file of the test's own
// holding built-in workload name's graph of edges edges at graph seed
// seed, loaded as taobench load --seed does: a copy of one load the
// package's tests share (loading a 50,000-edge graph costs a core some
// seconds; copying its file, milliseconds). A fresh load and its copy
// hold the same rows and the same record of the load.
func loadedCopy(t *testing.T, name string, edges int64, seed uint64) string {
	t.Helper()
	k := sharedKey{name, edges, seed}
	shared.Lock()
	l := shared.loads[k]
	if l == nil {
		l = &sharedLoad{}
		shared.loads[k] = l
	}
	shared.Unlock()
	l.once.Do(func() {
		l.path = filepath.Join(sharedDir, fmt.Sprintf("%s-%d-%d.db", name, edges, seed))
		l.err = loadFile(l.path, name, edges, seed)
	})
	if l.err != nil {
		t.Fatalf("the shared load of workload %s (%d edges, graph seed %d): %v", name, edges, seed, l.err)
	}
	return copySQLite(t, l.path)
}

// loadFile loads built-in workload name's graph into a new SQLite file at
// path and closes it.
func loadFile(path, name string, edges int64, seed uint64) error {
	ctx := context.Background()
	w, err := workload.Resolve(name)
	if err != nil {
		return err
	}
	s, err := session.Open(ctx, "sqlite:"+path, session.Options{Name: "load", Sink: &recorder{}})
	if err != nil {
		return err
	}
	if err := s.Load(ctx, session.LoadSpec{Workload: w, Seed: seed, Edges: edges, Threads: 2}); err != nil {
		s.Close()
		return err
	}
	return s.Close()
}
