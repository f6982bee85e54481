package sqlstore

import (
	"context"
	"net/url"
	"path/filepath"
	"testing"

	"github.com/taobench/taobench/internal/testenv"
	"github.com/taobench/taobench/store"
)

func openClient(t *testing.T, raw string) store.Client {
	t.Helper()
	st, err := store.Default.Open(context.Background(), raw, store.Options{Clients: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	c, ok := st.(store.ClientTeller)
	if !ok {
		t.Fatalf("%s: the store does not say how it talks to its database", store.Redact(raw))
	}
	return c.Client()
}

// TestClientPaths checks what each store says it does (the results'
// client object): SQLite statement by statement; PostgreSQL's pipeline
// and the exec mode the URL gives (pgx's cache_statement by default);
// the MySQL protocol statements and union reads by default (testMariaDB*
// and cmd/taobench's TestMariaDBNoRoutines cover writes=procedures).
func TestClientPaths(t *testing.T) {
	if c := openClient(t, "sqlite:"+filepath.Join(t.TempDir(), "t.db")); c != (store.Client{Writes: "statements", Reads: "statements"}) {
		t.Errorf("SQLite: %+v", c)
	}
	t.Run("postgres", func(t *testing.T) {
		raw := testenv.FreshPostgres(t, testenv.PostgresURL(t))
		for q, mode := range map[string]string{"": "cache_statement", "exec": "exec", "simple_protocol": "simple_protocol"} {
			u, _ := url.Parse(raw)
			if q != "" {
				v := u.Query()
				v.Set("default_query_exec_mode", q)
				u.RawQuery = v.Encode()
			}
			want := store.Client{Writes: "pipeline", Reads: "pipeline", ExecMode: mode, Pooler: "none"}
			if c := openClient(t, u.String()); c != want {
				t.Errorf("PostgreSQL%s: %+v, want %+v", q, c, want)
			}
		}
	})
	t.Run("mysql", func(t *testing.T) {
		raw := testenv.FreshMySQL(t, testenv.MySQLURL(t))
		for _, q := range []string{"", "?writes=statements"} {
			if c := openClient(t, raw+q); c != (store.Client{Writes: "statements", Reads: "union"}) {
				t.Errorf("MySQL protocol%s: %+v", q, c)
			}
		}
	})
}
