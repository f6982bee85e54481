package report

import (
	"fmt"
	"sort"
	"strings"

	"github.com/taobench/taobench/resources"
	"github.com/taobench/taobench/result"
)

// The resources of an experiment, as docs/results.md ("Resources") shows.
type jsonResources struct {
	IntervalS float64     `json:"interval_s"`
	Driver    jsonDriver  `json:"driver"`
	Server    *jsonServer `json:"server"` // null: the store has no server to ask
}

type jsonDriver struct {
	CPUUserS    float64            `json:"cpu_user_s"`
	CPUSysS     float64            `json:"cpu_sys_s"`
	CPUPct      float64            `json:"cpu_pct"`
	MaxRSSBytes int64              `json:"max_rss_bytes"`
	Samples     []jsonDriverSample `json:"samples"`
	Error       string             `json:"error"`
}

type jsonDriverSample struct {
	TS       float64 `json:"t_s"`
	CPUPct   float64 `json:"cpu_pct"`
	RSSBytes int64   `json:"rss_bytes"`
}

type jsonServer struct {
	Engine      string                      `json:"engine"`
	Before      jsonServerState             `json:"before"`
	After       jsonServerState             `json:"after"`
	Deltas      map[string]int64            `json:"deltas"`
	TableDeltas map[string]map[string]int64 `json:"table_deltas"`
	// TuplesPerRequest is derived from Deltas (resources.TuplesPerRequest),
	// null where it cannot be; not read back.
	TuplesPerRequest *float64 `json:"tuples_per_request"`
	Error            string   `json:"error"`
}

type jsonServerState struct {
	SizeBytes map[string]int64 `json:"size_bytes"`
	Gauges    map[string]int64 `json:"gauges"`
}

// notRecorded is the driver error of an experiment without resources.
const notRecorded = "not recorded: results merged from several processes keep none (each process's own results have them), nor do results written before taobench recorded them"

// resourcesJSON converts r; an experiment merged from several processes
// keeps no resources, which were each process's own.
func resourcesJSON(r *result.Resources, procs int) jsonResources {
	x := jsonResources{Driver: jsonDriver{Samples: []jsonDriverSample{}}}
	if r == nil || procs > 1 {
		x.Driver.Error = notRecorded
		return x
	}
	d := r.Driver
	x.IntervalS = r.Interval.Seconds()
	x.Driver = jsonDriver{CPUUserS: d.User.Seconds(), CPUSysS: d.Sys.Seconds(), CPUPct: d.CPUPct, MaxRSSBytes: d.MaxRSS,
		Samples: make([]jsonDriverSample, 0, len(d.Samples)), Error: d.Error}
	for _, s := range d.Samples {
		x.Driver.Samples = append(x.Driver.Samples, jsonDriverSample{TS: s.At.Seconds(), CPUPct: s.CPUPct, RSSBytes: s.RSS})
	}
	if s := r.Server; s != nil {
		x.Server = &jsonServer{Engine: s.Engine, Before: jsonServerState(s.Before), After: jsonServerState(s.After),
			Deltas: s.Deltas, TableDeltas: s.TableDeltas, Error: s.Error}
		for _, st := range []*jsonServerState{&x.Server.Before, &x.Server.After} {
			st.SizeBytes, st.Gauges = nonNil(st.SizeBytes), nonNil(st.Gauges)
		}
		x.Server.Deltas = nonNil(x.Server.Deltas)
		if x.Server.TableDeltas == nil {
			x.Server.TableDeltas = map[string]map[string]int64{}
		}
		if v, ok := resources.TuplesPerRequest(s); ok {
			x.Server.TuplesPerRequest = &v
		}
	}
	return x
}

func nonNil(m map[string]int64) map[string]int64 {
	if m == nil {
		return map[string]int64{}
	}
	return m
}

// resourcesFromJSON reads back what resourcesJSON wrote; nil when the
// file has none (written before resources existed).
func resourcesFromJSON(x *jsonResources) *result.Resources {
	if x.IntervalS == 0 && x.Server == nil && (x.Driver.Error == "" || x.Driver.Error == notRecorded) {
		return nil
	}
	r := &result.Resources{Interval: seconds(x.IntervalS)}
	d := &r.Driver
	d.User, d.Sys, d.CPUPct, d.MaxRSS, d.Error = seconds(x.Driver.CPUUserS), seconds(x.Driver.CPUSysS), x.Driver.CPUPct, x.Driver.MaxRSSBytes, x.Driver.Error
	for _, s := range x.Driver.Samples {
		d.Samples = append(d.Samples, result.DriverSample{At: seconds(s.TS), CPUPct: s.CPUPct, RSS: s.RSSBytes})
	}
	if s := x.Server; s != nil {
		r.Server = &result.ServerUsage{Engine: s.Engine, Before: result.ServerState(s.Before), After: result.ServerState(s.After),
			Deltas: s.Deltas, TableDeltas: s.TableDeltas, Error: s.Error}
	}
	return r
}

// writeResources writes a line on the driver's CPU and memory and, where
// the server was asked, one on what it counted.
func writeResources(b *strings.Builder, r *result.Resources) {
	if r == nil {
		return
	}
	d := r.Driver
	fmt.Fprintf(b, "driver: CPU %.1f%% of one core (user %.2f s, sys %.2f s), max RSS %.1f MiB", d.CPUPct, d.User.Seconds(), d.Sys.Seconds(), float64(d.MaxRSS)/(1<<20))
	if d.Error != "" {
		fmt.Fprintf(b, " (%s)", d.Error)
	}
	b.WriteString("\n")
	s := r.Server
	if s == nil {
		return
	}
	fmt.Fprintf(b, "server (%s): size %s -> %s", s.Engine, mib(total(s.Before.SizeBytes)), mib(total(s.After.SizeBytes)))
	var keys []string
	for k := range s.Deltas {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	shown := 0
	for _, k := range keys {
		if v := s.Deltas[k]; v != 0 && serverHeadline[k] {
			fmt.Fprintf(b, ", %s +%d", k, v)
			shown++
		}
	}
	if v, ok := resources.TuplesPerRequest(s); ok {
		fmt.Fprintf(b, ", %.1f tuples/request", v)
	}
	if s.Error != "" {
		fmt.Fprintf(b, " (%s)", s.Error)
	}
	b.WriteString("\n")
}

// serverHeadline are the counters the text report shows; the JSON has all.
var serverHeadline = map[string]bool{
	"xact_commit": true, "xact_rollback": true, "deadlocks": true, "tup_inserted": true, "tup_updated": true, "tup_deleted": true,
	"Com_commit": true, "Com_rollback": true, "Innodb_deadlocks": true, "Innodb_row_lock_waits": true,
	"Innodb_rows_inserted": true, "Innodb_rows_updated": true, "Innodb_rows_deleted": true,
	"Handler_write": true, "Handler_update": true, "Handler_delete": true,
}

// total adds up sizes; SQLite's are its files.
func total(m map[string]int64) int64 {
	var n int64
	for _, v := range m {
		n += v
	}
	return n
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
