package run_test

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/taobench/taobench/run"
)

// errAt is where an experiments error must say it is: the file and a line,
// or the file alone when it has no experiments.
var errAt = regexp.MustCompile(`^exp\.txt:(\d+): |^exp\.txt: no experiments`)

// FuzzParseExperiments: a parsed experiments file holds 1 to one-per-line
// experiments within the documented limits (1..MaxClients threads, warmup
// >= 0, duration > 0, rate 0..MaxRate) that read back equal when written out; an error
// names the file and a line of it in a short, printable message.
//
//	go test -run '^$' -fuzz '^FuzzParseExperiments$' -fuzztime 60s ./run/
func FuzzParseExperiments(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		lines := bytes.Count(data, []byte("\n")) + 1
		exps, err := run.ParseExperiments(bytes.NewReader(data), "exp.txt")
		if err != nil {
			msg := err.Error()
			if exps != nil {
				t.Fatalf("experiments returned with the error %s", msg)
			}
			m := errAt.FindStringSubmatch(msg)
			if m == nil {
				t.Fatalf("error does not start with the file and line: %s", msg)
			}
			if m[1] != "" {
				if n, _ := strconv.Atoi(m[1]); n < 1 || n > lines {
					t.Fatalf("error on line %s of a %d-line input: %s", m[1], lines, msg)
				}
			}
			if len(msg) > 400 || !utf8.ValidString(msg) || strings.ContainsRune(msg, 0) {
				t.Fatalf("message of %d bytes, or not printable text: %q", len(msg), msg)
			}
			return
		}
		if len(exps) == 0 || len(exps) > lines {
			t.Fatalf("%d experiments from %d lines", len(exps), lines)
		}
		var b strings.Builder
		for i, e := range exps {
			if e.Threads < 1 || e.Threads > run.MaxClients || e.Warmup < 0 || e.Duration <= 0 {
				t.Fatalf("experiment %d out of limits: %+v", i+1, e)
			}
			if e.Rate < 0 || e.Rate > run.MaxRate || e.Rate != e.Rate {
				t.Fatalf("experiment %d rate out of limits: %+v", i+1, e)
			}
			fmt.Fprintf(&b, "%d,%s,%s,%s\n", e.Threads, e.Warmup, e.Duration, strconv.FormatFloat(e.Rate, 'g', -1, 64))
		}
		again, err := run.ParseExperiments(strings.NewReader(b.String()), "exp.txt")
		if err != nil {
			t.Fatalf("written out, the experiments do not read back: %v\n%s", err, b.String())
		}
		for i := range exps {
			if again[i] != exps[i] {
				t.Fatalf("experiment %d reads back as %+v, want %+v", i+1, again[i], exps[i])
			}
		}

		// The same for one duration: non-negative, and its String reads back.
		if d, err := run.ParseDuration(string(data)); err == nil {
			d2, err := run.ParseDuration(d.String())
			if d < 0 || err != nil || d2 != d {
				t.Fatalf("ParseDuration(%q) = %v; %v reads back as %v, %v", data, d, d, d2, err)
			}
		}
	})
}

// endless yields pat over and over.
type endless struct {
	pat string
	off int
}

func (r *endless) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		c := copy(p[n:], r.pat[r.off:])
		n += c
		r.off = (r.off + c) % len(r.pat)
	}
	return n, nil
}

func TestParseExperimentsBadInput(t *testing.T) {
	cases := []struct {
		name string
		r    io.Reader
		want []string
	}{
		{"binary", strings.NewReader("\x7fELF\x02\x01\x01\x00\x00\x00"), []string{"exp.txt:1:", "this does not look like an experiments file (binary data", `"\x7fELF\x02\x01\x01\x00\x00\x00"`}},
		{"invalid UTF-8 on line 2", strings.NewReader("1,0,1\n\xff\xfe,1,1\n"), []string{"exp.txt:2:", "binary data"}},
		{"50 MB line", io.MultiReader(strings.NewReader("1,0,1\n16,10,60"), io.LimitReader(&endless{pat: "0"}, 50<<20)), []string{"exp.txt:2:", "longer than 64 KB", "does not look like an experiments file"}},
		{"endless line", &endless{pat: "1,"}, []string{"exp.txt:1:", "longer than 64 KB"}},
		{"long field", strings.NewReader("1,0," + strings.Repeat("9", 3000) + "\n"), []string{"exp.txt:1:", `"99999999`, `"...`}},
		{"missing comma", strings.NewReader("16,10 60\n"), []string{"exp.txt:1:", `"16,10 60" has 2 fields`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			exps, err := run.ParseExperiments(c.r, "exp.txt")
			if err == nil {
				t.Fatalf("no error; got %+v", exps)
			}
			msg := err.Error()
			for _, w := range c.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error does not say %q: %s", w, msg)
				}
			}
			if len(msg) > 300 || strings.Contains(msg, "token too long") {
				t.Errorf("message of %d bytes: %.400s", len(msg), msg)
			}
		})
	}
	// A byte order mark and CRLF line ends are fine.
	exps, err := run.ParseExperiments(strings.NewReader("\ufeff16,10,60\r\n# c\r\n1,0,1\r\n"), "exp.txt")
	if err != nil || len(exps) != 2 || exps[0].Threads != 16 || exps[1].Duration.Seconds() != 1 {
		t.Errorf("BOM and CRLF: %+v, %v", exps, err)
	}
}
