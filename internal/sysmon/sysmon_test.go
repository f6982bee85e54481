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

func TestSetting(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == Env {
				return v
			}
			return ""
		}
	}
	for _, c := range []struct {
		args []string
		env  string
		want string
	}{
		{[]string{"run"}, "", SettingAwake},
		{[]string{"run", "--runtime-monitor=default"}, "", SettingDefault},
		{[]string{"run", "-runtime-monitor", "default", "--threads", "4"}, "", SettingDefault},
		{[]string{"run", "--runtime-monitor", "awake"}, "default", SettingAwake},
		{[]string{"run"}, "default", SettingDefault},
		{[]string{"run", "--", "--runtime-monitor=default"}, "", SettingAwake},
		{[]string{"run", "--runtime-monitor=sleepy"}, "", "sleepy"},
		{[]string{"run", "--runtime-monitor=default", "--runtime-monitor=awake"}, "", SettingAwake},
	} {
		if got := Setting(c.args, env(c.env)); got != c.want {
			t.Errorf("Setting(%q) with %s=%q: %q, want %q", c.args, Env, c.env, got, c.want)
		}
	}
	if Check("sleepy", "--runtime-monitor") == nil || Check(SettingAwake, "x") != nil || Check(SettingDefault, "x") != nil {
		t.Error("Check accepts an unknown setting or refuses a known one")
	}
}

func TestState(t *testing.T) {
	for godebug, want := range map[string]string{
		"": SettingDefault, "gctrace=1": SettingDefault, "schedtrace=0": SettingDefault,
		"schedtrace=" + period: SettingAwake, "gctrace=1,schedtrace=1000": SettingAwake,
	} {
		if got := state(godebug); got != want {
			t.Errorf("state(%q) = %q, want %q", godebug, got, want)
		}
	}
}
