package flagx

import (
	"errors"
	"flag"
	"io"
	"slices"
	"strings"
	"testing"
)

type list []string

func (l *list) String() string     { return strings.Join(*l, ",") }
func (l *list) Set(s string) error { *l = append(*l, s); return nil }
func (l *list) Repeatable() bool   { return true }

func newSet() *flag.FlagSet {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.Int("threads", 1, "")
	o := fs.String("o", "", "")
	fs.StringVar(o, "out", "", "")
	fs.Bool("drop", false, "")
	fs.Var(&list{}, "sla", "")
	return fs
}

func TestGivenTwice(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string // "" for no error
	}{
		{[]string{"--threads", "4", "--threads=8"}, "flag --threads given twice (--threads 4, then --threads=8)"},
		{[]string{"-o", "a", "--out", "b"}, "flag --out given twice (-o a, then --out b)"},
		{[]string{"--drop", "--threads", "-1"}, ""},
		{[]string{"--sla", "a", "--sla", "b"}, ""},
		{[]string{"--threads", "4", "x", "--threads", "8"}, ""}, // parsing stops at an operand
		{[]string{"--nope", "--threads", "1", "--threads", "2"}, ""},
	} {
		err := GivenTwice(newSet(), c.args)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%q: %v, want %q", c.args, err, c.want)
		}
	}
}

func TestSplitArgs(t *testing.T) {
	t.Parallel()
	flags, ops := SplitArgs(newSet(), []string{"a.json", "-o", "all.json", "b.json", "--drop", "c.json", "-", "--", "-d.json"})
	if !slices.Equal(flags, []string{"-o", "all.json", "--drop"}) || !slices.Equal(ops, []string{"a.json", "b.json", "c.json", "-", "-d.json"}) {
		t.Errorf("flags %q, operands %q", flags, ops)
	}
}

func TestPercent(t *testing.T) {
	t.Parallel()
	var p float64
	f := Percent{&p}
	if err := f.Set("0.5%"); err != nil || p != 0.5 || f.String() != "0.5%" {
		t.Errorf("0.5%%: %v, %v, %q", err, p, f.String())
	}
	for _, bad := range []string{"101", "-1", "x", "NaN"} {
		if err := f.Set(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestList(t *testing.T) {
	t.Parallel()
	var got []int
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.Var(List[int]{&got, func(s string) (int, error) { return len(s), nil }}, "n", "")
	args := []string{"--n", "ab", "--n", "abcd"}
	if err := GivenTwice(fs, args); err != nil {
		t.Fatal(err)
	}
	if err := fs.Parse(args); err != nil || !slices.Equal(got, []int{2, 4}) {
		t.Errorf("%v, %v; want [2 4]", err, got)
	}
}

// TestParseValueErrors: Parse returns a value a flag refuses as a
// ValueError naming the flag, the form wanted and the value given, and
// leaves every flag's own value in place after (a caller may type-assert
// it).
func TestParseValueErrors(t *testing.T) {
	newFS := func() (*flag.FlagSet, *Percent) {
		fs := flag.NewFlagSet("x", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		fs.Int("threads", 1, "")
		fs.Uint64("seed", 0, "")
		fs.Bool("drop", false, "")
		var p float64
		pct := &Percent{P: &p}
		fs.Var(pct, "max", "")
		return fs, pct
	}
	forms := map[string]string{"threads": "a whole number from 1 to 8"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--threads", "1.5"}, "--threads: want a whole number from 1 to 8, got 1.5"},
		{[]string{"--seed", "-1"}, "--seed: want a whole number, 0 or more, got -1"},
		{[]string{"--drop=yes please"}, "--drop: want true or false, got yes please"},
		{[]string{"--max", "200"}, "--max 200: give a percentage from 0 to 100"},
		{[]string{"--threads"}, "--threads needs a value: want a whole number from 1 to 8"},
		{[]string{"--threads="}, `--threads: want a whole number from 1 to 8, got ""`},
	} {
		fs, _ := newFS()
		err := Parse(fs, c.args, forms)
		var ve *ValueError
		if !errors.As(err, &ve) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want a ValueError saying %q", c.args, err, c.want)
		}
	}
	fs, pct := newFS()
	if err := Parse(fs, []string{"--drop", "--max", "5", "--threads", "3"}, forms); err != nil {
		t.Fatal(err)
	}
	if fs.Lookup("max").Value != flag.Value(pct) || *pct.P != 5 || fs.Lookup("threads").Value.String() != "3" || fs.Lookup("drop").Value.String() != "true" {
		t.Errorf("values after Parse: max %T %v, threads %v, drop %v", fs.Lookup("max").Value, *pct.P, fs.Lookup("threads").Value, fs.Lookup("drop").Value)
	}
	if err := Parse(fs, []string{"--frob"}, forms); err == nil || errors.As(err, new(*ValueError)) {
		t.Errorf("unknown flag: %v, want package flag's error", err)
	}
}
