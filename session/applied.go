package session

import (
	"fmt"
	"slices"
	"strings"

	"github.com/taobench/taobench/tier"
)

// readTiers is the field a run applies only with a cache tier before
// the database: without one, reads drawn to client_cache or tao go to the
// database tier, as if read_tiers sent every read there.
const readTiers = "read_tiers"

// notAppliedNote says which fields of workload name a run does not apply
// (na, NotApplied's list), as the JSON's not_applied lists them; read_tiers
// is qualified, since the run's tiers decide it (tiersApplied says which).
func notAppliedNote(name string, na []string) string {
	note := fmt.Sprintf("workload %s: fields read but not applied yet: %s", name, strings.Join(na, ", "))
	if slices.Contains(na, readTiers) {
		note += " (read_tiers unless the run has a cache tier: a tao tier or a client cache)"
	}
	return note
}

// tiersApplied is na (the run's not_applied) once the tiers of opts stand
// before the database: read_tiers leaves it when a cache tier was asked
// for; replicas alone do not apply it, which a note says.
func (s *Session) tiersApplied(opts tier.Options, na []string) []string {
	if !slices.Contains(na, readTiers) {
		return na
	}
	if opts.Cache == "" && opts.ClientCacheTTL <= 0 {
		s.sink.Note("note: read_tiers not applied: no cache tier (a tao tier or a client cache) stands before the database, so reads drawn to client_cache or tao go to the database tier (not_applied lists it)")
		return na
	}
	s.sink.Note("note: read_tiers applied: a cache tier stands before the database (not_applied leaves it out)")
	return slices.DeleteFunc(na, func(f string) bool { return f == readTiers })
}
