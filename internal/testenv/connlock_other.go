//go:build !unix

package testenv

import "testing"

// lockServers does nothing where there is no flock: tests may then meet
// the servers' connection limits when packages run in parallel.
func lockServers(testing.TB, bool) {}
