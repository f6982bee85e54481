//go:build unix && !linux

package resources

import (
	"fmt"
	"runtime"
	"syscall"
	"time"
)

// readUsage takes the CPU times from getrusage; outside Linux the resident
// set is getrusage's peak, the best portable figure.
func readUsage() (usage, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return usage{}, fmt.Errorf("getrusage: %w", err)
	}
	rss := int64(ru.Maxrss)
	if runtime.GOOS != "darwin" && runtime.GOOS != "ios" {
		rss *= 1024 // kilobytes, except on Apple's systems
	}
	return usage{user: time.Duration(ru.Utime.Nano()), sys: time.Duration(ru.Stime.Nano()), rss: rss}, nil
}
