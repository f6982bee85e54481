package termsafe

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEscape(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"workload a", "workload a"},
		{"café ✓ 日本 😀", "café ✓ 日本 😀"},
		{`C:\path\to file`, `C:\path\to file`},
		{"evil\x1b]0;pwned\x07x", `evil\x1b]0;pwned\ax`},
		{"\x1b[2J\x1b[H", `\x1b[2J\x1b[H`},
		{"a\tb\nc\rd\x00e", `a\tb\nc\rd\x00e`},
		{"del\x7f", `del\x7f`},
		{"c1 \u009b31m \u0085", `c1 \u009b31m \u0085`},
		{"bidi \u202egpj.exe \u2066x\u2069", `bidi \u202egpj.exe \u2066x\u2069`},
		{"bad \xff\xfe utf8 \xe2\x82", `bad \xff\xfe utf8 \xe2\x82`},
		{"ok\u00a0nbsp \u200d", "ok\u00a0nbsp \u200d"},
	} {
		got := Escape(c.in)
		if got != c.want {
			t.Errorf("Escape(%q) = %q, want %q", c.in, got, c.want)
		}
		if Safe(c.in) != (c.in == c.want) {
			t.Errorf("Safe(%q) = %v", c.in, Safe(c.in))
		}
	}
}

// FuzzEscape: what Escape returns is valid UTF-8 with no character a
// terminal acts on, is left alone by a second Escape, and equals its input
// when that was safe.
//
//	go test -run '^$' -fuzz FuzzEscape -fuzztime 60s ./internal/termsafe/
func FuzzEscape(f *testing.F) {
	f.Add("evil\x1b]0;pwned\x07x")
	f.Add("bad \xff utf8 \u202e")
	f.Fuzz(func(t *testing.T, s string) {
		e := Escape(s)
		if !utf8.ValidString(e) {
			t.Fatalf("Escape(%q) = %q: invalid UTF-8", s, e)
		}
		for _, r := range e {
			if unsafe(r) {
				t.Fatalf("Escape(%q) = %q holds %U", s, e, r)
			}
		}
		if Escape(e) != e {
			t.Fatalf("Escape is not idempotent on %q: %q", s, e)
		}
		if Safe(s) != (e == s) {
			t.Fatalf("Safe(%q) = %v but Escape gives %q", s, Safe(s), e)
		}
		if Safe(s) && !strings.Contains(e, s) {
			t.Fatalf("Escape(%q) = %q changed safe text", s, e)
		}
	})
}

func BenchmarkEscapeSafe(b *testing.B) {
	s := "workload a: application, speculative write-transaction heavy"
	for i := 0; i < b.N; i++ {
		Escape(s)
	}
}
