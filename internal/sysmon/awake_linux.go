package sysmon

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// Awake re-executes the running program with the monitor kept awake (see
// the package comment) and does not return when it does; it returns when
// there is nothing to do or the re-execution failed, and the program then
// runs as it is. Call it first thing in main, before any goroutine starts.
func Awake() {
	b, err := os.ReadFile("/proc/uptime")
	if err != nil {
		return
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return
	}
	up, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return
	}
	e, ok := env(os.Environ(), up)
	if !ok {
		return
	}
	// The executable's own path, not /proc/self/exe, which would rename
	// the process "exe" (ps, top, pgrep show the name of the file run).
	path, err := os.Executable()
	if err != nil {
		return
	}
	_ = syscall.Exec(path, os.Args, e)
}
