package spannerstore

import (
	"context"
	"strings"

	"cloud.google.com/go/spanner"
	"cloud.google.com/go/spanner/admin/database/apiv1/databasepb"
	"google.golang.org/api/iterator"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/taobench/taobench/tao"
)

// Finish sets res as Exec does for a server error of the given code
// (ABORTED, DEADLINE_EXCEEDED ...).
func Finish(ctx context.Context, res *tao.Result, code string, edge bool) {
	for c := codes.OK; c <= codes.Unauthenticated; c++ {
		if codeName(c) == code {
			(&DB{}).finish(ctx, res, status.Error(c, strings.ToLower(code)), edge)
			return
		}
	}
	panic("no gRPC code " + code)
}

// DDL runs schema statements on db, as an operator would.
func DDL(ctx context.Context, db any, stmts ...string) error {
	for _, s := range stmts {
		if err := db.(*DB).ddl(ctx, s); err != nil {
			return err
		}
	}
	return nil
}

// Statements returns db's schema as Spanner prints it.
func Statements(ctx context.Context, db any) ([]string, error) {
	d := db.(*DB)
	resp, err := d.admin.GetDatabaseDdl(ctx, &databasepb.GetDatabaseDdlRequest{Database: d.path})
	if err != nil {
		return nil, err
	}
	return resp.Statements, nil
}

// Insert writes one row with the client, as the user's program would.
func Insert(ctx context.Context, db any, table string, cols []string, vals []any) error {
	_, err := db.(*DB).client.Apply(ctx, []*spanner.Mutation{spanner.Insert(table, cols, vals)})
	return err
}

// Count returns the rows of table.
func Count(ctx context.Context, db any, table string) (int64, error) {
	var n int64
	it := db.(*DB).client.Single().Query(ctx, spanner.NewStatement("SELECT COUNT(*) FROM "+table))
	err := it.Do(func(r *spanner.Row) error { return r.Columns(&n) })
	return n, err
}

// Conns is conns: the gRPC connections for so many clients.
func Conns(clients int) int { return conns(clients) }

// FinishEmulator sets res as Exec does for a server error of code c with
// message msg, on the emulator or not.
func FinishEmulator(ctx context.Context, res *tao.Result, c codes.Code, msg string, emulator bool) {
	(&DB{emulator: emulator}).finish(ctx, res, status.Error(c, msg), false)
}

// Delete deletes the row of key from table with the client, as the user's
// program would.
func Delete(ctx context.Context, db any, table string, key ...any) error {
	_, err := db.(*DB).client.Apply(ctx, []*spanner.Mutation{spanner.Delete(table, spanner.Key(key))})
	return err
}

// Row returns the first row of query sql's INT64 columns, and false when
// it has none.
func Row(ctx context.Context, db any, sql string) ([]int64, bool, error) {
	it := db.(*DB).client.Single().Query(ctx, spanner.NewStatement(sql))
	defer it.Stop()
	r, err := it.Next()
	if err == iterator.Done {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	vs := make([]int64, r.Size())
	ptrs := make([]any, len(vs))
	for i := range vs {
		ptrs[i] = &vs[i]
	}
	return vs, true, r.Columns(ptrs...)
}
