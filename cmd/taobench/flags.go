package main

import (
	"flag"
	"fmt"
	"github.com/taobench/taobench/store"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/taobench/taobench/internal/flagx"
	"github.com/taobench/taobench/internal/sysmon"
	"github.com/taobench/taobench/outfile"
	"github.com/taobench/taobench/run"
	"github.com/taobench/taobench/session"
)

// Flag specs, one per concern: each registers its flags on a command's
// FlagSet, with that command's defaults, and checks their values, so a
// flag is declared and range-checked in one place. A command's messages
// start with its name (cmd).

// Upper bounds of sizes, each with the reason its message gives.
const (
	maxEdges = 1_000_000_000_000 // 10^12: weeks to load at 10^6 rows/s
	maxProcs = 1024              // GOMAXPROCS beyond this only costs memory
)

const metricsAddrHelp = "serve Prometheus metrics at http://HOST:PORT/metrics while the command works (docs/results.md), e.g. 127.0.0.1:9100; port 0 picks a free one"

const dbHelp = "database `URL`: sqlite:PATH, postgres://…, mysql://…"

// flagForms are the forms the flags of package flag's types want, by name,
// for their messages when a value does not parse (flagx.Parse): "--threads:
// want a whole number from 1 to 4096, got 1.5". The checks of the specs
// below say the same of values that parse but are out of range.
func flagForms() map[string]string {
	return map[string]string{
		"threads":           fmt.Sprintf("a whole number from 1 to %d", run.MaxClients),
		"edges":             fmt.Sprintf("a whole number from 1 to %d", int64(maxEdges)),
		"load-threads":      "a whole number from 1 to 1024",
		"retries":           "a whole number, 0 or more",
		"procs":             fmt.Sprintf("a whole number from 0 (sized to the clients) to %d", maxProcs),
		"seed":              "a whole number from 0 to 18446744073709551615",
		"rate":              fmt.Sprintf("a rate in requests per second from 0 (closed loop) to %g", float64(run.MaxRate)),
		"start":             "a rate in requests per second above 0",
		"factor":            "a number above 1",
		"precision":         "a percentage above 0",
		"requests":          "a whole number, 1 or more",
		"max-probes":        "a whole number, 1 or more",
		"max-steps":         "a whole number, 1 or more",
		"client-cache-size": "a whole number of entries",
		"confidence":        "a level between 0 and 1, such as 0.95",
	}
}

// dbSpec is --db as a flag.Value (and, where a command spreads its
// clients over several endpoints, --db-weights): the first value replaces the default
// URL, and, when Many, each further one adds an endpoint (More); else a
// second --db is refused as any flag given twice is (flagx).
type dbSpec struct {
	URL  string
	More []string
	Many bool
	// Weights is --db-weights, with Many.
	Weights string
	set     bool
}

// register registers --db on fs, default def: one URL.
func (f *dbSpec) register(fs *flag.FlagSet, def, help string) {
	f.URL = def
	fs.Var(f, "db", help)
}

// registerMany registers --db, which may be given again for more
// endpoints of the same database, and --db-weights.
func (f *dbSpec) registerMany(fs *flag.FlagSet, def, help string) {
	f.Many = true
	f.register(fs, def, help+"; given again, another server of the same database: clients and loaders are spread over them (docs/distributed.md)")
	fs.StringVar(&f.Weights, "db-weights", "", "with --db given N times: N shares of the clients, in --db order, e.g. 2,1,1 (default: equal)")
}

func (f *dbSpec) String() string { return f.URL }

// Set takes one --db.
func (f *dbSpec) Set(v string) error {
	if f.set {
		f.More = append(f.More, v)
	} else {
		f.URL, f.set = v, true
	}
	return nil
}

// Repeatable lets flagx accept --db again where a command spreads its
// clients over several endpoints.
func (f *dbSpec) Repeatable() bool { return f.Many }

// fromEnv replaces each env:NAME among the URLs by the URL in the
// environment variable NAME (store.FromEnv).
func (f *dbSpec) fromEnv() error {
	var err error
	if f.URL, err = store.FromEnv(f.URL); err != nil {
		return err
	}
	for i, u := range f.More {
		if f.More[i], err = store.FromEnv(u); err != nil {
			return err
		}
	}
	return nil
}

// weights are --db-weights for the endpoints given: nil for equal shares.
// Its errors name the flags (cmd starts them).
func (f *dbSpec) weights(cmd string) ([]int, error) {
	n := 1 + len(f.More)
	if f.Weights == "" {
		return nil, nil
	}
	if n == 1 {
		return nil, badInput("%s: --db-weights %s with one --db: give --db once per endpoint, or drop --db-weights", cmd, f.Weights)
	}
	parts := strings.Split(f.Weights, ",")
	if len(parts) != n {
		return nil, badInput("%s: --db-weights %s: %d weight(s) for %d endpoint(s) (--db given %d times); give one weight per --db, in order", cmd, f.Weights, len(parts), n, n)
	}
	ws := make([]int, n)
	for i, p := range parts {
		w, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || w < 1 || w > run.MaxClients {
			return nil, badInput("%s: --db-weights %s: weight %d is %q; give whole numbers from 1 to %d, such as 2,1,1", cmd, f.Weights, i+1, p, run.MaxClients)
		}
		ws[i] = w
	}
	return ws, nil
}

// graphSpec is the workload and the graph to load when the database holds
// none: --workload (unless the command has its own), --edges,
// --load-threads.
type graphSpec struct {
	workload    string
	edges       int64
	loadThreads int
	edgesGiven  bool
}

func (s *graphSpec) register(fs *flag.FlagSet, withWorkload bool, defEdges int64, edgesHelp string) {
	if withWorkload {
		fs.StringVar(&s.workload, "workload", defaultWorkload, "built-in workload (taobench workloads) or a workload file")
	}
	fs.Int64Var(&s.edges, "edges", defEdges, edgesHelp)
	fs.IntVar(&s.loadThreads, "load-threads", 2, "loaders used when the graph must be loaded first (1 to 1024)")
}

func (s *graphSpec) check(cmd string, fs *flag.FlagSet) error {
	s.edgesGiven = flagx.Given(fs)["edges"]
	switch {
	case s.edges < 1:
		return badInput("%s: --edges %d: give a positive number of edges", cmd, s.edges)
	case s.edges > maxEdges:
		return badInput("%s: --edges %d: give at most %d: at a million rows a second a larger graph takes weeks to load", cmd, s.edges, int64(maxEdges))
	case s.loadThreads < 1 || s.loadThreads > 1024:
		return badInput("%s: --load-threads %d: give 1 to 1024", cmd, s.loadThreads)
	}
	return nil
}

// of is the session's GraphSpec (the run's workload says which graph).
func (s *graphSpec) of() session.GraphSpec {
	return session.GraphSpec{Edges: s.edges, EdgesGiven: s.edgesGiven, LoadThreads: s.loadThreads}
}

// runSpec is what every experiment of a command shares: --threads,
// --warmup, --duration, --retries, --drain, --seed and, where the command
// sizes the runtime, --procs.
type runSpec struct {
	threads, retries, procs int
	// monitor is --runtime-monitor, which main reads before any flag is
	// parsed (sysmon.Start); registered here so that it is named in the
	// help and checked.
	monitor                 string
	warmup, duration, drain time.Duration
	seed                    uint64
	seedGiven               bool
}

// runDefaults are a command's defaults; procs registers --procs.
type runDefaults struct {
	threads                 int
	warmup, duration, drain time.Duration
	threadsHelp, seedHelp   string
	procs                   bool
}

func (s *runSpec) register(fs *flag.FlagSet, d runDefaults) {
	s.warmup, s.duration, s.drain = d.warmup, d.duration, d.drain
	fs.IntVar(&s.threads, "threads", d.threads, d.threadsHelp)
	fs.Var(durationFlag{&s.warmup}, "warmup", "warmup of every experiment, excluded from results (seconds or Go syntax: 10, 30s, 2m)")
	fs.Var(durationFlag{&s.duration}, "duration", "measured time of every experiment, after its warmup (seconds or Go syntax)")
	fs.Var(durationFlag{&s.drain}, "drain", "time requests still running at the end may take before they count as timeouts")
	fs.IntVar(&s.retries, "retries", 10, "times a request that hit a conflict is retried (0: fail fast)")
	fs.Uint64Var(&s.seed, "seed", 0, d.seedHelp)
	if d.procs {
		fs.IntVar(&s.procs, "procs", 0, "Go scheduler threads (GOMAXPROCS); 0: one per 4 clients, at most the CPUs, unless GOMAXPROCS is set")
	}
	fs.StringVar(&s.monitor, sysmon.Flag, "", "the Go runtime's system monitor: "+sysmon.SettingAwake+" (taobench re-executes itself with "+
		"GODEBUG=schedtrace=<24.8 days>, which keeps the monitor from its deep sleep: fewer thread wake-ups per request, docs/performance.md) or "+
		sysmon.SettingDefault+" (the runtime as it is); the results record which (client.runtime_monitor). "+
		"Default: $"+sysmon.Env+", else "+sysmon.DefaultSetting)
}

// check checks the values; threads says whether --threads and --duration
// apply (run's --experiments file replaces them). A seed not given is a
// new one, printed by the command.
func (s *runSpec) check(cmd string, fs *flag.FlagSet, threads bool) error {
	switch {
	case threads && (s.threads < 1 || s.threads > run.MaxClients):
		return badInput("%s: --threads %d: give 1 to %d: the ids a run creates hold 12 bits of client number", cmd, s.threads, run.MaxClients)
	case threads && s.duration < run.MinDuration:
		return badInput("%s: --duration %v: give at least %v (a shorter window measures next to nothing)", cmd, s.duration, run.MinDuration)
	case s.warmup < 0:
		return badInput("%s: --warmup must be 0 or more", cmd)
	case s.drain <= 0:
		return badInput("%s: --drain must be positive", cmd)
	case s.retries < 0:
		return badInput("%s: --retries %d: give 0 or more", cmd, s.retries)
	case flagx.Given(fs)[sysmon.Flag] && sysmon.Check(s.monitor, "--"+sysmon.Flag) != nil:
		return badInputErr(fmt.Errorf("%s: %w", cmd, sysmon.Check(s.monitor, "--"+sysmon.Flag)))
	case !flagx.Given(fs)[sysmon.Flag] && os.Getenv(sysmon.Env) != "" && sysmon.Check(os.Getenv(sysmon.Env), sysmon.Env) != nil:
		return badInputErr(fmt.Errorf("%s: %w", cmd, sysmon.Check(os.Getenv(sysmon.Env), sysmon.Env)))
	case s.procs < 0 || s.procs > maxProcs:
		return badInput("%s: --procs %d: give 0 (sized to the clients) to %d: more scheduler threads than that only cost memory, as no run has more than %d clients", cmd, s.procs, maxProcs, run.MaxClients)
	}
	if s.seedGiven = flagx.Given(fs)["seed"]; !s.seedGiven {
		s.seed = session.NewSeed()
	}
	return nil
}

// experiment is one experiment of the flags' clients and windows at rate.
func (s *runSpec) experiment(rate float64) run.Experiment {
	return run.Experiment{Threads: s.threads, Warmup: s.warmup, Duration: s.duration, Rate: rate}
}

// openLoopSpec is --rate (where the command has a fixed one) and
// --arrival.
type openLoopSpec struct {
	rate        float64
	arrivalName string
	arrival     run.Arrival
}

func (s *openLoopSpec) register(fs *flag.FlagSet, withRate bool, rateHelp string) {
	if withRate {
		fs.Float64Var(&s.rate, "rate", 0, rateHelp)
	}
	fs.StringVar(&s.arrivalName, "arrival", "poisson", "open-loop arrivals: poisson (exponential inter-arrival times) or uniform")
}

// check checks the values; rateless says the command may run open loop
// without --rate (a file of experiments with rates, a sweep).
func (s *openLoopSpec) check(cmd string, fs *flag.FlagSet, rateless bool) error {
	if err := run.CheckRate(s.rate); err != nil {
		return badInput("%s: --rate: %v", cmd, err)
	}
	a, err := run.ParseArrival(s.arrivalName)
	if err != nil {
		return badInput("%s: --arrival: %v", cmd, err)
	}
	if flagx.Given(fs)["arrival"] && s.rate == 0 && !rateless {
		return badInput("%s: --arrival applies to open loop only: give --rate too", cmd)
	}
	s.arrival = a
	return nil
}

// outSpec is --out and --metrics-addr: where the results go besides
// standard output.
type outSpec struct {
	path, metricsAddr string
}

func (s *outSpec) register(fs *flag.FlagSet, help string) {
	fs.StringVar(&s.path, "out", "", help+"; README.md says how files, symlinks and devices are written")
	fs.StringVar(&s.metricsAddr, "metrics-addr", "", metricsAddrHelp)
}

// open checks --out (out.go), "-" being standard output; an --out given
// as "" is refused rather than silently writing nothing.
func (s *outSpec) open(e *env, cmd string, fs *flag.FlagSet) (*outfile.Results, error) {
	if s.path == "" && flagx.Given(fs)["out"] {
		return nil, badInput("%s: --out '': give a file name (or - for standard output), or leave --out out", cmd)
	}
	path := s.path
	if path == "-" {
		path = "/dev/stdout"
	}
	o, err := checkOutAs(e, cmd+": --out", path)
	if o != nil {
		o.Given = s.path
	}
	return o, err
}

// registerSplit registers run's flags that split one run across driver
// processes (docs/distributed.md); splitSpec checks them.
func registerSplit(fs *flag.FlagSet, s *splitSpec) {
	fs.StringVar(&s.Driver, "driver", "", "I/N: run as driver I (counting from 0, as Kubernetes' JOB_COMPLETION_INDEX) of N processes sharing one run: this one runs its share of --threads and --rate; merge their --out files with taobench merge")
	fs.StringVar(&s.RunID, "run-id", "", "the id all drivers of one run share (letters, digits, . _ -); default with --driver: derived from --start-at, workload and seed")
	fs.StringVar(&s.StartAt, "start-at", "", "begin the first experiment at this instant, RFC 3339 (2026-11-23T14:00:00Z: lines up hosts) or +DURATION from now (+30s: lines up only processes started together); later experiments follow on the same schedule")
}

// registerTiers registers the read tiers of run, sweep, rate and
// experiment (docs/tiers.md); without them nothing stands before the
// database. session.TierSpec checks them (checkTiers).
func registerTiers(fs *flag.FlagSet, s *session.TierSpec) {
	fs.StringVar(&s.Cache, "cache", "", "TAO's cache tier on Redis, e.g. redis://127.0.0.1:6379/0 (?prefix=NAME&expire=1h&prefill=1, prefill: warm it from the database in each warmup): reads read_tiers sends to tao (or that miss the client cache) are served from it, filled on a miss, invalidated after writes (docs/tiers.md)")
	fs.Var(durationFlag{&s.TTL}, "client-cache-ttl", "a client-side cache in this process with this TTL (e.g. 2s), never invalidated by writes: reads read_tiers sends to client_cache are served from it")
	fs.Var(flagx.List[string]{Items: &s.Replicas, Parse: func(u string) (string, error) { return u, nil }}, "replica", "a read replica of --db (a PostgreSQL standby, a MySQL or MariaDB replica), repeatable: the database tier's reads go to the replicas in turn, writes to --db; stale reads are measured (docs/tiers.md). Without --db: a read-only workload on the replicas alone")
	fs.IntVar(&s.Size, "client-cache-size", 0, fmt.Sprintf("the client-side cache's bound in entries, least recently used out first (default %d with --client-cache-ttl)", session.DefaultClientCacheSize))
	fs.Float64Var(&s.Locality, "client-cache-locality", session.DefaultClientCacheLocality, "with --client-cache-ttl: the share of reads read_tiers sends to client_cache that read again what their client read moments ago (one of its last 16 reads), as TAO's web servers do; 1 models TAO's 14.1%, 0 draws every read afresh (docs/tiers.md)")
	fs.BoolVar(&s.Invalidate, "cache-invalidates", false, "with --cache: a write deletes the tao tier's entries it touched, as before writes applied TAO's changeset to them (docs/tiers.md)")
	fs.BoolVar(&s.TxnsAtDB, "read-txns-at-db", false, "send every read transaction to the database, as before they were served where TAO serves them (from the tao tier when all their keys are cached; docs/tiers.md)")
}

// checkTiers checks the read tiers' flags of command cmd.
func checkTiers(cmd string, ts session.TierSpec) error {
	if err := ts.Check(); err != nil {
		return fmt.Errorf("%s: %w", cmd, err)
	}
	return nil
}
