package testenv

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Vitess starts a Vitess of the test's own (bench/cluster/vitess: vtcombo
// over a MariaDB started by mysqlctl, keyspace taobench in 2 shards) on
// free loopback ports, from the binaries `bench/cluster/vitess build DIR`
// put in the DIR that TAOBENCH_VITESS names; it stops it and removes its
// data when the test ends, and returns vtgate's mysql:// URL. It skips
// where TAOBENCH_VITESS is not set (building vtcombo takes minutes; .ci/run
// builds it and sets it), and fails where it names no built DIR.
func Vitess(t testing.TB) string {
	t.Helper()
	Integration(t)
	built := os.Getenv("TAOBENCH_VITESS")
	if built == "" {
		t.Skip("TAOBENCH_VITESS is not set (the DIR of `bench/cluster/vitess build DIR`)")
	}
	if _, err := os.Stat("/usr/sbin/mariadbd"); err != nil {
		skipOrFail(t, "/usr/sbin/mariadbd is missing (apt-get install mariadb-server): no Vitess")
	}
	built, err := filepath.Abs(built)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"bin/vtcombo", "bin/mysqlctl", "init_db.sql"} {
		if _, err := os.Stat(filepath.Join(built, f)); err != nil {
			t.Fatalf("TAOBENCH_VITESS=%s: %v: run bench/cluster/vitess build %s", built, err, built)
		}
	}
	_, here, _, _ := runtime.Caller(0)
	script := filepath.Join(filepath.Dir(here), "..", "..", "bench", "cluster", "vitess")
	// The servers run as the mysql user when the test runs as root: the
	// directory must be reachable.
	dir, err := os.MkdirTemp("", "taobench-vitess")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	// Copies, not links: the mysql user must read them, and DIR may be
	// under a home it cannot reach (CI keeps the build in root's cache).
	if err := os.Mkdir(filepath.Join(dir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"bin/vtcombo", "bin/mysqlctl", "init_db.sql"} {
		if err := copyFile(filepath.Join(built, f), filepath.Join(dir, f)); err != nil {
			t.Fatal(err)
		}
	}
	// vtgate's MySQL port, vtcombo's HTTP and gRPC ports, MariaDB's.
	port := freeBase(t, []int{0, 3})
	var out, errOut bytes.Buffer
	cmd := exec.Command(script, "start", dir, fmt.Sprint(port))
	cmd.Stdout, cmd.Stderr = &out, &errOut
	t.Cleanup(func() {
		if b, err := exec.Command(script, "stop", dir).CombinedOutput(); err != nil {
			t.Errorf("%s stop: %v\n%s", script, err, b)
		}
	})
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s start: %v\n%s", script, err, errOut.String())
	}
	u := strings.TrimSpace(out.String())
	if !strings.HasPrefix(u, "mysql://") {
		t.Fatalf("%s start printed %q, want vtgate's URL", script, out.String())
	}
	return u
}

// copyFile copies src to dst with src's mode, readable by all.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	st, err := in.Stat()
	if err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, st.Mode().Perm()|0o444)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
