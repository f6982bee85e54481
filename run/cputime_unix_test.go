//go:build unix

package run

import (
	"syscall"
	"testing"
	"time"
)

// cpuTime is the CPU time the process has used. On a machine shared with
// other work, CPU time per request varies far less than wall-clock time,
// which counts the time other processes held the core.
func cpuTime(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
