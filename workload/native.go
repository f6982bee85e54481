package workload

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// maxLine bounds one line of either format (the original's longest is a few
// kilobytes).
const maxLine = 16 << 20

// Parse reads a workload in the native format (docs/workloads.md). file
// names the source in errors and gives the name when the file has none.
// Errors are *Error.
func Parse(r io.Reader, file string) (*Workload, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	var entries []*entry
	first := map[string]int{} // field -> its line
	var cur *entry
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		text := strings.TrimSpace(line)
		if text == "" || text[0] == '#' {
			continue
		}
		if line[0] == ' ' || line[0] == '\t' {
			switch {
			case cur == nil:
				return nil, &Error{File: file, Line: n, Msg: "an indented line continues the field above, but there is none; start the line with a field name"}
			case lookupField(cur.field).scalar:
				return nil, &Error{File: file, Line: n, Field: cur.field, Msg: "a scalar field takes one line; remove the indentation if this is another field"}
			}
			if err := addPairs(cur, text, n); err != nil {
				return nil, at(err, file, n)
			}
			continue
		}
		name, rest := text, ""
		if i := strings.IndexAny(text, " \t"); i >= 0 {
			name, rest = text[:i], text[i+1:]
		}
		f := lookupField(name)
		if f == nil {
			return nil, &Error{File: file, Line: n, Field: name, Msg: "unknown field; fields are: " + fieldList(false)}
		}
		if l, ok := first[name]; ok {
			return nil, &Error{File: file, Line: n, Field: name, Msg: fmt.Sprintf("given twice (first on line %d); keep one", l)}
		}
		first[name] = n
		cur = &entry{field: name, line: n}
		entries = append(entries, cur)
		rest = strings.TrimSpace(rest)
		if f.scalar {
			if rest == "" {
				return nil, &Error{File: file, Line: n, Field: name, Msg: "no value; write the field name, a space and its value"}
			}
			cur.scalar = rest
			continue
		}
		if err := addPairs(cur, rest, n); err != nil {
			return nil, at(err, file, n)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, &Error{File: file, Msg: fmt.Sprintf("reading: %v", err)}
	}
	return build(entries, file)
}

// addPairs appends the value:weight pairs of one line to e.
func addPairs(e *entry, text string, line int) error {
	for _, tok := range strings.Fields(text) {
		i := strings.LastIndexByte(tok, ':')
		if i <= 0 || i == len(tok)-1 {
			return errorf(e.field, "%q is not value:weight; write each entry as value:weight, such as read:171", tok)
		}
		wt, err := strconv.ParseFloat(tok[i+1:], 64)
		if err != nil {
			return errorf(e.field, "the weight of %q is not a number; write value:weight, such as read:171", tok)
		}
		e.values = append(e.values, tok[:i])
		e.lines = append(e.lines, line)
		e.weights = append(e.weights, wt)
	}
	return nil
}

// Write writes wl in the native format, every field explicit, so that Parse
// reads back an equal workload. It refuses a workload that fails Validate.
func Write(w io.Writer, wl *Workload) error {
	if err := wl.Validate(); err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# taobench workload (format: docs/workloads.md)\n")
	scalar := func(name, v string) {
		if v != "" {
			fmt.Fprintf(bw, "%s %s\n", name, v)
		}
	}
	scalar("name", wl.Name)
	scalar("description", wl.Description)
	writeDist(bw, "operations", wl.Requests)
	writeInts(bw, "read_txn_sizes", wl.ReadTxnSizes)
	writeInts(bw, "write_txn_sizes", wl.WriteTxnSizes)
	writeInts(bw, "primary_shards", wl.PrimaryShards)
	writeInts(bw, "remote_shards", wl.RemoteShards)
	writeDist(bw, "read_operation_types", wl.ReadKinds)
	writeDist(bw, "write_operation_types", wl.WriteKinds)
	writeDist(bw, "read_txn_operation_types", wl.ReadTxnKinds)
	writeDist(bw, "write_txn_operation_types", wl.WriteTxnKinds)
	writeDist(bw, "edge_types", wl.EdgeTypes)
	writeDist(bw, "operation_predicates", wl.OpPredicates)
	writeDist(bw, "txn_predicates", wl.TxnPredicates)
	writeInts(bw, "txn_predicate_counts", wl.TxnPredicateCounts)
	writeDist(bw, "read_tiers", wl.ReadTiers)
	writeInts(bw, "payload_sizes", wl.PayloadSizes)
	writeInts(bw, "outdegree", wl.Outdegree)
	scalar("max_outdegree", strconv.Itoa(wl.MaxOutdegree))
	scalar("empty_slots", formatFloat(wl.EmptySlots))
	scalar("key_skew", formatSkew(wl.KeySkew))
	scalar("range_limit", strconv.Itoa(wl.RangeLimit))
	if len(wl.Raw) > 0 {
		fmt.Fprintf(bw, "# read but not applied yet\n")
	}
	for _, r := range wl.Raw {
		writePairs(bw, r.Name, r.Values, r.Weights)
	}
	return bw.Flush()
}

func writeDist[T interface {
	comparable
	fmt.Stringer
}](w io.Writer, name string, d Dist[T]) {
	vs := make([]string, len(d.Values))
	for i, v := range d.Values {
		vs[i] = v.String()
	}
	writePairs(w, name, vs, d.Weights)
}

func writeInts(w io.Writer, name string, d Dist[int]) {
	vs := make([]string, len(d.Values))
	for i, v := range d.Values {
		vs[i] = strconv.Itoa(v)
	}
	writePairs(w, name, vs, d.Weights)
}

// writePairs writes one distribution field, wrapping long ones onto
// indented continuation lines; an absent (empty) one is left out.
func writePairs(w io.Writer, name string, values []string, weights []float64) {
	const width = 100
	if len(values) == 0 {
		return
	}
	var b strings.Builder
	b.WriteString(name)
	n := len(name)
	for i, v := range values {
		pair := v + ":" + formatFloat(weights[i])
		if n+1+len(pair) > width && n > 4 {
			b.WriteString("\n   ")
			n = 3
		}
		b.WriteString(" " + pair)
		n += 1 + len(pair)
	}
	b.WriteString("\n")
	io.WriteString(w, b.String())
}
