package sqlstore

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/taobench/taobench/internal/testenv"
	"github.com/taobench/taobench/store"
)

// TestPgWatch: a query under the context the store watches (WatchContext)
// goes to pgx without the context's Done channel, so the store alone must
// end it when the context ends: cancelled, past its deadline, or ended
// before the query began; the query's error is the context's, as pgx's own
// watch gives; and the pool's next query, under another context, runs.
func TestPgWatch(t *testing.T) {
	raw := testenv.FreshPostgres(t, testenv.PostgresURL(t))
	// One connection: the next query runs on the one the watch ended a
	// query on, or on its replacement.
	sep := "?"
	if strings.Contains(raw, "?") {
		sep = "&"
	}
	s, err := store.Default.Open(context.Background(), raw+sep+"pool_max_conns=1", store.Options{Clients: 1})
	if err != nil {
		t.Fatal(err)
	}
	db := s.(*DB)
	defer db.Close()
	if err := db.Setup(context.Background(), false); err != nil {
		t.Fatal(err)
	}
	q := db.b.auto().(*pgQ)
	sleep := func(ctx context.Context) (error, time.Duration) {
		start := time.Now()
		_, err := q.execSQL(ctx, "SELECT pg_sleep(30)")
		return err, time.Since(start)
	}
	check := func(name string, ctx context.Context, end func(), want error) {
		t.Helper()
		stop := db.WatchContext(ctx)
		defer stop()
		if db.b.(*pgBackend).watch.quiet(ctx) == nil {
			t.Fatalf("%s: the store does not watch the context it was given", name)
		}
		if end != nil {
			time.AfterFunc(200*time.Millisecond, end)
		}
		// pg_sleep(30) ends at the context's end, whenever the machine
		// gets there, or in 30 s: anything under 20 s is the store's doing.
		err, took := sleep(ctx)
		if !errors.Is(err, want) || took > 20*time.Second {
			t.Errorf("%s: %v after %v, want %v at once", name, err, took, want)
		}
		if n, ok, err := q.first(context.Background(), sObjCheck, int64(1)); err != nil || ok {
			t.Errorf("%s: the next query: %d, %v, %v; want no row and no error", name, n, ok, err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	check("cancelled", ctx, cancel, context.Canceled)
	ctx, cancel = context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	check("deadline", ctx, nil, context.DeadlineExceeded)
	ctx, cancel = context.WithCancel(context.Background())
	cancel()
	check("ended before", ctx, nil, context.Canceled)

	// A context not watched goes to pgx as before, which ends the query.
	ctx, cancel = context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	if err, took := sleep(ctx); !errors.Is(err, context.Canceled) || took > 20*time.Second {
		t.Errorf("not watched: %v after %v, want context.Canceled at once", err, took)
	}
}
