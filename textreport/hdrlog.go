package textreport

import (
	"bufio"
	"fmt"
	"io"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/tao"
)

// WarmupTagPrefix starts the tags of the warmup's intervals in the
// HdrHistogram log: warmup_read, ...
const WarmupTagPrefix = "warmup_"

// WriteHDRLog writes the experiments' per-second histograms as an
// HdrHistogram interval log (format version 1.3, as HdrHistogram's
// HistogramLogWriter writes and its HistogramLogProcessor reads): one line
// per second and class, tagged with the class (Tag=read, ...; the warmup's
// Tag=warmup_read, ...). Timestamps are seconds since the first
// experiment's start (BaseTime); values are microseconds, Interval_Max
// milliseconds. docs/results.md, "HdrHistogram interval log".
func WriteHDRLog(w io.Writer, exps []*result.Experiment) error {
	bw := bufio.NewWriter(w)
	var base time.Time
	for _, e := range exps {
		if e != nil && (base.IsZero() || e.Started.Before(base)) {
			base = e.Started
		}
	}
	if base.IsZero() {
		base = time.Now()
	}
	ms := base.UnixMilli()
	fmt.Fprintf(bw, "#[Histogram log format version 1.3]\n")
	fmt.Fprintf(bw, "#[taobench: per-second latency histograms in microseconds (1 significant digit), one tag per request class; warmup seconds tagged %sCLASS]\n", WarmupTagPrefix)
	fmt.Fprintf(bw, "#[StartTime: %.3f (seconds since epoch), %s]\n", float64(ms)/1000, base.UTC().Format(time.RFC3339Nano))
	fmt.Fprintf(bw, "#[BaseTime: %.3f (seconds since epoch)]\n", float64(ms)/1000)
	fmt.Fprintf(bw, "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"\n")
	var err error
	for i, e := range exps {
		if e == nil {
			continue
		}
		fmt.Fprintf(bw, "#[experiment %d: %d threads, warmup %s s, duration %s s, started %.3f s after BaseTime]\n",
			i+1, e.Threads, num(e.Warmup.Seconds()), num(e.Duration.Seconds()), e.Started.Sub(base).Seconds())
		// Second 0 is the start of measurement, Warmup after the start.
		zero := e.Started.Add(e.Warmup).Sub(base).Seconds()
		e.Sum().EachSecond(func(sec int, warmup bool, c tao.Class, h *hdrhistogram.Histogram) {
			if err != nil {
				return
			}
			tag := c.String()
			if warmup {
				tag = WarmupTagPrefix + tag
			}
			var enc []byte
			if enc, err = h.Encode(hdrhistogram.V2CompressedEncodingCookieBase); err != nil {
				err = fmt.Errorf("experiment %d, second %d, %s: %w", i+1, sec, c, err)
				return
			}
			start := max(zero+float64(sec), 0)
			fmt.Fprintf(bw, "Tag=%s,%.3f,%.3f,%.3f,%s\n", tag, start, 1.0, float64(h.Max())/1000, enc)
		})
		if err != nil {
			return err
		}
	}
	return bw.Flush()
}
