package main

import (
	"net/url"
	"strings"
	"testing"
)

// TestCLIReadOnlyServer: a command pointed at a read-only server (here a
// database whose transactions default to read-only, as on a standby) is
// pointed at the wrong target: exit 2 with the one-line reason and fix,
// as for an unreachable server, not 1 as for a failed run.
func TestCLIReadOnlyServer(t *testing.T) {
	t.Parallel()
	srvEach(t, func(t *testing.T, s srvServer) {
		db := s.fresh(t)
		if s.kind == "postgres" {
			u, err := url.Parse(db)
			if err != nil {
				t.Fatal(err)
			}
			s.exec(t, s.admin, "ALTER DATABASE "+strings.TrimPrefix(u.Path, "/")+" SET default_transaction_read_only = on")
		} else {
			db += "?tx_read_only=1" // MariaDB's name; a session variable, set on each connection
		}
		for _, args := range [][]string{{"load", "--db", db, "--edges", "200"}, {"run", "--db", db, "--edges", "200", "--duration", "1s"}} {
			r := cliRun(t, args...)
			if r.code != 2 || !strings.Contains(r.stderr, "read-only") || !strings.Contains(r.stderr, "point --db at the primary") {
				t.Errorf("want exit 2 naming the read-only server and the fix:\n%s", r)
			}
		}
	})
}
