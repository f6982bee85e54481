package textreport

import (
	"strings"
	"testing"
)

func TestParseFormats(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want string // names joined by commas, or "error: substring"
	}{
		{"text", "text"},
		{"json", "json"},
		{"text,json", "text,json"},
		{" JSON , text,json", "json,text"},
		{"html", "error: unknown format \"html\"; give one or more of text, json"},
		{",", "error: no format"},
	} {
		rs, err := ParseFormats("--format", tc.in)
		if err != nil {
			if !strings.HasPrefix(tc.want, "error: ") || !strings.Contains(err.Error(), strings.TrimPrefix(tc.want, "error: ")) {
				t.Errorf("ParseFormats(%q): %v, want %s", tc.in, err, tc.want)
			}
			if !strings.Contains(err.Error(), "--format") {
				t.Errorf("ParseFormats(%q): %v does not name the flag", tc.in, err)
			}
			continue
		}
		var names []string
		for _, r := range rs {
			names = append(names, r.Name)
			if (r.Experiment == nil) == (r.Run == nil) {
				t.Errorf("reporter %s must write either per experiment or per run", r.Name)
			}
		}
		if got := strings.Join(names, ","); got != tc.want {
			t.Errorf("ParseFormats(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}
