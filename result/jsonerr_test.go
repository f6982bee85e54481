package result

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestReadFileJSONErrors: a results file that does not decode is refused
// in taobench's words: the file, where in it (line, key path), what was
// found and what was wanted; never the decoder's Go type names
// (result.jsonDoc, int64, time.Time).
func TestReadFileJSONErrors(t *testing.T) {
	goWords := regexp.MustCompile(`json[A-Z]\w*|result\.|time\.Time|\bint64\b|\buint64\b|float64|UnmarshalJSON|\bGo (struct|value)|of type`)
	for _, c := range []struct {
		name, doc string
		want      []string
	}{
		{"run-array", `{"run": []}`, []string{"run at line 1, column", "found array, want an object"}},
		{"edges-string", "{\n  \"run\": {\"workload\": \"a\",\n    \"edges\": \"many\"}}", []string{"run.edges at line 3", "found string, want a whole number"}},
		{"seed-negative", `{"run": {"workload": "a", "seed": -1}}`, []string{"run.seed", "found number -1, want a whole number 0 or more"}},
		{"threads-fraction", `{"run": {"workload": "a"}, "experiments": [{"threads": 1.5}]}`, []string{"experiments.threads", "found number 1.5, want a whole number"}},
		{"experiments-object", `{"run": {"workload": "a"}, "experiments": {"a": 1}}`, []string{"experiments", "found object, want an array"}},
		{"started", `{"run": {"workload": "a", "started": "yesterday"}}`, []string{`"yesterday" not in RFC 3339 form`}},
		{"started-number", `{"run": {"workload": "a", "started": 5}}`, []string{"want", "RFC 3339"}},
		{"top-array", `[1, 2]`, []string{"the document", "found array, want an object"}},
		{"truncated", `{"run": {"workload": "a", `, []string{"ends early"}},
		{"empty", ``, []string{"empty"}},
		{"syntax", "{\"run\": {\n\"workload\": 'a'}}", []string{"not valid JSON at line 2", "invalid character"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), c.name+".json")
			if err := os.WriteFile(path, []byte(c.doc), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := ReadFile(path)
			if err == nil {
				t.Fatalf("%s read", c.doc)
			}
			msg := err.Error()
			for _, w := range append([]string{path + ": not a taobench results document"}, c.want...) {
				if !strings.Contains(msg, w) {
					t.Errorf("%q does not say %q", msg, w)
				}
			}
			if m := goWords.FindString(msg); m != "" {
				t.Errorf("%q names Go's type words (%q)", msg, m)
			}
		})
	}
}
