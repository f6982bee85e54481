package storetest

import (
	"context"

	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/tao"
)

// Func is a store.Database made of functions, for tests that need a fake
// store: each method calls its field, and a nil field does nothing and
// returns zero values (Exec leaves res as it is: an OK outcome; Meta holds
// nothing; NewLoader returns a loader that drops its rows). A test sets
// only what it cares about:
//
//	st := storetest.Func{ExecFunc: func(_ context.Context, _ *tao.Request, res *tao.Result) {
//		res.Outcome = tao.ConflictObject
//	}}
//
// A fake with state of its own embeds Func for the methods it does not
// define.
type Func struct {
	ExecFunc       func(ctx context.Context, req *tao.Request, res *tao.Result)
	CloseFunc      func() error
	SchemaFunc     func() []string
	SetupFunc      func(ctx context.Context, drop bool) error
	MetaFunc       func(ctx context.Context) (map[string]string, error)
	SetMetaFunc    func(ctx context.Context, kv map[string]string) error
	ReserveRunFunc func(ctx context.Context) (int64, error)
	BeginLoadFunc  func(ctx context.Context) error
	NewLoaderFunc  func(ctx context.Context) (store.Loader, error)
	EndLoadFunc    func(ctx context.Context) error
	CheckFunc      func(ctx context.Context) ([]store.Violation, error)
}

var _ store.Database = Func{}

func (f Func) Exec(ctx context.Context, req *tao.Request, res *tao.Result) {
	if f.ExecFunc != nil {
		f.ExecFunc(ctx, req, res)
	}
}

func (f Func) Close() error {
	if f.CloseFunc != nil {
		return f.CloseFunc()
	}
	return nil
}

func (f Func) Schema() []string {
	if f.SchemaFunc != nil {
		return f.SchemaFunc()
	}
	return nil
}

func (f Func) Setup(ctx context.Context, drop bool) error {
	if f.SetupFunc != nil {
		return f.SetupFunc(ctx, drop)
	}
	return nil
}

func (f Func) Meta(ctx context.Context) (map[string]string, error) {
	if f.MetaFunc != nil {
		return f.MetaFunc(ctx)
	}
	return nil, nil
}

func (f Func) SetMeta(ctx context.Context, kv map[string]string) error {
	if f.SetMetaFunc != nil {
		return f.SetMetaFunc(ctx, kv)
	}
	return nil
}

func (f Func) ReserveRun(ctx context.Context) (int64, error) {
	if f.ReserveRunFunc != nil {
		return f.ReserveRunFunc(ctx)
	}
	return 0, nil
}

func (f Func) BeginLoad(ctx context.Context) error {
	if f.BeginLoadFunc != nil {
		return f.BeginLoadFunc(ctx)
	}
	return nil
}

func (f Func) NewLoader(ctx context.Context) (store.Loader, error) {
	if f.NewLoaderFunc != nil {
		return f.NewLoaderFunc(ctx)
	}
	return LoaderFunc(nil), nil
}

func (f Func) EndLoad(ctx context.Context) error {
	if f.EndLoadFunc != nil {
		return f.EndLoadFunc(ctx)
	}
	return nil
}

func (f Func) Check(ctx context.Context) ([]store.Violation, error) {
	if f.CheckFunc != nil {
		return f.CheckFunc(ctx)
	}
	return nil, nil
}

// LoaderFunc is a store.Loader that hands each batch to the function; nil
// drops it.
type LoaderFunc func(ctx context.Context, objects []tao.Object, edges []tao.Edge) error

func (f LoaderFunc) Load(ctx context.Context, objects []tao.Object, edges []tao.Edge) error {
	if f != nil {
		return f(ctx, objects, edges)
	}
	return nil
}

func (f LoaderFunc) Close() error { return nil }
