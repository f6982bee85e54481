package resources

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// readUsage takes the CPU times from getrusage and the current resident
// set from /proc/self/statm (getrusage gives only its peak on Linux).
func readUsage() (usage, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return usage{}, fmt.Errorf("getrusage: %w", err)
	}
	u := usage{user: time.Duration(ru.Utime.Nano()), sys: time.Duration(ru.Stime.Nano())}
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return u, err
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return u, fmt.Errorf("/proc/self/statm: %q: want at least 2 fields", b)
	}
	pages, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return u, fmt.Errorf("/proc/self/statm: %w", err)
	}
	u.rss = pages * int64(os.Getpagesize())
	return u, nil
}
