//go:build unix

package main

// Tests of flag and file mistakes caught with the fix named.

import (
	"path/filepath"
	"strings"
	"testing"
)

// Flag mistakes are refused (exit 2) before anything runs, naming the flag:
// a flag given twice, --load-threads out of range, a zero --drain.
func TestCLIFlagMistakes(t *testing.T) {
	dbPath := cliHome(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--threads", "4", "--threads", "8"}, "flag --threads given twice (--threads 4, then --threads 8)"},
		{[]string{"run", "--threads=4", "-threads", "8"}, "flag --threads given twice (--threads=4, then -threads 8)"},
		{[]string{"load", "--drop", "--edges", "10", "--drop=false"}, "flag --drop given twice"},
		{[]string{"validate", "--workload", "a", "--workload", "o"}, "flag --workload given twice"},
		{[]string{"run", "--load-threads", "0"}, "--load-threads 0: give 1 to 1024"},
		{[]string{"run", "--load-threads", "1025"}, "--load-threads 1025: give 1 to 1024"},
		{[]string{"run", "--drain", "0"}, "--drain must be positive"},
		{[]string{"info", "--db", "sqlite:x.db", "--db", "sqlite:x.db"}, "flag --db given twice"},
		{[]string{"run", "--db-weights", "2,1"}, "--db-weights 2,1 with one --db"},
		{[]string{"run", "--db", "null", "--db", "null", "--db-weights", "1"}, "1 weight(s) for 2 endpoint(s)"},
		{[]string{"load", "--db", "null", "--db", "null", "--db-weights", "1,-2"}, "give whole numbers from 1"},
	} {
		r := cliRun(t, c.args...)
		errs := cliErrorLines(r.stderr)
		if r.code != 2 || len(errs) != 1 || !strings.Contains(errs[0], c.want) {
			t.Errorf("%v: want exit 2 and %q\n%v", c.args, c.want, r)
		}
		opNoExperiment(t, strings.Join(c.args, " "), r)
	}
	// The message quoting both values shows no password.
	r := cliRun(t, "check", "--db", "postgres://u:s3cret@127.0.0.1:1/db", "--db=postgres://u:0ther@127.0.0.1:1/db")
	if r.code != 2 || !strings.Contains(r.stderr, "flag --db given twice") || strings.Contains(r.stderr, "s3cret") || strings.Contains(r.stderr, "0ther") {
		t.Errorf("--db given twice with passwords: want exit 2, the flag named and no password\n%v", r)
	}
	// Several endpoints, one with a password: redacted everywhere.
	r = cliRun(t, "run", "--db", "postgres://u:s3cret@127.0.0.1:1/db", "--db", "postgres://u:0ther@127.0.0.1:1/db", "--duration", "1s")
	if r.code != 2 || strings.Contains(r.stderr, "s3cret") || strings.Contains(r.stderr, "0ther") {
		t.Errorf("two unreachable endpoints with passwords: want exit 2 and no password\n%v", r)
	}
	// A value that looks like a flag is a value, not a second flag.
	r = cliRun(t, "validate", "--workload", "--requests", "--requests", "10")
	if r.code != 2 || strings.Contains(r.stderr, "given twice") || !strings.Contains(r.stderr, "--requests: neither a built-in workload") {
		t.Errorf("--workload --requests --requests 10: want the workload \"--requests\" refused, no duplicate\n%v", r)
	}
	cliNoFile(t, dbPath, "refused flags")
}

// The notice about workload fields not applied appears once per run, and
// not at all when validating a built-in.
func TestCLINotAppliedNotice(t *testing.T) {
	cliHome(t)
	const notice = "fields read but not applied yet"
	r := cliRun(t, "run", "--db", "null", "--threads", "1", "--warmup", "0", "--duration", "0.1")
	if r.code != 0 || strings.Count(r.stderr, notice) != 1 {
		t.Errorf("run of workload o: want exit 0 and the notice once\n%v", r)
	}
	r = cliRun(t, "validate", "--workload", "o", "--requests", "1000")
	if r.code != 0 || strings.Contains(r.stderr, notice) {
		t.Errorf("validate of a built-in: want exit 0 and no notice\n%v", r)
	}
}

// A read-only SQLite file, or one in a read-only directory, is refused with
// the fix, not with SQLite's "attempt to write a readonly database".
func TestCLIReadOnlySQLite(t *testing.T) {
	t.Parallel()
	for _, what := range []string{"file", "directory"} {
		t.Run(what, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "ro.db")
			if r := cliRun(t, "load", "--db", "sqlite:"+path, "--edges", "2000"); r.code != 0 {
				t.Fatalf("load: %v", r)
			}
			ro, fix := path, "chmod u+w "+path
			if what == "directory" {
				ro, fix = dir, "chmod u+w "+dir
			}
			if !opReadOnly(t, ro) {
				t.Skip("cannot make it read-only")
			}
			for _, args := range [][]string{
				{"run", "--db", "sqlite:" + path, "--warmup", "0", "--duration", "0.2"},
				{"load", "--db", "sqlite:" + path, "--edges", "2000"},
			} {
				r := cliRun(t, args...)
				errs := cliErrorLines(r.stderr)
				if r.code != 2 || len(errs) != 1 || !strings.Contains(errs[0], fix) || strings.Contains(r.stderr, "readonly database") {
					t.Errorf("%s: want exit 2 and one error line saying %q\n%v", args[0], fix, r)
				}
				opNoExperiment(t, args[0], r)
			}
		})
	}
}

// schema prints the DDL without creating an SQLite file or its directory.
func TestCLISchemaCreatesNothing(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "new")
	path := filepath.Join(dir, "s.db")
	r := cliRun(t, "schema", "--db", "sqlite:"+path)
	if r.code != 0 || !strings.Contains(r.stdout, "CREATE TABLE") {
		t.Fatalf("schema: %v", r)
	}
	cliNoFile(t, dir, "schema of a new SQLite file")
}
