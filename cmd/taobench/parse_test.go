package main

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/taobench/taobench/session"
)

// TestParseRatesWaits: rates rise and are positive; waits are durations,
// each once; holds are durations from 0 to the longest lock hold.
func TestParseRatesWaits(t *testing.T) {
	t.Parallel()
	if r, err := parseRates("100, 200,400"); err != nil || !slices.Equal(r, []float64{100, 200, 400}) {
		t.Errorf("100, 200,400: %v, %v", r, err)
	}
	for _, bad := range []string{"200,100", "0", "x", "100,100"} {
		if _, err := parseRates(bad); err == nil {
			t.Errorf("rates %q accepted", bad)
		}
	}
	if w, err := parseWaits("0,30ms"); err != nil || !slices.Equal(w, []time.Duration{0, 30 * time.Millisecond}) {
		t.Errorf("0,30ms: %v, %v", w, err)
	}
	if _, err := parseWaits("0,30ms,30ms"); err == nil || !strings.Contains(err.Error(), `--waits "0,30ms,30ms" gives 30ms twice`) {
		t.Errorf("a wait twice: %v", err)
	}
	if h, err := parseHolds("0, 40ms"); err != nil || !slices.Equal(h, []time.Duration{0, 40 * time.Millisecond}) {
		t.Errorf("0, 40ms: %v, %v", h, err)
	}
	for _, bad := range []string{"-1ms", "x", "1h"} {
		if _, err := parseHolds(bad); err == nil {
			t.Errorf("holds %q accepted", bad)
		}
	}
}

// TestParseSLA: an SLA is read strictly, each error naming what is wrong.
func TestParseSLA(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]session.SLA{
		"p99<=20ms":           {Text: "p99<=20ms", Class: "all", Metric: "p99", Limit: 20000},
		" read.p99.9 <= 1s ":  {Text: "read.p99.9 <= 1s", Class: "read", Metric: "p999", Limit: 1e6},
		"write_txn.mean<=5ms": {Text: "write_txn.mean<=5ms", Class: "write_txn", Metric: "mean", Limit: 5000},
		"errors<=0.1%":        {Text: "errors<=0.1%", Class: "all", Metric: "errors", Limit: 0.1},
		"failed<=2%":          {Text: "failed<=2%", Class: "all", Metric: "failed", Limit: 2},
	} {
		got, err := parseSLA(s)
		if err != nil || got != want {
			t.Errorf("parseSLA(%q) = %+v, %v; want %+v", s, got, err, want)
		}
	}
	for s, want := range map[string]string{
		"p99<20ms":        "has no <=",
		"p98<=20ms":       `unknown metric "p98"`,
		"reads.p99<=1ms":  `"reads" is not a request class`,
		"p99<=fast":       "not a positive duration",
		"p99<=20":         "not a positive duration",
		"errors<=0.1":     "takes a percentage",
		"errors<=150%":    "takes a percentage",
		"read.errors<=1%": "applies to all requests",
	} {
		if _, err := parseSLA(s); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("parseSLA(%q): %v, want an error saying %q", s, err, want)
		}
	}
}
