// Package store defines what taobench needs of a database and a registry of
// URL schemes, in the manner of database/sql's driver registry: a store
// package registers itself in init, and store.Open picks it by the URL's
// scheme.
package store

import (
	"context"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"sync"

	"github.com/taobench/taobench/tao"
)

// Store executes requests. Exec is safe for concurrent use by many clients.
type Store interface {
	// Exec executes req once and fills res (res.Reset has been called). It
	// never retries: the runner owns retries and counts every attempt.
	Exec(ctx context.Context, req *tao.Request, res *tao.Result)
	Close() error
}

// Database is a Store that keeps a graph: it has a schema, loads rows in
// bulk, remembers which graph it holds and can check the graph's invariants.
type Database interface {
	Store

	// Schema returns the DDL statements Setup runs, for operators who create
	// schemas by hand.
	Schema() []string
	// Setup creates the schema where absent; with drop it first removes
	// everything taobench created.
	Setup(ctx context.Context, drop bool) error

	// Meta returns the recorded key/value description of the loaded graph;
	// empty when nothing was loaded.
	Meta(ctx context.Context) (map[string]string, error)
	// SetMeta records kv, replacing keys already there.
	SetMeta(ctx context.Context, kv map[string]string) error
	// ReserveRun returns a number no earlier ReserveRun on this database
	// returned, so ids created by different runs never collide.
	ReserveRun(ctx context.Context) (int64, error)

	// BeginLoad readies the database for bulk loading (it may defer index
	// builds when the tables are empty); EndLoad finishes it.
	BeginLoad(ctx context.Context) error
	NewLoader(ctx context.Context) (Loader, error)
	EndLoad(ctx context.Context) error

	// Check verifies the graph's invariants and returns the violations found.
	Check(ctx context.Context) ([]Violation, error)
}

// Loader writes rows in bulk; one per load thread.
type Loader interface {
	Load(ctx context.Context, objects []tao.Object, edges []tao.Edge) error
	Close() error
}

// Violation is one broken invariant found by Check.
type Violation struct {
	Invariant string // e.g. "bidirectional edge has its inverse"
	Count     int64  // how many rows break it
	Example   string // one offending row
}

// Options are what every store may need to know when it opens.
type Options struct {
	// Clients is the most concurrent requests expected; pools size to it.
	Clients int
}

// OpenFunc opens a store for a URL of its scheme.
type OpenFunc func(ctx context.Context, u *url.URL, raw string, opts Options) (Store, error)

// Registry maps URL schemes to stores. The zero value is empty; Default is
// the registry the store packages register with.
type Registry struct {
	mu      sync.RWMutex
	schemes map[string]OpenFunc
}

// Default is filled by the store packages' init functions, as database/sql's
// drivers fill its registry.
var Default = &Registry{}

// Register makes a scheme available. It panics on a duplicate, a programming
// error caught at start-up.
func (r *Registry) Register(scheme string, open OpenFunc) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.schemes == nil {
		r.schemes = map[string]OpenFunc{}
	}
	if _, dup := r.schemes[scheme]; dup {
		panic("store: scheme registered twice: " + scheme)
	}
	r.schemes[scheme] = open
}

// Schemes lists the registered schemes, sorted.
func (r *Registry) Schemes() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	s := make([]string, 0, len(r.schemes))
	for k := range r.schemes {
		s = append(s, k)
	}
	sort.Strings(s)
	return s
}

// Open opens the store named by raw, a URL such as "sqlite:taobench.db",
// "postgres://user@host/db" or "null". Errors name the URL with any password
// masked.
func (r *Registry) Open(ctx context.Context, raw string, opts Options) (Store, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" {
		if raw != "" && !strings.ContainsAny(raw, ":/") {
			// A bare word such as "null" names a scheme with no address.
			u = &url.URL{Scheme: raw}
		} else {
			return nil, fmt.Errorf("database URL %q: not a URL; use e.g. sqlite:taobench.db, postgres://user@host:5432/db or mysql://user@host:3306/db", Redact(raw))
		}
	}
	r.mu.RLock()
	open, ok := r.schemes[u.Scheme]
	r.mu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("database URL %q: unknown scheme %q; known: %s", Redact(raw), u.Scheme, strings.Join(r.Schemes(), ", "))
	}
	if opts.Clients < 1 {
		opts.Clients = 1
	}
	return open(ctx, u, raw, opts)
}

// Redact returns raw with the password of its user info, and any password
// query parameter, replaced by "xxxxx". Every message that names a database
// URL goes through it.
func Redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		// Not parseable: mask everything between "://" and "@" if present.
		if i := strings.Index(raw, "://"); i >= 0 {
			if j := strings.LastIndex(raw, "@"); j > i {
				return raw[:i+3] + "xxxxx" + raw[j:]
			}
		}
		return raw
	}
	if u.User != nil {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), "xxxxx")
		}
	}
	q := u.Query()
	masked := false
	for k := range q {
		if strings.EqualFold(k, "password") || strings.EqualFold(k, "sslpassword") {
			q.Set(k, "xxxxx")
			masked = true
		}
	}
	if masked {
		u.RawQuery = q.Encode()
	}
	return u.String()
}
