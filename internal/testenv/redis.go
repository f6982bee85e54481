package testenv

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// RedisURL returns the URL of a reachable Redis server (TAOBENCH_REDIS_URL,
// default redis://127.0.0.1:6379/0), skipping the test where nothing
// listens there (failing it under TAOBENCH_REQUIRE=1). Tests keep their
// keys under a prefix of their own (UniqueName) and remove them.
func RedisURL(t testing.TB) string {
	t.Helper()
	return server(t, "TAOBENCH_REDIS_URL", "redis://127.0.0.1:6379/0", "127.0.0.1:6379", "Redis")
}

// Redis is a redis-server a test started for itself, on a free loopback
// port in a temporary directory; the shared server is never touched.
type Redis struct {
	Port int
	URL  string
	args []string
	dir  string
	cmd  *exec.Cmd
}

// StartRedis starts a private redis-server with extra arguments (such as
// "--maxmemory", "1mb"), skipping the test when redis-server is not
// installed (failing it under TAOBENCH_REQUIRE=1). It stops when the test
// ends.
func StartRedis(t testing.TB, extra ...string) *Redis {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		skipOrFail(t, "redis-server is not installed (Debian: apt-get install redis-server): %v", err)
		return nil
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("find a free port: %v", err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	r := &Redis{Port: port, URL: fmt.Sprintf("redis://127.0.0.1:%d/0", port), dir: t.TempDir()}
	r.args = append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--dir", r.dir,
		"--save", "", "--appendonly", "no", "--logfile", filepath.Join(r.dir, "redis.log")}, extra...)
	r.args = append([]string{bin}, r.args...)
	r.Start(t)
	t.Cleanup(func() { r.Stop(t) })
	return r
}

// Start starts the server (again, after Stop) and waits until it answers.
func (r *Redis) Start(t testing.TB) {
	t.Helper()
	r.cmd = exec.Command(r.args[0], r.args[1:]...)
	if err := r.cmd.Start(); err != nil {
		t.Fatalf("start redis-server: %v", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", r.Port), 200*time.Millisecond); err == nil {
			_, werr := c.Write([]byte("PING\r\n"))
			line, rerr := bufio.NewReader(c).ReadString('\n')
			c.Close()
			if werr == nil && rerr == nil && line == "+PONG\r\n" {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	log, _ := os.ReadFile(filepath.Join(r.dir, "redis.log"))
	t.Fatalf("redis-server on port %d did not answer within 10 s; its log:\n%s", r.Port, log)
}

// Stop kills the server (as a crash would) and waits for it to exit.
func (r *Redis) Stop(t testing.TB) {
	if r.cmd == nil || r.cmd.Process == nil {
		return
	}
	r.cmd.Process.Kill()
	r.cmd.Wait()
	r.cmd = nil
}
