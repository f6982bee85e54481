// Package jsonerr says why JSON did not decode in taobench's words, for
// the readers of files a user hands taobench (results files, original
// TAOBench workload lines): where, what was found and what was wanted,
// never encoding/json's Go type names.
package jsonerr

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"time"
)

// Explain says in taobench's words why data did not decode (err, from
// encoding/json): where (line, column, the key's path such as run.edges),
// what was found and what was expected, never the decoder's Go type names
// (result.jsonDoc, int64).
func Explain(data []byte, err error) error {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	var pe *time.ParseError
	switch {
	case errors.As(err, &te):
		where := te.Field
		if where == "" {
			where = "the document"
		}
		return fmt.Errorf("%s at %s: found %s, want %s", where, position(data, te.Offset), te.Value, Kind(te.Type))
	case errors.As(err, &se):
		return fmt.Errorf("not valid JSON at %s: %s", position(data, se.Offset), se.Error())
	case errors.Is(err, io.EOF):
		return errors.New("empty: no JSON document")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errors.New("the JSON ends early (a file cut short?)")
	case errors.As(err, &pe):
		return fmt.Errorf("a time %q not in RFC 3339 form (2006-01-02T15:04:05Z)", pe.Value)
	case strings.HasPrefix(err.Error(), "Time.UnmarshalJSON"):
		// A time that is not a string: the decoder gives no place.
		return errors.New("a time that is not a string: want an RFC 3339 string (\"2006-01-02T15:04:05Z\")")
	}
	return err
}

// position is "line L, column C" of byte offset off in data (the decoders'
// offsets count the bytes read, so the one before it is the culprit's).
func position(data []byte, off int64) string {
	off = min(max(off, 0), int64(len(data)))
	before := data[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	col := len(before) - bytes.LastIndexByte(before, '\n') - 1
	return fmt.Sprintf("line %d, column %d", line, max(col, 1))
}

// Kind names what a value of Go type t is in JSON, for a person: "a whole
// number", "an array".
func Kind(t reflect.Type) string {
	if t == nil {
		return "another value"
	}
	if t == reflect.TypeFor[time.Time]() {
		return "a time as an RFC 3339 string"
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "a whole number"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number 0 or more"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Pointer:
		return Kind(t.Elem())
	}
	return "another value"
}
