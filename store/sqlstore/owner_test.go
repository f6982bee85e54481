package sqlstore

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taobench/taobench/internal/testenv"
	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/tao"
)

// foreignIndex: an index of the user's named as one of taobench's, on
// PostgreSQL and SQLite where index names are the database's (schema's),
// not a table's: Setup refuses it by name with its table and creates
// nothing. Before, CREATE INDEX IF NOT EXISTS edges_time skipped it and
// taobench's edges went without the index.
func foreignIndex(t *testing.T, raw string) {
	s, err := store.Default.Open(context.Background(), raw, store.Options{Clients: 1})
	if err != nil {
		t.Fatal(err)
	}
	db := s.(*DB)
	defer db.Close()
	ctx := context.Background()
	if err := db.Setup(ctx, false); err != nil {
		t.Fatal(err)
	}
	// A user's table and index beside taobench's: leaving them is fine.
	ownExec(t, db, "CREATE TABLE posts (id BIGINT NOT NULL, author BIGINT NOT NULL)", "CREATE INDEX posts_author ON posts (author)")
	if err := db.Setup(ctx, true); err != nil {
		t.Fatalf("Setup with drop beside a user's table: %v", err)
	}
	// Now an index named as taobench's, on the user's table, in a
	// database without taobench's tables.
	for _, s := range []string{"DROP TABLE edges", "DROP TABLE objects", "DROP TABLE taobench_counter", "DROP TABLE taobench_meta",
		"CREATE INDEX edges_time ON posts (id)"} {
		ownExec(t, db, s)
	}
	for _, drop := range []bool{false, true} {
		err := db.Setup(ctx, drop)
		if !errors.Is(err, store.ErrForeignSchema) || !strings.Contains(err.Error(), "edges_time (index on posts)") {
			t.Fatalf("Setup(drop %v) beside a user's index named edges_time: %v", drop, err)
		}
	}
	if _, err := db.Meta(ctx); !errors.Is(err, store.ErrForeignSchema) {
		t.Errorf("Meta: %v; want the foreign-schema error", err)
	}
	var res tao.Result
	res.Reset(1)
	db.Exec(ctx, &tao.Request{Class: tao.Read, Ops: []tao.Op{{Kind: tao.ObjRead, ID1: 1}}}, &res)
	if res.Outcome != tao.Error {
		t.Errorf("a read found taobench's objects after the refused setup: %v", res.Outcome)
	}
}

// ownExec runs statements on db's pool, as the user's own program would.
func ownExec(t *testing.T, db *DB, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		if _, err := db.b.auto().execSQL(context.Background(), s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

func TestForeignIndexSQLite(t *testing.T) {
	foreignIndex(t, "sqlite:"+filepath.Join(t.TempDir(), "t.db"))
}

func TestForeignIndexPostgres(t *testing.T) {
	foreignIndex(t, testenv.FreshPostgres(t, testenv.PostgresURL(t)))
}
