package sqlstore

import (
	"context"
	"fmt"

	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/tao"
)

// schemaOnly is a store.Database opened with Options.SchemaOnly: it knows
// its dialect's DDL and touches nothing, so "taobench schema" never creates
// the file of an SQLite URL. Everything but Schema and Close fails.
type schemaOnly struct {
	name   string
	schema []string
}

var _ store.Database = (*schemaOnly)(nil)

func (s *schemaOnly) err() error {
	return fmt.Errorf("%s was opened for its schema only", s.name)
}

func (s *schemaOnly) Schema() []string { return append([]string(nil), s.schema...) }
func (s *schemaOnly) Close() error     { return nil }

func (s *schemaOnly) Exec(_ context.Context, _ *tao.Request, res *tao.Result) {
	res.Outcome, res.Err = tao.Error, s.err()
}

func (s *schemaOnly) Setup(context.Context, bool) error { return s.err() }
func (s *schemaOnly) Meta(context.Context) (map[string]string, error) {
	return nil, s.err()
}
func (s *schemaOnly) SetMeta(context.Context, map[string]string) error { return s.err() }
func (s *schemaOnly) ReserveRun(context.Context) (int64, error)        { return 0, s.err() }
func (s *schemaOnly) BeginLoad(context.Context) error                  { return s.err() }
func (s *schemaOnly) NewLoader(context.Context) (store.Loader, error)  { return nil, s.err() }
func (s *schemaOnly) EndLoad(context.Context) error                    { return s.err() }
func (s *schemaOnly) Check(context.Context) ([]store.Violation, error) { return nil, s.err() }
