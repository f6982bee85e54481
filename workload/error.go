package workload

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// Error is a problem with a workload: where it is (file, line, field), what
// is wrong and what to do, all in Msg. Line is 0 when the problem is not on
// one line (a missing field, or Validate on a workload built in code).
type Error struct {
	File  string
	Line  int
	Field string
	Msg   string
}

// Error reads like
// `workload_a.json:3: field "edge_types": 4 values but 3 weights; give one weight per value`.
func (e *Error) Error() string {
	s := ""
	if e.File != "" {
		s = e.File
		if e.Line > 0 {
			s += ":" + strconv.Itoa(e.Line)
		}
		s += ": "
	} else if e.Line > 0 {
		s = "line " + strconv.Itoa(e.Line) + ": "
	}
	if e.Field != "" {
		s += "field " + quote(e.Field) + ": "
	}
	return s + e.Msg
}

func errorf(field, format string, args ...any) *Error {
	return &Error{Field: field, Msg: fmt.Sprintf(format, args...)}
}

// quoteMax is the most bytes of a token a message quotes: a name that is
// not a field, say, may be a whole line of binary data.
const quoteMax = 40

// quote returns s in Go quotes, escaped, cut to its first quoteMax bytes
// (at a character boundary) and followed by "..." when longer.
func quote(s string) string {
	return strconv.Quote(cut(s)) + dots(s)
}

// cut returns at most the first quoteMax bytes of s, not splitting a
// character.
func cut(s string) string {
	if len(s) <= quoteMax {
		return s
	}
	n := quoteMax
	for n > quoteMax-utf8.UTFMax && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func dots(s string) string {
	if len(s) > quoteMax {
		return "..."
	}
	return ""
}
