package run

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

// AdvisedProcs is the GOMAXPROCS for a run of clients clients in a
// process that started with started (the CPUs it may use: affinity and
// cgroup limits): procs when positive (--procs); 0, keep what is in force,
// when the environment sets GOMAXPROCS (envSet); else Procs(clients,
// started). It sets nothing: the process's setting is its main's to make.
func AdvisedProcs(procs, clients, started int, envSet bool) int {
	switch {
	case procs > 0:
		return procs
	case envSet:
		return 0
	}
	return Procs(clients, started)
}
