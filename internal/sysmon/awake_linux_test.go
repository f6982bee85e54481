package sysmon

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestAwake runs this test binary again as a child that calls Awake: the
// child must come back re-executed, with schedtrace in its GODEBUG.
func TestAwake(t *testing.T) {
	if os.Getenv("SYSMON_TEST_CHILD") == "1" {
		Awake()
		comm, _ := os.ReadFile("/proc/self/comm")
		fmt.Printf("child GODEBUG=%q comm=%q\n", os.Getenv("GODEBUG"), strings.TrimSpace(string(comm)))
		return
	}
	if b, err := os.ReadFile("/proc/uptime"); err == nil {
		var up float64
		if _, err := fmt.Sscan(string(b), &up); err == nil && up*1000 >= 2147483647 {
			t.Skip("the machine has been up longer than schedtrace's period: Awake does nothing")
		}
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestAwake$", "-test.v")
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GODEBUG=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "SYSMON_TEST_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if want := `child GODEBUG="schedtrace=` + period + `"`; !strings.Contains(string(out), want) {
		t.Fatalf("child's output lacks %s:\n%s", want, out)
	}
	// The process keeps its name (a re-execution through /proc/self/exe
	// would be called "exe").
	if want := fmt.Sprintf("comm=%q", "sysmon.test"); !strings.Contains(string(out), want) {
		t.Fatalf("child's output lacks %s:\n%s", want, out)
	}
	if strings.Contains(string(out), "SCHED ") {
		t.Fatalf("the runtime printed a schedtrace line:\n%s", out)
	}
}

// TestStartSwitchedOff runs this test binary again as children that call
// Start: switched off by the flag or by the environment, the child is not
// re-executed (no schedtrace in its GODEBUG); with neither, it is.
func TestStartSwitchedOff(t *testing.T) {
	if args, ok := os.LookupEnv("SYSMON_TEST_START"); ok {
		Start(strings.Fields(args))
		fmt.Printf("child GODEBUG=%q state=%s\n", os.Getenv("GODEBUG"), State())
		return
	}
	upLong := false
	if b, err := os.ReadFile("/proc/uptime"); err == nil {
		var up float64
		if _, err := fmt.Sscan(string(b), &up); err == nil && up*1000 >= 2147483647 {
			upLong = true // Awake does nothing: the control case cannot show a re-execution
		}
	}
	for _, c := range []struct {
		name, args, env string
		awake           bool
	}{
		{"flag", "run --threads 2 --runtime-monitor=default", "", false},
		{"flag apart", "run --runtime-monitor default", "", false},
		{"environment", "run --threads 2", "default", false},
		{"flag over environment", "run --runtime-monitor=default", "awake", false},
		{"neither", "run --threads 2", "", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.awake && upLong {
				t.Skip("the machine has been up longer than schedtrace's period: Awake does nothing")
			}
			cmd := exec.Command(os.Args[0], "-test.run=^TestStartSwitchedOff$", "-test.v")
			for _, kv := range os.Environ() {
				if !strings.HasPrefix(kv, "GODEBUG=") && !strings.HasPrefix(kv, Env+"=") {
					cmd.Env = append(cmd.Env, kv)
				}
			}
			cmd.Env = append(cmd.Env, "SYSMON_TEST_START="+c.args)
			if c.env != "" {
				cmd.Env = append(cmd.Env, Env+"="+c.env)
			}
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("child: %v\n%s", err, out)
			}
			want := `child GODEBUG="" state=default`
			if c.awake {
				want = `child GODEBUG="schedtrace=` + period + `" state=awake`
			}
			if !strings.Contains(string(out), want) {
				t.Fatalf("child's output lacks %s:\n%s", want, out)
			}
		})
	}
}
