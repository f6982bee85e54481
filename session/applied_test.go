package session

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/taobench/taobench/tier"
)

// notes is a Sink keeping its notes.
type notes struct {
	discard
	lines []string
}

func (n *notes) Note(msg string) { n.lines = append(n.lines, msg) }

// TestReadTiersAppliedOneTruth: read_tiers leaves not_applied only when a
// cache tier stands before the database, and the text says the same as
// the list in each case (replicas alone do not apply it).
func TestReadTiersAppliedOneTruth(t *testing.T) {
	na := []string{"read_operation_latency", "read_tiers"}
	if note := notAppliedNote("o", na); !strings.Contains(note, "not applied yet: read_operation_latency, read_tiers (read_tiers unless the run has a cache tier") {
		t.Errorf("the workload's note: %q", note)
	}
	for _, c := range []struct {
		name    string
		opts    tier.Options
		applied bool
	}{
		{"replicas alone", tier.Options{}, false},
		{"tao tier", tier.Options{Cache: "redis://x"}, true},
		{"client cache", tier.Options{ClientCacheTTL: time.Second, ClientCacheSize: 10}, true},
	} {
		sink := &notes{}
		s := &Session{sink: sink}
		got := s.tiersApplied(c.opts, slices.Clone(na))
		if slices.Contains(got, "read_tiers") == c.applied {
			t.Errorf("%s: not_applied %v", c.name, got)
		}
		text := strings.Join(sink.lines, "\n")
		if said := strings.Contains(text, "read_tiers applied:"); said != c.applied || strings.Contains(text, "read_tiers not applied") == c.applied {
			t.Errorf("%s: the text says %q against not_applied %v", c.name, text, got)
		}
	}
}
