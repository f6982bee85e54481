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
