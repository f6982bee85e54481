package workload

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"

	"github.com/taobench/taobench/internal/jsonerr"
	"github.com/taobench/taobench/tao"
)

const lineShape = `each line is one object like {"name": "edge_types", "values": [...], "weights": [...]}`

// ParseOriginal reads a workload in the original TAOBench format: one JSON
// object per line, {"name": FIELD, ["values": [...],] "weights": [...]}.
// It is strict where the original's regular expressions were not: every
// problem stops it with an *Error naming the line and the field. Fields the
// original lacks take their defaults.
func ParseOriginal(r io.Reader, file string) (*Workload, error) {
	lr := newLineReader(r, file)
	var entries []*entry
	first := map[string]int{}
	for {
		b, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		n, line := lr.n, bytes.TrimSpace(b)
		if len(line) == 0 {
			continue
		}
		e, err := originalLine(line, n)
		if err != nil {
			return nil, at(err, file, n)
		}
		if l, ok := first[e.field]; ok {
			return nil, &Error{File: file, Line: n, Field: e.field, Msg: fmt.Sprintf("given twice (first on line %d); keep one", l)}
		}
		first[e.field] = n
		entries = append(entries, e)
	}
	return build(entries, file)
}

// originalLine decodes one line into an entry, checking its shape against
// the field it names.
func originalLine(line []byte, n int) (*entry, error) {
	var obj struct {
		Name    *string         `json:"name"`
		Values  json.RawMessage `json:"values"`
		Weights json.RawMessage `json:"weights"`
	}
	if k, ok := duplicateKey(line); ok {
		// encoding/json keeps the last silently, and an error would then
		// name whatever the copies broke, not the copies.
		return nil, errorf("", "key %s given twice in one object; keep one. %s", quote(k), lineShape)
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&obj); err != nil {
		return nil, errorf("", "invalid JSON: %s; %s", jsonError(err), lineShape)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errorf("", "text after the JSON object; %s", lineShape)
	}
	if obj.Name == nil {
		return nil, errorf("", `no "name"; %s`, lineShape)
	}
	name := *obj.Name
	f := lookupField(name)
	if f == nil || f.native {
		msg := "unknown field; the original format has: " + fieldList(true)
		if f != nil {
			msg = "exists only in the native format (docs/workloads.md); remove it or write the workload in the native format"
		}
		return nil, errorf(name, "%s", msg)
	}
	e := &entry{field: name, line: n}
	weights, err := jsonList(obj.Weights)
	if err != nil || weights == nil {
		return nil, errorf(name, `"weights" must be a list of numbers; give one weight per value`)
	}
	for i, v := range weights {
		num, ok := v.(json.Number)
		if !ok {
			return nil, errorf(name, "weight %d is %s, not a number", i+1, jsonText(v))
		}
		wt, err := num.Float64()
		if err != nil {
			return nil, errorf(name, "weight %d is %s, not a number that fits a float64", i+1, jsonText(num))
		}
		e.weights = append(e.weights, wt)
	}
	values, err := jsonList(obj.Values)
	if err != nil {
		return nil, errorf(name, `"values" must be a list; give one value per weight`)
	}
	if f.implied {
		if values != nil {
			return nil, errorf(name, `takes weights only (the values are implied by position%s); remove "values"`, impliedHint(name))
		}
		e.values = impliedValues(name, len(e.weights))
		if name == "operations" && len(e.weights) != int(tao.NumClasses) {
			return nil, errorf(name, "%d weights; give 4, for read, write, read_txn and write_txn", len(e.weights))
		}
		return e, nil
	}
	if values == nil {
		return nil, errorf(name, `no "values"; give one value per weight`)
	}
	for i, v := range values {
		s, err := originalValue(v, f.numeric, f.raw)
		if err != nil {
			return nil, errorf(name, "value %d is %s; %v", i+1, jsonText(v), err)
		}
		e.values = append(e.values, s)
	}
	return e, nil
}

// jsonList decodes a JSON list, keeping numbers exact; nil when absent.
func jsonList(raw json.RawMessage) ([]any, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var l []any
	if err := dec.Decode(&l); err != nil {
		return nil, err
	}
	if l == nil {
		l = []any{} // [] is present, and empty
	}
	return l, nil
}

func originalValue(v any, numeric, raw bool) (string, error) {
	if numeric {
		num, ok := v.(json.Number)
		if !ok {
			return "", fmt.Errorf("give a whole number")
		}
		if _, err := strconv.Atoi(num.String()); err != nil {
			return "", fmt.Errorf("give a whole number")
		}
		return num.String(), nil
	}
	s, ok := v.(string)
	switch {
	case !ok:
		return "", fmt.Errorf("give a name in quotes")
	case len(s) > maxToken:
		return "", fmt.Errorf("%d bytes; give a short name", len(s))
	case raw && !isWord(s):
		// Kept verbatim and written back in the native format, where a
		// value is one word and a line starting with # is a comment.
		return "", fmt.Errorf("give a name of one word: not empty, no spaces, not starting with #")
	}
	return s, nil
}

// isWord reports whether s can be written as a value of the native format.
func isWord(s string) bool {
	return s != "" && s[0] != '#' && !strings.ContainsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || r == 0 })
}

// jsonText is v as JSON for a message, cut like quote.
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		b = []byte(fmt.Sprint(v))
	}
	return cut(string(b)) + dots(string(b))
}

// jsonError is a decoding error for a message: an unknown key, which
// encoding/json quotes in full, is quoted like quote; a value of the wrong
// kind says what was wanted, in words (jsonerr.Kind). The other messages of
// encoding/json quote at most a character.
func jsonError(err error) string {
	const prefix = "json: unknown field "
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		// Not encoding/json's words, which name Go types.
		return fmt.Sprintf("key %s is %s, want %s", quote(te.Field), te.Value, jsonerr.Kind(te.Type))
	}
	msg := err.Error()
	if k, ok := strings.CutPrefix(msg, prefix); ok {
		if key, uerr := strconv.Unquote(k); uerr == nil {
			return "unknown field " + quote(key)
		}
	}
	return msg
}

// impliedValues are the values the original format leaves to position.
func impliedValues(field string, n int) []string {
	vs := make([]string, n)
	for i := range vs {
		vs[i] = strconv.Itoa(i)
		if field == "operations" && i < int(tao.NumClasses) {
			vs[i] = tao.Class(i).String()
		}
	}
	return vs
}

func impliedHint(field string) string {
	switch field {
	case "operations":
		return ": read, write, read_txn, write_txn"
	case "primary_shards", "remote_shards":
		return ": shard 0, 1, ..."
	case "txn_predicate_counts":
		return ": count 0, 1, ..."
	}
	return ""
}

// isOriginal reports whether data looks like the original format: its first
// non-blank byte opens a JSON object.
// duplicateKey returns a key that the JSON object in line gives twice, as
// encoding/json matches keys to fields: without regard to case. On invalid
// JSON it returns false and leaves the error to the decoder.
func duplicateKey(line []byte) (string, bool) {
	dec := json.NewDecoder(bytes.NewReader(line))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return "", false
	}
	seen := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		k, ok := t.(string)
		if err != nil || !ok {
			return "", false
		}
		if seen[strings.ToLower(k)] {
			return k, true
		}
		seen[strings.ToLower(k)] = true
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return "", false
		}
	}
	return "", false
}

func isOriginal(data []byte) bool {
	s := strings.TrimLeft(string(data), " \t\r\n\ufeff")
	return strings.HasPrefix(s, "{")
}
