package testenv

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// StartPgBouncer starts a private PgBouncer (Debian's pgbouncer) in
// transaction pooling mode on a free loopback port, in a temporary
// directory, in front of the PostgreSQL database of pg (a URL such as
// FreshPostgres returns), and returns the URL of the same database
// through it, with pg's parameters. It logs in to the server as pg's user
// without a password (auth_type any: the shared test server trusts
// loopback), so no password is written to its files. It skips the test
// when pgbouncer is not installed (failing it under TAOBENCH_REQUIRE=1)
// and stops when the test ends.
func StartPgBouncer(t testing.TB, pg string) string {
	t.Helper()
	bin, err := exec.LookPath("pgbouncer")
	if err != nil {
		if bin, err = exec.LookPath("/usr/sbin/pgbouncer"); err != nil {
			skipOrFail(t, "pgbouncer is not installed (Debian: apt-get install pgbouncer): %v", err)
			return ""
		}
	}
	u, err := url.Parse(pg)
	if err != nil {
		t.Fatalf("PostgreSQL URL %s: %v", redact(pg), err)
	}
	if _, set := u.User.Password(); set {
		t.Fatalf("PgBouncer's test logs in without a password; %s has one", redact(pg))
	}
	db := filepath.Base(u.Path)
	host, port := u.Hostname(), u.Port()
	if port == "" {
		port = "5432"
	}
	// PgBouncer refuses to run as root: it then switches to another user
	// (-u), who must read its configuration (in a directory of its own,
	// which t.TempDir's parent, private to root, would hide). It logs to
	// its standard error, kept here.
	dir, err := os.MkdirTemp("", "taobench-pgbouncer-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var args []string
	if os.Geteuid() == 0 {
		name := "postgres"
		if _, err := user.Lookup(name); err != nil {
			name = "nobody"
		}
		args = append(args, "-u", name)
	}
	for range 5 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatalf("find a free port: %v", err)
		}
		listen := l.Addr().(*net.TCPAddr).Port
		l.Close()
		ini := filepath.Join(dir, "pgbouncer.ini")
		conf := fmt.Sprintf(`[databases]
%s = host=%s port=%s dbname=%s user=%s

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = %d
unix_socket_dir =
auth_type = any
pool_mode = transaction
max_client_conn = 200
default_pool_size = 8
`, db, host, port, db, u.User.Username(), listen)
		if err := os.WriteFile(ini, []byte(conf), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bin, append(args, ini)...)
		var log bytes.Buffer
		cmd.Stdout, cmd.Stderr = &log, &log
		if err := cmd.Start(); err != nil {
			t.Fatalf("start pgbouncer: %v", err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		through := *u
		through.Host = net.JoinHostPort("127.0.0.1", strconv.Itoa(listen))
		ready, gone := false, false
		for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline) && !ready && !gone; {
			select {
			case <-exited:
				gone = true
				continue
			default:
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			if c, err := pgconn.Connect(ctx, through.String()); err == nil {
				ready = c.Exec(ctx, "SELECT 1").Close() == nil
				c.Close(ctx)
			}
			cancel()
			if !ready {
				time.Sleep(100 * time.Millisecond)
			}
		}
		if ready {
			t.Cleanup(func() {
				cmd.Process.Kill()
				<-exited
			})
			return through.String()
		}
		if !gone {
			cmd.Process.Kill()
			<-exited
		}
		t.Logf("pgbouncer on port %d did not answer; its log:\n%s", listen, log.String())
	}
	t.Fatal("pgbouncer did not start (5 tries)")
	return ""
}
