package run

import (
	"os"
	"runtime"
)

// ClientsPerProc is how many closed-loop clients one Go scheduler thread
// (a P, GOMAXPROCS) serves. A client spends most of a request waiting for
// the server: measured on a 16-core VM against PostgreSQL, 16 clients made
// 192,000 requests/s at 20.5 µs of driver CPU each, 3.9 cores busy, about a
// quarter of a core per client. More Ps than that do no more work: idle Ps
// spin looking for goroutines, and the spinning competes with the database
// for the cores (the same 16 clients with GOMAXPROCS=16: 141,000 requests/s
// at 41 µs each). docs/performance.md has the measurements.
const ClientsPerProc = 4

// Procs returns the GOMAXPROCS for clients concurrent clients on cpus
// usable cores: one per ClientsPerProc clients, at least 1, at most cpus.
func Procs(clients, cpus int) int {
	n := (clients + ClientsPerProc - 1) / ClientsPerProc
	return max(1, min(n, cpus))
}

// defaultProcs is the GOMAXPROCS the process started with: the CPUs it may
// use (CPU affinity and cgroup limits), whatever SetProcs set since.
var defaultProcs = runtime.GOMAXPROCS(0)

// SetProcs sizes the Go runtime for a run of clients clients and returns
// the GOMAXPROCS in force: procs when positive (--procs), else the
// environment's GOMAXPROCS when set, else Procs(clients, the GOMAXPROCS
// the process started with).
func SetProcs(procs, clients int) int {
	if procs > 0 {
		runtime.GOMAXPROCS(procs)
		return procs
	}
	if os.Getenv("GOMAXPROCS") != "" {
		return runtime.GOMAXPROCS(0)
	}
	n := Procs(clients, defaultProcs)
	runtime.GOMAXPROCS(n)
	return n
}
