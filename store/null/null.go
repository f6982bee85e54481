// Package null is the store with no database (scheme "null"): Exec leaves
// every request OK and touches nothing, so a run against it measures the
// ceiling of the generator, the runner and the metrics.
package null

import (
	"context"
	"fmt"
	"net/url"

	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/tao"
)

func init() { store.Default.Register("null", Open) }

// Store is the null store. It is only a store.Store: it keeps no graph.
type Store struct{}

// Open returns a Store for the URL "null" (or "null:").
func Open(_ context.Context, u *url.URL, raw string, _ store.Options) (store.Store, error) {
	if u.Opaque != "" || u.Host != "" || u.Path != "" || u.RawQuery != "" {
		return nil, fmt.Errorf("database URL %q: the null store takes no address or parameters; write just null", store.Redact(raw))
	}
	return Store{}, nil
}

// Exec leaves res as Reset left it: OK, nothing found.
func (Store) Exec(context.Context, *tao.Request, *tao.Result) {}

// Close does nothing.
func (Store) Close() error { return nil }
