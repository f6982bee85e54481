package main

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taobench/taobench/store"
)

// TestURLSecretsNeverShown: one rule for --db, --replica, --cache and
// SPANNER_EMULATOR_HOST (issue 37): a URL's password and the values of its
// parameters (but a harmless parameter's harmless value) never show, in
// any URL form a user may type, whatever the command says about it; each
// is refused with exit 2 and one error line. Before, a spanner: URL's
// ?credentials=, a SQLite _pragma=key(...) and any parameter a scheme did
// not know were echoed with their values.
func TestURLSecretsNeverShown(t *testing.T) {
	cliHome(t)
	const secret = "S3CRETv4l"
	dir := t.TempDir()
	closed := func() string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		return l.Addr().String()
	}()
	// URL forms of every scheme, each hiding the secret somewhere a store
	// does not read a password from. Port 1 refuses connections.
	dbForms := []string{
		"spanner://projects/P/instances/I/databases/D?credentials=" + secret,
		"spanner://projects/P/instances/I/databases/D?credentials=%7B%22k%22%3A%22" + secret + "%22%7D",
		"spanner://u:" + secret + "@projects/P/instances/I/databases/D",
		"spanner:projects/P/instances/I/databases/D?key=" + secret + "#x",
		"sqlite:" + filepath.Join(dir, "a.db") + "?_pragma=key(" + secret + ")",
		"sqlite:" + filepath.Join(dir, "b.db") + "?_pragma=key('" + secret + "')&_pragma=foreign_keys(1)",
		"sqlite:" + filepath.Join(dir, "c.db") + "#" + secret,
		"postgres://postgres@127.0.0.1:1/db?options=-c%20x%3D" + secret,
		"postgres://postgres@127.0.0.1:1/db?sslmode=require&token=" + secret,
		"postgres://u:" + secret + "@127.0.0.1:1/db?application_name=tb",
		"postgresql://postgres@127.0.0.1:1/db?sslmode=bogus&apikey=" + secret,
		"postgres://postgres@127.0.0.1:1/db#" + secret,
		"mysql://root@127.0.0.1:1/db?token=" + secret,
		"mysql://root@127.0.0.1:1/db?tls=bogus;key=" + secret,
		"mysql://root@127.0.0.1:1/db?allowNativePasswords=" + secret + "%40",
		"null?token=" + secret,
		"null?delay=" + secret + "!",
		"bogus://h/db?token=" + secret,
	}
	cacheForms := []string{
		"redis://127.0.0.1:1/0?password=" + secret,
		"redis://user:" + secret + "@",
		"redis://:" + secret + "@127.0.0.1:1/0",
		"redis://127.0.0.1:1/0?token=" + secret,
		"redis://127.0.0.1:1/0?pool_size=" + secret + "%21",
		"redis://127.0.0.1:1/0#" + secret,
		"redis://127.0.0.1:1/-1?prefix=" + secret + "*",
		"unix://:" + secret + "@/nonexistent/redis.sock?db=1",
		"http://u:" + secret + "@h/?token=" + secret,
	}
	loaded := "sqlite:" + filepath.Join(dir, "loaded.db")
	cliMust(t, "load", "--db", loaded, "--edges", "1000")
	type invocation struct {
		flag string
		args []string
	}
	var cases []invocation
	for _, u := range dbForms {
		for _, cmd := range []string{"run", "load", "info"} {
			cases = append(cases, invocation{"--db", []string{cmd, "--db", u}})
		}
		cases = append(cases, invocation{"--db=", []string{"check", "--db=" + u}})
		cases = append(cases, invocation{"--replica", []string{"run", "--db", loaded, "--replica", u, "--duration", "0.2", "--warmup", "0"}})
	}
	for _, u := range cacheForms {
		cases = append(cases, invocation{"--cache", []string{"run", "--db", loaded, "--cache", u, "--duration", "0.2", "--warmup", "0"}})
	}
	check := func(c invocation, r cliResult) {
		t.Helper()
		if strings.Contains(r.stdout+r.stderr, secret) {
			t.Errorf("%s: the secret shows:\n%v", c.flag, r)
		}
		errs := cliErrorLines(r.stderr)
		if r.code != exitBadInput || len(errs) != 1 || r.stdout != "" {
			t.Errorf("%s: want exit 2 and one error line, no results:\n%v", c.flag, r)
		}
	}
	for _, c := range cases {
		check(c, cliRun(t, c.args...))
	}
	// The emulator's address: no credentials, and where nothing answers
	// the error names it (with no user info to show).
	for _, emu := range []string{"u:" + secret + "@" + closed, closed + "/" + secret, closed} {
		t.Setenv("SPANNER_EMULATOR_HOST", emu)
		c := invocation{"SPANNER_EMULATOR_HOST", []string{"info", "--db", "spanner://projects/P/instances/I/databases/D"}}
		r := cliRun(t, c.args...)
		check(c, r)
		if emu == closed && !strings.Contains(r.stderr, "SPANNER_EMULATOR_HOST="+closed+": connection refused") {
			t.Errorf("SPANNER_EMULATOR_HOST at a closed port: the error does not name it:\n%v", r)
		}
	}
}

// TestURLParamValuesHiddenInResults: a run on a URL whose parameter
// carries a value taobench does not know to be harmless (PostgreSQL's
// options=, a MySQL connection attribute) works, and the value shows in
// no output, results file or HTML report, which name the database as
// store.Redact does: the parameter by name, its value as xxxxx.
func TestURLParamValuesHiddenInResults(t *testing.T) {
	t.Parallel() // few connections; no timing
	const secret = "S3CRETp4ram"
	srvEach(t, func(t *testing.T, s srvServer) {
		dbURL := s.fresh(t)
		sep := "?"
		if strings.Contains(dbURL, "?") {
			sep = "&"
		}
		if s.kind == "postgres" {
			dbURL += sep + "options=-c%20application_name%3D" + secret
		} else {
			dbURL += sep + "connectionAttributes=tb_note:" + secret
		}
		dir := t.TempDir()
		out, page := filepath.Join(dir, "out.json"), filepath.Join(dir, "page.html")
		var all strings.Builder
		for _, args := range [][]string{
			{"load", "--db", dbURL, "--workload", "a", "--edges", "2000"},
			{"run", "--db", dbURL, "--workload", "a", "--threads", "2", "--warmup", "0", "--duration", "1s", "--out", out},
			{"check", "--db", dbURL},
			{"info", "--db", dbURL},
			{"report", "-o", page, out},
		} {
			r := cliMust(t, args...)
			all.WriteString(r.stdout + r.stderr)
		}
		file, _ := os.ReadFile(out)
		html, _ := os.ReadFile(page)
		for where, text := range map[string]string{"output": all.String(), "results file": string(file), "HTML report": string(html)} {
			if strings.Contains(text, secret) {
				t.Errorf("the parameter's value shows in the %s", where)
			}
		}
		doc, _ := srvReadJSON(t, out)
		if want := store.Redact(dbURL); doc.Run.Database != want || !strings.Contains(want, "=xxxxx") {
			t.Errorf("the results file names the database %q, want %q with the value masked", doc.Run.Database, want)
		}
	})
}
