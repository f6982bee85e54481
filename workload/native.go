package workload

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/taobench/taobench/tao"
)

// maxLine bounds one line of either format (the original's longest is a few
// kilobytes).
const maxLine = 16 << 20

// maxToken bounds one value:weight entry and a scalar value other than name
// and description: names and numbers are short, and messages quote them.
const maxToken = 100

// lineReader reads a workload file a line at a time and refuses what is not
// a text file: a line with a NUL byte or invalid UTF-8, or one longer than
// maxLine. Its errors are *Error with the file and line.
type lineReader struct {
	r    *bufio.Reader
	file string
	n    int // the number of the line last returned
	buf  []byte
}

func newLineReader(r io.Reader, file string) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(&crReader{r: r}, 64<<10), file: file}
}

// crReader turns every line ending, \n, \r\n or a lone \r (classic Mac OS,
// and what some tools still write), into \n. Without it a file with CR
// endings was one long line, and the parser reported the fields on it
// missing.
type crReader struct {
	r      io.Reader
	afterC bool // the last byte read was \r: a \n now ends the same line
}

func (c *crReader) Read(p []byte) (int, error) {
	for {
		n, err := c.r.Read(p)
		w := 0
		for _, b := range p[:n] {
			switch {
			case b == '\n' && c.afterC:
				c.afterC = false
				continue
			case b == '\r':
				b = '\n'
				c.afterC = true
			default:
				c.afterC = false
			}
			p[w] = b
			w++
		}
		// A read of only the \n of a \r\n gives nothing; read on rather
		// than return 0 bytes with no error.
		if w > 0 || n == 0 || err != nil {
			return w, err
		}
	}
}

// next returns the next line without its line ending (\n, \r\n or \r) and, on
// the first line, without a UTF-8 byte order mark. It returns io.EOF after
// the last line. The line is valid until the next call.
func (lr *lineReader) next() ([]byte, error) {
	lr.buf = lr.buf[:0]
	for {
		chunk, err := lr.r.ReadSlice('\n')
		if len(lr.buf)+len(chunk) > maxLine {
			lr.n++
			return nil, lr.tooLong(append(lr.buf, chunk...))
		}
		lr.buf = append(lr.buf, chunk...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == io.EOF && len(lr.buf) == 0 {
			return nil, io.EOF
		}
		if err != nil && err != io.EOF {
			return nil, &Error{File: lr.file, Line: lr.n + 1, Msg: fmt.Sprintf("reading: %v", err)}
		}
		break
	}
	lr.n++
	line := bytes.TrimSuffix(lr.buf, []byte("\n"))
	if lr.n == 1 {
		// Any number of byte order marks: Load already took one off, so
		// a file must read the same with one more or one less.
		line = bytes.TrimLeft(line, "\ufeff")
	}
	if i := notText(line, false); i >= 0 {
		return nil, lr.binary(line, i)
	}
	return line, nil
}

// notText returns the offset of the first NUL byte or invalid UTF-8 in b,
// or -1. With partial, b is the start of a longer line and a character cut
// at its end is not invalid.
func notText(b []byte, partial bool) int {
	if bytes.IndexByte(b, 0) < 0 && utf8.Valid(b) {
		return -1
	}
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		switch {
		case r == 0:
			return i
		case r == utf8.RuneError && size == 1:
			if partial && !utf8.FullRune(b[i:]) {
				return -1
			}
			return i
		}
		i += size
	}
	return -1
}

func (lr *lineReader) binary(line []byte, at int) *Error {
	what := "a NUL byte"
	if line[at] != 0 {
		what = "invalid UTF-8"
	}
	return &Error{File: lr.file, Line: lr.n, Msg: fmt.Sprintf(
		"this does not look like a workload file (binary data: %s at byte %d of the line, which starts %s); "+
			"give a text file in the native format or the original JSON lines (docs/workloads.md)",
		what, at+1, quote(string(line)))}
}

func (lr *lineReader) tooLong(start []byte) *Error {
	if lr.n == 1 {
		start = bytes.TrimLeft(start, "\ufeff")
	}
	if i := notText(start, true); i >= 0 {
		return lr.binary(start, i)
	}
	return &Error{File: lr.file, Line: lr.n, Msg: fmt.Sprintf(
		"the line is longer than %d MB (it starts %s); this does not look like a workload file, "+
			"whose lines hold one field each (a long native distribution continues on indented lines)",
		maxLine>>20, quote(string(start)))}
}

// Parse reads a workload in the native format (docs/workloads.md). file
// names the source in errors and gives the name when the file has none.
// Errors are *Error.
func Parse(r io.Reader, file string) (*Workload, error) {
	lr := newLineReader(r, file)
	var entries []*entry
	first := map[string]int{} // field -> its line
	var cur *entry
	for {
		b, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		n, line := lr.n, string(b)
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
			switch {
			case rest == "":
				return nil, &Error{File: file, Line: n, Field: name, Msg: "no value; write the field name, a space and its value"}
			case len(rest) > maxToken && name != "name" && name != "description":
				return nil, &Error{File: file, Line: n, Field: name, Msg: fmt.Sprintf("the value %s has %d bytes; this field takes a short name or number", quote(rest), len(rest))}
			}
			cur.scalar = rest
			continue
		}
		if err := addPairs(cur, rest, n); err != nil {
			return nil, at(err, file, n)
		}
	}
	return build(entries, file)
}

// addPairs appends the value:weight pairs of one line to e.
func addPairs(e *entry, text string, line int) error {
	for _, tok := range strings.Fields(text) {
		if len(tok) > maxToken {
			return errorf(e.field, "the entry %s has %d bytes; an entry is value:weight with a short name or number, such as read:171", quote(tok), len(tok))
		}
		i := strings.LastIndexByte(tok, ':')
		if i <= 0 || i == len(tok)-1 {
			return errorf(e.field, "%s is not value:weight; write each entry as value:weight, such as read:171", quote(tok))
		}
		wt, err := strconv.ParseFloat(tok[i+1:], 64)
		if err != nil {
			return errorf(e.field, "the weight of %s is not a number; write value:weight, such as read:171", quote(tok))
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
	scalar("read_key_skew", formatSkew(wl.ClassSkew(tao.Read)))
	scalar("write_key_skew", formatSkew(wl.ClassSkew(tao.Write)))
	scalar("write_txn_key_skew", formatSkew(wl.ClassSkew(tao.WriteTxn)))
	scalar("hotspot_overlap", formatFloat(wl.HotspotOverlap))
	scalar("range_limit", strconv.Itoa(wl.RangeLimit))
	if len(wl.RangeLimits.Values) > 0 {
		writeInts(bw, "range_limits", wl.RangeLimits)
	}
	if len(wl.ObjectPayloadSizes.Values) > 0 {
		writeInts(bw, "object_payload_sizes", wl.ObjectPayloadSizes)
	}
	scalar("edge_hit_rate", formatFraction(wl.EdgeHitRate, "natural"))
	scalar("range_nonempty", formatFraction(wl.RangeNonEmpty, "natural"))
	scalar("time_range_nonempty", formatFraction(wl.TimeRangeNonEmpty, "natural"))
	scalar("count_nonzero", formatFraction(wl.CountNonZero, "natural"))
	scalar("range_size_one", formatFraction(wl.RangeSizeOne, ""))
	scalar("edge_read_correlation", formatFraction(wl.EdgeReadCorrelation, "auto"))
	if wl.RangeMeanRows > 0 {
		scalar("range_mean_rows", formatFloat(wl.RangeMeanRows))
	}
	writeInts(bw, "edge_read_popularity", wl.EdgeReadPopularity)
	if len(wl.ObjectReadPopularity.Values) > 0 {
		writeInts(bw, "object_read_popularity", wl.ObjectReadPopularity)
	}
	if len(wl.ObjectWritePopularity.Values) > 0 {
		writeInts(bw, "object_write_popularity", wl.ObjectWritePopularity)
	}
	scalar("multi_shard_write_txns", formatFraction(wl.MultiShardWriteTxns, ""))
	scalar("multi_shard_read_txns", formatFraction(wl.MultiShardReadTxns, ""))
	scalar("edge_add_new", formatFraction(wl.EdgeAddNew, ""))
	scalar("unique_add_race", formatFraction(wl.UniqueAddRace, ""))
	scalar("racing_inserts", formatFraction(wl.RacingInserts, ""))
	scalar("racing_copies", strconv.Itoa(wl.RacingCopies))
	scalar("new_content_share", formatFraction(wl.NewContentShare, ""))
	writeLatency(bw, "read_operation_latency", wl.ReadLatency, wl.LatencyBuckets)
	writeLatency(bw, "write_operation_latency", wl.WriteLatency, wl.LatencyBuckets)
	writeLatency(bw, "write_txn_latency", wl.WriteTxnLatency, wl.LatencyBuckets)
	writeInjected(bw, wl)
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

// writeLatency writes delays as durations or, for a workload that gave the
// original's buckets, a bucket's value as its index, so it reads back equal.
func writeLatency(w io.Writer, name string, d Dist[time.Duration], buckets bool) {
	vs := make([]string, len(d.Values))
	for i, v := range d.Values {
		vs[i] = v.String()
		if buckets {
			if b := slices.Index(LatencyBucketValues[:], v); b >= 0 {
				vs[i] = strconv.Itoa(b)
			}
		}
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
// indented continuation lines; an absent (empty) one is left out. It never
// starts a continuation line with an entry whose value starts with # (a raw
// value may), which would read back as a comment.
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
		if n+1+len(pair) > width && n > 4 && pair[0] != '#' {
			b.WriteString("\n   ")
			n = 3
		}
		b.WriteString(" " + pair)
		n += 1 + len(pair)
	}
	b.WriteString("\n")
	io.WriteString(w, b.String())
}
