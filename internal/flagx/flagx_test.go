package flagx

import (
	"flag"
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
