package main

import (
	"slices"
	"strings"
	"testing"
	"time"
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
