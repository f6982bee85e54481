// Package htmlreport writes one self-contained HTML page (charts, tables,
// comparisons) from taobench result files: docs/results.md, "HTML report".
// The charting library, uPlot, is embedded, so the page needs no network.
package htmlreport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/taobench/taobench/report"
	"github.com/taobench/taobench/result"
)

// File is one result file as the page shows it.
type File struct {
	Name string // as given; labels the file on the page
	Doc  *result.Doc
	// Resources holds, per experiment, the scalar fields of its optional
	// "resources" object, flattened; nil when the experiment has none. The
	// object's shape is not fixed, so nothing here depends on it.
	Resources [][]Field
}

// Field is one flattened scalar: a dotted key and its value as text.
type Field struct{ Key, Value string }

// Parse reads one result document. Errors say what is wrong; the caller
// names the file.
func Parse(name string, data []byte) (*File, error) {
	doc, err := report.ReadJSON(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	// report.ReadJSON keeps only the keys it knows: read "resources" apart.
	var raw struct {
		Experiments []struct {
			Resources json.RawMessage `json:"resources"`
		} `json:"experiments"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, err
	}
	f := &File{Name: name, Doc: doc, Resources: make([][]Field, len(doc.Experiments))}
	for i, x := range raw.Experiments {
		if i >= len(f.Resources) || len(x.Resources) == 0 {
			continue
		}
		var v any
		if json.Unmarshal(x.Resources, &v) == nil {
			if m, ok := v.(map[string]any); ok {
				f.Resources[i] = flatten("", m, 0)
			}
		}
	}
	return f, nil
}

// flatten lists an object's scalar fields with dotted keys, in key order;
// arrays of numbers are summarised, other arrays counted.
func flatten(prefix string, m map[string]any, depth int) []Field {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []Field
	for _, k := range keys {
		key := prefix + k
		switch v := m[k].(type) {
		case map[string]any:
			if depth < 3 {
				out = append(out, flatten(key+".", v, depth+1)...)
			}
		case []any:
			out = append(out, Field{key, summarise(v)})
		case float64:
			out = append(out, Field{key, num(v)})
		case string:
			out = append(out, Field{key, v})
		case bool:
			out = append(out, Field{key, fmt.Sprint(v)})
		}
	}
	return out
}

func summarise(a []any) string {
	var lo, hi, sum float64
	n := 0
	for _, x := range a {
		f, ok := x.(float64)
		if !ok {
			return fmt.Sprintf("%d items", len(a))
		}
		if n == 0 || f < lo {
			lo = f
		}
		if n == 0 || f > hi {
			hi = f
		}
		sum += f
		n++
	}
	if n == 0 {
		return "no values"
	}
	return fmt.Sprintf("%d values: min %s, mean %s, max %s", n, num(lo), num(sum/float64(n)), num(hi))
}

// num prints a number briefly: integers whole, others with 4 significant
// digits.
func num(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return fmt.Sprintf("%.0f", f)
	}
	return strings.TrimSuffix(fmt.Sprintf("%.4g", f), ".")
}
