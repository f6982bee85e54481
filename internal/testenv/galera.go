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
	"strings"
	"testing"
)

// Galera starts a 3-node MariaDB Galera cluster of the test's own on
// loopback with bench/cluster/galera, stops it when the test ends, and
// returns one URL per node. It skips (fails under TAOBENCH_REQUIRE=1)
// where Debian's mariadb-server and galera-4 are not installed.
func Galera(t testing.TB) []string {
	t.Helper()
	for _, f := range []string{"/usr/sbin/mariadbd", "/usr/lib/galera/libgalera_smm.so"} {
		if _, err := os.Stat(f); err != nil {
			skipOrFail(t, "%s is missing (apt-get install mariadb-server galera-4): no Galera cluster", f)
		}
	}
	_, here, _, _ := runtime.Caller(0)
	script := filepath.Join(filepath.Dir(here), "..", "..", "bench", "cluster", "galera")
	// The nodes run as user mysql, who must reach the directory.
	dir, err := os.MkdirTemp("", "taobench-galera")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	base := freeBase(t)
	var out, errOut bytes.Buffer
	cmd := exec.Command(script, "start", filepath.Join(dir, "g"), fmt.Sprint(base))
	cmd.Stdout, cmd.Stderr = &out, &errOut
	t.Cleanup(func() {
		if err := exec.Command(script, "stop", filepath.Join(dir, "g")).Run(); err != nil {
			t.Errorf("stopping the Galera cluster: %v", err)
		}
		os.RemoveAll(dir)
	})
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s start: %v\n%s", script, err, errOut.String())
	}
	urls := strings.Fields(out.String())
	if len(urls) != 3 {
		t.Fatalf("%s start printed %q, want 3 URLs", script, out.String())
	}
	return urls
}

// freeBase returns a port p such that p, p+1, p+2 and the same at +100,
// +200 and +300 are free on loopback (the cluster's SQL, group, state and
// incremental transfer ports).
func freeBase(t testing.TB) int {
	t.Helper()
	for range 50 {
		base := 20000 + rand.IntN(9000)
		free := true
		for _, off := range []int{0, 100, 200, 300} {
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
	t.Fatal("no free ports for a Galera cluster on loopback")
	return 0
}
