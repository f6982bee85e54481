package fleet

import (
	"strings"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Driver
		err  string
	}{
		{"0/4", Driver{0, 4}, ""},
		{"3/4", Driver{3, 4}, ""},
		{" 1 / 2 ", Driver{1, 2}, ""},
		{"0/1", Driver{0, 1}, ""},
		{"4/4", Driver{}, "give --driver 0/4 to --driver 3/4"},
		{"5/4", Driver{}, "I counts from 0"},
		{"-1/4", Driver{}, "I counts from 0"},
		{"x", Driver{}, "give I/N"},
		{"", Driver{}, "give I/N"},
		{"a/b", Driver{}, "whole numbers"},
		{"0/0", Driver{}, "N must be 1 to 4096"},
		{"0/5000", Driver{}, "N must be 1 to 4096"},
	} {
		got, err := Parse("--driver", c.in)
		if c.err == "" && (err != nil || got != c.want) {
			t.Errorf("Parse(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
		if c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err) || !strings.Contains(err.Error(), "--driver")) {
			t.Errorf("Parse(%q) error %v; want one naming --driver and saying %q", c.in, err, c.err)
		}
	}
}

// TestSlice: the drivers' slices cover every client once, as evenly as
// possible, and their rates add up to the whole.
func TestSlice(t *testing.T) {
	for _, n := range []int{1, 2, 3, 4, 7} {
		for threads := n; threads <= 40; threads++ {
			next, lo, hi, rate := 0, threads, 0, 0.0
			for i := range n {
				d := Driver{i, n}
				first, k := d.Slice(threads)
				if first != next || k < 1 {
					t.Fatalf("%d threads, driver %v: clients %d+%d, want to start at %d with at least 1", threads, d, first, k, next)
				}
				next += k
				lo, hi = min(lo, k), max(hi, k)
				rate += d.Rate(1000, threads)
			}
			if next != threads || hi-lo > 1 {
				t.Errorf("%d threads over %d drivers: cover %d, slices %d to %d", threads, n, next, lo, hi)
			}
			if rate < 999.999999 || rate > 1000.000001 {
				t.Errorf("%d threads over %d drivers: rates add to %v", threads, n, rate)
			}
		}
	}
}

func TestParseStart(t *testing.T) {
	now := time.Date(2026, 11, 23, 14, 0, 0, 0, time.UTC)
	at, rel, err := ParseStart("--start-at", "2026-11-23T14:05:00Z", now)
	if err != nil || rel || !at.Equal(now.Add(5*time.Minute)) {
		t.Errorf("RFC 3339: %v %v %v", at, rel, err)
	}
	at, rel, err = ParseStart("--start-at", "+30s", now)
	if err != nil || !rel || !at.Equal(now.Add(30*time.Second)) {
		t.Errorf("+30s: %v %v %v", at, rel, err)
	}
	if at, _, err = ParseStart("--start-at", "+2.5", now); err != nil || !at.Equal(now.Add(2500*time.Millisecond)) {
		t.Errorf("+2.5: %v %v", at, err)
	}
	for _, bad := range []string{"garbage", "+x", "+-3s", "2026-11-23 14:00", ""} {
		if _, _, err := ParseStart("--start-at", bad, now); err == nil || !strings.Contains(err.Error(), "--start-at") {
			t.Errorf("ParseStart(%q): %v; want an error naming --start-at", bad, err)
		}
	}
}

func TestRunID(t *testing.T) {
	for _, ok := range []string{"a", "exp-1.2_x", strings.Repeat("x", MaxRunID)} {
		if err := CheckRunID("--run-id", ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "a b", "a/b", strings.Repeat("x", MaxRunID+1), "é"} {
		if err := CheckRunID("--run-id", bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	start := time.Date(2026, 11, 23, 14, 0, 0, 0, time.FixedZone("x", 3600))
	id := DeriveRunID("my workload", start, 42)
	if id != "my_workload-20261123T130000Z-42" || CheckRunID("--run-id", id) != nil {
		t.Errorf("DeriveRunID = %q", id)
	}
	if long := DeriveRunID(strings.Repeat("w", 100), start, 1); CheckRunID("--run-id", long) != nil {
		t.Errorf("long derived id %q refused", long)
	}
	if k := RunKey(strings.Repeat("x", MaxRunID), 4095); len(k) > 64 || RunKey("a", 0) == RunKey("b", 0) || RunKey("a", 0) == RunKey("a", 1) {
		t.Errorf("RunKey: %q", k)
	}
	if Seed("a") == Seed("b") {
		t.Error("Seed does not tell ids apart")
	}
	// Every driver of a fleet derives the seed on its own machine, and a run
	// is replayed from its recorded id: the value is pinned (FNV-64a of "a",
	// shifted right 12 bits), so a change of hash or shift fails here.
	if got := Seed("a"); got != 0xaf63dc4c8601e {
		t.Errorf("Seed(%q) = %#x, want 0xaf63dc4c8601e", "a", got)
	}
}

func TestSchedule(t *testing.T) {
	s := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := Schedule(s, []time.Duration{3 * time.Second, 5 * time.Second, time.Second})
	if !at[0].Equal(s) || !at[1].Equal(s.Add(3*time.Second)) || !at[2].Equal(s.Add(8*time.Second)) {
		t.Errorf("Schedule = %v", at)
	}
}
