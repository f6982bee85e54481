package session_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/taobench/taobench/session"
)

// TestWorkloadsNotes: a run injecting latency from a workload that gives
// none is bad input; one that gives some is told what it injects.
func TestWorkloadsNotes(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "adds.workload")
	if err := os.WriteFile(file, []byte("operations write:1\nwrite_operation_types obj_add:1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := session.Workloads([]string{file}, true); err == nil || !strings.Contains(err.Error(), "run.Config.InjectLatency: workload") || !strings.Contains(err.Error(), "gives none") {
		t.Errorf("a workload without latencies, injected: %v", err)
	}
	ws, notes, err := session.Workloads([]string{"o"}, true)
	if err != nil || len(ws) != 1 || !slices.ContainsFunc(notes, func(n string) bool { return strings.HasPrefix(n, "injecting client-side latency from workload o's") }) {
		t.Errorf("o injected: %v, notes %q", err, notes)
	}
	if _, _, err := session.Workloads([]string{"no-such-workload"}, false); !errors.As(err, new(*session.InputError)) {
		t.Errorf("an unknown workload: %v, want an InputError", err)
	}
}
