package sqlstore

import (
	"strings"

	"github.com/taobench/taobench/store"
)

// Client says how the store talks to its database (store.ClientTeller):
// the paths its write and read transactions take.
func (db *DB) Client() store.Client {
	if c, ok := db.b.(interface{ client() store.Client }); ok {
		return c.client()
	}
	return store.Client{Writes: "statements", Reads: "statements"} // SQLite
}

func (m *myBackend) client() store.Client {
	c := store.Client{Writes: "statements", Reads: "union"}
	if m.procs.ok {
		c.Writes, c.Routines = "procedures", myRoutineSchema
	}
	if m.stepwise { // tests and benchmarks
		c.Writes, c.Reads = "statements", "statements"
	}
	return c
}

func (b *pgBackend) client() store.Client {
	// The URL's spelling (default_query_exec_mode=cache_statement), not
	// pgx's ("cache statement").
	mode := strings.ReplaceAll(b.pool.Config().ConnConfig.DefaultQueryExecMode.String(), " ", "_")
	// A pooler is looked for at every connection (pgSession): one is
	// named by what it does, not by a name it cannot be asked for.
	pooler := "none"
	if b.pooled {
		pooler = "detected"
	}
	return store.Client{Writes: "pipeline", Reads: "pipeline", ExecMode: mode, Pooler: pooler}
}
