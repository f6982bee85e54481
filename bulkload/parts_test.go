package bulkload_test

import (
	"context"
	"strings"
	"testing"

	"github.com/taobench/taobench/bulkload"
	"github.com/taobench/taobench/graph"
)

// TestLoadParts: three parts loaded out of order write every node once,
// into the indexes (no BeginLoad), and only the last completes the graph;
// until then Loaded refuses it naming the missing parts, and a loader of
// another part count is refused.
func TestLoadParts(t *testing.T) {
	g := testGraph(t, "a", 2000)
	wantObjs, wantEdges := expected(g)
	d := newMemDB()
	ctx := context.Background()
	var rows int64
	for step, part := range []int{2, 0, 1} {
		res, err := bulkload.Load(ctx, d, g, meta(g), bulkload.Options{Threads: 2, BatchRows: 17, Part: part, Parts: 3})
		if err != nil {
			t.Fatal(err)
		}
		rows += res.Rows
		last := step == 2
		if res.Complete != last {
			t.Errorf("part %d/3 (step %d): complete %v", part, step, res.Complete)
		}
		if step == 0 && res.Missing != "0/3, 1/3" || step == 1 && res.Missing != "1/3" {
			t.Errorf("part %d/3: missing %q", part, res.Missing)
		}
		if !last {
			_, _, err := bulkload.Loaded(ctx, d)
			if err == nil || !strings.Contains(err.Error(), "loaded in 3 parts, and part(s) "+res.Missing+" are not loaded yet") {
				t.Errorf("Loaded with parts %s missing: %v", res.Missing, err)
			}
			if _, err := bulkload.Load(ctx, d, g, meta(g), bulkload.Options{Part: 0, Parts: 2}); err == nil || !strings.Contains(err.Error(), "split into 3 parts, not 2") {
				t.Errorf("a loader of 2 parts joining 3: %v", err)
			}
		}
	}
	if int64(len(d.objects)) != wantObjs || d.edges != wantEdges || rows != wantObjs+wantEdges {
		t.Errorf("%d objects, %d edges, %d rows written; the graph has %d and %d", len(d.objects), d.edges, rows, wantObjs, wantEdges)
	}
	for id, n := range d.objects {
		if n != 1 {
			t.Fatalf("object %d written %d times", id, n)
		}
	}
	if seq := d.sequence(); strings.Contains(seq, "BeginLoad") || strings.Count(seq, "EndLoad") != 1 {
		t.Errorf("calls %s: want no BeginLoad (parts load into the indexes) and one EndLoad, by the last part", seq)
	}
	if d.meta[graph.MetaState] != graph.StateComplete {
		t.Errorf("state %q after every part", d.meta[graph.MetaState])
	}
	if _, _, err := bulkload.Loaded(ctx, d); err != nil {
		t.Errorf("Loaded after every part: %v", err)
	}
}
