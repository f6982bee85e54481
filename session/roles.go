package session

import (
	"context"
	"fmt"

	"github.com/taobench/taobench/store"
)

// Roles, checked when a session opens its servers: every endpoint
// must take writes (a standby or a read-only server would fail the run's
// writes one by one, lost), and every replica must replay the primary's
// database, not be the primary itself nor a server of another database
// (its reads would be counted as a replica's of this one). A store that
// cannot tell (store.Identifier: the null store, a fake) is taken as it
// is.

// identify is st's Identity; ok false when st cannot tell.
func identify(ctx context.Context, st store.Store) (id store.Identity, ok bool, err error) {
	i, can := st.(store.Identifier)
	if !can {
		return id, false, nil
	}
	id, err = i.Identify(ctx)
	return id, err == nil, err
}

// checkWritable refuses, as bad input, an endpoint of the session that
// takes no writes, naming it and what was found.
func (s *Session) checkWritable(ctx context.Context) error {
	type ep struct {
		name string
		st   store.Store
	}
	eps := []ep{{s.url, s.st}}
	if len(s.eps) > 1 {
		eps = eps[:0]
		for _, e := range s.eps {
			eps = append(eps, ep{e.Name, e.Store})
		}
	}
	for i, e := range eps {
		id, ok, err := identify(ctx, e.st)
		if err != nil {
			return fmt.Errorf("%s: %w", s.opts.Name, err)
		}
		if !ok || id.ReadOnly == "" {
			continue
		}
		where := "Open's URL " + e.name
		if len(eps) > 1 {
			where = fmt.Sprintf("Open's URL %s (endpoint %d)", e.name, i+1)
		}
		fix := "; or make the session writable (default_transaction_read_only, transaction_read_only or tx_read_only off for the server, the database, the user and in the URL)"
		if id.Replica {
			fix = ", and give this one as TierSpec.Replicas"
		}
		return badInput("%s: %s is read-only: %s, and %s writes (its tables, the graph, write requests): point Open's URL at the primary (read-write) server%s", s.opts.Name, where, id.ReadOnly, s.opts.Name, fix)
	}
	return nil
}

// checkRoles checks the replicas reps of spec t against the session's
// database, once it is open: none is the primary itself or a server of
// another database. With the replicas alone (ReadOnly) the session's own
// store is the first replica, and every other must replay its database.
func (s *Session) checkRoles(ctx context.Context, t TierSpec, reps []openReplica) error {
	var pid, first *store.Identity
	if s.opts.ReadOnly {
		if err := checkReplica(ctx, s.opts.Name, s.url, nil, nil, s.st, t.Replicas[0]); err != nil {
			return err
		}
		if id, ok, _ := identify(ctx, s.st); ok {
			first = &id
		}
	} else if id, ok, err := identify(ctx, s.st); err != nil {
		return fmt.Errorf("%s: %w", s.opts.Name, err)
	} else if ok {
		pid = &id
	}
	for _, r := range reps {
		if err := checkReplica(ctx, s.opts.Name, s.url, pid, first, r.st, r.url); err != nil {
			return err
		}
	}
	return nil
}

// checkReplica refuses, as bad input, a replica (URL u, store r) that
// is not a replica of the primary (URL db, identity p; nil before the
// primary is open, or with no primary, the replicas alone, when first is the
// first replica's identity or nil for the first replica itself). name
// names the command.
func checkReplica(ctx context.Context, name, db string, p, first *store.Identity, r store.Store, u string) error {
	id, ok, err := identify(ctx, r)
	if err != nil {
		return badInput("%s: TierSpec.Replicas %s: %v", name, store.Redact(u), err)
	}
	if !ok {
		return nil
	}
	shown := store.Redact(u)
	switch {
	case p != nil && id.Server != "" && id.Server == p.Server && id.Database == p.Database:
		return badInput("%s: TierSpec.Replicas %s is the primary itself (the same server as Open's URL %s): give a replica (standby) of it, or drop it from TierSpec.Replicas", name, shown, db)
	case !id.Replica:
		return badInput("%s: TierSpec.Replicas %s is not a replica: it replays no other server (a PostgreSQL standby is in recovery; a MySQL or MariaDB replica has a replication source or read_only ON): give a replica (standby) of Open's URL, or give this server as Open's URL", name, shown)
	case p != nil && id.Database != p.Database:
		return badInput("%s: TierSpec.Replicas %s serves another database than Open's URL %s (%s there, %s on the primary): give a replica (standby) of that database", name, shown, db, id.Database, p.Database)
	case first != nil && id.Database != first.Database:
		return badInput("%s: TierSpec.Replicas %s serves another database than the first replica (%s there, %s on the first): every replica must replay one database", name, shown, id.Database, first.Database)
	}
	return nil
}
