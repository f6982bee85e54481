// Package flagx adds to the standard flag package what taobench's
// commands need of every FlagSet: a flag given twice refused, flags after
// the operands, the usage text as a string, the flags given, and a
// percentage flag.
package flagx

import (
	"flag"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// Repeatable is a flag.Value that may be given more than once (a list,
// such as rate's --sla); GivenTwice lets it be.
type Repeatable interface{ Repeatable() bool }

// GivenTwice reports a flag given more than once: the flag package would
// silently keep the last value, and "--threads 4 ... --threads 8" is more
// likely a mistake than a wish. It reads args as fs.Parse will: "-f" and
// "--f", "--f=v", a non-boolean flag's value in the next argument (even one
// starting with "-"), up to "--" or the first non-flag; an unknown flag
// stops it, for fs.Parse to report.
func GivenTwice(fs *flag.FlagSet, args []string) error {
	seen := map[flag.Value]string{} // by value: -o and --out share one
	for i := 0; i < len(args); i++ {
		a := args[i]
		if len(a) < 2 || a[0] != '-' || a == "--" {
			return nil
		}
		name := strings.TrimPrefix(a[1:], "-")
		name, _, hasValue := strings.Cut(name, "=")
		f := fs.Lookup(name)
		if f == nil {
			return nil
		}
		written := a
		if !hasValue && !isBool(f) && i+1 < len(args) {
			i++
			written += " " + args[i]
		}
		if r, ok := f.Value.(Repeatable); ok && r.Repeatable() {
			continue
		}
		if first, dup := seen[f.Value]; dup {
			return fmt.Errorf("flag --%s given twice (%s, then %s); give it once", name, first, written)
		}
		seen[f.Value] = written
	}
	return nil
}

// SplitArgs separates flags (with their values) from operands (file
// names), so flags may come after them: merge a.json b.json -o all.json.
func SplitArgs(fs *flag.FlagSet, args []string) (flags, operands []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return flags, append(operands, args[i+1:]...)
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			operands = append(operands, a)
			continue
		}
		flags = append(flags, a)
		name := strings.TrimLeft(a, "-")
		if f := fs.Lookup(name); f != nil && !strings.Contains(name, "=") && i+1 < len(args) && !isBool(f) {
			i++
			flags = append(flags, args[i])
		}
	}
	return flags, operands
}

func isBool(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// Usage is the usage text of fs's command (taobench NAME) and its flags.
func Usage(fs *flag.FlagSet) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Usage of taobench %s:\n", fs.Name())
	fs.SetOutput(&b)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
	return b.String()
}

// Given reports which flags were given on the command line.
func Given(fs *flag.FlagSet) map[string]bool {
	m := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { m[f.Name] = true })
	return m
}

// Percent is a flag of a percentage from 0 to 100, with or without "%".
type Percent struct{ P *float64 }

func (f Percent) String() string {
	if f.P == nil {
		return ""
	}
	return strconv.FormatFloat(*f.P, 'g', -1, 64) + "%"
}

func (f Percent) Set(s string) error {
	v, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(s), "%"), 64)
	if err != nil || !(v >= 0 && v <= 100) {
		return fmt.Errorf("give a percentage from 0 to 100, e.g. 1 or 0.5%%")
	}
	*f.P = v
	return nil
}

// List is a flag that may be given more than once: each value is parsed
// by Parse and appended to *Items.
type List[T any] struct {
	Items *[]T
	Parse func(string) (T, error)
}

func (l List[T]) String() string { return "" }

func (l List[T]) Set(s string) error {
	v, err := l.Parse(s)
	if err != nil {
		return err
	}
	*l.Items = append(*l.Items, v)
	return nil
}

// Repeatable lets GivenTwice accept the flag more than once.
func (l List[T]) Repeatable() bool { return true }

// ValueError is a value a flag refused, in taobench's words: the flag, the
// form it wants and the value given, without the whole usage.
type ValueError struct {
	Flag string // without dashes
	Want string // the form wanted: "a whole number from 1 to 4096"
	Got  string // the value given
	// Err is the refusal of a flag of taobench's own type, which says
	// what it wants itself; Want is then empty.
	Err     error
	Missing bool // the flag came last, with no value
}

func (e *ValueError) Error() string {
	switch {
	case e.Missing && e.Want != "":
		return fmt.Sprintf("--%s needs a value: want %s", e.Flag, e.Want)
	case e.Missing:
		return fmt.Sprintf("--%s needs a value", e.Flag)
	case e.Err != nil:
		return fmt.Sprintf("--%s %s: %v", e.Flag, e.Got, e.Err)
	}
	got := e.Got
	if got == "" {
		got = `""`
	}
	return fmt.Sprintf("--%s: want %s, got %s", e.Flag, e.Want, got)
}

func (e *ValueError) Unwrap() error { return e.Err }

// Parse parses args into fs as fs.Parse does, but returns a value a flag
// refuses as a *ValueError: package flag's own words ("invalid value "1.5"
// for flag -threads: parse error", "value out of range") name neither the
// form wanted nor the fix. A flag of one of package flag's types wants
// forms[name], or else the form of its type ("a whole number"); one of
// taobench's own types (flag.Var) says what it wants in its error. Other
// errors (an unknown flag, -h) are fs.Parse's.
func Parse(fs *flag.FlagSet, args []string, forms map[string]string) error {
	var refused *ValueError
	saved := map[*flag.Flag]flag.Value{}
	fs.VisitAll(func(f *flag.Flag) {
		saved[f] = f.Value
		f.Value = &checked{Value: f.Value, name: f.Name, want: wantOf(f.Value, forms[f.Name]), refused: &refused}
	})
	err := fs.Parse(args)
	for f, v := range saved {
		f.Value = v
	}
	if err == nil {
		return nil
	}
	if refused != nil {
		return refused
	}
	const needs = "flag needs an argument: -"
	if name, ok := strings.CutPrefix(err.Error(), needs); ok {
		if f := fs.Lookup(name); f != nil {
			return &ValueError{Flag: name, Want: wantOf(f.Value, forms[name]), Missing: true}
		}
	}
	return err
}

// checked is a flag's value while Parse parses: it keeps the first value
// refused, in taobench's words.
type checked struct {
	flag.Value
	name, want string
	refused    **ValueError
}

func (c *checked) Set(s string) error {
	err := c.Value.Set(s)
	if err != nil && *c.refused == nil {
		e := &ValueError{Flag: c.name, Want: c.want, Got: s}
		if c.want == "" {
			e.Err = err
		}
		*c.refused = e
	}
	return err
}

// IsBoolFlag keeps a boolean flag's value optional.
func (c *checked) IsBoolFlag() bool {
	b, ok := c.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// wantOf is the form a flag of package flag's types wants: form when
// given, else its type's; "" for taobench's own types, whose errors say.
func wantOf(v flag.Value, form string) string {
	g, ok := v.(flag.Getter)
	if !ok || reflect.TypeOf(v).Kind() != reflect.Pointer || reflect.TypeOf(v).Elem().PkgPath() != "flag" {
		return ""
	}
	if form != "" {
		return form
	}
	switch g.Get().(type) {
	case int, int64:
		return "a whole number"
	case uint, uint64:
		return "a whole number, 0 or more"
	case float64:
		return "a number"
	case bool:
		return "true or false"
	case time.Duration:
		return "a duration such as 30s or 2m"
	}
	return ""
}
