package testenv

import (
	"strings"
	"sync"
	"testing"
)

// The shared servers on loopback take a bounded number of connections
// (PostgreSQL 100, MariaDB 151 by default), and go test runs packages in
// parallel processes. A test that fits a pool to every free connection
// (TestServerWorkloads, 256 clients) then starves whatever other package
// connects at that moment ("too many clients", 1040), and fails tests
// that did nothing wrong. So tests coordinate through a lock file beside
// the system's temporary files, as processes on one machine do: a test
// that takes many connections holds it exclusively (ManyConnections), and
// every fresh database holds it shared for the life of its test.

var (
	manyMu sync.Mutex
	many   = map[string]bool{} // top-level tests holding the lock exclusively
)

// ManyConnections makes the test the only one, in any test process on this
// machine, using the shared servers until it ends; it waits for the others.
func ManyConnections(t testing.TB) {
	t.Helper()
	top, _, _ := strings.Cut(t.Name(), "/")
	manyMu.Lock()
	many[top] = true
	manyMu.Unlock()
	lockServers(t, true)
	t.Cleanup(func() {
		manyMu.Lock()
		delete(many, top)
		manyMu.Unlock()
	})
}

// shareServers holds the lock shared until the test ends, unless the test
// (or the test it is a subtest of) holds it exclusively.
func shareServers(t testing.TB) {
	t.Helper()
	top, _, _ := strings.Cut(t.Name(), "/")
	manyMu.Lock()
	mine := many[top]
	manyMu.Unlock()
	if !mine {
		lockServers(t, false)
	}
}
