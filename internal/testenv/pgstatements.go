package testenv

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// PostgresStatements starts a PostgreSQL server of the test's own on a
// free loopback port with pg_stat_statements loaded (the shared server
// does not preload it, and its configuration is not the tests' to
// change), creates database taobench with the extension, stops the server
// when the test ends, and returns that database's URL: the database's own
// count of each statement it ran.
func PostgresStatements(t testing.TB) string {
	t.Helper()
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(bins) == 0 {
		skipOrFail(t, "PostgreSQL's server programs are missing (apt-get install postgresql): no server of the test's own")
	}
	slices.Sort(bins)
	bin := filepath.Dir(bins[len(bins)-1])
	if _, err := os.Stat(filepath.Join(filepath.Dir(bin), "lib", "pg_stat_statements.so")); err != nil {
		if m, _ := filepath.Glob("/usr/lib/postgresql/*/lib/pg_stat_statements.so"); len(m) == 0 {
			skipOrFail(t, "pg_stat_statements is missing (apt-get install postgresql-contrib)")
		}
	}
	dir, err := os.MkdirTemp("", "taobench-pgstat")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "data")
	asPG := func(args ...string) error {
		cmd := exec.Command("runuser", append([]string{"-u", "postgres", "--"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("%v: %v\n%s", args, err, out)
		}
		return nil
	}
	if err := asPG(filepath.Join(bin, "initdb"), "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8"); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	conf := fmt.Sprintf("listen_addresses = '127.0.0.1'\nport = %d\nunix_socket_directories = '%s'\nfsync = off\nshared_buffers = 64MB\n"+
		"max_connections = 100\nshared_preload_libraries = 'pg_stat_statements'\npg_stat_statements.max = 1000\n", port, dir)
	f, err := os.OpenFile(filepath.Join(data, "postgresql.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.WriteString(conf)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	ctl := filepath.Join(bin, "pg_ctl")
	if err := asPG(ctl, "-D", data, "-l", filepath.Join(dir, "log"), "-w", "start"); err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "log"))
		t.Fatalf("%v\n%s", err, log)
	}
	t.Cleanup(func() { _ = asPG(ctl, "-D", data, "-m", "immediate", "-w", "stop") })
	psql := filepath.Join(bin, "psql")
	for _, sql := range []string{"CREATE DATABASE taobench"} {
		if err := asPG(psql, "-h", dir, "-p", fmt.Sprint(port), "-U", "postgres", "-qc", sql); err != nil {
			t.Fatal(err)
		}
	}
	if err := asPG(psql, "-h", dir, "-p", fmt.Sprint(port), "-U", "postgres", "-d", "taobench", "-qc", "CREATE EXTENSION pg_stat_statements"); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/taobench?sslmode=disable", port)
}
