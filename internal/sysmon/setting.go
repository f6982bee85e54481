package sysmon

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// The settings of the runtime monitor, as --runtime-monitor and
// TAOBENCH_RUNTIME_MONITOR name them.
const (
	// SettingAwake keeps the monitor awake (Awake's re-execution).
	SettingAwake = "awake"
	// SettingDefault leaves the runtime as it is.
	SettingDefault = "default"
	// Flag and Env are where the setting is given; the flag wins.
	Flag = "runtime-monitor"
	Env  = "TAOBENCH_RUNTIME_MONITOR"
	// DefaultSetting is the setting when neither gives one.
	DefaultSetting = SettingAwake
)

// Setting returns the setting args (a command's arguments, flags as Go's
// flag package reads them: -name or --name, =value or the next argument)
// and getenv ask for: the last --runtime-monitor before a "--", else
// TAOBENCH_RUNTIME_MONITOR, else DefaultSetting. The value is returned as
// given; Check says whether it is one taobench knows.
func Setting(args []string, getenv func(string) string) string {
	v, given := "", false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		name, ok := strings.CutPrefix(a, "--")
		if !ok {
			if name, ok = strings.CutPrefix(a, "-"); !ok {
				continue
			}
		}
		if val, ok := strings.CutPrefix(name, Flag+"="); ok {
			v, given = val, true
		} else if name == Flag && i+1 < len(args) {
			v, given = args[i+1], true
			i++
		}
	}
	if !given {
		v = getenv(Env)
	}
	if v == "" {
		return DefaultSetting
	}
	return v
}

// Check reports an error naming the values taobench knows for a setting it
// does not know; where says where it was given.
func Check(setting, where string) error {
	switch setting {
	case SettingAwake, SettingDefault:
		return nil
	}
	return fmt.Errorf("%s %q: give %s (keep the Go runtime's system monitor awake: taobench re-executes itself with GODEBUG=schedtrace set to 24.8 days) or %s (the runtime as it is)",
		where, setting, SettingAwake, SettingDefault)
}

// Start calls Awake when args and the environment ask for the monitor
// awake (Setting); a setting it does not know does nothing here (the
// command's flag check reports it). Call it first thing in main.
func Start(args []string) {
	if Setting(args, os.Getenv) == SettingAwake {
		Awake()
	}
}

// State is the runtime monitor this process runs with: SettingAwake when
// GODEBUG sets schedtrace to a period (Awake's re-execution, or the
// user's own), SettingDefault otherwise.
func State() string { return state(os.Getenv("GODEBUG")) }

func state(godebug string) string {
	for _, s := range strings.Split(godebug, ",") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(s), "schedtrace="); ok {
			if n, err := strconv.Atoi(v); err == nil && n > 0 {
				return SettingAwake
			}
		}
	}
	return SettingDefault
}
