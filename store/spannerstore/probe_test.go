package spannerstore_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/taobench/taobench/store"
)

// TestEmulatorHostUnanswered: SPANNER_EMULATOR_HOST at a closed port, at
// a listener that accepts and says nothing, or at an HTTP server makes the
// open fail (it used to succeed and every later call hung) with a message
// naming the variable, its address and the fix, within the open's bound.
// The test gives the open a 3 s deadline, which the bound honours, so it
// does not wait out the default 15 s; the 2-minute guard only catches a
// hang.
func TestEmulatorHostUnanswered(t *testing.T) {
	closed := func(t *testing.T) string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close()
		return addr
	}
	silent := func(t *testing.T) string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		var conns []net.Conn
		done := make(chan struct{})
		go func() {
			defer close(done)
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				conns = append(conns, c) // held open, never written to
			}
		}()
		t.Cleanup(func() {
			l.Close()
			<-done
			for _, c := range conns {
				c.Close()
			}
		})
		return l.Addr().String()
	}
	web := func(t *testing.T) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "not here", http.StatusNotFound)
		}))
		t.Cleanup(srv.Close)
		return strings.TrimPrefix(srv.URL, "http://")
	}
	for _, c := range []struct {
		name string
		addr func(*testing.T) string
		says string
	}{
		{"closed port", closed, "connection refused"},
		{"silent listener", silent, "no answer within"},
		{"HTTP server", web, "no Spanner answer within"},
	} {
		t.Run(c.name, func(t *testing.T) {
			addr := c.addr(t)
			t.Setenv("SPANNER_EMULATOR_HOST", addr)
			for _, mustExist := range []bool{false, true} {
				ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
				type opened struct {
					st  store.Store
					err error
				}
				got := make(chan opened, 1)
				go func() {
					st, err := store.Default.Open(ctx, fakeURL, store.Options{MustExist: mustExist})
					got <- opened{st, err}
				}()
				var o opened
				select {
				case o = <-got:
				case <-time.After(2 * time.Minute):
					t.Fatalf("MustExist %v: the open did not return in 2 minutes", mustExist)
				}
				cancel()
				if o.err == nil {
					o.st.Close()
					t.Fatalf("MustExist %v: the open succeeded with nothing Spanner at %s", mustExist, addr)
				}
				msg := o.err.Error()
				for _, want := range []string{fakeURL, "SPANNER_EMULATOR_HOST=" + addr, c.says, "start the Spanner emulator there"} {
					if !strings.Contains(msg, want) {
						t.Errorf("MustExist %v: %q does not say %q", mustExist, msg, want)
					}
				}
			}
		})
	}
}
