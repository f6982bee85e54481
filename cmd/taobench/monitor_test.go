package main

import (
	"strings"
	"testing"

	"github.com/taobench/taobench/internal/sysmon"
)

// TestCLIRuntimeMonitor: every command with clients (those main may
// re-execute) names
// --runtime-monitor in its help, takes awake and default, and refuses
// another value, from the flag or the environment, with exit status 2.
// (That main does not re-execute when it is default is
// internal/sysmon's TestStartSwitchedOff.)
func TestCLIRuntimeMonitor(t *testing.T) {
	for cmd := range clientCommands {
		args := []string{cmd, "-h"}
		if cmd == "experiment" {
			args = []string{cmd, "lock-hold", "-h"}
		}
		r := cliRun(t, args...)
		if r.code != 0 || !strings.Contains(r.stdout+r.stderr, "-"+sysmon.Flag) || !strings.Contains(r.stdout+r.stderr, sysmon.Env) {
			t.Errorf("%s -h does not name --%s and %s:\n%s", cmd, sysmon.Flag, sysmon.Env, r)
		}
	}
	for _, v := range []string{"default", "awake"} {
		cliMust(t, "run", "--db", "null", "--threads", "1", "--warmup", "0", "--duration", "1s", "--"+sysmon.Flag+"="+v)
	}
	r := cliRun(t, "run", "--db", "null", "--threads", "1", "--warmup", "0", "--duration", "1s", "--"+sysmon.Flag, "sleepy")
	if r.code != exitBadInput || !strings.Contains(r.stderr, `--runtime-monitor "sleepy"`) {
		t.Errorf("--runtime-monitor sleepy: want exit 2 naming the flag and value:\n%s", r)
	}
	t.Setenv(sysmon.Env, "sleepy")
	r = cliRun(t, "run", "--db", "null", "--threads", "1", "--warmup", "0", "--duration", "1s")
	if r.code != exitBadInput || !strings.Contains(r.stderr, sysmon.Env+` "sleepy"`) {
		t.Errorf("%s=sleepy: want exit 2 naming the variable and value:\n%s", sysmon.Env, r)
	}
	// The flag wins over the environment.
	cliMust(t, "run", "--db", "null", "--threads", "1", "--warmup", "0", "--duration", "1s", "--"+sysmon.Flag+"=default")
}
