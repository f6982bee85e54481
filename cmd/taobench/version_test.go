//go:build unix

package main

import (
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// "taobench version" and "--version" print the module version and the VCS
// revision the binary was built from, as the Go toolchain recorded them.
func TestVersion(t *testing.T) {
	cliHome(t)
	for _, arg := range []string{"version", "--version", "-version"} {
		r := cliRun(t, arg)
		if r.code != 0 || !regexp.MustCompile(`^taobench \S+\nrevision \S+.*\nbuilt with go\S+ for \S+/\S+\n$`).MatchString(r.stdout) {
			t.Errorf("%s: want the version, revision and toolchain\n%v", arg, r)
		}
	}
	if testing.Short() {
		return
	}
	bin := builtBinary(t)
	info, err := exec.Command("go", "version", "-m", bin).Output()
	if err != nil {
		t.Fatalf("go version -m: %v", err)
	}
	want := regexp.MustCompile(`(?m)^\s*build\s+vcs\.revision=(\S+)`).FindStringSubmatch(string(info))
	got, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatalf("taobench --version: %v", err)
	}
	if want == nil {
		if !strings.Contains(string(got), "revision unknown") {
			t.Errorf("built without VCS information, --version says:\n%s", got)
		}
		t.Log("the binary has no VCS information (not a git checkout): revision unknown")
		return
	}
	if !strings.Contains(string(got), "revision "+want[1]) {
		t.Errorf("--version says\n%s\nthe binary was built from %s", got, want[1])
	}
	if modified := strings.Contains(string(info), "vcs.modified=true"); modified != strings.Contains(string(got), "uncommitted changes") {
		t.Errorf("--version says\n%s\nbut the build info has vcs.modified=%v", got, modified)
	}
	t.Logf("%s", got)
}
