package result

import "time"

// Resources is what an experiment cost the driver's machine and what the
// database server counted over it (docs/results.md, "Resources").
type Resources struct {
	Interval time.Duration // between driver samples
	Driver   DriverUsage
	// Server is nil when the store has no server to ask (the null store).
	Server *ServerUsage
}

// DriverUsage is the taobench process's own CPU and memory over the
// experiment, warmup included.
type DriverUsage struct {
	User, Sys time.Duration // CPU time
	// CPUPct is User+Sys over the wall time, in percent of one core.
	CPUPct  float64
	MaxRSS  int64 // bytes: the largest resident set sampled
	Samples []DriverSample
	Error   string // why some or all of it could not be read; "" when all was
}

// DriverSample is one sample, taken every Interval.
type DriverSample struct {
	At     time.Duration // since the experiment started
	CPUPct float64       // since the previous sample, in percent of one core
	RSS    int64         // bytes resident
}

// ServerUsage is the database server's view: taobench's tables before and
// after the experiment, and its counters' growth over it.
type ServerUsage struct {
	Engine        string // "postgres", "mysql" or "sqlite": the protocol
	Product       string // the server that answered, such as "MariaDB 10.11.19 with Galera"
	Before, After ServerState
	// Deltas are the server's counters after the experiment less before.
	Deltas map[string]int64
	// TableDeltas are each table's counters after less before.
	TableDeltas map[string]map[string]int64
	Error       string // why some or all of it could not be read
}

// ServerState is the server's levels at one instant.
type ServerState struct {
	SizeBytes map[string]int64
	Gauges    map[string]int64
}

// TuplesPerRequest derives, from a server's counter deltas, the rows its
// storage read per transaction, which is per request: taobench runs each
// request (a single statement or a transaction of several) as one server
// transaction, a retried one as several. A statement that takes the wrong
// index shows here: a point read through edges_time reads the whole
// (id1, type) list. PostgreSQL: tup_returned (index entries and rows
// scans returned) over xact_commit + xact_rollback, counted for the run's
// database by every session on it. MySQL and MariaDB: the Handler_read_*
// calls over Handler_commit + Handler_rollback (an autocommit statement
// commits once), server-wide. ok is false where the counters are absent
// (SQLite, the null store) or no transaction was counted.
func (s *ServerUsage) TuplesPerRequest() (v float64, ok bool) {
	if s == nil {
		return 0, false
	}
	var reads, xacts []string
	switch s.Engine {
	case "postgres":
		reads, xacts = []string{"tup_returned"}, []string{"xact_commit", "xact_rollback"}
	case "mysql":
		reads = []string{"Handler_read_first", "Handler_read_key", "Handler_read_next", "Handler_read_prev", "Handler_read_rnd_next"}
		xacts = []string{"Handler_commit", "Handler_rollback"}
	default:
		return 0, false
	}
	sum := func(keys []string) (n int64, all bool) {
		for _, k := range keys {
			v, ok := s.Deltas[k]
			if !ok {
				return 0, false
			}
			n += v
		}
		return n, true
	}
	r, rok := sum(reads)
	x, xok := sum(xacts)
	if !rok || !xok || x <= 0 {
		return 0, false
	}
	return float64(r) / float64(x), true
}
