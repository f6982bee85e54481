package run_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/taobench/taobench/run"
)

func TestParseDuration(t *testing.T) {
	good := []struct {
		in   string
		want time.Duration
	}{
		{"60", 60 * time.Second},
		{"0", 0},
		{"1.5", 1500 * time.Millisecond},
		{" 2.5 ", 2500 * time.Millisecond},
		{"5s", 5 * time.Second},
		{"2m", 2 * time.Minute},
		{"1m30s", 90 * time.Second},
		{"250ms", 250 * time.Millisecond},
		{"1h", time.Hour},
	}
	for _, c := range good {
		got, err := run.ParseDuration(c.in)
		if err != nil {
			t.Errorf("ParseDuration(%q): %v", c.in, err)
			continue
		}
		if got != c.want {
			t.Errorf("ParseDuration(%q) = %v, want %v", c.in, got, c.want)
		}
	}

	bad := []struct {
		in, want string // want: a part of the message
	}{
		{"-1", "negative"},
		{"-5s", "negative"},
		{"-Inf", "negative"},
		{"abc", "use seconds"},
		{"", "use seconds"},
		{"5 s", "use seconds"},
		{"10x", "use seconds"},
		// Parsed as floats, these once overflowed into negative durations
		// with no error.
		{"NaN", "not a number"},
		{"Inf", "too long"},
		{"+Inf", "too long"},
		{"1e20", "too long"},
	}
	for _, c := range bad {
		got, err := run.ParseDuration(c.in)
		if err == nil {
			t.Errorf("ParseDuration(%q) = %v, want an error", c.in, got)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, c.want) || !strings.Contains(msg, strconv.Quote(strings.TrimSpace(c.in))) {
			t.Errorf("ParseDuration(%q): error %q should quote the input and say %q", c.in, msg, c.want)
		}
	}
}

func TestParseExperiments(t *testing.T) {
	const file = `# threads,warmup,duration
1,0,1

  16, 10 , 60   # seconds, as the original writes them
# a comment line
64,30s,2m
4,1.5,0.5
` + "8,5,5" // no final newline
	got, err := run.ParseExperiments(strings.NewReader(file), "exp.txt")
	if err != nil {
		t.Fatal(err)
	}
	want := []run.Experiment{
		{Threads: 1, Warmup: 0, Duration: time.Second},
		{Threads: 16, Warmup: 10 * time.Second, Duration: time.Minute},
		{Threads: 64, Warmup: 30 * time.Second, Duration: 2 * time.Minute},
		{Threads: 4, Warmup: 1500 * time.Millisecond, Duration: 500 * time.Millisecond},
		{Threads: 8, Warmup: 5 * time.Second, Duration: 5 * time.Second},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d experiments %+v, want %d", len(got), got, len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("experiment %d = %+v, want %+v", i, got[i], want[i])
		}
	}

	// The optional fourth field is a target rate; old three-field lines
	// stay closed loop beside it.
	exps, err := run.ParseExperiments(strings.NewReader("8,1,10,5000\n8,1,10\n4, 0, 5, 0\n2,0,1, 250.5 \n"), "rate.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(exps) != 4 || exps[0].Rate != 5000 || exps[1].Rate != 0 || exps[2].Rate != 0 || exps[3].Rate != 250.5 || exps[0].Threads != 8 {
		t.Errorf("rates: %+v", exps)
	}

	most := strconv.Itoa(run.MaxClients)
	if _, err := run.ParseExperiments(strings.NewReader(most+",0,1\n"), "max.txt"); err != nil {
		t.Errorf("%d threads (MaxClients) refused: %v", run.MaxClients, err)
	}
}

func TestParseExperimentsErrors(t *testing.T) {
	tooMany := strconv.Itoa(run.MaxClients + 1)
	cases := []struct {
		name, text string
		want       []string // parts of the message, besides the file name
	}{
		{"two fields", "1,0,1\n\n4,10\n", []string{"exp.txt:3:", "2 fields", "threads,warmup,duration"}},
		{"five fields", "4,10,60,1,2\n", []string{"exp.txt:1:", "5 fields", "threads,warmup,duration[,rate]"}},
		{"rate negative", "4,10,60,-5\n", []string{"exp.txt:1:", `rate "-5"`, "requests per second"}},
		{"rate garbage", "4,10,60,fast\n", []string{"exp.txt:1:", `rate "fast"`}},
		{"rate NaN", "4,10,60,NaN\n", []string{"exp.txt:1:", `rate "NaN"`}},
		{"rate too high", "4,10,60,1e9\n", []string{"exp.txt:1:", `rate "1e9"`}},
		{"one field", "# c\n16\n", []string{"exp.txt:2:", "1 fields"}},
		{"threads zero", "0,1,1\n", []string{"exp.txt:1:", `threads "0"`, "1 to " + strconv.Itoa(run.MaxClients)}},
		{"threads negative", "-3,1,1\n", []string{"exp.txt:1:", `threads "-3"`}},
		{"threads too many", "1,0,1\n" + tooMany + ",1,1\n", []string{"exp.txt:2:", `threads "` + tooMany + `"`}},
		{"threads garbage", "four,1,1\n", []string{"exp.txt:1:", `threads "four"`}},
		{"threads fraction", "1.5,1,1\n", []string{"exp.txt:1:", `threads "1.5"`}},
		{"warmup negative", "1,-1,1\n", []string{"exp.txt:1:", "warmup", "negative"}},
		{"warmup garbage", "1,soon,1\n", []string{"exp.txt:1:", "warmup", `"soon"`}},
		{"warmup overflow", "1,1e30,1\n", []string{"exp.txt:1:", "warmup", "too long"}},
		{"duration zero", "1,0,1\n2,5,0\n", []string{"exp.txt:2:", "give at least 100ms"}},
		{"duration zero go syntax", "2,5,0s\n", []string{"exp.txt:1:", "give at least 100ms"}},
		{"duration negative", "2,5,-2m\n", []string{"exp.txt:1:", "duration", "negative"}},
		{"duration garbage", "2,5,\n", []string{"exp.txt:1:", "duration", "use seconds"}},
		{"duration NaN", "2,5,NaN\n", []string{"exp.txt:1:", "duration", "not a number"}},
		{"empty", "", []string{"exp.txt:", "no experiments"}},
		{"only comments", "# nothing\n\n   \n", []string{"exp.txt:", "no experiments"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			exps, err := run.ParseExperiments(strings.NewReader(c.text), "exp.txt")
			if err == nil {
				t.Fatalf("no error; got %+v", exps)
			}
			if exps != nil {
				t.Errorf("experiments returned with the error: %+v", exps)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

// errReader fails after giving its text, as a file whose read fails.
type errReader struct {
	text string
	err  error
}

func (r *errReader) Read(p []byte) (int, error) {
	if r.text == "" {
		return 0, r.err
	}
	n := copy(p, r.text)
	r.text = r.text[n:]
	return n, nil
}

func TestParseExperimentsReadError(t *testing.T) {
	boom := errors.New("disk on fire")
	_, err := run.ParseExperiments(&errReader{text: "1,0,1\n", err: boom}, "exp.txt")
	if err == nil || !strings.Contains(err.Error(), "exp.txt") || !strings.Contains(err.Error(), boom.Error()) {
		t.Errorf("a failing reader gave %v; want an error naming the file and the cause", err)
	}
}
