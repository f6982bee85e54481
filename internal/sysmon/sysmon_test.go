package sysmon

import (
	"slices"
	"testing"
)

func TestEnv(t *testing.T) {
	for _, c := range []struct {
		name    string
		environ []string
		uptime  float64
		want    []string // nil: no re-execution
	}{
		{"no GODEBUG", []string{"A=1"}, 100, []string{"A=1", "GODEBUG=schedtrace=" + period}},
		{"GODEBUG kept", []string{"GODEBUG=gctrace=1", "B=2"}, 100, []string{"B=2", "GODEBUG=gctrace=1,schedtrace=" + period}},
		{"user's schedtrace", []string{"GODEBUG=gctrace=1,schedtrace=1000"}, 100, nil},
		{"user's schedtrace=0", []string{"GODEBUG=schedtrace=0"}, 100, nil},
		{"up 25 days", []string{"A=1"}, 25 * 86400, nil},
	} {
		got, ok := env(c.environ, c.uptime)
		if ok != (c.want != nil) || !slices.Equal(got, c.want) {
			t.Errorf("%s: env(%q, %v) = %q, %v; want %q", c.name, c.environ, c.uptime, got, ok, c.want)
		}
	}
}
