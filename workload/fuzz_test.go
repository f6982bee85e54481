package workload

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"unicode/utf8"
)

// The fuzz targets of the workload parsers. Their seed corpora are in
// testdata/fuzz/<target>/ and run with the ordinary tests; to search for
// new failures (docs/workloads.md, "Bad input"):
//
//	go test -run '^$' -fuzz '^FuzzParse$' -fuzztime 60s ./workload/

// maxMessage bounds an error message: the longest lists every field, and
// the rest quote a token of at most maxToken bytes.
const maxMessage = 1500

// checkError asserts what every parser error must be: an *Error naming the
// file, with a message that is short, printable text, and a line of the
// input unless it is about a field the input does not have.
func checkError(t *testing.T, err error, file string, data []byte, given func(field string) bool) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not an *Error", err, err)
	}
	msg := e.Error()
	switch {
	case e.Msg == "":
		t.Fatalf("empty message: %q", msg)
	case e.File != file:
		t.Fatalf("error names file %q, want %q: %s", e.File, file, msg)
	case !strings.HasPrefix(msg, file+":"):
		t.Fatalf("message does not start with the file: %s", msg)
	case len(msg) > maxMessage:
		t.Fatalf("message of %d bytes: %.300s...", len(msg), msg)
	case !utf8.ValidString(msg) || strings.ContainsRune(msg, 0):
		t.Fatalf("message carries raw bytes: %q", msg)
	case e.Line < 0 || e.Line > bytes.Count(lfOnly(data), []byte("\n"))+1:
		t.Fatalf("line %d, but the input has %d: %s", e.Line, bytes.Count(lfOnly(data), []byte("\n"))+1, msg)
	case e.Line == 0 && e.Field == "":
		t.Fatalf("error names neither a line nor a field: %s", msg)
	case e.Line == 0 && given(e.Field):
		t.Fatalf("error about field %q, which the input has, names no line: %s", e.Field, msg)
	}
}

// lfOnly returns data with its line endings (\r\n, \r, \n) as the parsers
// read them: \n.
func lfOnly(data []byte) []byte {
	return bytes.ReplaceAll(bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n")), []byte("\r"), []byte("\n"))
}

// nativeGiven reports whether a native file has a line for field.
func nativeGiven(data []byte) func(string) bool {
	return func(field string) bool {
		for _, line := range strings.Split(string(lfOnly(data)), "\n") {
			if line == "" || line[0] == ' ' || line[0] == '\t' {
				continue
			}
			if f := strings.Fields(line); len(f) > 0 && f[0] == field {
				return true
			}
		}
		return false
	}
}

// originalGiven reports whether an original file has a line for field.
func originalGiven(data []byte) func(string) bool {
	return func(field string) bool {
		for _, line := range strings.Split(string(lfOnly(data)), "\n") {
			var obj struct{ Name string }
			if json.Unmarshal([]byte(line), &obj) == nil && obj.Name == field {
				return true
			}
		}
		return false
	}
}

// checkRoundTrip asserts what every parsed workload must be: valid, and
// written in the native format it reads back equal, and is written the
// same again.
func checkRoundTrip(t *testing.T, w *Workload) {
	t.Helper()
	if err := w.Validate(); err != nil {
		t.Fatalf("a parsed workload fails Validate: %v", err)
	}
	var b bytes.Buffer
	if err := Write(&b, w); err != nil {
		t.Fatalf("Write: %v", err)
	}
	got, err := Parse(bytes.NewReader(b.Bytes()), "written.workload")
	if err != nil {
		t.Fatalf("the written workload does not read back: %v\n%s", err, b.String())
	}
	if d := diff(w, got); d != "" {
		t.Fatalf("the written workload reads back different:\n%s\n%s", d, b.String())
	}
	var b2 bytes.Buffer
	if err := Write(&b2, got); err != nil || !bytes.Equal(b.Bytes(), b2.Bytes()) {
		t.Fatalf("a second Write differs (%v):\n%s\n%s", err, b.String(), b2.String())
	}
}

func addBuiltins(f *testing.F) {
	for _, name := range builtinList() {
		data, err := builtinFS.ReadFile("builtin/" + name + builtinExt)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
}

// FuzzParse: the native parser either returns a workload that is valid
// and round-trips through Write, or an *Error at a line of the input.
func FuzzParse(f *testing.F) {
	addBuiltins(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		const file = "fuzz.workload"
		w, err := Parse(bytes.NewReader(data), file)
		if err != nil {
			if w != nil {
				t.Fatal("a workload returned with an error")
			}
			checkError(t, err, file, data, nativeGiven(data))
			return
		}
		checkRoundTrip(t, w)
	})
}

// FuzzParseOriginal: the original-format parser either returns a workload
// that is valid and converts to the native format without loss, or an
// *Error at a line of the input.
func FuzzParseOriginal(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		const file = "fuzz.json"
		w, err := ParseOriginal(bytes.NewReader(data), file)
		if err != nil {
			if w != nil {
				t.Fatal("a workload returned with an error")
			}
			checkError(t, err, file, data, originalGiven(data))
			return
		}
		checkRoundTrip(t, w)
	})
}

// FuzzLoad: reading a file's bytes (what Load and Resolve do after
// reading the file) picks the format by the first non-blank byte; a
// leading byte order mark and CRLF or CR line ends change nothing.
func FuzzLoad(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		const file = "fuzz.workload"
		w, err := parseBytes(data, file)
		var parse func(io.Reader, string) (*Workload, error) = Parse
		given := nativeGiven(data)
		if isOriginal(data) {
			parse, given = ParseOriginal, originalGiven(data)
		}
		if err != nil {
			checkError(t, err, file, data, given)
		} else {
			checkRoundTrip(t, w)
		}
		// The format the first byte picks is the one that reads it: the
		// other parser's result does not matter, this one's must agree.
		w2, err2 := parse(bytes.NewReader(bytes.TrimPrefix(data, []byte("\ufeff"))), file)
		same(t, "the parser of the sniffed format", w, err, w2, err2)
		if bytes.IndexByte(data, '\r') < 0 {
			crlf := bytes.ReplaceAll(data, []byte("\n"), []byte("\r\n"))
			w3, err3 := parseBytes(append([]byte("\ufeff"), crlf...), file)
			same(t, "with a BOM and CRLF line ends", w, err, w3, err3)
			cr := bytes.ReplaceAll(data, []byte("\n"), []byte("\r"))
			w4, err4 := parseBytes(cr, file)
			same(t, "with CR line ends", w, err, w4, err4)
		}
	})
}

// same asserts two parses agree: equal workloads, or errors at the same
// line and field.
func same(t *testing.T, what string, w1 *Workload, err1 error, w2 *Workload, err2 error) {
	t.Helper()
	switch {
	case (err1 == nil) != (err2 == nil):
		t.Fatalf("%s: error %v, then %v", what, err1, err2)
	case err1 != nil:
		e1, e2 := err1.(*Error), err2.(*Error)
		if e1.Line != e2.Line || e1.Field != e2.Field {
			t.Fatalf("%s: error %v, then %v", what, err1, err2)
		}
	default:
		if d := diff(w1, w2); d != "" {
			t.Fatalf("%s: the workloads differ:\n%s", what, d)
		}
	}
}
