package main

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/tier"
)

// tierSpec is run's read tiers (docs/tiers.md): --cache, --client-cache-ttl,
// --client-cache-size. Without them nothing stands before the database.
type tierSpec struct {
	cache string
	ttl   time.Duration
	size  int
}

// defaultCSCSize is the client cache's bound when only its TTL is given.
const defaultCSCSize = 100000

func (s *tierSpec) register(fs *flag.FlagSet) {
	fs.StringVar(&s.cache, "cache", "", "TAO's cache tier on Redis, e.g. redis://127.0.0.1:6379/0 (?prefix=NAME&expire=1h): reads read_tiers sends to tao (or that miss the client cache) are served from it, filled on a miss, invalidated after writes (docs/tiers.md)")
	fs.Var(durationFlag{&s.ttl}, "client-cache-ttl", "a client-side cache in this process with this TTL (e.g. 2s), never invalidated by writes: reads read_tiers sends to client_cache are served from it")
	fs.IntVar(&s.size, "client-cache-size", 0, fmt.Sprintf("the client-side cache's bound in entries, least recently used out first (default %d with --client-cache-ttl)", defaultCSCSize))
}

func (s *tierSpec) options(clients int) (tier.Options, error) {
	switch {
	case s.ttl < 0:
		return tier.Options{}, badInput("run: --client-cache-ttl %v: give a positive duration such as 2s", s.ttl)
	case s.size < 0:
		return tier.Options{}, badInput("run: --client-cache-size %d: give a positive number of entries", s.size)
	case s.size > 0 && s.ttl == 0:
		return tier.Options{}, badInput("run: --client-cache-size %d without --client-cache-ttl: give the client cache a TTL too, such as --client-cache-ttl 2s", s.size)
	}
	size := s.size
	if s.ttl > 0 && size == 0 {
		size = defaultCSCSize
	}
	return tier.Options{Cache: s.cache, ClientCacheTTL: s.ttl, ClientCacheSize: size, Clients: clients}, nil
}

// open puts the tiers before db; with none it returns db and a no-op close.
func (s *tierSpec) open(ctx context.Context, e *env, db store.Store, clients int) (store.Store, func(), error) {
	opts, err := s.options(clients)
	if err != nil || !opts.Enabled() {
		return db, func() {}, err
	}
	t, err := tier.Open(ctx, db, opts)
	if err != nil {
		return nil, nil, badInput("run: %v", err)
	}
	for _, n := range t.Notes() {
		fmt.Fprintln(e.stderr, "note:", n)
	}
	return t.Front(), func() { t.Close() }, nil
}

// applied drops read_tiers from the fields a run does not apply: with
// tiers, it is applied.
func (s *tierSpec) applied(info *result.Run) {
	if s.cache == "" && s.ttl == 0 {
		return
	}
	kept := info.NotApplied[:0]
	for _, f := range info.NotApplied {
		if f != "read_tiers" {
			kept = append(kept, f)
		}
	}
	info.NotApplied = kept
}
