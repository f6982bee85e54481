package store

import (
	"context"
	"time"
)

// ServerStats is what a database server says about itself at one instant:
// the size of taobench's tables and the server's own cumulative counters,
// which a caller reads before and after some work and subtracts.
type ServerStats struct {
	Engine string // "postgres", "mysql" or "sqlite": the protocol
	// Product is the server that answered, such as "PostgreSQL 15.19",
	// "MariaDB 10.11.19 with Galera", "TiDB v7.5.1", "CockroachDB v23.2.1".
	Product string
	// SizeBytes is the bytes each of taobench's tables takes, indexes
	// included, by table name; SQLite gives its files instead ("file",
	// "wal").
	SizeBytes map[string]int64
	// Gauges are levels, not counters, such as SQLite's page counts.
	Gauges map[string]int64
	// Counters are the server's cumulative counters, by the server's name.
	Counters map[string]int64
	// Tables are cumulative counters of each of taobench's tables.
	Tables map[string]map[string]int64
	// Lag is how long the server may take to count work already done
	// (PostgreSQL's sessions report their statistics up to a second
	// late): a caller waits this long after the work before the reading
	// that ends it.
	Lag time.Duration
}

// StatsReader is a Database that can read its server's statistics. A part
// that cannot be read (a missing view, a privilege) leaves its fields empty
// and is named in the error, while the rest is returned.
type StatsReader interface {
	ServerStats(ctx context.Context) (ServerStats, error)
}
