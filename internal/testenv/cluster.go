package testenv

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// Galera starts a 3-node MariaDB Galera cluster of the test's own on
// loopback with bench/cluster/galera, stops it when the test ends, and
// returns one URL per node. It skips (fails under TAOBENCH_REQUIRE=1)
// where Debian's mariadb-server and galera-4 are not installed.
func Galera(t testing.TB) []string {
	t.Helper()
	return GaleraNodes(t).URLs
}

// GaleraNodes is Galera, with the nodes to kill and start again: a node
// that goes away mid-run and comes back.
func GaleraNodes(t testing.TB) *Nodes {
	t.Helper()
	Integration(t)
	for _, f := range []string{"/usr/sbin/mariadbd", "/usr/lib/galera/libgalera_smm.so"} {
		if _, err := os.Stat(f); err != nil {
			skipOrFail(t, "%s is missing (apt-get install mariadb-server galera-4): no Galera cluster", f)
		}
	}
	// SQL, group communication, state and incremental transfer ports.
	urls, data := cluster(t, "galera", []int{0, 100, 200, 300})
	return &Nodes{URLs: urls, dir: data}
}

// Nodes are a cluster's nodes, started by bench/cluster/galera.
type Nodes struct {
	URLs []string
	dir  string
}

// Kill kills node i (from 0) at once, as a crash would (SIGKILL).
func (n *Nodes) Kill(t testing.TB, i int) {
	t.Helper()
	b, err := os.ReadFile(n.pidFile(i))
	if err != nil {
		t.Fatalf("node %d: %v", i+1, err)
	}
	if out, err := exec.Command("kill", "-9", strings.TrimSpace(string(b))).CombinedOutput(); err != nil {
		t.Fatalf("killing node %d: %v %s", i+1, err, out)
	}
}

// Start starts node i again, as the script starts it: it rejoins the
// cluster by state transfer. The script's stop stops it.
func (n *Nodes) Start(t testing.TB, i int) {
	t.Helper()
	cmd := exec.Command("/usr/sbin/mariadbd", "--defaults-file="+filepath.Join(n.dir, fmt.Sprintf("node%d", i+1), "my.cnf"))
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting node %d: %v", i+1, err)
	}
	go cmd.Wait()
	if err := os.WriteFile(n.pidFile(i), []byte(fmt.Sprintln(cmd.Process.Pid)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// WaitReady waits up to d for node i to be synced and ready for
// clients (wsrep_ready ON), as the script does.
func (n *Nodes) WaitReady(t testing.TB, i int, d time.Duration) {
	t.Helper()
	sock := filepath.Join(n.dir, fmt.Sprintf("node%d", i+1), "mysqld.sock")
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(250 * time.Millisecond) {
		out, _ := exec.Command("mariadb", "--socket="+sock, "-uroot", "-N", "-e", "SHOW GLOBAL STATUS LIKE 'wsrep_ready'").Output()
		if f := strings.Fields(string(out)); len(f) == 2 && f[1] == "ON" {
			return
		}
	}
	t.Fatalf("node %d not ready after %v; see %s", i+1, d, filepath.Join(filepath.Dir(sock), "error.log"))
}

func (n *Nodes) pidFile(i int) string {
	return filepath.Join(n.dir, fmt.Sprintf("node%d", i+1), "server.pid")
}

// PostgresStandbys starts a PostgreSQL primary and two streaming standbys
// of the test's own on loopback with bench/cluster/postgres, stops them
// when the test ends, and returns their URLs, the primary's first.
func PostgresStandbys(t testing.TB) []string {
	t.Helper()
	Integration(t)
	if m, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pg_basebackup"); len(m) == 0 {
		skipOrFail(t, "PostgreSQL's server programs are missing (apt-get install postgresql): no standbys")
	}
	urls, _ := cluster(t, "postgres", []int{0})
	return urls
}

// PostgresNodes is PostgresStandbys, with the servers to stop and start
// again: a standby that goes away mid-run and comes back.
func PostgresNodes(t testing.TB) *PGNodes {
	t.Helper()
	Integration(t)
	if m, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pg_basebackup"); len(m) == 0 {
		skipOrFail(t, "PostgreSQL's server programs are missing (apt-get install postgresql): no standbys")
	}
	urls, data := cluster(t, "postgres", []int{0})
	return &PGNodes{URLs: urls, dir: data}
}

// PGNodes are bench/cluster/postgres's servers, the primary first.
type PGNodes struct {
	URLs []string
	dir  string
}

// Stop stops server i (from 0) at once (pg_ctl -m immediate: its
// connections are cut, new ones refused). Safe in any goroutine.
func (n *PGNodes) Stop(i int) error { return n.pgCtl(i, "-m", "immediate", "-w", "stop") }

// Start starts server i again, as the script starts it.
func (n *PGNodes) Start(i int) error {
	return n.pgCtl(i, "-l", filepath.Join(n.dir, fmt.Sprint("pg", i+1), "log"), "-w", "start")
}

func (n *PGNodes) pgCtl(i int, args ...string) error {
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pg_ctl")
	if len(bins) == 0 {
		return fmt.Errorf("no pg_ctl under /usr/lib/postgresql")
	}
	slices.Sort(bins)
	d := filepath.Join(n.dir, fmt.Sprint("pg", i+1))
	cmd := append([]string{"-u", "postgres", "--", bins[len(bins)-1], "-D", d}, args...)
	if out, err := exec.Command("runuser", cmd...).CombinedOutput(); err != nil {
		return fmt.Errorf("pg_ctl %v on server %d: %v\n%s", args, i+1, err, out)
	}
	return nil
}

// MariaDBReplicas starts a MariaDB primary and two asynchronous replicas
// of the test's own on loopback with bench/cluster/mariadb (binary log
// replication, CHANGE MASTER TO), stops them when the test ends, and
// returns their URLs, the primary's first.
func MariaDBReplicas(t testing.TB) []string {
	t.Helper()
	Integration(t)
	for _, f := range []string{"/usr/sbin/mariadbd", "/usr/bin/mariadb-install-db"} {
		if _, err := os.Stat(f); err != nil {
			skipOrFail(t, "%s is missing (apt-get install mariadb-server): no replicas", f)
		}
	}
	urls, _ := cluster(t, "mariadb", []int{0})
	return urls
}

// cluster runs bench/cluster/NAME start (with args after the port) in a
// directory of the test's own on a free base port (each offset in offsets,
// +0..2, free), stops it when the test ends, and returns the 3 URLs it
// printed and its data directory.
func cluster(t testing.TB, name string, offsets []int, args ...string) ([]string, string) {
	t.Helper()
	Integration(t)
	_, here, _, _ := runtime.Caller(0)
	script := filepath.Join(filepath.Dir(here), "..", "..", "bench", "cluster", name)
	// The servers run as their own system user, who must reach the directory.
	dir, err := os.MkdirTemp("", "taobench-"+name)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	reapOnExit(t, dir, stopEach(script, dir, "c")...)
	// The ports were free when freeBase looked; another test's servers,
	// started in between, may have taken one: then start again on others.
	var data string
	var out, errOut bytes.Buffer
	for attempt := 1; ; attempt++ {
		d := filepath.Join(dir, fmt.Sprint("c", attempt))
		out.Reset()
		errOut.Reset()
		cmd := exec.Command(script, append([]string{"start", d, fmt.Sprint(freeBase(t, offsets))}, args...)...)
		cmd.Stdout, cmd.Stderr = &out, &errOut
		t.Cleanup(func() {
			if err := exec.Command(script, "stop", d).Run(); err != nil {
				t.Errorf("%s stop: %v", script, err)
			}
		})
		err := cmd.Run()
		if err == nil {
			data = d
			break
		}
		if attempt < 3 && strings.Contains(errOut.String(), "Address already in use") {
			t.Logf("%s start: a port was taken; starting on others", script)
			continue
		}
		t.Fatalf("%s start: %v\n%s", script, err, errOut.String())
	}
	urls := strings.Fields(out.String())
	if len(urls) != 3 {
		t.Fatalf("%s start printed %q, want 3 URLs", script, out.String())
	}
	return urls, data
}

// stopEach is the stop command of each start attempt's directory, PREFIX1
// to PREFIX3 in dir, for reapOnExit.
func stopEach(script, dir, prefix string) [][]string {
	var cmds [][]string
	for attempt := 1; attempt <= 3; attempt++ {
		cmds = append(cmds, []string{script, "stop", filepath.Join(dir, fmt.Sprint(prefix, attempt))})
	}
	return cmds
}

// freeBase returns a port p such that p+off, p+off+1 and p+off+2 are free
// on loopback for every off in offsets.
func freeBase(t testing.TB, offsets []int) int {
	t.Helper()
	for range 50 {
		base := 20000 + rand.IntN(9000)
		free := true
		for _, off := range offsets {
			for i := range 3 {
				l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", base+off+i))
				if err != nil {
					free = false
					break
				}
				l.Close()
			}
		}
		if free {
			return base
		}
	}
	t.Fatal("no free ports on loopback")
	return 0
}
