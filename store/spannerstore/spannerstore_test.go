package spannerstore_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"

	database "cloud.google.com/go/spanner/admin/database/apiv1"
	"cloud.google.com/go/spanner/admin/database/apiv1/databasepb"
	instance "cloud.google.com/go/spanner/admin/instance/apiv1"
	"cloud.google.com/go/spanner/admin/instance/apiv1/instancepb"
	"cloud.google.com/go/spanner/spannertest"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/taobench/taobench/internal/testenv"
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

// TestConformanceEmulator runs the whole suite on the Cloud Spanner
// emulator (testenv.SpannerEmulator: TAOBENCH_SPANNER_EMULATOR's, or one of
// the test's own from bench/cluster/spanner), in a database of the test's
// own. Nothing is skipped: the emulator's one-transaction-at-a-time rule
// ends a held transaction when another begins, and the store's gate
// (emulator.go) is what makes UniqueRace, LockHold, ReserveRun and Load
// pass; its lost transactions are conflicts the suite retries.
func TestConformanceEmulator(t *testing.T) {
	addr := testenv.SpannerEmulator(t)
	t.Setenv("SPANNER_EMULATOR_HOST", addr)
	raw := emulatorDatabase(t)
	storetest.Run(t, func(t *testing.T) store.Database { return openReal(t, raw) })
}

// emulatorDatabase creates a database of a unique name in project
// taobench's instance taobench on the emulator at SPANNER_EMULATOR_HOST
// (the instance too, where absent), drops it when the test ends and
// returns its URL.
func emulatorDatabase(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	const project, inst = "projects/taobench", "projects/taobench/instances/taobench"
	ia, err := instance.NewInstanceAdminClient(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer ia.Close()
	op, err := ia.CreateInstance(ctx, &instancepb.CreateInstanceRequest{Parent: project, InstanceId: "taobench",
		Instance: &instancepb.Instance{Config: project + "/instanceConfigs/emulator-config", DisplayName: "taobench", NodeCount: 1}})
	if err == nil {
		_, err = op.Wait(ctx)
	}
	if err != nil && status.Code(err) != codes.AlreadyExists {
		t.Fatalf("creating %s: %v", inst, err)
	}
	da, err := database.NewDatabaseAdminClient(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { da.Close() })
	b := make([]byte, 6)
	rand.Read(b)
	name := "tb_" + hex.EncodeToString(b)
	dop, err := da.CreateDatabase(ctx, &databasepb.CreateDatabaseRequest{Parent: inst, CreateStatement: fmt.Sprintf("CREATE DATABASE `%s`", name)})
	if err == nil {
		_, err = dop.Wait(ctx)
	}
	if err != nil {
		t.Fatalf("creating database %s: %v", name, err)
	}
	path := inst + "/databases/" + name
	t.Cleanup(func() {
		if err := da.DropDatabase(ctx, &databasepb.DropDatabaseRequest{Database: path}); err != nil {
			t.Errorf("dropping %s: %v", path, err)
		}
	})
	return "spanner://" + path
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

// TestEmulatorConflict: the emulator's answers to a read-write
// transaction that lost to another are conflicts under their own codes;
// the same codes from Spanner, or other messages, stay errors.
func TestEmulatorConflict(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		code     codes.Code
		msg      string
		emulator bool
		want     tao.Outcome
		wantCode string
	}{
		{codes.FailedPrecondition, "Invalid transaction ID. Transaction ID must be >= 145", true, tao.ConflictObject, "FAILED_PRECONDITION"},
		{codes.FailedPrecondition, "Cannot read or query using a transaction after it has been committed or rolledback.", true, tao.ConflictObject, "FAILED_PRECONDITION"},
		{codes.FailedPrecondition, "Cannot commit a transaction after it has been rolled back.", true, tao.ConflictObject, "FAILED_PRECONDITION"},
		{codes.NotFound, "Transaction not found: 206", true, tao.ConflictObject, "NOT_FOUND"},
		// Not the emulator: the same answers are errors.
		{codes.FailedPrecondition, "Invalid transaction ID. Transaction ID must be >= 145", false, tao.Error, "FAILED_PRECONDITION"},
		{codes.NotFound, "Transaction not found: 206", false, tao.Error, "NOT_FOUND"},
		// The emulator, other messages: errors.
		{codes.NotFound, "Table not found: Objects", true, tao.Error, "NOT_FOUND"},
		{codes.FailedPrecondition, "Cannot specify a null value for column: Objects.Value", true, tao.Error, "FAILED_PRECONDITION"},
	} {
		var res tao.Result
		res.Reset(1)
		spannerstore.FinishEmulator(ctx, &res, c.code, c.msg, c.emulator)
		if res.Outcome != c.want || res.Code != c.wantCode {
			t.Errorf("%v %q (emulator %v): outcome %v, code %q; want %v, %q", c.code, c.msg, c.emulator, res.Outcome, res.Code, c.want, c.wantCode)
		}
	}
}

// TestConns: the gRPC connections grow with the clients, 25 a
// connection, never below the client's default of 4.
func TestConns(t *testing.T) {
	for _, c := range []struct{ clients, want int }{{0, 4}, {1, 4}, {100, 4}, {101, 5}, {1000, 40}} {
		if got := spannerstore.Conns(c.clients); got != c.want {
			t.Errorf("Conns(%d) = %d, want %d", c.clients, got, c.want)
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
