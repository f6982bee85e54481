// Package termsafe makes untrusted text safe to print to a terminal:
// workload names and descriptions, file paths, URLs and anything else read
// from a file or a command line, which may hold escape sequences that would
// retitle the window, move the cursor, rewrite what was printed before or,
// on some terminals, answer back as typed input.
package termsafe

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Escape returns s with every character a terminal would act on rather than
// show written as a Go escape: C0 controls (tab and newline included, so
// one value stays on one line), DEL, C1 controls, the bidirectional
// overrides and isolates that reorder what is shown (U+202A-U+202E,
// U+2066-U+2069), and each byte of invalid UTF-8 as \xNN. Printable
// Unicode, spaces and backslashes are kept as they are, so a path or a
// name reads as typed; text that needs no escaping is returned unchanged.
func Escape(s string) string {
	i := firstUnsafe(s)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteString(`\x`)
			b.WriteString(hex2(s[i]))
		case unsafe(r):
			// strconv.QuoteRune gives \t, \n, \x1b, \u009b, \u202e;
			// drop its quotes.
			q := strconv.QuoteRuneToASCII(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// Safe reports whether Escape would return s unchanged.
func Safe(s string) bool { return firstUnsafe(s) < 0 }

// firstUnsafe returns the offset of the first character of s that Escape
// rewrites, or -1.
func firstUnsafe(s string) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f {
				return i
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || unsafe(r) {
			return i
		}
		i += n
	}
	return -1
}

// unsafe reports whether a terminal acts on r rather than showing it.
func unsafe(r rune) bool {
	return r < 0x20 || 0x7f <= r && r <= 0x9f ||
		0x202a <= r && r <= 0x202e || 0x2066 <= r && r <= 0x2069
}

func hex2(c byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[c>>4], digits[c&0xf]})
}

// Lines escapes s line by line (Escape), keeping its line breaks: an
// error may quote a workload name, a path or a results file's field, and
// no such text may retitle the window or rewrite what was printed.
func Lines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = Escape(l)
	}
	return strings.Join(lines, "\n")
}
