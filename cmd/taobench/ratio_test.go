package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRatio: taobench ratio gives the geometric mean of the rounds'
// ratios with its t interval over their logs (stats.TestRatio has the
// arithmetic): 1.2, 1.1735, 1.2871 give 1.22x [1.08x, 1.37x]; bad rounds
// exit 2 naming the line.
func TestRatio(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	r := cliMust(t, "ratio", "--label", "tb/orig", write("ok", "# rounds\n1200 1000\n1150 980\n\n1300 1010\n"))
	if want := "tb/orig 1.22x [1.08x, 1.37x] (95% interval; geometric mean of 3 rounds' ratios 1.20 1.17 1.29)\n"; r.stdout != want {
		t.Errorf("ratio printed %q; want %q", r.stdout, want)
	}
	if r := cliMust(t, "ratio", write("one", "5 4\n")); !strings.Contains(r.stdout, "1.25x [-] (one round: no interval") {
		t.Errorf("one round: %q", r.stdout)
	}
	for _, c := range []struct{ text, want string }{
		{"1 2\n3\n", `line 2 "3": give two numbers`},
		{"1 two\n", `line 1: "two" is not a number`},
		{"", "no rounds in"},
		{"0 1\n", "no round has both figures above 0"},
	} {
		if r := cliRun(t, "ratio", write("bad", c.text)); r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("rounds %q: want exit 2 saying %q:\n%v", c.text, c.want, r)
		}
	}
}
