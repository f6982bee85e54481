package store_test

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/taobench/taobench/store"
)

// TestUnknownScheme: a program that forgot a store's import is told what
// is registered and which import registers the scheme it asked for.
func TestUnknownScheme(t *testing.T) {
	ctx := context.Background()
	var empty store.Registry
	_, err := empty.Open(ctx, "sqlite:t.db", store.Options{})
	if err == nil {
		t.Fatal("sqlite: opened on an empty registry")
	}
	for _, want := range []string{`unknown scheme "sqlite"`, "registered: none", `import _ "github.com/taobench/taobench/store/sqlstore"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}

	var r store.Registry
	r.Register("null", func(context.Context, *url.URL, string, store.Options) (store.Store, error) { return nil, nil })
	_, err = r.Open(ctx, "spanner://projects/p/instances/i/databases/d", store.Options{})
	if err == nil || !strings.Contains(err.Error(), "registered: null;") || !strings.Contains(err.Error(), "store/spannerstore") {
		t.Errorf("spanner on a registry of null: %v", err)
	}
	_, err = r.Open(ctx, "oracle://u@h/db", store.Options{})
	if err == nil || !strings.Contains(err.Error(), `unknown scheme "oracle"; registered: null;`) || !strings.Contains(err.Error(), "store/sqlstore: sqlite, postgres, mysql") {
		t.Errorf("oracle: %v", err)
	}
}
