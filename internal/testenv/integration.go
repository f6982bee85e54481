package testenv

import (
	"os"
	"testing"
)

// IntegrationEnv is the switch of the integration suite: the tests that
// start servers of their own in clusters (Galera, PostgreSQL standbys,
// MariaDB replicas, the Spanner emulator) run only where it is "1".
// .ci/run sets it; a plain `go test ./...` runs the unit and
// single-server tests.
const IntegrationEnv = "TAOBENCH_INTEGRATION"

// Integration skips the test unless TAOBENCH_INTEGRATION=1. A test that
// starts a cluster of its own calls it first, before any other set-up;
// the helpers that start clusters call it too. It skips even under
// TAOBENCH_REQUIRE=1: the switch is the user's word, not a missing
// dependency.
func Integration(t testing.TB) {
	t.Helper()
	if !IntegrationOn() {
		t.Skipf("an integration test (it starts a cluster of its own): set %s=1 to run it", IntegrationEnv)
	}
}

// IntegrationOn reports whether the integration suite runs: a test that
// repeats a check to catch a rare failure (a soak) does it once without
// it and its full count with it.
func IntegrationOn() bool { return os.Getenv(IntegrationEnv) == "1" }
