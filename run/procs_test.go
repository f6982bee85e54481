package run

import (
	"runtime"
	"testing"
)

func TestProcs(t *testing.T) {
	for _, c := range []struct{ clients, cpus, want int }{
		{1, 16, 1},
		{4, 16, 1},
		{5, 16, 2},
		{8, 16, 2},
		{16, 16, 4}, // the 16-core VM: 4 beat 16
		{16, 2, 2},  // this project's 2-core machine: 2 beat 1 (docs/performance.md)
		{64, 16, 16},
		{1024, 16, 16},
		{4, 1, 1},
		{16, 1, 1},
		{0, 8, 1}, // never below one
		{3, 0, 1},
	} {
		if got := Procs(c.clients, c.cpus); got != c.want {
			t.Errorf("Procs(%d clients, %d cpus) = %d, want %d", c.clients, c.cpus, got, c.want)
		}
	}
}

func TestSetProcs(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	t.Setenv("GOMAXPROCS", "")
	if got := SetProcs(3, 1000); got != 3 || runtime.GOMAXPROCS(0) != 3 {
		t.Errorf("--procs 3: SetProcs = %d, GOMAXPROCS %d; want 3", got, runtime.GOMAXPROCS(0))
	}
	if got := SetProcs(0, 1); got != 1 || runtime.GOMAXPROCS(0) != 1 {
		t.Errorf("1 client: SetProcs = %d, GOMAXPROCS %d; want 1", got, runtime.GOMAXPROCS(0))
	}
	runtime.GOMAXPROCS(2)
	t.Setenv("GOMAXPROCS", "2")
	if got := SetProcs(0, 1); got != 2 || runtime.GOMAXPROCS(0) != 2 {
		t.Errorf("GOMAXPROCS=2 in the environment: SetProcs = %d, GOMAXPROCS %d; want it kept", got, runtime.GOMAXPROCS(0))
	}
}

// TestSetProcsFromStart checks that the rule counts the CPUs the process
// started with, not what an earlier run set.
func TestSetProcsFromStart(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	t.Setenv("GOMAXPROCS", "")
	SetProcs(0, 1)
	want := Procs(1000, defaultProcs)
	if got := SetProcs(0, 1000); got != want || runtime.GOMAXPROCS(0) != want {
		t.Errorf("1000 clients after a 1-client run: SetProcs = %d, GOMAXPROCS %d; want %d", got, runtime.GOMAXPROCS(0), want)
	}
}
