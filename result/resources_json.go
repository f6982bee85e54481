package result

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
	Product     string                      `json:"product"`
	Before      jsonServerState             `json:"before"`
	After       jsonServerState             `json:"after"`
	Deltas      map[string]int64            `json:"deltas"`
	TableDeltas map[string]map[string]int64 `json:"table_deltas"`
	// TuplesPerRequest is derived from Deltas (ServerUsage.TuplesPerRequest),
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
func resourcesJSON(r *Resources, procs int) jsonResources {
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
	x.Server = serverJSON(r.Server)
	return x
}

// serverJSON converts a server's usage; nil for nil.
func serverJSON(s *ServerUsage) *jsonServer {
	if s == nil {
		return nil
	}
	x := &jsonServer{Engine: s.Engine, Product: s.Product, Before: jsonServerState(s.Before), After: jsonServerState(s.After),
		Deltas: s.Deltas, TableDeltas: s.TableDeltas, Error: s.Error}
	for _, st := range []*jsonServerState{&x.Before, &x.After} {
		st.SizeBytes, st.Gauges = nonNil(st.SizeBytes), nonNil(st.Gauges)
	}
	x.Deltas = nonNil(x.Deltas)
	if x.TableDeltas == nil {
		x.TableDeltas = map[string]map[string]int64{}
	}
	if v, ok := s.TuplesPerRequest(); ok {
		x.TuplesPerRequest = &v
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
func resourcesFromJSON(x *jsonResources) *Resources {
	if x.IntervalS == 0 && x.Server == nil && (x.Driver.Error == "" || x.Driver.Error == notRecorded) {
		return nil
	}
	r := &Resources{Interval: seconds(x.IntervalS)}
	d := &r.Driver
	d.User, d.Sys, d.CPUPct, d.MaxRSS, d.Error = seconds(x.Driver.CPUUserS), seconds(x.Driver.CPUSysS), x.Driver.CPUPct, x.Driver.MaxRSSBytes, x.Driver.Error
	for _, s := range x.Driver.Samples {
		d.Samples = append(d.Samples, DriverSample{At: seconds(s.TS), CPUPct: s.CPUPct, RSS: s.RSSBytes})
	}
	r.Server = serverFromJSON(x.Server)
	return r
}

// serverFromJSON reads back what serverJSON wrote; nil for nil.
func serverFromJSON(s *jsonServer) *ServerUsage {
	if s == nil {
		return nil
	}
	return &ServerUsage{Engine: s.Engine, Product: s.Product, Before: ServerState(s.Before), After: ServerState(s.After),
		Deltas: s.Deltas, TableDeltas: s.TableDeltas, Error: s.Error}
}
