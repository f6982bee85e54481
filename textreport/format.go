package textreport

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/taobench/taobench/result"
)

// A Reporter writes results in one format, as vegeta's reporters do. Text is
// written per experiment as each ends; a document format (JSON) once for the
// whole run, so Experiment does nothing for it and Run writes the document.
type Reporter struct {
	Name string
	// Experiment writes one finished experiment of run (nil: not known);
	// nil for document formats.
	Experiment func(w io.Writer, run *result.Run, e *result.Experiment) error
	// Run writes the whole run; nil for streamed formats.
	Run func(w io.Writer, run *result.Run, exps []*result.Experiment) error
}

// Reporters are the formats --format chooses from, by name.
var Reporters = []Reporter{
	{Name: "text", Experiment: WriteTextRun},
	{Name: "json", Run: result.WriteJSON},
}

// ParseFormats parses a comma-separated list of formats, such as
// "text,json", into reporters in the order given; a name given twice counts
// once. flag names the flag in errors.
func ParseFormats(flag, list string) ([]Reporter, error) {
	var names []string
	for _, r := range Reporters {
		names = append(names, r.Name)
	}
	var out []Reporter
	var seen []string
	for _, f := range strings.Split(list, ",") {
		f = strings.ToLower(strings.TrimSpace(f))
		if f == "" || slices.Contains(seen, f) {
			continue
		}
		i := slices.Index(names, f)
		if i < 0 {
			return nil, fmt.Errorf("%s %q: unknown format %q; give one or more of %s, separated by commas (e.g. text,json)",
				flag, list, f, strings.Join(names, ", "))
		}
		seen = append(seen, f)
		out = append(out, Reporters[i])
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s %q: no format; give one or more of %s, e.g. text", flag, list, strings.Join(names, ", "))
	}
	return out, nil
}

// WriteReports writes the experiment just ended (the last of done) in the
// streamed formats of reporters and, when the run is over (final), the
// whole run in the document formats, to w.
func WriteReports(w io.Writer, reporters []Reporter, info *result.Run, done []*result.Experiment, final bool) error {
	for _, r := range reporters {
		switch {
		case r.Experiment != nil && len(done) > 0:
			if err := r.Experiment(w, info, done[len(done)-1]); err != nil {
				return err
			}
		case r.Run != nil && final:
			if err := r.Run(w, info, done); err != nil {
				return fmt.Errorf("--format %s: %w", r.Name, err)
			}
		}
	}
	return nil
}
