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
	Engine        string // "postgres", "mysql" or "sqlite"
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
