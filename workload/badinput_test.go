package workload

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"
)

// repeatReader yields pat over and over, without end; wrap it in an
// io.LimitReader for a finite stream. It never holds more than pat.
type repeatReader struct {
	pat []byte
	off int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		c := copy(p[n:], r.pat[r.off:])
		n += c
		r.off = (r.off + c) % len(r.pat)
	}
	return n, nil
}

// countReader counts the bytes read through it.
type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// badInputError checks that err is an *Error at file:line whose message
// says each of want, and that the message is short, printable text.
func badInputError(t *testing.T, err error, file string, line int, want ...string) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("got %v; want an *Error at %s:%d", err, file, line)
	}
	msg := e.Error()
	if e.File != file || e.Line != line {
		t.Errorf("error at %s:%d, want %s:%d: %s", e.File, e.Line, file, line, msg)
	}
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("message does not say %q: %s", w, msg)
		}
	}
	if len(msg) > 400 || !utf8.ValidString(msg) || strings.ContainsRune(msg, 0) {
		t.Errorf("message of %d bytes, or not printable text: %q", len(msg), msg)
	}
	for _, bad := range []string{"token too long", "unknown field"} {
		if strings.Contains(msg, bad) {
			t.Errorf("message says %q: %s", bad, msg)
		}
	}
}

const binaryMsg = "this does not look like a workload file (binary data"

func TestBinaryWorkload(t *testing.T) {
	elf := "\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00>\x00\x01\x00\x00\x00" + strings.Repeat("\x00\xff", 200)
	cases := []struct {
		name, data string
		line       int
		want       []string
	}{
		{"executable", elf, 1, []string{binaryMsg, "a NUL byte at byte 8", `"\x7fELF\x02\x01\x01\x00`, "..."}},
		{"invalid UTF-8 on line 3", minimalNative + "\xff\xfe\xfd garbage:1\n", 3, []string{binaryMsg, "invalid UTF-8 at byte 1"}},
		{"NUL in a comment", "# \x00\n" + minimalNative, 1, []string{binaryMsg}},
		{"gzip after a brace", "{\x1f\x8b\x08\x00\x00\x00\x00\x00", 1, []string{binaryMsg}},
		{"UTF-16 with BOM", "\xff\xfeo\x00p\x00", 1, []string{binaryMsg}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "w.bin")
			if err := os.WriteFile(path, []byte(c.data), 0o644); err != nil {
				t.Fatal(err)
			}
			w, err := Load(path)
			if w != nil {
				t.Fatalf("a workload from binary data: %+v", w)
			}
			badInputError(t, err, path, c.line, c.want...)
		})
	}
	// Each parser on its own refuses it too.
	for name, parse := range map[string]func(io.Reader, string) (*Workload, error){"Parse": Parse, "ParseOriginal": ParseOriginal} {
		t.Run(name, func(t *testing.T) {
			_, err := parse(strings.NewReader(elf), "elf")
			badInputError(t, err, "elf", 1, binaryMsg)
		})
	}
}

// TestHugeLine feeds each parser a single line of 50 MB, generated as it is
// read: the parser stops at its 16 MB line limit with the file and line, not
// bufio's "token too long", and does not read the rest.
func TestHugeLine(t *testing.T) {
	const size = 50 << 20
	cases := []struct {
		name   string
		parse  func(io.Reader, string) (*Workload, error)
		before string // whole lines before the long one
		start  string // the long line's start
		pat    string // repeated to size
		want   []string
	}{
		{"native", Parse, "", "operations ", "read:1 ", []string{"longer than 16 MB", `it starts "operations read:1 read:1 read:1 read:1 r"...`, "does not look like a workload file"}},
		{"native on line 3", Parse, minimalNative, "outdegree ", "1:1 ", []string{"longer than 16 MB", `"outdegree 1:1`}},
		{"original", ParseOriginal, "", `{"name": "operations", "weights": [`, "1, ", []string{"longer than 16 MB", `"{\"name\": \"operations\"`}},
		{"binary", Parse, "", "", "\x00\x01\x02\x03", []string{binaryMsg, "a NUL byte at byte 1"}},
		{"invalid UTF-8 far in", Parse, "", "description " + strings.Repeat("é", 8<<20), "\xff", []string{binaryMsg, "invalid UTF-8 at byte 16777229"}},
		{"endless", Parse, "", "name ", "x", []string{"longer than 16 MB"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var long io.Reader = &repeatReader{pat: []byte(c.pat)}
			if c.name != "endless" {
				long = io.LimitReader(long, size)
			}
			r := &countReader{r: io.MultiReader(strings.NewReader(c.before), strings.NewReader(c.start), long)}
			w, err := c.parse(r, "big.workload")
			if w != nil {
				t.Fatal("a workload from a 50 MB line")
			}
			badInputError(t, err, "big.workload", strings.Count(c.before, "\n")+1, c.want...)
			if r.n > maxLine+1<<20 {
				t.Errorf("read %d bytes; the parser should stop soon after %d", r.n, maxLine)
			}
		})
	}
}

// TestLongTokens checks that messages quote at most a short prefix of an
// overlong name or value, and that a long but sane line still parses.
func TestLongTokens(t *testing.T) {
	long := strings.Repeat("y", 5000)
	cases := []struct {
		name, text, field string
		want              string
	}{
		{"unknown field", long + " a:1\n", long, "unknown field"},
		{"entry", "read_tiers db:1 " + long + ":1\n", "read_tiers", "has 5002 bytes"},
		{"value", "read_tiers " + long + "\n", "read_tiers", "has 5000 bytes"},
		{"scalar", "key_skew zipf:0." + long + "\n", "key_skew", "has 5007 bytes"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(minimalNative+c.text), "n.workload")
			var e *Error
			if !errors.As(err, &e) || e.Line != 3 || e.Field != c.field {
				t.Fatalf("got %v; want an *Error on line 3, field %.20q", err, c.field)
			}
			msg := e.Error()
			if !strings.Contains(msg, c.want) || !strings.Contains(msg, `yyyyyyyy"...`) || len(msg) > 1000 { // the quote is short; the list of fields is most of it
				t.Errorf("message of %d bytes; want a short quote and %q: %s", len(msg), c.want, msg)
			}
		})
	}
	for name, line := range map[string]string{
		"original": `{"name": "errors", "values": ["` + long + `"], "weights": [1]}`,
		"key":      `{"name": "errors", "` + long + `": 1}`,
		"weight":   `{"name": "errors", "values": ["a"], "weights": ["` + long + `"]}`,
	} {
		_, err := ParseOriginal(strings.NewReader(line+"\n"), "o.json")
		if err == nil || len(err.Error()) > 300 || !strings.Contains(err.Error(), `yyyyy`) {
			t.Errorf("%s: a 5000-byte token gave %v; want a short message quoting its start", name, err)
		}
	}
	// A long description and a long wrapped distribution are fine.
	desc := strings.Repeat("words ", 10000)
	w, err := Parse(strings.NewReader(minimalNative+"description "+desc+"\nprimary_shards"+shardPairs(64)+"\n"), "n.workload")
	if err != nil || w.Description != strings.TrimSpace(desc) || w.Shards() != 64 {
		t.Fatalf("long but valid lines: %v", err)
	}
}

// TestByteOrderMark checks that a UTF-8 byte order mark, which some editors
// write, is ignored by both parsers and by Load, and that CRLF line ends are.
func TestByteOrderMark(t *testing.T) {
	orig := withLine(origLines, len(origLines), "")
	for _, c := range []struct {
		name  string
		parse func(io.Reader, string) (*Workload, error)
		text  string
	}{
		{"native", Parse, minimalNative},
		{"original", ParseOriginal, orig},
		{"sniffed native", func(r io.Reader, f string) (*Workload, error) { b, _ := io.ReadAll(r); return parseBytes(b, f) }, minimalNative},
		{"sniffed original", func(r io.Reader, f string) (*Workload, error) { b, _ := io.ReadAll(r); return parseBytes(b, f) }, orig},
	} {
		want, err := c.parse(strings.NewReader(c.text), "w")
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for _, v := range []string{"\ufeff" + c.text, strings.ReplaceAll(c.text, "\n", "\r\n"), "\ufeff" + strings.ReplaceAll(c.text, "\n", "\r\n")} {
			got, err := c.parse(strings.NewReader(v), "w")
			if err != nil {
				t.Errorf("%s: %q: %v", c.name, v[:12], err)
				continue
			}
			if d := diff(want, got); d != "" {
				t.Errorf("%s: %q differs:\n%s", c.name, v[:12], d)
			}
		}
	}
	// A BOM anywhere else is not ignored, and says where it is.
	_, err := Parse(bytes.NewReader([]byte(minimalNative+"\ufeffread_tiers db:1\n")), "w")
	if err == nil || !strings.Contains(err.Error(), `w:3: field "\ufeffread_tiers": unknown field`) {
		t.Errorf("a BOM on line 3: %v", err)
	}
}

// TestControlCharacters: a name or description holding what a terminal
// acts on (ESC, BEL, C1, a bidirectional override) is refused at the line
// that gives it, since commands echo both; a name taken from the file name
// is shown escaped instead.
func TestControlCharacters(t *testing.T) {
	for _, c := range []struct{ name, line string }{
		{"ESC and BEL in the name", "name evil\x1b]0;pwned\x07x"},
		{"CSI in the description", "description clear\x1b[2J screen"},
		{"C1 in the name", "name a\u009b31m"},
		{"DEL in the name", "name a\x7f"},
		{"bidi override in the name", "name a\u202ecod.exe"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(minimalNative+c.line+"\n"), "w.workload")
			field, _, _ := strings.Cut(c.line, " ")
			badInputError(t, err, "w.workload", 3, `field "`+field+`"`, "control character", "remove it")
			if msg := err.Error(); strings.ContainsAny(msg, "\x1b\x07\x7f") || strings.ContainsRune(msg, '\u009b') || strings.ContainsRune(msg, '\u202e') {
				t.Errorf("the message holds the raw character: %q", msg)
			}
		})
	}
	path := filepath.Join(t.TempDir(), "x\x1b[31m.workload")
	if err := os.WriteFile(path, []byte(minimalNative), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if w.Name != `x\x1b[31m` {
		t.Errorf("name from the file name %q, want it escaped", w.Name)
	}
}

// TestLineEndings: CR-only line endings (and a mix of all three) read as
// \n does, in both formats, with errors at the right line; they used to
// make the whole file one line whose fields were all "missing".
func TestLineEndings(t *testing.T) {
	orig := withLine(origLines, len(origLines), "")
	sniff := func(r io.Reader, f string) (*Workload, error) { b, _ := io.ReadAll(r); return parseBytes(b, f) }
	for _, c := range []struct {
		name  string
		parse func(io.Reader, string) (*Workload, error)
		text  string
	}{
		{"native", Parse, minimalNative},
		{"original", ParseOriginal, orig},
		{"sniffed native", sniff, minimalNative},
		{"sniffed original", sniff, orig},
	} {
		want, err := c.parse(strings.NewReader(c.text), "w")
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		lines := strings.SplitAfter(c.text, "\n")
		mixed := ""
		for i, l := range lines {
			mixed += strings.TrimSuffix(l, "\n") + []string{"\r", "\r\n", "\n"}[i%3]
		}
		for _, v := range []string{strings.ReplaceAll(c.text, "\n", "\r"), "\ufeff" + strings.ReplaceAll(c.text, "\n", "\r"), mixed} {
			got, err := c.parse(strings.NewReader(v), "w")
			if err != nil {
				t.Errorf("%s: %q: %v", c.name, v[:12], err)
				continue
			}
			if d := diff(want, got); d != "" {
				t.Errorf("%s: %q differs:\n%s", c.name, v[:12], d)
			}
		}
	}
	// Line numbers count each ending once, a \r\n split across reads
	// included (one byte at a time).
	for _, end := range []string{"\r", "\r\n"} {
		text := strings.ReplaceAll(minimalNative+"\nread_tiers nowhere:1\n", "\n", end)
		_, err := Parse(iotest.OneByteReader(strings.NewReader(text)), "w")
		badInputError(t, err, "w", 4, `field "read_tiers"`)
	}
}

// TestDuplicateKey: a key given twice in one original-format line is
// refused naming the key and the line, whichever copy is the broken one;
// encoding/json alone keeps the last silently.
func TestDuplicateKey(t *testing.T) {
	for _, c := range []struct{ name, line, key string }{
		{"weights twice, last wins", `{"name": "remote_shards", "weights": [1, 2], "weights": [3]}`, `"weights"`},
		{"name twice, first broken", `{"name": "bogus", "name": "primary_shards", "weights": [1]}`, `"name"`},
		{"name twice, last broken", `{"name": "primary_shards", "name": "bogus", "weights": [1]}`, `"name"`},
		{"differing in case", `{"name": "primary_shards", "Name": "remote_shards", "weights": [1]}`, `"Name"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseOriginal(strings.NewReader(withLine(origLines, 2, c.line)), "w.json")
			badInputError(t, err, "w.json", 3, "key "+c.key+" given twice", "keep one")
		})
	}
	// Keys inside values are not the object's.
	line := `{"name": "edge_types", "values": ["unique", "bidirectional", "other"], "weights": [1, 2, 3]}`
	if _, err := ParseOriginal(strings.NewReader(withLine(origLines, 2, line)), "w.json"); err != nil {
		t.Fatal(err)
	}
}
