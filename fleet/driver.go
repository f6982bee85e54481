// Package fleet splits one run across N driver processes (docs/distributed.md):
// which of the run's clients a driver runs, its share of the target rate,
// the run id all drivers share, and the shared start that lines their
// experiments up.
//
// Drivers count from 0, as a Kubernetes Indexed Job's completion index
// does, so `--driver $(JOB_COMPLETION_INDEX)/N` needs no arithmetic.
package fleet

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
	"time"
)

// MaxDrivers bounds N: each driver runs at least one client, and a run has
// at most 4,096 (run.MaxClients).
const MaxDrivers = 4096

// Driver is driver Index (0-based) of Count. The zero value, like Count 1,
// is a run in one process.
type Driver struct {
	Index, Count int
}

// Single is a run in one process.
var Single = Driver{Index: 0, Count: 1}

// N is the number of drivers (at least 1).
func (d Driver) N() int { return max(d.Count, 1) }

// Many reports whether the run is split across processes.
func (d Driver) Many() bool { return d.Count > 1 }

// String is "I/N", as the flag takes it.
func (d Driver) String() string { return fmt.Sprintf("%d/%d", d.Index, d.N()) }

// Parse reads "I/N": driver I of N, 0 <= I < N. flag names the flag in
// errors.
func Parse(flag, s string) (Driver, error) {
	example := fmt.Sprintf("e.g. %s 0/4 for the first of 4 drivers; I counts from 0, as Kubernetes' JOB_COMPLETION_INDEX does", flag)
	is, ns, ok := strings.Cut(strings.TrimSpace(s), "/")
	if !ok {
		return Driver{}, fmt.Errorf("%s %q: give I/N, this driver's index I (from 0) and the number of drivers N, %s", flag, s, example)
	}
	i, err1 := strconv.Atoi(strings.TrimSpace(is))
	n, err2 := strconv.Atoi(strings.TrimSpace(ns))
	switch {
	case err1 != nil || err2 != nil:
		return Driver{}, fmt.Errorf("%s %q: I and N must be whole numbers, %s", flag, s, example)
	case n < 1 || n > MaxDrivers:
		return Driver{}, fmt.Errorf("%s %q: N must be 1 to %d", flag, s, MaxDrivers)
	case i < 0 || i >= n:
		return Driver{}, fmt.Errorf("%s %q: I counts from 0 and must be below N: give %s 0/%d to %s %d/%d", flag, s, flag, n, flag, n-1, n)
	}
	return Driver{Index: i, Count: n}, nil
}

// Slice returns the driver's clients of an experiment of threads clients
// in all: global clients first to first+n-1. The slices of the N drivers
// are as even as possible and together cover 0 to threads-1 once, so
// client k draws the stream it would draw in one process running them all.
func (d Driver) Slice(threads int) (first, n int) {
	N := d.N()
	first = threads * d.Index / N
	return first, threads*(d.Index+1)/N - first
}

// Rate is the driver's share of a target rate across all clients: in
// proportion to its clients, so the shares add up to rate.
func (d Driver) Rate(rate float64, threads int) float64 {
	if threads <= 0 || !d.Many() {
		return rate
	}
	_, n := d.Slice(threads)
	return rate * float64(n) / float64(threads)
}

// MaxRunID bounds a run id; it names results and Kubernetes objects.
const MaxRunID = 63

// CheckRunID accepts 1 to 63 letters, digits, '.', '_' and '-': a run id
// goes into file names, Kubernetes labels and messages unquoted.
func CheckRunID(flag, id string) error {
	bad := len(id) == 0 || len(id) > MaxRunID
	for _, c := range id {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-') {
			bad = true
		}
	}
	if bad {
		return fmt.Errorf("%s %q: give 1 to %d letters, digits, '.', '_' or '-', the same for every driver of the run, e.g. %s exp-2026-11-23", flag, id, MaxRunID, flag)
	}
	return nil
}

// DeriveRunID names a run from what its drivers share when no id is given:
// the workload, the shared start (to the second, UTC) and the request seed.
func DeriveRunID(workload string, start time.Time, seed uint64) string {
	w := strings.Map(func(c rune) rune {
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-' {
			return c
		}
		return '_'
	}, workload)
	id := fmt.Sprintf("%s-%s-%d", w, start.UTC().Format("20060102T150405Z"), seed)
	if len(id) > MaxRunID {
		id = id[len(id)-MaxRunID:]
	}
	return id
}

// Seed is the request seed drivers derive from what they share (a run id,
// or a workload and start) when no --seed is given: every driver draws it
// alike, so client k's stream is the same whichever driver runs it.
func Seed(shared string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(shared))
	return h.Sum64() >> 12 // short enough to retype, as run's own seeds
}

// RunKey is the key under which the database records experiment k (0-based)
// of run id, so all its drivers share one run number: at most 64
// characters whatever the id.
func RunKey(id string, k int) string {
	h := fnv.New64a()
	h.Write([]byte(id))
	return fmt.Sprintf("run/%016x/%d", h.Sum64(), k)
}

// StartKey is the key under which the database records the start the
// drivers of run id share when --start-at is relative: the first driver to
// arrive records its instant and the others use it.
func StartKey(id string) string {
	h := fnv.New64a()
	h.Write([]byte(id))
	return fmt.Sprintf("start/%016x", h.Sum64())
}

// ParseStart reads --start-at: an instant in RFC 3339 ("2026-11-23T14:00:00Z",
// the form that lines up separate hosts) or "+DURATION" from now ("+30s",
// "+2m": from this process's own start; drivers of one run id on a
// database agree on the first one's, StartKey). relative reports the
// second form.
func ParseStart(flag, s string, now time.Time) (at time.Time, relative bool, err error) {
	s = strings.TrimSpace(s)
	if rest, ok := strings.CutPrefix(s, "+"); ok {
		d, err := time.ParseDuration(rest)
		if err != nil {
			if secs, err2 := strconv.ParseFloat(rest, 64); err2 == nil && secs >= 0 && secs < 1e9 {
				d, err = time.Duration(secs*float64(time.Second)), nil
			}
		}
		if err != nil || d < 0 {
			return time.Time{}, false, fmt.Errorf("%s %q: after '+' give a duration from now, e.g. +30s or +2m", flag, s)
		}
		return now.Add(d), true, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, false, fmt.Errorf("%s %q: give an RFC 3339 instant shared by all drivers, e.g. %s %s, or +DURATION from now, e.g. +30s",
			flag, s, flag, now.UTC().Add(time.Minute).Truncate(time.Second).Format(time.RFC3339))
	}
	return t, false, nil
}

// Schedule returns when each experiment begins: the first at start, each
// later one when the earlier ones' warmups and durations have passed, so
// drivers that share start share every experiment's windows.
func Schedule(start time.Time, spans []time.Duration) []time.Time {
	at := make([]time.Time, len(spans))
	t := start
	for i, d := range spans {
		at[i] = t
		t = t.Add(d)
	}
	return at
}
