package main

import (
	"database/sql"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taobench/taobench/internal/sysmon"
	"github.com/taobench/taobench/internal/testenv"
)

// routinesOf lists the routines of database name: in it, and in
// taobench's schema for it (the procedures' COMMENT is the database's name
// in hexadecimal).
func routinesOf(t *testing.T, admin *sql.DB, name string) []string {
	t.Helper()
	rows, err := admin.Query("SELECT CONCAT(ROUTINE_SCHEMA, '.', ROUTINE_NAME) FROM information_schema.ROUTINES "+
		"WHERE ROUTINE_SCHEMA = ? OR ROUTINE_SCHEMA = 'taobench_routines' AND ROUTINE_COMMENT = HEX(?) ORDER BY 1", name, name)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var r string
		if err := rows.Scan(&r); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// TestMariaDBNoRoutines loads and runs workload a on a fresh MariaDB
// database with no URL option: information_schema.routines lists no
// routine of the database before or after, and the results say the writes
// went statement by statement (JSON and text). With writes=procedures,
// check and info create nothing; a run's procedures are all in taobench's
// schema, none in the database, and the results say so; a writes value
// taobench does not know exits 2.
func TestMariaDBNoRoutines(t *testing.T) {
	adminURL := testenv.MySQLURL(t)
	admin, _ := testenv.MySQLAdmin(t, adminURL)
	var version string
	if err := admin.QueryRow("SELECT VERSION()").Scan(&version); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(version, "MariaDB") {
		t.Skipf("the server is not MariaDB (%s)", version)
	}
	dbURL := testenv.FreshMySQL(t, adminURL)
	u, _ := url.Parse(dbURL)
	name := strings.TrimPrefix(u.Path, "/")
	if r := routinesOf(t, admin, name); len(r) > 0 {
		t.Fatalf("a fresh database has routines: %q", r)
	}
	type client struct {
		Writes         string `json:"writes"`
		Reads          string `json:"reads"`
		RuntimeMonitor string `json:"runtime_monitor"`
		Routines       string `json:"routines"`
	}
	type doc struct {
		Run struct {
			Client client `json:"client"`
		} `json:"run"`
		Experiments []srvExperiment `json:"experiments"`
	}
	dir := t.TempDir()
	srvLoad(t, dbURL, "a", 3000)
	out := filepath.Join(dir, "statements.json")
	r := cliMust(t, "run", "--db", dbURL, "--workload", "a", "--threads", "4", "--warmup", "0", "--duration", "1s", "--out", out)
	if got := routinesOf(t, admin, name); len(got) > 0 {
		t.Errorf("with no URL option, load and run created routines: %q", got)
	}
	d, _ := readJSONFile[doc](t, out)
	want := client{Writes: "statements", Reads: "union", RuntimeMonitor: sysmon.State()}
	if d.Run.Client != want {
		t.Errorf("client %+v, want %+v", d.Run.Client, want)
	}
	if len(d.Experiments) != 1 || d.Experiments[0].Ops == 0 || d.Experiments[0].Outcomes["error"] != 0 {
		t.Fatalf("the run did not run cleanly: %+v\n%s", d.Experiments, r.stderr)
	}
	if !strings.Contains(r.stdout, "client: writes statements, reads union, runtime monitor "+sysmon.State()) {
		t.Errorf("the text report has no client line:\n%s", r.stdout)
	}

	// Procedures when asked for: in taobench's schema only.
	t.Cleanup(func() {
		for _, p := range routinesOf(t, admin, name) {
			admin.Exec("DROP PROCEDURE IF EXISTS " + p)
		}
	})
	q := u.Query()
	q.Set("writes", "procedures")
	u.RawQuery = q.Encode()
	// Commands that only read what the database holds create nothing.
	cliMust(t, "check", "--db", u.String())
	cliMust(t, "info", "--db", u.String())
	if got := routinesOf(t, admin, name); len(got) > 0 {
		t.Errorf("check and info with writes=procedures created routines: %q", got)
	}
	out = filepath.Join(dir, "procedures.json")
	cliMust(t, "run", "--db", u.String(), "--workload", "a", "--threads", "4", "--warmup", "0", "--duration", "1s", "--out", out)
	got := routinesOf(t, admin, name)
	if len(got) == 0 {
		t.Error("writes=procedures created no procedure")
	}
	for _, p := range got {
		if !strings.HasPrefix(p, "taobench_routines.") {
			t.Errorf("routine %s is outside taobench's schema", p)
		}
	}
	d, _ = readJSONFile[doc](t, out)
	want.Writes, want.Routines = "procedures", "taobench_routines"
	if d.Run.Client != want {
		t.Errorf("client %+v, want %+v", d.Run.Client, want)
	}

	q.Set("writes", "sometimes")
	u.RawQuery = q.Encode()
	bad := cliRun(t, "run", "--db", u.String(), "--workload", "a", "--threads", "1", "--warmup", "0", "--duration", "1s")
	if bad.code != exitBadInput || !strings.Contains(bad.stderr, "writes=sometimes") || !strings.Contains(bad.stderr, "writes=procedures") {
		t.Errorf("writes=sometimes: want exit 2 naming the option and its values:\n%s", bad)
	}
}
