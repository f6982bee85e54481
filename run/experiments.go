package run

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
)

// ParseDuration accepts Go duration syntax ("90s", "2m", "1m30s") and bare
// seconds ("60", "2.5"), as the original's experiments files use.
func ParseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		switch {
		case math.IsNaN(f):
			return 0, fmt.Errorf("duration %q is not a number: use seconds (60) or Go syntax (90s, 2m)", s)
		case f < 0:
			return 0, fmt.Errorf("duration %q is negative", s)
		case f*float64(time.Second) >= math.MaxInt64:
			// Converting it would overflow into a negative duration.
			return 0, fmt.Errorf("duration %q is too long: over 292 years", s)
		}
		return time.Duration(f * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("duration %q: use seconds (60) or Go syntax (90s, 2m)", s)
	}
	if d < 0 {
		return 0, fmt.Errorf("duration %q is negative", s)
	}
	return d, nil
}

// ParseExperiments reads an experiments file of the original format: one
// experiment a line, "threads,warmup,duration", with '#' comments and blank
// lines ignored. Errors name the file and line.
func ParseExperiments(r io.Reader, file string) ([]Experiment, error) {
	var exps []Experiment
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		f := strings.Split(line, ",")
		if len(f) != 3 {
			return nil, fmt.Errorf("%s:%d: %q has %d fields; write threads,warmup,duration (e.g. 16,10,60)", file, n, line, len(f))
		}
		threads, err := strconv.Atoi(strings.TrimSpace(f[0]))
		if err != nil || threads < 1 || threads > MaxClients {
			return nil, fmt.Errorf("%s:%d: threads %q: give a whole number from 1 to %d", file, n, strings.TrimSpace(f[0]), MaxClients)
		}
		warmup, err := ParseDuration(f[1])
		if err != nil {
			return nil, fmt.Errorf("%s:%d: warmup: %v", file, n, err)
		}
		dur, err := ParseDuration(f[2])
		if err != nil {
			return nil, fmt.Errorf("%s:%d: duration: %v", file, n, err)
		}
		if dur <= 0 {
			return nil, fmt.Errorf("%s:%d: duration must be positive", file, n)
		}
		exps = append(exps, Experiment{Threads: threads, Warmup: warmup, Duration: dur})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	if len(exps) == 0 {
		return nil, fmt.Errorf("%s: no experiments; write one per line as threads,warmup,duration", file)
	}
	return exps, nil
}
