//go:build unix

package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"testing"
)

// reapOnExit starts a watcher that, once this test process is gone however
// it ended (a panic, the -timeout's, a kill), runs each stop command and
// removes dir: servers of a test's own never outlive it, nor their
// directory in /tmp. A test that ends normally has stopped them already
// (its t.Cleanup), and the watcher's stop finds nothing to do. It runs in a
// process group of its own, so an interrupt of the test's group does not
// end it first, and holds none of the test's output open.
func reapOnExit(t testing.TB, dir string, stop ...[]string) {
	t.Helper()
	script := fmt.Sprintf("while kill -0 %d 2>/dev/null; do sleep 1; done\n", os.Getpid())
	for _, argv := range stop {
		for _, a := range argv {
			script += shellQuote(a) + " "
		}
		script += ">/dev/null 2>&1\n"
	}
	script += "rm -rf " + shellQuote(dir) + "\n"
	cmd := exec.Command("sh", "-c", script)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting the watcher that cleans up %s: %v", dir, err)
	}
	go cmd.Wait()
}

// shellQuote quotes s for sh.
func shellQuote(s string) string {
	out := "'"
	for _, r := range s {
		if r == '\'' {
			out += `'\''`
		} else {
			out += string(r)
		}
	}
	return out + "'"
}
