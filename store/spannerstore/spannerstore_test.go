package spannerstore_test

import (
	"context"
	"net/url"
	"os"
	"strings"
	"testing"

	"cloud.google.com/go/spanner/spannertest"

	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/store/spannerstore"
	"github.com/taobench/taobench/store/storetest"
	"github.com/taobench/taobench/tao"
)

// fakeURL is the database the tests name on a spannertest server, which
// serves one database whatever its name.
const fakeURL = "spanner://projects/taobench/instances/test/databases/taobench"

// fakeCannot are the conformance cases spannertest cannot show, and why.
// Against a real instance or the emulator (TAOBENCH_SPANNER_URL) they run.
var fakeCannot = map[string]string{
	"UniqueRace": "spannertest does not isolate read-write transactions (its reads take no locks and " +
		"nothing aborts), so racing adds all read an empty list; Spanner's locks make them serialize",
	"LockHold": "spannertest takes no locks for a transaction's reads, so a held transaction blocks " +
		"no other writer; on Spanner the held reads' locks make the second writer wait or abort",
	"CheckIndexes": "spannertest keeps no secondary index and ignores FORCE_INDEX, so Check cannot see " +
		"that BeginLoad dropped EdgesByTime",
}

// openFake starts a spannertest server for the test and opens the store
// on it through SPANNER_EMULATOR_HOST, as a user of the emulator would.
func openFake(t *testing.T) store.Database {
	t.Helper()
	srv, err := spannertest.NewServer("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv.SetLogger(func(string, ...any) {})
	t.Cleanup(srv.Close)
	t.Setenv("SPANNER_EMULATOR_HOST", srv.Addr)
	st, err := store.Default.Open(context.Background(), fakeURL, store.Options{Clients: 4})
	if err != nil {
		t.Fatal(err)
	}
	return st.(store.Database)
}

// openReal opens TAOBENCH_SPANNER_URL and empties it.
func openReal(t *testing.T, raw string) store.Database {
	t.Helper()
	ctx := context.Background()
	st, err := store.Default.Open(ctx, raw, store.Options{Clients: 16})
	if err != nil {
		t.Fatal(err)
	}
	db := st.(store.Database)
	if err := db.Setup(ctx, true); err != nil {
		db.Close()
		t.Fatal(err)
	}
	return db
}

func TestConformance(t *testing.T) {
	if raw := os.Getenv("TAOBENCH_SPANNER_URL"); raw != "" {
		storetest.RunSkipping(t, func(t *testing.T) store.Database { return openReal(t, raw) }, nil)
		return
	}
	storetest.RunSkipping(t, openFake, fakeCannot)
}

// TestFinish: an aborted transaction is a conflict with
// Spanner's code, a deadline a timeout, and the store made one attempt
// (the runner makes the rest).
func TestFinish(t *testing.T) {
	db := openFake(t)
	defer db.Close()
	ctx := context.Background()
	if err := db.Setup(ctx, false); err != nil {
		t.Fatal(err)
	}
	var res tao.Result
	res.Reset(1)
	db.Exec(ctx, &tao.Request{Class: tao.Write, Ops: []tao.Op{{Kind: tao.ObjAdd, ID1: 1}}}, &res)
	if res.Outcome != tao.OK {
		t.Fatalf("obj_add: %v %v", res.Outcome, res.Err)
	}
	for _, c := range []struct {
		code string
		edge bool
		want tao.Outcome
	}{
		{"ABORTED", false, tao.ConflictObject},
		{"ABORTED", true, tao.ConflictAssociation},
		{"DEADLINE_EXCEEDED", false, tao.Timeout},
		{"INVALID_ARGUMENT", false, tao.Error},
	} {
		res.Reset(1)
		spannerstore.Finish(ctx, &res, c.code, c.edge)
		if res.Outcome != c.want || res.Code != c.code {
			t.Errorf("%s (edge %v): outcome %v, code %q; want %v, %q", c.code, c.edge, res.Outcome, res.Code, c.want, c.code)
		}
	}
}

func TestURL(t *testing.T) {
	for _, c := range []struct{ raw, want, err string }{
		{fakeURL, "projects/taobench/instances/test/databases/taobench", ""},
		{"spanner:projects/p/instances/i/databases/d", "projects/p/instances/i/databases/d", ""},
		{"spanner://projects/p/instances/i", "", "spanner://projects/PROJECT/instances/INSTANCE/databases/DATABASE"},
		{"spanner://projects/p/instances/i/databases/d?x=1", "", "takes no options"},
		{"spanner://u:pw@projects/p/instances/i/databases/d", "", "takes no user or password"},
	} {
		u, err := url.Parse(c.raw)
		if err != nil {
			t.Fatal(err)
		}
		got, err := spannerstore.Path(u, c.raw)
		if got != c.want || (c.err == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("Path(%q) = %q, %v; want %q, error with %q", c.raw, got, err, c.want, c.err)
		}
	}
}
