package result

import (
	"fmt"
	"sort"
	"strings"

	"github.com/taobench/taobench/tao"
)

// NoCode is how results name the code of an attempt the database gave no
// code: the client's deadline or a broken connection ended it.
const NoCode = "none"

// ErrorCode is an outcome and the code the database gave it (tao.Result.Code).
type ErrorCode struct {
	Outcome tao.Outcome
	Code    string
}

// ErrorCodes counts the measured window's attempts that ended in a
// conflict, a timeout or an error, by outcome and the database's code:
// every attempt, retried ones included, as the contention figures count
// attempts. A nil ErrorCodes is empty.
type ErrorCodes map[ErrorCode]int64

// Counted reports whether o is an outcome ErrorCodes counts.
func Counted(o tao.Outcome) bool {
	return o.IsConflict() || o == tao.Timeout || o == tao.Error
}

// Add counts n attempts of k.
func (c *ErrorCodes) Add(k ErrorCode, n int64) {
	if n == 0 {
		return
	}
	if *c == nil {
		*c = ErrorCodes{}
	}
	(*c)[k] += n
}

// Merge adds o to c.
func (c *ErrorCodes) Merge(o ErrorCodes) {
	for k, n := range o {
		c.Add(k, n)
	}
}

// Sorted returns c's entries by outcome, then by count, largest first.
func (c ErrorCodes) Sorted() []ErrorCodeCount {
	out := make([]ErrorCodeCount, 0, len(c))
	for k, n := range c {
		out = append(out, ErrorCodeCount{k, n})
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Outcome != b.Outcome {
			return a.Outcome < b.Outcome
		}
		if a.N != b.N {
			return a.N > b.N
		}
		return a.Code < b.Code
	})
	return out
}

// ErrorCodeCount is one entry of ErrorCodes.
type ErrorCodeCount struct {
	ErrorCode
	N int64
}

// String is "conflict_object 55P03 ×3" (the code "none" when there was none).
func (e ErrorCodeCount) String() string {
	return fmt.Sprintf("%s %s ×%d", e.Outcome, codeName(e.Code), e.N)
}

func codeName(code string) string {
	if code == "" {
		return NoCode
	}
	return code
}

// errorCodesJSON is {"conflict_object": {"55P03": 3}, "timeout": {"none": 1}}.
func errorCodesJSON(c ErrorCodes) map[string]map[string]int64 {
	m := map[string]map[string]int64{}
	for k, n := range c {
		o := k.Outcome.String()
		if m[o] == nil {
			m[o] = map[string]int64{}
		}
		m[o][codeName(k.Code)] += n
	}
	return m
}

func errorCodesFromJSON(m map[string]map[string]int64) (ErrorCodes, error) {
	var c ErrorCodes
	for name, codes := range m {
		o, ok := outcomeNamed(name)
		if !ok || !Counted(o) {
			return nil, fmt.Errorf("error_codes: %q is not an outcome counted by code (conflict_object, conflict_association, timeout, error)", name)
		}
		for code, n := range codes {
			if n < 0 {
				return nil, fmt.Errorf("error_codes: %s %s: negative count %d", name, code, n)
			}
			if strings.TrimSpace(code) == "" {
				return nil, fmt.Errorf("error_codes: %s: an empty code (a code the database did not give is %q)", name, NoCode)
			}
			if code == NoCode {
				code = ""
			}
			c.Add(ErrorCode{o, code}, n)
		}
	}
	return c, nil
}

func outcomeNamed(name string) (tao.Outcome, bool) {
	for o := range tao.NumOutcomes {
		if o.String() == name {
			return o, true
		}
	}
	return 0, false
}

// CodesBySecond is ErrorCodes by measured second: entry i counts the
// attempts of requests that began in second i of the measured window
// (nil where there were none), so an outage's codes line up with the
// per-second rows of the same requests.
type CodesBySecond []ErrorCodes

// Add counts n attempts of k in second sec (clamped to [0, MaxSeconds)).
func (c *CodesBySecond) Add(sec int, k ErrorCode, n int64) {
	if n == 0 {
		return
	}
	sec = min(max(sec, 0), MaxSeconds-1)
	for len(*c) <= sec {
		*c = append(*c, nil)
	}
	(*c)[sec].Add(k, n)
}

// Merge adds o to c, second by second.
func (c *CodesBySecond) Merge(o CodesBySecond) {
	for s, codes := range o {
		for k, n := range codes {
			c.Add(s, k, n)
		}
	}
}

// Sum is every second's codes added up.
func (c CodesBySecond) Sum() ErrorCodes {
	var all ErrorCodes
	for _, codes := range c {
		all.Merge(codes)
	}
	return all
}
