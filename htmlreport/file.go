// Package htmlreport writes one self-contained HTML page (charts, tables,
// comparisons) from taobench result files: docs/results.md, "HTML report".
// The charting library, uPlot, is embedded, so the page needs no network.
package htmlreport

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/taobench/taobench/result"
)

// File is one result file as the page shows it.
type File struct {
	Name string // as given; labels the file on the page
	Doc  *result.Doc
}

// Field is one row of a key-value table: a label and its value as text.
type Field struct{ Key, Value string }

// resourceFields lists what an experiment cost the driver and what the
// server counted over it (docs/results.md, "Resources"); nil when the
// experiment recorded nothing.
func resourceFields(r *result.Resources) []Field {
	if r == nil {
		return nil
	}
	d := r.Driver
	var out []Field
	if len(d.Samples) > 0 || d.CPUPct > 0 {
		out = append(out,
			Field{"driver CPU (% of a core)", num(d.CPUPct)},
			Field{"driver CPU user / sys (s)", num(d.User.Seconds()) + " / " + num(d.Sys.Seconds())},
			Field{"driver RSS, largest (MiB)", num(float64(d.MaxRSS) / (1 << 20))},
			Field{"driver samples", fmt.Sprint(len(d.Samples))})
	}
	if d.Error != "" {
		out = append(out, Field{"driver: not read", d.Error})
	}
	if s := r.Server; s != nil {
		out = append(out, Field{"server", s.Engine})
		if s.Product != "" {
			out = append(out, Field{"server product", s.Product})
		}
		for _, k := range sortedKeys(s.After.SizeBytes) {
			out = append(out, Field{"size of " + k + " (MiB), before → after",
				num(float64(s.Before.SizeBytes[k])/(1<<20)) + " → " + num(float64(s.After.SizeBytes[k])/(1<<20))})
		}
		for _, k := range sortedKeys(s.Deltas) {
			if s.Deltas[k] != 0 {
				out = append(out, Field{"Δ " + k, fmt.Sprint(s.Deltas[k])})
			}
		}
		for _, t := range sortedKeys(s.TableDeltas) {
			for _, k := range sortedKeys(s.TableDeltas[t]) {
				if v := s.TableDeltas[t][k]; v != 0 {
					out = append(out, Field{"Δ " + t + "." + k, fmt.Sprint(v)})
				}
			}
		}
		if s.Error != "" {
			out = append(out, Field{"server: not read", s.Error})
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// num prints a number briefly: integers whole, others with 4 significant
// digits.
func num(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return fmt.Sprintf("%.0f", f)
	}
	return strings.TrimSuffix(fmt.Sprintf("%.4g", f), ".")
}
