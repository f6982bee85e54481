package cpuwait

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// total is how long this process's threads have waited for a CPU while
// ready to run (the run-queue delay of /proc/self/task/*/schedstat), plus
// the time the hypervisor held the machine's CPUs (steal, /proc/stat). On a
// loaded machine it grows by the time the clients could not run, so a test
// can tell requests the pacer had no chance to issue from ones it failed
// to. ok is false when the kernel does not say.
func total() (d time.Duration, ok bool) {
	tasks, err := filepath.Glob("/proc/self/task/*/schedstat")
	if err != nil || len(tasks) == 0 {
		return 0, false
	}
	for _, p := range tasks {
		b, err := os.ReadFile(p)
		if err != nil {
			continue // a thread that has just exited
		}
		// "cpu time, run-queue wait, timeslices", in nanoseconds.
		f := strings.Fields(string(b))
		if len(f) < 2 {
			return 0, false
		}
		ns, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			return 0, false
		}
		d += time.Duration(ns)
	}
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, false
	}
	// "cpu user nice system idle iowait irq softirq steal ...", in
	// clock ticks of 10 ms (USER_HZ is 100 on every Linux ABI).
	line, _, _ := strings.Cut(string(b), "\n")
	if f := strings.Fields(line); len(f) > 8 && f[0] == "cpu" {
		if ticks, err := strconv.ParseInt(f[8], 10, 64); err == nil {
			d += time.Duration(ticks) * 10 * time.Millisecond
		}
	}
	return d, true
}
