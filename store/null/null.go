// Package null is the store with no database (scheme "null"): Exec leaves
// every request OK and touches nothing, so a run against it measures the
// ceiling of the generator, the runner and the metrics.
//
// Options on the URL emulate a database's latency without one, to calibrate
// the driver (docs/target-load.md):
//
//	null?delay=2ms               every request takes 2 ms
//	null?delay=exp:1ms           exponential service times of mean 1 ms
//	null?stall=500ms&every=5s    the whole store stalls 500 ms every 5 s
//
// A request that would end inside a stall (one that arrives during it, or
// whose delay runs into it) ends when the stall ends, as with a server's
// pause; stalls begin every `every`, the first `every` after the store was
// opened.
package null

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/taobench/taobench/internal/clock"
	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/tao"
)

func init() { store.Default.Register("null", Open) }

// Store is the null store. It is only a store.Store: it keeps no graph.
type Store struct{}

// Open returns a Store for the URL "null" (or "null:"), or a Delayed store
// when the URL gives delay or stall options.
func Open(_ context.Context, u *url.URL, raw string, _ store.Options) (store.Store, error) {
	if u.Opaque != "" || u.Host != "" || u.Path != "" || u.User != nil {
		return nil, fmt.Errorf("database URL %q: the null store takes no address; write null, or null?delay=2ms to emulate a latency", store.Redact(raw))
	}
	if u.RawQuery == "" {
		return Store{}, nil
	}
	d, err := parseOptions(u.RawQuery)
	if err != nil {
		return nil, fmt.Errorf("database URL %q: %v", store.Redact(raw), err)
	}
	return d, nil
}

// Exec leaves res as Reset left it: OK, nothing found.
func (Store) Exec(context.Context, *tao.Request, *tao.Result) {}

// Close does nothing.
func (Store) Close() error { return nil }

// Delayed is the null store with an emulated latency: a fixed or
// exponentially distributed delay per request, and periodic stalls.
type Delayed struct {
	Delay time.Duration // fixed delay, or the mean of an exponential one
	Exp   bool          // Delay is the mean of an exponential distribution
	Stall time.Duration // length of each stall
	Every time.Duration // period of the stalls; the first begins Every after origin
	// origin is when the store was opened: stalls are timed from it.
	origin time.Time
}

const optionsHelp = "give delay=DURATION (fixed, e.g. 2ms), delay=exp:DURATION (exponential with that mean), and/or stall=DURATION&every=DURATION (e.g. stall=500ms&every=5s)"

func parseOptions(query string) (*Delayed, error) {
	q, err := url.ParseQuery(query)
	if err != nil {
		return nil, fmt.Errorf("options %q: %v; %s", query, err, optionsHelp)
	}
	d := &Delayed{origin: time.Now()}
	dur := func(key, s string) (time.Duration, error) {
		v, err := time.ParseDuration(s)
		if err != nil || v < 0 {
			return 0, fmt.Errorf("%s=%s: give a duration of 0 or more such as 2ms or 500us", key, s)
		}
		return v, nil
	}
	for key, vals := range q {
		if len(vals) != 1 {
			return nil, fmt.Errorf("option %s given %d times; give it once", key, len(vals))
		}
		v := vals[0]
		switch key {
		case "delay":
			if m, ok := strings.CutPrefix(v, "exp:"); ok {
				d.Exp = true
				v = m
			}
			if d.Delay, err = dur(key, v); err != nil {
				return nil, err
			}
		case "stall":
			if d.Stall, err = dur(key, v); err != nil {
				return nil, err
			}
		case "every":
			if d.Every, err = dur(key, v); err != nil {
				return nil, err
			}
		default:
			return nil, fmt.Errorf("unknown option %q; %s", key, optionsHelp)
		}
	}
	if (d.Stall > 0) != (d.Every > 0) {
		return nil, fmt.Errorf("stall and every go together: stall=500ms&every=5s stalls 500 ms every 5 s")
	}
	if d.Every > 0 && d.Stall >= d.Every {
		return nil, fmt.Errorf("stall=%v&every=%v: a stall must be shorter than its period", d.Stall, d.Every)
	}
	return d, nil
}

// Exec waits out a stall in progress, then the request's delay (and any
// stall that begins meanwhile); it ends in Timeout when ctx ends first.
func (d *Delayed) Exec(ctx context.Context, _ *tao.Request, res *tao.Result) {
	until := time.Now()
	if d.Delay > 0 {
		delay := d.Delay
		if d.Exp {
			delay = time.Duration(rand.ExpFloat64() * float64(d.Delay))
		}
		until = until.Add(delay)
	}
	until = d.afterStalls(until)
	if !until.After(time.Now()) {
		return
	}
	sl, _ := sleepers.Get().(*clock.Sleeper)
	if sl == nil {
		sl = clock.New()
	}
	if !sl.Until(ctx.Done(), until) {
		res.Outcome, res.Err = tao.Timeout, ctx.Err()
	}
	sleepers.Put(sl)
}

// sleepers keeps precise sleepers (internal/clock) between requests: a Go
// timer would end a 200 µs delay about 1 ms late.
var sleepers sync.Pool

// afterStalls returns when a request that would end at t ends once the
// stalls are counted: a stall that begins before t holds it to the stall's
// end.
func (d *Delayed) afterStalls(t time.Time) time.Time {
	if d.Every <= 0 {
		return t
	}
	since := t.Sub(d.origin)
	if since < d.Every {
		return t
	}
	// The last stall that began at or before t.
	begin := since / d.Every * d.Every
	if end := begin + d.Stall; since < end {
		return d.origin.Add(end)
	}
	return t
}

// Close does nothing.
func (d *Delayed) Close() error { return nil }
