//go:build unix

package main

// Tests of --out: checked before the run starts, and written without
// replacing what is not a regular file. Helpers of issue 9's tests are
// prefixed op.

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// opReadOnly makes path (a file or a directory) unwritable even for root,
// and undoes it when the test ends; it reports false when it cannot.
func opReadOnly(t *testing.T, path string) bool {
	t.Helper()
	if os.Geteuid() != 0 {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, fi.Mode().Perm()&^0o222); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(path, fi.Mode().Perm()) })
		return true
	}
	// Root writes whatever the mode says; the immutable attribute stops it.
	if err := exec.Command("chattr", "+i", path).Run(); err != nil {
		t.Logf("chattr +i %s: %v: cannot make it read-only for root", path, err)
		return false
	}
	t.Cleanup(func() { exec.Command("chattr", "-i", path).Run() })
	return true
}

// opNoExperiment checks that a refused run refused before it started.
func opNoExperiment(t *testing.T, what string, r cliResult) {
	t.Helper()
	if r.stdout != "" || strings.Contains(r.stderr, "experiment 1") || strings.Contains(r.stderr, "loading") {
		t.Errorf("%s: the run started before it was refused:\n%v", what, r)
	}
}

// An --out the results cannot be written to is refused before anything
// runs (not after a long run), with exit 2 and a message naming the flag,
// the place and the fix.
func TestCLIOutChecked(t *testing.T) {
	cliHome(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "o.db")
	roDir := filepath.Join(dir, "ro")
	if err := os.Mkdir(roDir, 0o755); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, out string
		want      []string
	}{
		{"missing directory", filepath.Join(dir, "no", "such", "r.json"), []string{"--out", "does not exist", "mkdir -p " + filepath.Join(dir, "no", "such")}},
		{"a directory", dir, []string{"--out", "is a directory", "--out " + filepath.Join(dir, "results.json")}},
		{"under a file", filepath.Join(db+"x", "r.json"), nil}, // set below
	}
	if err := os.WriteFile(db+"x", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cases[2].want = []string{"--out", "is not a directory"}
	if opReadOnly(t, roDir) {
		cases = append(cases, struct {
			name, out string
			want      []string
		}{"no permission", filepath.Join(roDir, "r.json"), []string{"--out", "cannot create files in " + roDir, "chmod u+w " + roDir}})
	}
	for _, c := range cases {
		start := time.Now()
		r := cliRun(t, "run", "--db", "sqlite:"+db, "--edges", "2000", "--warmup", "0", "--duration", "30s", "--out", c.out)
		took := time.Since(start)
		errs := cliErrorLines(r.stderr)
		if r.code != 2 || len(errs) != 1 {
			t.Errorf("%s: want exit 2 and one error line\n%v", c.name, r)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(errs[0], w) {
				t.Errorf("%s: error %q does not say %q", c.name, errs[0], w)
			}
		}
		opNoExperiment(t, c.name, r)
		// Before anything ran: no experiment announced (above), and sooner
		// than the 30 s one asked for, however loaded the machine.
		if took >= 30*time.Second {
			t.Errorf("%s: refused after %v, longer than the experiment asked for", c.name, took)
		}
		cliNoFile(t, db, c.name+": a refused --out")
	}
}

// Special files are written through, never replaced; symlinks are followed
// (the target replaced, the link kept); result files are 0644, or keep the
// mode of the file they replace; no temporary file is left behind.
func TestCLIOutFiles(t *testing.T) {
	t.Parallel()
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	dir := t.TempDir()
	run := func(out string) cliResult {
		t.Helper()
		r := cliRun(t, "run", "--db", "null", "--threads", "2", "--warmup", "0", "--duration", "0.2", "--out", out)
		if r.code != 0 {
			t.Fatalf("--out %s: %v", out, r)
		}
		return r
	}
	mode := func(path string) fs.FileMode {
		t.Helper()
		fi, err := os.Lstat(path)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Mode()
	}

	// The standard output gets the document after the text results; the
	// file /dev/stdout is never touched.
	before := mode("/dev/stdout")
	r := run("/dev/stdout")
	text, js, ok := strings.Cut(r.stdout, "\n{\n")
	if !ok {
		t.Fatalf("--out /dev/stdout: no JSON document on stdout:\n%s", r.stdout)
	}
	if len(cliParse(t, text+"\n")) != 1 || !strings.Contains(js, `"experiments"`) || strings.Count(r.stdout, `"run": {`) != 1 {
		t.Errorf("--out /dev/stdout: want the text results, then one JSON document:\n%s", r.stdout)
	}
	if m := mode("/dev/stdout"); m != before {
		t.Errorf("/dev/stdout was %v, is now %v", before, m)
	}
	// Written through, once, whatever the number of experiments.
	exps := filepath.Join(dir, "exps.txt")
	if err := os.WriteFile(exps, []byte("1,0,0.2\n2,0,0.2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = cliRun(t, "run", "--db", "null", "--experiments", exps, "--out", "/dev/stderr")
	if r.code != 0 || strings.Count(r.stderr, `"run": {`) != 1 || strings.Count(r.stderr, `"threads": `) != 2 {
		t.Errorf("--out /dev/stderr with 2 experiments: want one document of both on stderr\n%v", r)
	}
	for _, dev := range []string{"/dev/null", "/dev/fd/1"} {
		before := mode(dev)
		run(dev)
		if m := mode(dev); m != before {
			t.Errorf("%s was %v, is now %v", dev, before, m)
		}
	}

	// A new file is 0644; the file replaced keeps its mode.
	out := filepath.Join(dir, "r.json")
	run(out)
	cliReadJSON(t, out)
	if m := mode(out); m != 0o644 {
		t.Errorf("new result file has mode %v, want -rw-r--r--", m)
	}
	if err := os.Chmod(out, 0o600); err != nil {
		t.Fatal(err)
	}
	run(out)
	cliReadJSON(t, out)
	if m := mode(out); m != 0o600 {
		t.Errorf("a replaced 0600 result file has mode %v", m)
	}

	// A symlink in a read-only directory to a file elsewhere: the target
	// is replaced, in its own directory, and the link stays.
	linkDir, targetDir := filepath.Join(dir, "links"), filepath.Join(dir, "targets")
	for _, d := range []string{linkDir, targetDir} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	target := filepath.Join(targetDir, "t.json")
	link := filepath.Join(linkDir, "r.json")
	if err := os.Symlink("../targets/t.json", link); err != nil {
		t.Fatal(err)
	}
	roLinks := opReadOnly(t, linkDir)
	run(link) // a dangling link: the target is created
	run(link) // and then replaced
	if m := mode(link); m&fs.ModeSymlink == 0 {
		t.Errorf("the link %s was replaced by a %v file", link, m)
	}
	cliReadJSON(t, target)
	if m := mode(target); m != 0o644 {
		t.Errorf("the link's target has mode %v, want -rw-r--r--", m)
	}
	if !roLinks {
		t.Log("the link's directory could not be made read-only: where the temporary file goes is not proved")
	}
	for _, d := range []string{dir, linkDir, targetDir} {
		ents, _ := os.ReadDir(d)
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), ".") {
				t.Errorf("a temporary file is left behind: %s", filepath.Join(d, e.Name()))
			}
		}
	}
}
