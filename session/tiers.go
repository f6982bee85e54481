package session

import (
	"context"
	"time"

	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/tier"
)

// TierSpec is run's read tiers as the command line gives them
// (docs/tiers.md): --cache, --client-cache-ttl, --client-cache-size. The
// zero value puts nothing before the database.
type TierSpec struct {
	Cache string
	TTL   time.Duration
	Size  int
}

// DefaultClientCacheSize is the client cache's bound when only its TTL is
// given.
const DefaultClientCacheSize = 100000

// Options checks the spec and returns the tiers' options for clients
// clients; its errors are InputErrors naming run's flags.
func (t TierSpec) Options(clients int) (tier.Options, error) {
	switch {
	case t.TTL < 0:
		return tier.Options{}, badInput("run: --client-cache-ttl %v: give a positive duration such as 2s", t.TTL)
	case t.Size < 0:
		return tier.Options{}, badInput("run: --client-cache-size %d: give a positive number of entries", t.Size)
	case t.Size > 0 && t.TTL == 0:
		return tier.Options{}, badInput("run: --client-cache-size %d without --client-cache-ttl: give the client cache a TTL too, such as --client-cache-ttl 2s", t.Size)
	}
	size := t.Size
	if t.TTL > 0 && size == 0 {
		size = DefaultClientCacheSize
	}
	return tier.Options{Cache: t.Cache, ClientCacheTTL: t.TTL, ClientCacheSize: size, Clients: clients}, nil
}

// Tiers puts the spec's tiers before the session's store for clients
// clients, noting what they say, and drops read_tiers from the fields
// info says the run does not apply. With no tiers it returns the store
// itself. Call close when the run is over.
func (s *Session) Tiers(ctx context.Context, t TierSpec, clients int, info *result.Run) (front store.Store, close func(), err error) {
	opts, err := t.Options(clients)
	if err != nil || !opts.Enabled() {
		return s.st, func() {}, err
	}
	ts, err := tier.Open(ctx, s.st, opts)
	if err != nil {
		return nil, nil, badInput("run: %v", err)
	}
	for _, n := range ts.Notes() {
		s.sink.Note("note: " + n)
	}
	kept := info.NotApplied[:0]
	for _, f := range info.NotApplied {
		if f != "read_tiers" {
			kept = append(kept, f)
		}
	}
	info.NotApplied = kept
	return ts.Front(), func() { ts.Close() }, nil
}
