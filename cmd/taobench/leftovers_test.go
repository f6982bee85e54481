package main

import (
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taobench/taobench/internal/testenv"
)

// TestFlagValueErrors: a flag value that does not parse is said in one
// line naming the flag, the form wanted and the value given, exit 2,
// without package flag's "parse error" / "value out of range" and without
// the whole usage, on every command.
func TestFlagValueErrors(t *testing.T) {
	cliHome(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--threads", "1.5"}, "run: --threads: want a whole number from 1 to 4096, got 1.5"},
		{[]string{"run", "--rate", "abc"}, "run: --rate: want a rate in requests per second from 0 (closed loop) to 1e+08, got abc"},
		{[]string{"run", "--seed", "-1"}, "run: --seed: want a whole number from 0 to 18446744073709551615, got -1"},
		{[]string{"run", "--threads", "99999999999999999999"}, "run: --threads: want a whole number from 1 to 4096, got 99999999999999999999"},
		{[]string{"run", "--threads"}, "run: --threads needs a value: want a whole number from 1 to 4096"},
		{[]string{"sweep", "--threads", "1,x"}, "sweep: --threads: want a whole number from 1 to 4096, got 1,x"},
		{[]string{"load", "--edges", "1e6"}, "load: --edges: want a whole number from 1 to 1000000000000, got 1e6"},
		{[]string{"load", "--seed", "x"}, "load: --seed: want a whole number from 0 to 18446744073709551615, got x"},
		{[]string{"load", "--drop=maybe"}, "load: --drop: want true or false, got maybe"},
		{[]string{"validate", "--requests", "2k"}, "validate: --requests: want a whole number, 1 or more, got 2k"},
		{[]string{"rate", "--factor", "double"}, "rate: --factor: want a number above 1, got double"},
		{[]string{"rate", "--max-probes", "2.5"}, "rate: --max-probes: want a whole number, 1 or more, got 2.5"},
		{[]string{"experiment", "lock-hold", "--retries", "-"}, "--retries: want a whole number, 0 or more, got -"},
		// taobench's own flag types say what they want themselves.
		{[]string{"run", "--warmup", "abc"}, `run: --warmup abc: duration "abc": use seconds (60) or Go syntax (90s, 2m)`},
		{[]string{"run", "--max-error-rate", "200"}, "run: --max-error-rate 200: give a percentage from 0 to 100"},
		// Given twice: the flag named, no usage either.
		{[]string{"run", "--threads", "4", "--threads", "8"}, "flag --threads given twice (--threads 4, then --threads 8)"},
	} {
		r := cliRun(t, c.args...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("want exit 2 and %q\n%v", c.want, r)
		}
		for _, bad := range []string{"parse error", "value out of range", "invalid value", "Usage of", "-duration value"} {
			if strings.Contains(r.stderr, bad) {
				t.Errorf("%v: says %q", c.args, bad)
			}
		}
		if n := strings.Count(strings.TrimSpace(r.stderr), "\n"); n > 0 {
			t.Errorf("%v: %d lines on stderr, want one\n%s", c.args, n+1, r.stderr)
		}
	}
}

// TestRefusedCommandCreatesNoFile: a command refused for its flags or its
// graph's size exits 2 and leaves no SQLite file (nor its directory)
// behind at a new path: the refusals come before the open, which creates
// the file.
func TestRefusedCommandCreatesNoFile(t *testing.T) {
	cliHome(t)
	for _, args := range [][]string{
		{"load", "--driver", "0/2", "--drop"},
		{"load", "--driver", "1/2", "--drop", "--edges", "1000"},
		{"load", "--edges", "3"},
		{"run", "--edges", "5", "--duration", "1s"},
		{"sweep", "--edges", "5", "--duration", "1s", "--max-steps", "1"},
		{"validate", "--edges", "5", "--duration", "1s", "--threads", "1"},
		{"experiment", "lock-hold", "--edges", "5", "--duration", "1s"},
		{"experiment", "compare", "--workload", "t1", "--workload", "t3", "--edges", "5", "--duration", "1s"},
	} {
		dir := filepath.Join(t.TempDir(), "new")
		path := filepath.Join(dir, "t.db")
		r := cliRun(t, append(args, "--db", "sqlite:"+path)...)
		if r.code != 2 {
			t.Errorf("want exit 2\n%v", r)
		}
		if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%v: refused (exit %d), but %s was created (%v)\n%s", args, r.code, dir, err, r.stderr)
		}
	}
}

// TestRefusedTierCreatesNoFile: run, sweep, rate and experiment refused for a read
// tier (a --cache Redis that does not answer or has no such database, a
// --replica that is not a replica) exit 2 and leave no SQLite file behind
// at a new --db path: the tiers are checked before the database is opened
// and its graph loaded.
func TestRefusedTierCreatesNoFile(t *testing.T) {
	cliHome(t)
	redis, err := url.Parse(testenv.RedisURL(t))
	if err != nil {
		t.Fatal(err)
	}
	redis.Path = "/999999" // past any server's number of databases
	// A database of taobench's own, loaded, but no replica of anything.
	notReplica := filepath.Join(t.TempDir(), "other.db")
	cliMust(t, "load", "--db", "sqlite:"+notReplica, "--workload", "o", "--edges", "1000")
	for _, tc := range []struct {
		tier []string
		want string
	}{
		{[]string{"--cache", "redis://127.0.0.1:1/0"}, "Redis does not answer"},
		{[]string{"--cache", redis.String()}, "--cache"},
		{[]string{"--replica", "sqlite:" + notReplica}, "is not a replica"},
	} {
		for _, cmd := range [][]string{
			{"run", "--duration", "1s", "--warmup", "0"},
			{"sweep", "--rates", "100", "--duration", "1s", "--warmup", "0"},
			{"rate", "--sla", "p99<=10s", "--start", "100", "--max-probes", "1", "--duration", "1s", "--warmup", "0"},
			{"experiment", "lock-hold", "--duration", "1s", "--warmup", "0"},
		} {
			dir := filepath.Join(t.TempDir(), "new")
			path := filepath.Join(dir, "t.db")
			args := append(append(cmd, "--workload", "o", "--edges", "1000", "--db", "sqlite:"+path), tc.tier...)
			r := cliRun(t, args...)
			if r.code != exitBadInput || !strings.Contains(r.stderr, tc.want) {
				t.Errorf("want exit 2 saying %q\n%v", tc.want, r)
			}
			if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("%v: refused (exit %d), but %s was created (%v)\n%s", args, r.code, dir, err, r.stderr)
			}
		}
	}
}

// TestNotASQLiteDatabase: --db sqlite:FILE where FILE is not an SQLite
// database (SQLite's "file is not a database (26)") exits 2 naming the file
// and the fix, and leaves the file as it was.
func TestNotASQLiteDatabase(t *testing.T) {
	cliHome(t)
	path := filepath.Join(t.TempDir(), "notes.txt")
	text := strings.Repeat("the user's own notes, not a database\n", 40)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"load", "--db", "sqlite:" + path},
		{"run", "--duration", "1s", "--db", "sqlite:" + path},
		{"check", "--db", "sqlite:" + path},
	} {
		r := cliRun(t, args...)
		if r.code != 2 || !strings.Contains(r.stderr, path+" is not an SQLite database") || !strings.Contains(r.stderr, "give the path of a new file") {
			t.Errorf("want exit 2, the file named as not an SQLite database and another path asked for\n%v", r)
		}
	}
	if got, err := os.ReadFile(path); err != nil || string(got) != text {
		t.Errorf("the file changed: %v", err)
	}
}
