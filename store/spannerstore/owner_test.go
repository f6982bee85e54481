package spannerstore_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/store/spannerstore"
)

// TestForeignTables: a database whose Objects is the user's own table is
// refused by Setup, Setup with drop and Meta (store.ErrForeignSchema,
// naming the table), and taobench creates nothing and the user's row stays.
func TestForeignTables(t *testing.T) {
	db := openFake(t)
	defer db.Close()
	ctx := context.Background()
	if err := spannerstore.DDL(ctx, db, "CREATE TABLE Objects (Id INT64 NOT NULL, Name STRING(MAX)) PRIMARY KEY (Id)",
		"CREATE TABLE Users (Id INT64 NOT NULL) PRIMARY KEY (Id)"); err != nil {
		t.Fatal(err)
	}
	if err := spannerstore.Insert(ctx, db, "Objects", []string{"Id", "Name"}, []any{int64(7), "mine"}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		do   func() error
	}{
		{"Setup", func() error { return db.Setup(ctx, false) }},
		{"Setup with drop", func() error { return db.Setup(ctx, true) }},
		{"Meta", func() error { _, err := db.Meta(ctx); return err }},
	} {
		err := c.do()
		if !errors.Is(err, store.ErrForeignSchema) {
			t.Fatalf("%s: %v; want the foreign-schema error", c.name, err)
		}
		if !strings.Contains(err.Error(), "Objects (table)") || !strings.Contains(err.Error(), "database of its own") {
			t.Errorf("%s: the message does not name the table and the fix: %v", c.name, err)
		}
	}
	stmts, err := spannerstore.Statements(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if len(stmts) != 2 {
		t.Errorf("the schema changed: %q", stmts)
	}
	if n, err := spannerstore.Count(ctx, db, "Objects"); err != nil || n != 1 {
		t.Errorf("the user's Objects holds %d rows, %v; want 1", n, err)
	}
}

// TestOwnSchema: taobench's own schema, recorded, sets up, drops and sets
// up again; one from before the record (TaobenchMeta holding a graph
// record only) is recognised as taobench's.
func TestOwnSchema(t *testing.T) {
	db := openFake(t)
	defer db.Close()
	ctx := context.Background()
	for _, drop := range []bool{false, false, true, false} {
		if err := db.Setup(ctx, drop); err != nil {
			t.Fatalf("Setup(drop %v): %v", drop, err)
		}
	}
	if m, err := db.Meta(ctx); err != nil || len(m) != 0 {
		t.Fatalf("Meta after setup: %v, %v; want empty (the ownership record left out)", m, err)
	}

	// Before the record: drop everything, create the old schema by hand.
	if err := spannerstore.DDL(ctx, db, "DROP INDEX EdgesByTime", "DROP TABLE Edges", "DROP TABLE Objects", "DROP TABLE TaobenchRuns",
		"DROP TABLE TaobenchRunKeys", "DROP TABLE TaobenchMeta"); err != nil {
		t.Fatal(err)
	}
	old := db.Schema()
	if err := spannerstore.DDL(ctx, db, old...); err != nil {
		t.Fatal(err)
	}
	if err := db.SetMeta(ctx, map[string]string{"state": "complete", "edges": "10", "seed": "1"}); err != nil {
		t.Fatal(err)
	}
	if err := spannerstore.Insert(ctx, db, "Objects", []string{"Id", "Time", "Version", "Value"}, []any{int64(1), int64(1), int64(1), []byte{}}); err != nil {
		t.Fatal(err)
	}
	if err := db.Setup(ctx, false); err != nil {
		t.Fatalf("Setup on a schema from before the record: %v", err)
	}
	if m, err := db.Meta(ctx); err != nil || m["edges"] != "10" || len(m) != 3 {
		t.Fatalf("Meta: %v, %v; want the graph record", m, err)
	}
	if err := db.Setup(ctx, true); err != nil {
		t.Fatalf("Setup with drop on a schema from before the record: %v", err)
	}
	if n, err := spannerstore.Count(ctx, db, "Objects"); err != nil || n != 0 {
		t.Errorf("Objects holds %d rows after the drop, %v; want 0", n, err)
	}
}
