package store

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
)

// Identity is what a database server says it is and does, read when a
// session opens it: which database it serves, which server it is, and
// whether it takes writes or replays another's.
type Identity struct {
	// Database names the data the server serves, from the server itself:
	// the same on every server of one database (a primary and its
	// replicas), different for two databases (PostgreSQL's system
	// identifier and database name, MySQL's schema, an SQLite file's
	// path, device and inode, Spanner's database path). It holds no secret.
	Database string
	// Server names the server that answered, "" for a database of one
	// server (SQLite, Spanner): a replica given that is its primary is
	// told by it.
	Server string
	// ReadOnly says why the server or the session takes no writes (a
	// standby in recovery, @@read_only ON); "" when it takes them.
	ReadOnly string
	// Replica says the server replays another server's changes: a
	// PostgreSQL standby in recovery, a MySQL or MariaDB server with
	// replication configured or read-only.
	Replica bool
}

// Identifier is a store that can tell its Identity. Every database store
// of taobench implements it; a store that does not (the null store, a
// fake) is taken as it is.
type Identifier interface {
	Identify(ctx context.Context) (Identity, error)
}

// MetaLoadID is the key of the graph record (Database.Meta) under which a
// load records a random token of its own: a replica replays it with the
// rows, and no other load, of this database or another, draws the same.
const MetaLoadID = "load_id"

// NewLoadID draws a load's token.
func NewLoadID() string {
	var b [16]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Scope names the data st serves, for keys shared outside the database
// (the cache tier's): its Identity's Database and the token of the load
// that filled it (MetaLoadID; a graph loaded before taobench recorded one
// is named by its load's start and end). Two databases never share a
// scope, a database reloaded gets a new one, and its replicas share the
// primary's. "" when st tells neither (a store that keeps no data).
func Scope(ctx context.Context, st Store) (string, error) {
	var parts []string
	if id, ok := st.(Identifier); ok {
		ident, err := id.Identify(ctx)
		if err != nil {
			return "", err
		}
		parts = append(parts, "db", ident.Database)
	}
	if db, ok := st.(Database); ok {
		m, err := db.Meta(ctx)
		if err != nil {
			return "", err
		}
		if v := m[MetaLoadID]; v != "" {
			parts = append(parts, "load", v)
		} else {
			parts = append(parts, "started", m["load_started"], "finished", m["load_finished"])
		}
	}
	if len(parts) == 0 {
		return "", nil
	}
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	// 64 bits: a key prefix, not a secret; two scopes meet by chance
	// once in 2^32 databases.
	return hex.EncodeToString(h.Sum(nil)[:8]), nil
}
