package textreport

import (
	"bufio"
	"bytes"
	"io"
	"math"
	"strconv"
	"strings"
	"testing"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/tao"
)

// TestHDRLog writes the log of known samples and reads it back twice: with
// a minimal reader of the format (legend, header lines, one line per
// interval and tag), whose counts per tag and second must be the
// timeline's, and with hdrhistogram-go's own log reader.
func TestHDRLog(t *testing.T) {
	t.Parallel()
	ss := samples(5000)
	e := experimentOf(1, ss, nil)
	var b bytes.Buffer
	if err := WriteHDRLog(&b, []*result.Experiment{e}); err != nil {
		t.Fatal(err)
	}
	log := b.String()
	for _, want := range []string{"#[StartTime: ", "#[BaseTime: ", "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"\n"} {
		if !strings.Contains(log, want) {
			t.Errorf("the log has no %q:\n%.600s", want, log)
		}
	}

	// The minimal reader: counts by tag and interval start.
	got := map[string]int64{}
	sc := bufio.NewScanner(strings.NewReader(log))
	sc.Buffer(nil, 1<<20)
	lines := 0
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || strings.HasPrefix(line, `"StartTimestamp"`) {
			continue
		}
		f := strings.Split(line, ",")
		if len(f) != 5 || !strings.HasPrefix(f[0], "Tag=") {
			t.Fatalf("interval line %q: want Tag=T,start,length,max,histogram", line)
		}
		start, err1 := strconv.ParseFloat(f[1], 64)
		length, err2 := strconv.ParseFloat(f[2], 64)
		if err1 != nil || err2 != nil || length != 1 {
			t.Fatalf("interval line %q: start %v, length %v", line, err1, err2)
		}
		h, err := hdrhistogram.Decode([]byte(f[4]))
		if err != nil {
			t.Fatalf("interval line %q: %v", line, err)
		}
		// The experiment starts at BaseTime; second 0 is Warmup later.
		sec := int(math.Round(start - e.Warmup.Seconds()))
		got[f[0][len("Tag="):]+"@"+strconv.Itoa(sec)] += h.TotalCount()
		lines++
	}
	data, err := e.Sum().Data()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{}
	var total int64
	for _, x := range data.Timeline {
		for c := range tao.NumClasses {
			var n int64
			for _, v := range x.Requests[c.String()] {
				n += v
			}
			if n == 0 {
				continue
			}
			tag := c.String()
			if x.Warmup {
				tag = WarmupTagPrefix + tag
			}
			want[tag+"@"+strconv.Itoa(x.Second)] = n
			total += n
		}
	}
	if total != int64(len(ss)) || len(got) != len(want) {
		t.Fatalf("%d intervals in the log, %d in the timeline; %d requests in the timeline, %d recorded", len(got), len(want), total, len(ss))
	}
	for k, n := range want {
		if got[k] != n {
			t.Errorf("interval %s: %d values in the log, %d in the timeline", k, got[k], n)
		}
	}

	// hdrhistogram-go's reader reads every interval, tags and all.
	r := hdrhistogram.NewHistogramLogReader(strings.NewReader(log))
	var n, read int64
	for {
		h, err := r.NextIntervalHistogram()
		if err == io.EOF || h == nil && err == nil {
			break
		}
		if err != nil {
			t.Fatalf("hdrhistogram-go's log reader: %v", err)
		}
		n += h.TotalCount()
		if h.Tag() == "read" {
			read += h.TotalCount()
		}
		lines--
	}
	if n != int64(len(ss)) || lines != 0 || read == 0 {
		t.Errorf("hdrhistogram-go's log reader: %d values (%d of tag read), %d lines unread; want %d", n, read, lines, len(ss))
	}
}
