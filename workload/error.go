package workload

import (
	"fmt"
	"strconv"
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
		s += fmt.Sprintf("field %q: ", e.Field)
	}
	return s + e.Msg
}

func errorf(field, format string, args ...any) *Error {
	return &Error{Field: field, Msg: fmt.Sprintf(format, args...)}
}
