package sqlstore_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/taobench/taobench/internal/testenv"
	"github.com/taobench/taobench/tao"
)

// TestAmbiguousResult: SQLSTATE 40003 (statement_completion_unknown,
// CockroachDB's "result is ambiguous") ends a write in error under its own
// code, said to be of unknown outcome, and is not retried as a conflict
// would be: the first try may have committed. A real PostgreSQL raises the
// code from a trigger on the store's own tables, in a database of its own.
func TestAmbiguousResult(t *testing.T) {
	raw := testenv.FreshPostgres(t, testenv.PostgresURL(t))
	db := open(t, raw)
	t.Cleanup(func() { db.Close() })
	ctx := context.Background()
	if err := db.Setup(ctx, false); err != nil {
		t.Fatal(err)
	}
	var res tao.Result
	res.Reset(1)
	db.Exec(ctx, &tao.Request{Class: tao.Write, Ops: []tao.Op{{Kind: tao.ObjAdd, ID1: 7, Time: 1, Payload: []byte("a")}}}, &res)
	if res.Outcome != tao.OK {
		t.Fatalf("adding the object: %v (%v)", res.Outcome, res.Err)
	}

	conn, err := pgx.Connect(ctx, raw)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	// nextval is not undone by the rollback: it counts the tries.
	for _, s := range []string{
		"CREATE SEQUENCE tries",
		`CREATE FUNCTION ambiguous() RETURNS trigger LANGUAGE plpgsql AS $$
		 BEGIN PERFORM nextval('tries'); RAISE EXCEPTION 'result is ambiguous' USING ERRCODE = '40003'; END $$`,
		"CREATE TRIGGER ambiguous BEFORE UPDATE ON objects FOR EACH ROW EXECUTE FUNCTION ambiguous()",
	} {
		if _, err := conn.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}

	res.Reset(1)
	db.Exec(ctx, &tao.Request{Class: tao.Write, Ops: []tao.Op{{Kind: tao.ObjUpdate, ID1: 7, Time: 2, Payload: []byte("x")}}}, &res)
	if res.Outcome != tao.Error || res.Code != "40003" || res.Err == nil || !strings.Contains(res.Err.Error(), "outcome unknown") {
		t.Errorf("a write answered 40003: outcome %v, code %q (%v); want error, code 40003, \"outcome unknown\"", res.Outcome, res.Code, res.Err)
	}
	var tries int64
	if err := conn.QueryRow(ctx, "SELECT last_value FROM tries").Scan(&tries); err != nil {
		t.Fatal(err)
	}
	if tries != 1 {
		t.Errorf("the write was tried %d times; want 1 (an ambiguous result is not retried)", tries)
	}
}
