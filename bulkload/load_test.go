package bulkload_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"hash/fnv"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/taobench/taobench/bulkload"
	"github.com/taobench/taobench/graph"
	"github.com/taobench/taobench/store"
	_ "github.com/taobench/taobench/store/sqlstore" // sqlite: and the "sqlite" database/sql driver
	"github.com/taobench/taobench/store/storetest"
	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/workload"
)

func testGraph(t *testing.T, name string, edges int64) *graph.Graph {
	t.Helper()
	w, err := workload.Builtin(name)
	if err != nil {
		t.Fatal(err)
	}
	g, err := graph.New(w, 1, edges)
	if err != nil {
		t.Fatal(err)
	}
	graphWorkloads.Store(g, w)
	return g
}

// graphWorkloads remembers each test graph's workload, for its record.
var graphWorkloads sync.Map

// meta is what a load of g records.
func meta(g *graph.Graph) map[string]string {
	w, _ := graphWorkloads.Load(g)
	return g.Meta(w.(*workload.Workload))
}

// expected counts the rows the graph says a load writes, node by node,
// independently of how Load splits and batches the work.
func expected(g *graph.Graph) (objects, edges int64) {
	var objs []tao.Object
	var es []tao.Edge
	for n := range g.Nodes() {
		s, i := g.Locate(n)
		objs, es = g.AppendNode(s, i, objs[:0], es[:0])
		objects += int64(len(objs))
		edges += int64(len(es))
	}
	return objects, edges
}

// openSQLite opens a fresh SQLite database with its schema.
func openSQLite(t *testing.T, path string) store.Database {
	t.Helper()
	ctx := context.Background()
	st, err := store.Default.Open(ctx, "sqlite:"+path, store.Options{Clients: 4})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	db, ok := st.(store.Database)
	if !ok {
		t.Fatalf("the sqlite store (%T) is not a store.Database", st)
	}
	if err := db.Setup(ctx, false); err != nil {
		t.Fatal(err)
	}
	return db
}

// tables counts the rows of the file's tables and hashes their content in
// key order, with a plain database/sql connection.
func tables(t *testing.T, path string) (objects, edges int64, digest uint64) {
	t.Helper()
	conn, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	h := fnv.New64a()
	dump := func(q string, cols int) int64 {
		rows, err := conn.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var n int64
		vals := make([]any, cols)
		ptrs := make([]any, cols)
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		for rows.Next() {
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintln(h, vals...)
			n++
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return n
	}
	objects = dump("SELECT id, timestamp, value, version FROM objects ORDER BY id", 4)
	edges = dump("SELECT id1, type, id2, timestamp, value, version FROM edges ORDER BY id1, type, id2", 6)
	return objects, edges, h.Sum64()
}

func TestLoadSQLite(t *testing.T) {
	ctx := context.Background()
	g := testGraph(t, "o", 5000)
	wantObjs, wantEdges := expected(g)
	if wantObjs != g.Nodes() {
		t.Fatalf("the graph appends %d objects for %d nodes", wantObjs, g.Nodes())
	}

	digests := map[int]uint64{}
	for _, threads := range []int{1, 3} {
		t.Run(fmt.Sprintf("%d threads", threads), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "g.db")
			db := openSQLite(t, path)
			// Small batches: many Load calls per thread, and a partial last one.
			res, err := bulkload.Load(ctx, db, g, meta(g), bulkload.Options{Threads: threads, BatchRows: 97})
			if err != nil {
				t.Fatal(err)
			}
			if res.Nodes != g.Nodes() || res.Rows != wantObjs+wantEdges {
				t.Errorf("result: %d nodes, %d rows; the graph has %d nodes and %d rows (%d objects, %d edges)",
					res.Nodes, res.Rows, g.Nodes(), wantObjs+wantEdges, wantObjs, wantEdges)
			}
			vs, err := db.Check(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range vs {
				t.Errorf("violation after the load: %s: %d rows, e.g. %s", v.Invariant, v.Count, v.Example)
			}
			m, err := db.Meta(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if err := g.CheckMeta(m); err != nil {
				t.Errorf("the recorded meta does not describe the graph: %v", err)
			}
			objs, edges, digest := tables(t, path)
			if objs != wantObjs || edges != wantEdges {
				t.Errorf("the database holds %d objects and %d edges; the graph has %d and %d", objs, edges, wantObjs, wantEdges)
			}
			digests[threads] = digest
		})
	}
	if len(digests) == 2 && digests[1] != digests[3] {
		t.Error("loads with 1 and 3 threads wrote different rows")
	}
}

// cancelDB cancels a context once a loader has written a batch.
type cancelDB struct {
	store.Database
	cancel context.CancelFunc
}

func (d *cancelDB) NewLoader(ctx context.Context) (store.Loader, error) {
	l, err := d.Database.NewLoader(ctx)
	if err != nil {
		return nil, err
	}
	return &cancelLoader{Loader: l, cancel: d.cancel}, nil
}

type cancelLoader struct {
	store.Loader
	cancel context.CancelFunc
}

func (l *cancelLoader) Load(ctx context.Context, objs []tao.Object, edges []tao.Edge) error {
	err := l.Loader.Load(ctx, objs, edges)
	l.cancel() // Ctrl-C after the first batch
	return err
}

func TestLoadCancelled(t *testing.T) {
	g := testGraph(t, "o", 5000)
	wantObjs, wantEdges := expected(g)
	path := filepath.Join(t.TempDir(), "g.db")
	db := openSQLite(t, path)

	t.Run("before", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := bulkload.Load(ctx, db, g, meta(g), bulkload.Options{Threads: 2}); !errors.Is(err, context.Canceled) {
			t.Errorf("a load with a cancelled context gave %v; want context.Canceled", err)
		}
	})

	t.Run("during", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		res, err := bulkload.Load(ctx, &cancelDB{Database: db, cancel: cancel}, g, meta(g), bulkload.Options{Threads: 2, BatchRows: 50})
		if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "load interrupted after") {
			t.Fatalf("a load cancelled after its first batch gave %v (result %+v); want it interrupted, by context.Canceled", err, res)
		}
		objs, _, _ := tables(t, path)
		if objs == 0 || objs >= wantObjs {
			t.Errorf("%d of %d objects written before the cancel; want some, not all", objs, wantObjs)
		}
	})

	ctx := context.Background()
	m, err := db.Meta(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if m[graph.MetaState] != graph.StateLoading {
		t.Fatalf("an interrupted load recorded state %q; want %q", m[graph.MetaState], graph.StateLoading)
	}
	if _, _, err := bulkload.Loaded(ctx, db); err == nil || !strings.Contains(err.Error(), "interrupted load") {
		t.Fatalf("a run would take the interrupted load: %v", err)
	}

	// Loading again, as `taobench load` does (schema first), completes it.
	if err := db.Setup(ctx, false); err != nil {
		t.Fatal(err)
	}
	if _, err := bulkload.Load(ctx, db, g, meta(g), bulkload.Options{Threads: 2}); err != nil {
		t.Fatal(err)
	}
	if objs, edges, _ := tables(t, path); objs != wantObjs || edges != wantEdges {
		t.Errorf("after a reload the database holds %d objects and %d edges; the graph has %d and %d", objs, edges, wantObjs, wantEdges)
	}
	if vs, err := db.Check(ctx); err != nil || len(vs) != 0 {
		t.Errorf("check after the reload: %v %+v", err, vs)
	}
	if _, _, err := bulkload.Loaded(ctx, db); err != nil {
		t.Errorf("the resumed load is not taken as complete: %v", err)
	}
	if m, err := db.Meta(ctx); err != nil || g.CheckMeta(m) != nil {
		t.Errorf("meta after the reload: %v %v", m, err)
	}
}

// memDB is a store.Database in memory: it records what the loaders write,
// and can fail a chosen step.
type memDB struct {
	storetest.Func // the methods a load does not use
	mu             sync.Mutex
	objects        map[int64]int // times each object was written
	edges          int64
	calls          []string // BeginLoad, EndLoad, SetMeta in order
	meta           map[string]string

	failLoad    error // returned by every loader's Load
	failLoader  error // returned by NewLoader
	failEndLoad error
	loaders     atomic.Int64 // loaders open
	maxLoaders  atomic.Int64
}

func newMemDB() *memDB { return &memDB{objects: map[int64]int{}} }

func (d *memDB) ReserveRun(context.Context) (int64, error) { return 1, nil }

func (d *memDB) Meta(context.Context) (map[string]string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.meta, nil
}

func (d *memDB) SetMeta(_ context.Context, kv map[string]string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.calls = append(d.calls, "SetMeta")
	if d.meta == nil {
		d.meta = map[string]string{}
	}
	for k, v := range kv {
		d.meta[k] = v
	}
	return nil
}

func (d *memDB) BeginLoad(ctx context.Context) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.calls = append(d.calls, "BeginLoad")
	return ctx.Err()
}

func (d *memDB) EndLoad(context.Context) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.calls = append(d.calls, "EndLoad")
	return d.failEndLoad
}

func (d *memDB) NewLoader(context.Context) (store.Loader, error) {
	if d.failLoader != nil {
		return nil, d.failLoader
	}
	n := d.loaders.Add(1)
	for {
		m := d.maxLoaders.Load()
		if n <= m || d.maxLoaders.CompareAndSwap(m, n) {
			break
		}
	}
	return &memLoader{d: d}, nil
}

func (d *memDB) sequence() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return strings.Join(d.calls, ",")
}

type memLoader struct {
	d      *memDB
	closed bool
}

func (l *memLoader) Load(ctx context.Context, objs []tao.Object, edges []tao.Edge) error {
	if l.closed {
		return errors.New("Load after Close")
	}
	if l.d.failLoad != nil {
		return l.d.failLoad
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	l.d.mu.Lock()
	defer l.d.mu.Unlock()
	for _, o := range objs {
		l.d.objects[o.ID]++
	}
	l.d.edges += int64(len(edges))
	return nil
}

func (l *memLoader) Close() error {
	if l.closed {
		return errors.New("closed twice")
	}
	l.closed = true
	l.d.loaders.Add(-1)
	return nil
}

// TestLoadSplit: however many threads, every node is written exactly once,
// with all its edges, and meta is recorded last.
func TestLoadSplit(t *testing.T) {
	g := testGraph(t, "a", 2000)
	wantObjs, wantEdges := expected(g)
	for _, threads := range []int{0, 1, 2, 7, int(g.Nodes()) + 5} {
		t.Run(fmt.Sprintf("%d threads", threads), func(t *testing.T) {
			d := newMemDB()
			res, err := bulkload.Load(context.Background(), d, g, meta(g), bulkload.Options{Threads: threads, BatchRows: 13})
			if err != nil {
				t.Fatal(err)
			}
			if int64(len(d.objects)) != wantObjs || d.edges != wantEdges {
				t.Errorf("%d objects, %d edges written; the graph has %d and %d", len(d.objects), d.edges, wantObjs, wantEdges)
			}
			for s := 0; s < g.Shards(); s++ {
				for i := range g.ShardNodes(s) {
					if n := d.objects[tao.ID(s, i)]; n != 1 {
						t.Fatalf("node (%d, %d) written %d times", s, i, n)
					}
				}
			}
			if res.Nodes != wantObjs || res.Rows != wantObjs+wantEdges {
				t.Errorf("result %+v; want %d nodes, %d rows", res, wantObjs, wantObjs+wantEdges)
			}
			if seq := d.sequence(); seq != "SetMeta,BeginLoad,EndLoad,SetMeta" {
				t.Errorf("calls %s; want SetMeta,BeginLoad,EndLoad,SetMeta (loading, rows, complete)", seq)
			}
			if d.meta[graph.MetaState] != graph.StateComplete {
				t.Errorf("state %q after the load", d.meta[graph.MetaState])
			}
			if g.CheckMeta(d.meta) != nil {
				t.Errorf("meta %v", d.meta)
			}
			if n := d.loaders.Load(); n != 0 {
				t.Errorf("%d loaders left open", n)
			}
			if m, want := d.maxLoaders.Load(), int64(min(max(threads, 1), int(g.Nodes()))); m > want {
				t.Errorf("%d loaders open at once; want at most %d", m, want)
			}
		})
	}
}

func TestLoadErrors(t *testing.T) {
	g := testGraph(t, "o", 2000)
	boom := errors.New("disk full")
	cases := []struct {
		name string
		set  func(d *memDB)
		want string
		seq  string
	}{
		{"load", func(d *memDB) { d.failLoad = boom }, "writing", "SetMeta,BeginLoad"},
		{"new loader", func(d *memDB) { d.failLoader = boom }, "opening a loader", "SetMeta,BeginLoad"},
		{"end load", func(d *memDB) { d.failEndLoad = boom }, "finishing", "SetMeta,BeginLoad,EndLoad"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := newMemDB()
			c.set(d)
			_, err := bulkload.Load(context.Background(), d, g, meta(g), bulkload.Options{Threads: 3})
			if !errors.Is(err, boom) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v; want %q wrapping %q", err, c.want, boom)
			}
			if seq := d.sequence(); seq != c.seq {
				t.Errorf("calls %s; want %s (never recorded complete after a failure)", seq, c.seq)
			}
			if st := d.meta[graph.MetaState]; st != graph.StateLoading {
				t.Errorf("state %q after a failed load; want %q", st, graph.StateLoading)
			}
			if n := d.loaders.Load(); n != 0 {
				t.Errorf("%d loaders left open", n)
			}
		})
	}
}

// gateDB's loaders wait, before their first batch, until a progress report
// has been made, so a load is seen in progress without any timing.
type gateDB struct {
	*memDB
	reported <-chan struct{}
}

func (d *gateDB) NewLoader(ctx context.Context) (store.Loader, error) {
	l, err := d.memDB.NewLoader(ctx)
	if err != nil {
		return nil, err
	}
	return &gateLoader{Loader: l, reported: d.reported}, nil
}

type gateLoader struct {
	store.Loader
	reported <-chan struct{}
}

func (l *gateLoader) Load(ctx context.Context, objs []tao.Object, edges []tao.Edge) error {
	select {
	case <-l.reported:
	case <-ctx.Done():
		return ctx.Err()
	}
	return l.Loader.Load(ctx, objs, edges)
}

func TestLoadProgress(t *testing.T) {
	g := testGraph(t, "o", 2000)
	reported := make(chan struct{})
	var once sync.Once
	var (
		reports  []bulkload.Progress
		inReport atomic.Int32
		overlap  atomic.Bool
	)
	// A fake clock one second further at every reading.
	var ticks atomic.Int64
	base := time.Unix(1_700_000_000, 0)
	now := func() time.Time { return base.Add(time.Duration(ticks.Add(1)) * time.Second) }

	opt := bulkload.Options{
		Threads: 2, BatchRows: 50, Every: time.Millisecond, Now: now,
		Report: func(p bulkload.Progress) {
			if inReport.Add(1) != 1 {
				overlap.Store(true)
			}
			reports = append(reports, p)
			inReport.Add(-1)
			once.Do(func() { close(reported) })
		},
	}
	res, err := bulkload.Load(context.Background(), &gateDB{memDB: newMemDB(), reported: reported}, g, meta(g), opt)
	if err != nil {
		t.Fatal(err)
	}
	if overlap.Load() {
		t.Error("Report was called from two goroutines at once")
	}
	if len(reports) < 2 {
		t.Fatalf("%d reports; want one during the load and the final one", len(reports))
	}
	first, last := reports[0], reports[len(reports)-1]
	if first.Done || first.Nodes != 0 || first.TotalNodes != g.Nodes() {
		t.Errorf("first report %+v; want the load in progress, nothing written yet, of %d nodes", first, g.Nodes())
	}
	if !last.Done || last.Nodes != g.Nodes() || last.TotalNodes != g.Nodes() || last.Rows != res.Rows || last.Elapsed != res.Elapsed {
		t.Errorf("final report %+v; want done with the result %+v", last, res)
	}
	for i, p := range reports {
		if p.Done != (i == len(reports)-1) {
			t.Errorf("report %d of %d: done %v", i+1, len(reports), p.Done)
		}
		if i > 0 && (p.Nodes < reports[i-1].Nodes || p.Rows < reports[i-1].Rows || p.Elapsed < reports[i-1].Elapsed) {
			t.Errorf("report %d went back: %+v after %+v", i+1, p, reports[i-1])
		}
		if p.Nodes > p.TotalNodes {
			t.Errorf("report %d: %d of %d nodes", i+1, p.Nodes, p.TotalNodes)
		}
	}
	// Elapsed comes from Options.Now: whole seconds of the fake clock.
	if res.Elapsed <= 0 || res.Elapsed%time.Second != 0 {
		t.Errorf("elapsed %v did not come from the fake clock", res.Elapsed)
	}
}

// The time a load reports runs from Options.Started, the command's start,
// so that its rate is by wall clock from what the user waited through
// (connecting, the schema); a Started after the load's own start, or none,
// leaves the load's start.
func TestLoadElapsedFromStarted(t *testing.T) {
	g := testGraph(t, "o", 500)
	base := time.Unix(1_700_000_000, 0)
	for _, c := range []struct {
		name    string
		started time.Time
		min     time.Duration // Elapsed at least
		max     time.Duration // and less than
	}{
		{"none", time.Time{}, time.Second, time.Hour},
		{"an hour before", base.Add(-time.Hour), time.Hour + time.Second, 2 * time.Hour},
		{"after the load's start", base.Add(time.Hour), time.Second, time.Hour},
	} {
		t.Run(c.name, func(t *testing.T) {
			// A fake clock one second further at every reading, from base.
			var ticks atomic.Int64
			now := func() time.Time { return base.Add(time.Duration(ticks.Add(1)-1) * time.Second) }
			var last bulkload.Progress
			res, err := bulkload.Load(context.Background(), newMemDB(), g, meta(g), bulkload.Options{
				Threads: 2, BatchRows: 50, Now: now, Started: c.started, Report: func(p bulkload.Progress) { last = p },
			})
			if err != nil {
				t.Fatal(err)
			}
			if res.Elapsed < c.min || res.Elapsed >= c.max {
				t.Errorf("elapsed %v; want from %v to under %v", res.Elapsed, c.min, c.max)
			}
			if !last.Done || last.Elapsed != res.Elapsed {
				t.Errorf("final report %+v; want done with the load's elapsed %v", last, res.Elapsed)
			}
			if res.Index >= c.min && c.min >= time.Hour {
				t.Errorf("index time %v counts the wait before the load", res.Index)
			}
		})
	}
}
