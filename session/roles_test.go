package session_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/taobench/taobench/graph"
	"github.com/taobench/taobench/internal/testenv"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/session"
	"github.com/taobench/taobench/store"
)

// loadAt loads a small graph of workload o into url.
func loadAt(t *testing.T, url string) {
	t.Helper()
	s := open(t, url, session.Options{Name: "load", Clients: 2})
	defer s.Close()
	if _, _, err := s.Graph(context.Background(), builtin(t, "o"), session.GraphSpec{Edges: 500}); err != nil {
		t.Fatal(err)
	}
}

// replayed waits until the replica at url holds the complete graph record
// of primary, load token included.
func replayed(t *testing.T, primary, url string) {
	t.Helper()
	ctx := context.Background()
	read := func(u string) map[string]string {
		s, err := session.Open(ctx, u, session.Options{Name: "info", MustExist: true})
		if err != nil {
			return nil
		}
		defer s.Close()
		db, _ := s.Database()
		m, _ := db.Meta(ctx)
		return m
	}
	want := read(primary)
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		got := read(url)
		if got != nil && got[graph.MetaState] == graph.StateComplete && got[store.MetaLoadID] == want[store.MetaLoadID] {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s has not replayed the load of %s after 60 s: %v", url, primary, got)
		}
	}
}

// refused checks that err is bad input (exit 2) whose message holds
// every one of words.
func refused(t *testing.T, what string, err error, words ...string) {
	t.Helper()
	var in *session.InputError
	if err == nil || !errors.As(err, &in) {
		t.Errorf("%s: got %v; want bad input", what, err)
		return
	}
	for _, w := range words {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%s: %q does not say %q", what, err, w)
		}
	}
}

// replicas opens primary (ReadOnly: replicas[0] alone) and puts replicas
// before it as run's --replica does: given to Open (Options.Tiers, as the
// commands do, checked before the database is opened) and, on a session
// opened without them, to Tiers alone. Both must give one verdict.
func replicas(t *testing.T, primary string, readOnly bool, reps ...string) error {
	t.Helper()
	ctx := context.Background()
	spec := session.TierSpec{Replicas: reps}
	try := func(opts session.Options) error {
		s, err := session.Open(ctx, primary, opts)
		if err != nil {
			return err
		}
		defer s.Close()
		_, closeTiers, err := s.Tiers(ctx, spec, 2, &result.Run{})
		if err == nil {
			closeTiers()
		}
		return err
	}
	err := try(session.Options{Name: "run", Clients: 2, ReadOnly: readOnly, Tiers: spec})
	late := try(session.Options{Name: "run", Clients: 2, ReadOnly: readOnly})
	if fmt.Sprint(err) != fmt.Sprint(late) {
		t.Errorf("replicas %v of %s: checked at open %v; checked by Tiers %v", reps, primary, err, late)
	}
	return err
}

func scope(t *testing.T, url string) string {
	t.Helper()
	s, err := session.Open(context.Background(), url, session.Options{Name: "info", MustExist: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	sc, err := store.Scope(context.Background(), s.Store())
	if err != nil || sc == "" {
		t.Fatalf("scope of %s: %q, %v", url, sc, err)
	}
	return sc
}

// TestRolesPostgres: on a primary with two streaming standbys of the
// test's own, a standby given as --db is refused at open (bad input,
// naming it, the standby and the fix), alone or as a second endpoint; as
// --replica the primary itself, a writable database and a standby of
// another database of the cluster are refused, the standbys accepted; and
// the standbys share the primary's scope, the other database not.
func TestRolesPostgres(t *testing.T) {
	testenv.Integration(t)
	urls := testenv.PostgresStandbys(t)
	primary, s1, s2 := urls[0], urls[1], urls[2]
	ctx := context.Background()
	c, err := pgx.Connect(ctx, primary)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Exec(ctx, "CREATE DATABASE other"); err != nil {
		t.Fatal(err)
	}
	c.Close(ctx)
	other := strings.Replace(primary, "/taobench?", "/other?", 1)
	otherS1 := strings.Replace(s1, "/taobench?", "/other?", 1)
	loadAt(t, primary)
	loadAt(t, other)
	replayed(t, primary, s1)
	replayed(t, primary, s2)
	replayed(t, other, otherS1)

	_, err = session.Open(ctx, s1, session.Options{Name: "run", Clients: 2})
	refused(t, "a standby as --db", err, "Open's URL "+store.Redact(s1), "hot standby", "point Open's URL at the primary", "TierSpec.Replicas")
	_, err = session.Open(ctx, primary, session.Options{Name: "run", Clients: 2, More: []string{s1}})
	refused(t, "a standby as a second --db", err, store.Redact(s1)+" (endpoint 2)", "hot standby")

	if err := replicas(t, primary, false, s1, s2); err != nil {
		t.Errorf("the standbys as --replica: %v", err)
	}
	refused(t, "the primary as --replica", replicas(t, primary, false, primary), "TierSpec.Replicas "+store.Redact(primary), "the primary itself")
	unrelated := testenv.FreshPostgres(t, testenv.PostgresURL(t))
	loadAt(t, unrelated)
	refused(t, "a writable database as --replica", replicas(t, primary, false, unrelated), "TierSpec.Replicas "+store.Redact(unrelated), "is not a replica")
	refused(t, "a standby of another database as --replica", replicas(t, primary, false, otherS1), "TierSpec.Replicas "+store.Redact(otherS1), "serves another database")

	// The replicas alone: the first must be a replica, the others of its
	// database.
	if err := replicas(t, s1, true, s1, s2); err != nil {
		t.Errorf("the standbys alone: %v", err)
	}
	refused(t, "the primary as the first of the replicas alone", replicas(t, primary, true, primary, s1), "is not a replica")
	refused(t, "another database among the replicas alone", replicas(t, s1, true, s1, otherS1), "TierSpec.Replicas "+store.Redact(otherS1), "serves another database")

	if p, r1, r2, o := scope(t, primary), scope(t, s1), scope(t, s2), scope(t, other); p != r1 || p != r2 || o == p || scope(t, otherS1) != o {
		t.Errorf("scopes: primary %s, standbys %s %s, other database %s; want the standbys the primary's, the other database its own", p, r1, r2, o)
	}
}

// TestRolesMariaDB: the same on a MariaDB primary with two read_only
// replicas of the test's own (binary log replication).
func TestRolesMariaDB(t *testing.T) {
	testenv.Integration(t)
	urls := testenv.MariaDBReplicas(t)
	primary, r1, r2 := urls[0], urls[1], urls[2]
	ctx := context.Background()
	loadAt(t, primary)
	replayed(t, primary, r1)
	replayed(t, primary, r2)

	_, err := session.Open(ctx, r1, session.Options{Name: "run", Clients: 2})
	refused(t, "a replica as --db", err, "Open's URL "+store.Redact(r1), "@@read_only is ON", "point Open's URL at the primary", "TierSpec.Replicas")
	if err := replicas(t, primary, false, r1, r2); err != nil {
		t.Errorf("the replicas as --replica: %v", err)
	}
	refused(t, "the primary as --replica", replicas(t, primary, false, primary), "TierSpec.Replicas "+store.Redact(primary), "the primary itself")
	unrelated := testenv.FreshMySQL(t, testenv.MySQLURL(t))
	loadAt(t, unrelated)
	refused(t, "a writable database as --replica", replicas(t, primary, false, unrelated), "TierSpec.Replicas "+store.Redact(unrelated), "is not a replica")
	if err := replicas(t, r1, true, r1, r2); err != nil {
		t.Errorf("the replicas alone: %v", err)
	}
	if p, a, b := scope(t, primary), scope(t, r1), scope(t, r2); p != a || p != b {
		t.Errorf("scopes: primary %s, replicas %s %s; want the replicas the primary's", p, a, b)
	}
}

// A database's scope (the tao tier's key namespace) stays while it holds
// one load and changes when it is dropped and loaded again: its run
// numbers start over, and entries of the old load's runs, still in Redis
// until they expire, must not be served to the new one's.
func TestScopeChangesWithEachLoad(t *testing.T) {
	url := sqlite(t)
	ctx := context.Background()
	s := open(t, url, session.Options{Name: "load", Clients: 2})
	defer s.Close()
	load := func(drop bool) string {
		t.Helper()
		if err := s.Load(ctx, session.LoadSpec{Workload: builtin(t, "o"), Seed: 1, Edges: 300, Threads: 1, Drop: drop}); err != nil {
			t.Fatal(err)
		}
		sc, err := store.Scope(ctx, s.Store())
		if err != nil || sc == "" {
			t.Fatalf("scope: %q, %v", sc, err)
		}
		return sc
	}
	first := load(false)
	if again := load(false); again != first {
		t.Errorf("the same load, found again: scope %s, was %s", again, first)
	}
	if dropped := load(true); dropped == first {
		t.Errorf("loaded again after --drop: scope %s, the old load's", dropped)
	}
}
