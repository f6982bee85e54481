// Package spannerstore is taobench's store for Cloud Spanner, on Google's
// official Go client (cloud.google.com/go/spanner). It registers the scheme
// spanner: spanner://projects/P/instances/I/databases/D. The client finds
// its credentials itself (Application Default Credentials) and, when
// SPANNER_EMULATOR_HOST is set, talks to the emulator or a fake there
// without credentials.
//
// Execution follows how Spanner is meant to be used: a single read is a
// strong single-use read (a key read or a query on one key prefix); a read
// transaction is one read-only transaction, one snapshot; a write is one
// read-write transaction whose preconditions and current versions are read
// inside it and whose changes are buffered as mutations and committed
// together, inverse edges included. Writes use the client's
// statement-based read-write transaction, which the client does not retry:
// an aborted transaction (codes.Aborted, Spanner's way of reporting a lock
// conflict) ends the request as a conflict and the runner retries and
// counts it, as it does for every store, so each attempt the client made
// is one attempt in the results. On the emulator (SPANNER_EMULATOR_HOST),
// whose one-read-write-transaction-at-a-time rule ends transactions with
// other codes, emulator.go says what the store does. docs/databases.md has
// the schema and why.
package spannerstore

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"strings"

	"cloud.google.com/go/spanner"
	database "cloud.google.com/go/spanner/admin/database/apiv1"
	"golang.org/x/sync/semaphore"
	"google.golang.org/api/option"
	"google.golang.org/grpc/codes"

	"github.com/taobench/taobench/store"
)

func init() {
	store.Default.Register("spanner", open)
}

// DB is a store.Database over one Spanner database.
type DB struct {
	client *spanner.Client
	admin  *database.DatabaseAdminClient
	path   string // projects/P/instances/I/databases/D
	name   string // the URL, for messages
	// emulator is set when SPANNER_EMULATOR_HOST is: the emulator's
	// lost transactions are conflicts, and the store runs a read-write
	// transaction alone, through gate (emulator.go).
	emulator bool
	gate     *semaphore.Weighted
	load     loadState
}

var _ store.Database = (*DB)(nil)

var pathRE = regexp.MustCompile(`^projects/[^/]+/instances/[^/]+/databases/[^/]+$`)

// Path returns the database path a spanner: URL names, or an error that
// says how to write one.
func Path(u *url.URL, raw string) (string, error) {
	p := strings.Trim(u.Host+u.Path, "/")
	if u.Opaque != "" {
		p = strings.Trim(u.Opaque, "/")
	}
	if !pathRE.MatchString(p) {
		return "", fmt.Errorf("database URL %q: a Spanner database is spanner://projects/PROJECT/instances/INSTANCE/databases/DATABASE", store.Redact(raw))
	}
	if u.User != nil {
		return "", fmt.Errorf("database URL %q: a spanner: URL takes no user or password: credentials come from Application Default Credentials (GOOGLE_APPLICATION_CREDENTIALS, gcloud auth application-default login); remove everything up to the @", store.Redact(raw))
	}
	if u.RawQuery != "" {
		return "", fmt.Errorf("database URL %q: the spanner: scheme takes no options (%s given): credentials come from Application Default Credentials (GOOGLE_APPLICATION_CREDENTIALS), the emulator from SPANNER_EMULATOR_HOST; remove everything from the ?", store.Redact(raw), store.ParamNames(u.RawQuery))
	}
	return p, nil
}

func open(ctx context.Context, u *url.URL, raw string, opts store.Options) (store.Store, error) {
	path, err := Path(u, raw)
	if err != nil {
		return nil, err
	}
	db := &DB{path: path, name: "spanner://" + path, emulator: os.Getenv("SPANNER_EMULATOR_HOST") != "",
		gate: semaphore.NewWeighted(gateAll)}
	if opts.SchemaOnly {
		return db, nil // Schema needs no connection
	}
	cfg := spanner.ClientConfig{
		// Exporting the client's own metrics to Cloud Monitoring is not
		// taobench's business, and would add requests to the benchmark.
		DisableNativeMetrics: true,
	}
	if err := checkEmulatorHost(db.name); err != nil {
		return nil, err
	}
	db.client, err = spanner.NewClientWithConfig(ctx, path, cfg, option.WithGRPCConnectionPool(conns(opts.Clients)))
	if err != nil {
		return nil, fmt.Errorf("%s: %w%s", db.name, err, credentialsHint())
	}
	db.admin, err = database.NewDatabaseAdminClient(ctx)
	if err != nil {
		db.client.Close()
		return nil, fmt.Errorf("%s: opening the admin client: %w%s", db.name, err, credentialsHint())
	}
	if err := probe(ctx, db.admin, db.name, path); err != nil {
		db.Close()
		return nil, err
	}
	if opts.MustExist {
		// info and check read what a load wrote: say so when it did not.
		if _, err := db.Meta(ctx); err != nil {
			db.Close()
			return nil, err
		}
	}
	return db, nil
}

// conns is the number of gRPC connections the client opens for clients
// concurrent requests. The client keeps no session pool any more (one
// multiplexed session carries every request: SessionPoolConfig is
// ignored) and ClientConfig.NumChannels is deprecated for the connection
// pool option; the client's own dynamic pool (DefaultDynamicChannelPoolConfig)
// scales up past 25 requests a connection. So clients/25, at least the
// client's default of 4.
func conns(clients int) int {
	return max(4, (clients+24)/25)
}

// credentialsHint says where the client looks for credentials.
func credentialsHint() string {
	if os.Getenv("SPANNER_EMULATOR_HOST") != "" {
		return " (SPANNER_EMULATOR_HOST is set: is the emulator running there?)"
	}
	return " (credentials come from Application Default Credentials: run `gcloud auth application-default login` or set GOOGLE_APPLICATION_CREDENTIALS; for the emulator set SPANNER_EMULATOR_HOST)"
}

// Close releases the sessions and connections.
func (db *DB) Close() error {
	if db.client != nil {
		db.client.Close()
	}
	if db.admin != nil {
		return db.admin.Close()
	}
	return nil
}

// codeName is a gRPC code as Spanner's documentation writes it: ABORTED,
// DEADLINE_EXCEEDED.
func codeName(c codes.Code) string {
	s := c.String()
	var b strings.Builder
	for i, r := range s {
		if i > 0 && 'A' <= r && r <= 'Z' {
			b.WriteByte('_')
		}
		b.WriteRune(r)
	}
	return strings.ToUpper(b.String())
}

// hint says what to do about a failed first read: create the schema when
// a table is missing, else check the credentials or the emulator.
func hint(err error) string {
	switch spanner.ErrCode(err) {
	case codes.NotFound:
		return " (run setup first, or taobench load, which creates the tables)"
	case codes.DeadlineExceeded, codes.Unavailable, codes.Unauthenticated, codes.PermissionDenied:
		return credentialsHint()
	}
	return ""
}
