package sqlstore

import (
	"context"
	"io"
	"net"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/taobench/taobench/internal/testenv"
	"github.com/taobench/taobench/store"
)

// relay forwards connections to addr until cut, which closes them all and
// stops listening: a server gone down (a Galera node killed), seen from
// the client.
type relay struct {
	ln    net.Listener
	mu    sync.Mutex
	conns []net.Conn
}

func startRelay(t *testing.T, addr string) *relay {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &relay{ln: ln}
	t.Cleanup(r.cut)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", addr)
			if err != nil {
				c.Close()
				continue
			}
			r.mu.Lock()
			r.conns = append(r.conns, c, s)
			r.mu.Unlock()
			go func() { io.Copy(s, c); s.Close() }()
			go func() { io.Copy(c, s); c.Close() }()
		}
	}()
	return r
}

func (r *relay) cut() {
	r.ln.Close()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.conns {
		c.Close()
	}
	r.conns = nil
}

// TestServerStatsUnread: a MariaDB node that cannot be read (gone, or
// slower than the time allowed) is said to be so, not to "report none of
// the counters", which is what a server that answers without them does.
func TestServerStatsUnread(t *testing.T) {
	raw := testenv.FreshMySQL(t, testenv.MySQLURL(t))
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	r := startRelay(t, u.Host)
	u.Host = r.ln.Addr().String()
	s, err := store.Default.Open(context.Background(), u.String(), store.Options{Clients: 1})
	if err != nil {
		t.Fatalf("open through the relay: %v", err)
	}
	defer s.Close()
	db := s.(*DB)
	if _, err := db.ServerStats(context.Background()); err != nil {
		t.Fatalf("ServerStats while the server is there: %v", err)
	}

	past, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	_, err = db.ServerStats(past)
	if err == nil || strings.Contains(err.Error(), "reports none of") || !strings.Contains(err.Error(), "could not be read (timed out)") {
		t.Errorf("ServerStats past its deadline: %v; want \"could not be read (timed out)\" and no \"reports none of\"", err)
	}

	r.cut()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // not reached: the dial is refused at once
	defer cancel()
	_, err = db.ServerStats(ctx)
	if err == nil || strings.Contains(err.Error(), "reports none of") || !strings.Contains(err.Error(), "could not be read (unreachable)") {
		t.Errorf("ServerStats of a server gone: %v; want \"could not be read (unreachable)\" and no \"reports none of\"", err)
	}
}
