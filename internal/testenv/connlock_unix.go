//go:build unix

package testenv

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// lockServers takes the servers' test lock, exclusively or shared, until
// the test ends.
func lockServers(t testing.TB, exclusive bool) {
	t.Helper()
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	f, err := os.OpenFile(filepath.Join(os.TempDir(), "taobench-test-servers.lock"), os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		t.Fatalf("the servers' test lock: %v", err)
	}
	if err := syscall.Flock(int(f.Fd()), how); err != nil {
		f.Close()
		t.Fatalf("the servers' test lock: %v", err)
	}
	t.Cleanup(func() { f.Close() }) // closing releases the lock
}
