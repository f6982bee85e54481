//go:build !linux

package run

import "time"

// cpuWait: outside Linux the kernel does not say how long the process
// waited for a CPU.
func cpuWait() (time.Duration, bool) { return 0, false }
