package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/taobench/taobench/fleet"
	"github.com/taobench/taobench/run"
	"github.com/taobench/taobench/workload"
)

// Parsers of the flags' own syntax: lists of durations and rates, a
// loader's part.

// parseHolds reads a comma-separated list of durations from 0 ("0": none)
// to workload.MaxLockHold.
func parseHolds(s string) ([]time.Duration, error) {
	var hs []time.Duration
	for _, p := range strings.Split(s, ",") {
		p = strings.TrimSpace(p)
		d, err := time.ParseDuration(p)
		if err != nil {
			return nil, fmt.Errorf("%q is not a duration; give Go durations such as 0,5ms,20ms,100ms", p)
		}
		if d < 0 || d > workload.MaxLockHold {
			return nil, fmt.Errorf("%v: give holds from 0 to %v", d, workload.MaxLockHold)
		}
		hs = append(hs, d)
	}
	return hs, nil
}

// parseWaits reads precondition-wait's --waits: parseHolds's durations,
// each once. Its errors name the flag.
func parseWaits(s string) ([]time.Duration, error) {
	ws, err := parseHolds(s)
	if err != nil {
		return nil, fmt.Errorf("--waits %q: %v", s, err)
	}
	seen := map[time.Duration]bool{}
	for _, d := range ws {
		if seen[d] {
			return nil, fmt.Errorf("--waits %q gives %v twice; give each wait once", s, d)
		}
		seen[d] = true
	}
	return ws, nil
}

// parseRates reads a sweep's rates: positive requests per second,
// comma-separated, rising.
func parseRates(s string) ([]float64, error) {
	var rates []float64
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		r, err := strconv.ParseFloat(f, 64)
		if err != nil || r <= 0 || run.CheckRate(r) != nil {
			return nil, fmt.Errorf("rate %q: give positive requests per second up to %g, comma-separated (e.g. 1000,2000,4000)", f, float64(run.MaxRate))
		}
		if len(rates) > 0 && r <= rates[len(rates)-1] {
			return nil, fmt.Errorf("rates must rise: %g after %g", r, rates[len(rates)-1])
		}
		rates = append(rates, r)
	}
	return rates, nil
}

// parseLoadPart reads load's --driver I/N: which part of the graph this
// loader writes; "" is all of it.
func parseLoadPart(s string) (fleet.Driver, error) {
	if s == "" {
		return fleet.Single, nil
	}
	d, err := fleet.Parse("--driver", s)
	if err != nil {
		return d, badInput("load: %v", err)
	}
	return d, nil
}
