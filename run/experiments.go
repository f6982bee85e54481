package run

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// MinDuration is the shortest measured window a command accepts: a window
// shorter than a few requests' latency measures next to nothing, and the
// results of one that measured nothing would replace real ones.
const MinDuration = 100 * time.Millisecond

// ParseDuration accepts Go duration syntax ("90s", "2m", "1m30s") and bare
// seconds ("60", "2.5"), as the original's experiments files use.
func ParseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		switch {
		case math.IsNaN(f):
			return 0, fmt.Errorf("duration %s is not a number: use seconds (60) or Go syntax (90s, 2m)", quote(s))
		case f < 0:
			return 0, fmt.Errorf("duration %s is negative", quote(s))
		case f*float64(time.Second) >= math.MaxInt64:
			// Converting it would overflow into a negative duration.
			return 0, fmt.Errorf("duration %s is too long: over 292 years", quote(s))
		}
		return time.Duration(f * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("duration %s: use seconds (60) or Go syntax (90s, 2m)", quote(s))
	}
	if d < 0 {
		return 0, fmt.Errorf("duration %s is negative", quote(s))
	}
	return d, nil
}

// quote returns s in Go quotes, escaped and cut to its first 40 bytes (then
// followed by "..."), for messages that name what a user wrote.
func quote(s string) string {
	const max = 40
	if len(s) <= max {
		return strconv.Quote(s)
	}
	n := max
	for n > max-utf8.UTFMax && !utf8.RuneStart(s[n]) {
		n--
	}
	return strconv.Quote(s[:n]) + "..."
}

// maxExperimentLine bounds a line of an experiments file; bufio's default.
const maxExperimentLine = bufio.MaxScanTokenSize

// ParseExperiments reads an experiments file of the original format: one
// experiment a line, "threads,warmup,duration", with '#' comments and blank
// lines ignored. An optional fourth field is the target rate in requests
// per second (open loop; 0 or absent: closed loop), where the original once
// had its target throughput. Errors name the file and line.
func ParseExperiments(r io.Reader, file string) ([]Experiment, error) {
	var exps []Experiment
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxExperimentLine)
	n := 1
	for ; sc.Scan(); n++ {
		line := sc.Text()
		if n == 1 {
			line = strings.TrimPrefix(line, "\ufeff")
		}
		if strings.IndexByte(line, 0) >= 0 || !utf8.ValidString(line) {
			return nil, fmt.Errorf("%s:%d: this does not look like an experiments file (binary data: a NUL byte or invalid UTF-8 in the line, which starts %s); "+
				"write one experiment a line as threads,warmup,duration (e.g. 16,10,60)", file, n, quote(line))
		}
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		f := strings.Split(line, ",")
		if len(f) != 3 && len(f) != 4 {
			return nil, fmt.Errorf("%s:%d: %s has %d fields; write threads,warmup,duration[,rate] (e.g. 16,10,60 or 16,10,60,5000)", file, n, quote(line), len(f))
		}
		threads, err := strconv.Atoi(strings.TrimSpace(f[0]))
		if err != nil || threads < 1 || threads > MaxClients {
			return nil, fmt.Errorf("%s:%d: threads %s: give a whole number from 1 to %d", file, n, quote(strings.TrimSpace(f[0])), MaxClients)
		}
		warmup, err := ParseDuration(f[1])
		if err != nil {
			return nil, fmt.Errorf("%s:%d: warmup: %v", file, n, err)
		}
		dur, err := ParseDuration(f[2])
		if err != nil {
			return nil, fmt.Errorf("%s:%d: duration: %v", file, n, err)
		}
		if dur < MinDuration {
			return nil, fmt.Errorf("%s:%d: duration %v: give at least %v (a shorter window measures next to nothing)", file, n, dur, MinDuration)
		}
		var rate float64
		if len(f) == 4 {
			r := strings.TrimSpace(f[3])
			rate, err = strconv.ParseFloat(r, 64)
			if err != nil || CheckRate(rate) != nil {
				return nil, fmt.Errorf("%s:%d: rate %s: give 0 (closed loop) or a target in requests per second up to %g, e.g. 5000", file, n, quote(r), float64(MaxRate))
			}
		}
		exps = append(exps, Experiment{Threads: threads, Warmup: warmup, Duration: dur, Rate: rate})
	}
	if err := sc.Err(); err != nil {
		if err == bufio.ErrTooLong {
			return nil, fmt.Errorf("%s:%d: the line is longer than %d KB; this does not look like an experiments file: "+
				"write one experiment a line as threads,warmup,duration (e.g. 16,10,60)", file, n, maxExperimentLine>>10)
		}
		return nil, fmt.Errorf("%s:%d: reading: %v", file, n, err)
	}
	if len(exps) == 0 {
		return nil, fmt.Errorf("%s: no experiments; write one per line as threads,warmup,duration", file)
	}
	return exps, nil
}
