package sqlstore_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/taobench/taobench/internal/testenv"
	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/tao"
)

// TestInspectIntegrity: the inventory's integrity counts, in every
// dialect: the largest node index of loaded objects and of forward edges'
// id1 by shard (ids created at run time left out), a forward edge with
// no inverse and an inverse with no forward edge, the rows examined.
func TestInspectIntegrity(t *testing.T) {
	for _, c := range []struct {
		name string
		url  func(t *testing.T) string
	}{
		{"sqlite", func(t *testing.T) string { return "sqlite:" + filepath.Join(t.TempDir(), "i.db") }},
		{"postgres", func(t *testing.T) string { return testenv.FreshPostgres(t, testenv.PostgresURL(t)) }},
		{"mysql", func(t *testing.T) string { return testenv.FreshMySQL(t, testenv.MySQLURL(t)) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			db := open(t, c.url(t))
			if err := db.Setup(ctx, false); err != nil {
				t.Fatal(err)
			}
			newID, err := tao.NewID(1, 1, 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			var objs []tao.Object
			for _, id := range []int64{tao.ID(0, 0), tao.ID(0, 1), tao.ID(0, 2), tao.ID(0, 3), tao.ID(0, 4), tao.ID(1, 0), tao.ID(1, 1), tao.ID(1, 2), newID} {
				objs = append(objs, tao.Object{ID: id, Time: tao.LoadTimeBase, Version: 1})
			}
			edges := []tao.Edge{
				{ID1: tao.ID(0, 0), ID2: tao.ID(0, 1), Type: tao.TypeBidirectional},    // with its inverse
				{ID1: tao.ID(0, 1), ID2: tao.ID(0, 0), Type: tao.TypeBidirectionalInv}, // the inverse
				{ID1: tao.ID(0, 2), ID2: tao.ID(1, 1), Type: tao.TypeBidirectional},    // no inverse
				{ID1: tao.ID(1, 2), ID2: tao.ID(0, 3), Type: tao.TypeBidirectionalInv}, // no forward edge
				{ID1: tao.ID(0, 4), ID2: tao.ID(1, 0), Type: tao.TypeUnique},
				{ID1: tao.ID(1, 2), ID2: tao.ID(0, 0), Type: tao.TypeOther},
				{ID1: newID, ID2: tao.ID(0, 0), Type: tao.TypeOther}, // from an id created at run time
			}
			for i := range edges {
				edges[i].Time, edges[i].Version = tao.LoadTimeBase, 1
			}
			if err := db.BeginLoad(ctx); err != nil {
				t.Fatal(err)
			}
			l, err := db.NewLoader(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if err := l.Load(ctx, objs, edges); err != nil {
				t.Fatal(err)
			}
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			if err := db.EndLoad(ctx); err != nil {
				t.Fatal(err)
			}
			inv, err := db.(store.Inspector).Inspect(ctx)
			if err != nil {
				t.Fatal(err)
			}
			in := inv.Integrity
			if in == nil {
				t.Fatal("no integrity counts")
			}
			if in.ObjectMaxIndex[0] != 4 || in.ObjectMaxIndex[1] != 2 || len(in.ObjectMaxIndex) != 2 ||
				in.EdgeMaxIndex[0] != 4 || in.EdgeMaxIndex[1] != 2 || len(in.EdgeMaxIndex) != 2 {
				t.Errorf("largest indices: objects %v, edges' id1 %v; want {0:4 1:2} both", in.ObjectMaxIndex, in.EdgeMaxIndex)
			}
			if in.MissingInverse != 1 || in.MissingForward != 1 || in.Bidirectional != 4 || in.Unique != 1 || in.UniqueExtra != 0 || in.Duplicates != 0 {
				t.Errorf("integrity %+v; want 1 inverse and 1 forward edge missing of 4 bidirectional rows, 1 unique, none extra", *in)
			}
		})
	}
}
