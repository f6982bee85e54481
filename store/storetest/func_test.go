package storetest_test

import (
	"context"
	"errors"
	"testing"

	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/store/storetest"
	"github.com/taobench/taobench/tao"
)

// TestFuncNil: a Func with no fields is a database that does nothing.
func TestFuncNil(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var db store.Database = storetest.Func{}
	res := tao.Result{Outcome: tao.OK}
	db.Exec(ctx, &tao.Request{}, &res)
	meta, err := db.Meta(ctx)
	l, lerr := db.NewLoader(ctx)
	if res.Outcome != tao.OK || err != nil || meta != nil || lerr != nil || l.Load(ctx, nil, nil) != nil || db.Close() != nil {
		t.Errorf("a zero Func: outcome %v, meta %v (%v), loader %v", res.Outcome, meta, err, lerr)
	}
}

// TestFuncFields: each method calls its field.
func TestFuncFields(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	boom := errors.New("boom")
	var called []string
	db := storetest.Func{
		ExecFunc: func(_ context.Context, _ *tao.Request, res *tao.Result) {
			called = append(called, "exec")
			res.Outcome = tao.ConflictObject
		},
		ReserveRunFunc: func(context.Context) (int64, error) { return 7, nil },
		SetupFunc:      func(_ context.Context, drop bool) error { called = append(called, "setup"); return boom },
		CloseFunc:      func() error { return boom },
	}
	var res tao.Result
	db.Exec(ctx, &tao.Request{}, &res)
	n, _ := db.ReserveRun(ctx)
	if res.Outcome != tao.ConflictObject || n != 7 || db.Setup(ctx, true) != boom || db.Close() != boom || len(called) != 2 {
		t.Errorf("outcome %v, run %d, calls %q", res.Outcome, n, called)
	}
}
