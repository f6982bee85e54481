// Package sysmon keeps the Go runtime's system monitor from the deep sleep
// that costs a closed-loop database client a thread wake-up per request.
//
// The runtime's monitor thread (sysmon) sleeps on a note whenever every P is
// idle, and the next system call wakes it and resets its polling to every
// 20 µs for the next millisecond or more. A client waiting on a database is
// in exactly that state between requests: all its goroutines are parked in
// the network poller, then one writes its next request. Measured against
// PostgreSQL on 2 cores (docs/performance.md, "The driver's CPU per
// request"): the client's context switches per request fell by 15 to 50%
// and its CPU per request by 12 to 20%.
//
// The runtime skips the deep sleep only while GODEBUG=schedtrace is set, and
// reads GODEBUG once, at start-up; so Awake re-executes the program once
// with schedtrace set to its longest period (2^31-1 ms, 24.8 days), so that
// the trace line it enables is never due while taobench runs.
//
// It is a switch (setting.go): --runtime-monitor=awake|default, or
// TAOBENCH_RUNTIME_MONITOR, the flag winning; Start re-executes only for
// awake, the default, and State tells the results which the process runs
// with.
package sysmon

import (
	"strings"
)

// period is schedtrace's value: the longest the runtime accepts, in ms.
const period = "2147483647"

// env returns environ with schedtrace added to GODEBUG, and whether to
// re-execute: not when GODEBUG already sets schedtrace (the user's choice,
// schedtrace=0 included) or when the machine has been up longer than the
// period (the runtime would then print its trace line at once).
func env(environ []string, uptime float64) ([]string, bool) {
	if uptime < 0 || uptime*1000 >= 2147483647 {
		return nil, false
	}
	out := make([]string, 0, len(environ)+1)
	godebug := ""
	for _, kv := range environ {
		if v, ok := strings.CutPrefix(kv, "GODEBUG="); ok {
			godebug = v
			continue
		}
		out = append(out, kv)
	}
	for _, s := range strings.Split(godebug, ",") {
		if strings.HasPrefix(strings.TrimSpace(s), "schedtrace=") {
			return nil, false
		}
	}
	if godebug != "" {
		godebug += ","
	}
	return append(out, "GODEBUG="+godebug+"schedtrace="+period), true
}
