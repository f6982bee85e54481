package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// Regions is a cluster started with --regions 3 (bench/cluster/regions.sh):
// node I in region I, every link between regions through a Toxiproxy proxy
// with the round trip RTT.
type Regions struct {
	URLs   []string // each node's URL from its own region
	RTT    time.Duration
	dir    string
	script string
}

// GaleraRegions starts bench/cluster/galera with 3 regions rtt apart. The
// script builds toxiproxy-server with go install unless TOXIPROXY_SERVER
// names one (CI builds it once).
func GaleraRegions(t testing.TB, rtt time.Duration) *Regions {
	t.Helper()
	Integration(t)
	for _, f := range []string{"/usr/sbin/mariadbd", "/usr/lib/galera/libgalera_smm.so"} {
		if _, err := os.Stat(f); err != nil {
			skipOrFail(t, "%s is missing (apt-get install mariadb-server galera-4): no Galera cluster", f)
		}
	}
	// On loopback: the client proxies and Toxiproxy's API (the nodes and
	// their links are on addresses of the cluster's own). Needs root (ip
	// netns), as the servers' system users do.
	urls, dir := cluster(t, "galera", []int{0, 420, 423, 426, 497},
		"--regions", "3", "--rtt", fmt.Sprint(rtt.Milliseconds(), "ms"))
	return &Regions{URLs: urls, RTT: rtt, dir: dir, script: script("galera")}
}

// PostgresRegions starts bench/cluster/postgres with 3 regions rtt apart,
// the standbys synchronous when sync is set.
func PostgresRegions(t testing.TB, rtt time.Duration, sync bool) *Regions {
	t.Helper()
	Integration(t)
	if m, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pg_basebackup"); len(m) == 0 {
		skipOrFail(t, "PostgreSQL's server programs are missing (apt-get install postgresql): no standbys")
	}
	args := []string{"--regions", "3", "--rtt", fmt.Sprint(rtt.Milliseconds(), "ms")}
	if sync {
		args = append(args, "--sync")
	}
	urls, dir := cluster(t, "postgres", []int{0, 10, 20, 23, 26, 97}, args...)
	return &Regions{URLs: urls, RTT: rtt, dir: dir, script: script("postgres")}
}

// MariaDBRegions starts bench/cluster/mariadb with 3 regions rtt apart: the
// primary in region 1, its asynchronous replicas in regions 2 and 3.
func MariaDBRegions(t testing.TB, rtt time.Duration) *Regions {
	t.Helper()
	Integration(t)
	for _, f := range []string{"/usr/sbin/mariadbd", "/usr/bin/mariadb-install-db"} {
		if _, err := os.Stat(f); err != nil {
			skipOrFail(t, "%s is missing (apt-get install mariadb-server): no replicas", f)
		}
	}
	urls, dir := cluster(t, "mariadb", []int{0, 10, 20, 23, 26, 97},
		"--regions", "3", "--rtt", fmt.Sprint(rtt.Milliseconds(), "ms"))
	return &Regions{URLs: urls, RTT: rtt, dir: dir, script: script("mariadb")}
}

// From returns the nodes' URLs as a client in region r (from 1) reaches
// them: its own region's direct, the others through their proxies.
func (r *Regions) From(t testing.TB, region int) []string {
	t.Helper()
	out, err := exec.Command(r.script, "urls", r.dir, "--from", fmt.Sprint(region)).Output()
	if err != nil {
		t.Fatalf("%s urls: %v", r.script, err)
	}
	return strings.Fields(string(out))
}

// Partition schedules region's partition: cut off from the others at from
// now, for d, then healed (the script does it in the background).
func (r *Regions) Partition(t testing.TB, region int, at, d time.Duration) {
	t.Helper()
	cmd := exec.Command(r.script, "partition", r.dir, "--region", fmt.Sprint(region),
		"--at", fmt.Sprint(at.Milliseconds(), "ms"), "--for", fmt.Sprint(d.Milliseconds(), "ms"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s partition: %v\n%s", r.script, err, out)
	}
}

// PartitionLog returns what the partitions logged (cut, healed, errors).
func (r *Regions) PartitionLog() string {
	b, _ := os.ReadFile(filepath.Join(r.dir, "partition.log"))
	return string(b)
}

func script(name string) string {
	_, here, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(here), "..", "..", "bench", "cluster", name)
}
