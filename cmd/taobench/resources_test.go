package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/tao"
)

// resRun runs a short closed-loop run on dbURL, all of it measured, and
// returns its one experiment as read back from the JSON results.
func resRun(t *testing.T, dbURL string) *result.Experiment {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out.json")
	r := cliRun(t, "run", "--db", dbURL, "--edges", "3000", "--workload", "a", "--threads", "4", "--warmup", "0", "--duration", "2", "--out", out)
	if r.code != 0 {
		t.Fatalf("run: %s", r)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := result.ReadJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Experiments) != 1 || doc.Experiments[0].Resources == nil {
		t.Fatalf("want one experiment with resources: %+v", doc.Experiments)
	}
	e := doc.Experiments[0]
	d := e.Resources.Driver
	if d.Error != "" || len(d.Samples) == 0 || d.MaxRSS <= 0 || d.User+d.Sys <= 0 {
		t.Errorf("driver: %+v; want samples, RSS and CPU, no error", d)
	}
	for _, s := range d.Samples {
		if s.RSS <= 0 {
			t.Errorf("driver sample %+v: RSS 0", s)
		}
	}
	return e
}

// resWrites bounds the rows the run must have written: every committed
// write request, less those that found no row to change.
func resWrites(e *result.Experiment) int64 {
	c := e.Counters
	return c.Outcomes[tao.Write][tao.OK] + c.Outcomes[tao.WriteTxn][tao.OK] - c.NoopWrites
}

// resSizes checks that every table's size after is at least its size before.
func resSizes(t *testing.T, su *result.ServerUsage, tables ...string) {
	t.Helper()
	for _, tb := range tables {
		b, a := su.Before.SizeBytes[tb], su.After.SizeBytes[tb]
		if b <= 0 || a < b {
			t.Errorf("%s: size of %s %d before, %d after; want > 0 and not shrinking", su.Engine, tb, b, a)
		}
	}
}

func TestResourcesSQLite(t *testing.T) {
	e := resRun(t, "sqlite:"+filepath.Join(t.TempDir(), "t.db"))
	su := e.Resources.Server
	if su == nil || su.Engine != "sqlite" || su.Error != "" {
		t.Fatalf("server usage %+v", su)
	}
	if su.Before.SizeBytes["file"]+su.Before.SizeBytes["wal"] <= 0 || su.After.SizeBytes["file"]+su.After.SizeBytes["wal"] <= 0 {
		t.Errorf("file sizes before %v after %v", su.Before.SizeBytes, su.After.SizeBytes)
	}
	if su.After.Gauges["page_count"] <= 0 || su.After.Gauges["page_size"] <= 0 || su.After.Gauges["page_count"] < su.Before.Gauges["page_count"] {
		t.Errorf("page counts before %v after %v", su.Before.Gauges, su.After.Gauges)
	}
}

func TestResourcesNull(t *testing.T) {
	e := resRun(t, "null")
	if e.Resources.Server != nil {
		t.Errorf("the null store has a server view: %+v", e.Resources.Server)
	}
}

// TestServerResources: the server's own counters show the run's work.
// PostgreSQL's are the test database's own; MariaDB's are server-wide, so
// other clients can only add to them.
func TestServerResources(t *testing.T) {
	srvEach(t, func(t *testing.T, s srvServer) {
		e := resRun(t, s.fresh(t))
		su := e.Resources.Server
		if su == nil || su.Error != "" {
			t.Fatalf("server usage %+v", su)
		}
		want := resWrites(e)
		if want <= 0 {
			t.Fatalf("the run committed no writes: %+v", e.Counters.Outcomes)
		}
		switch s.kind {
		case "postgres":
			d := su.Deltas
			if d["xact_commit"] <= 0 {
				t.Errorf("xact_commit delta %d", d["xact_commit"])
			}
			var rows int64
			for _, tb := range []string{"objects", "edges"} {
				td := su.TableDeltas[tb]
				rows += td["n_tup_ins"] + td["n_tup_upd"] + td["n_tup_del"]
				if td["idx_scan"] <= 0 {
					t.Errorf("%s: idx_scan delta %d", tb, td["idx_scan"])
				}
			}
			// Each write request writes a few rows at most (an edge and
			// its inverse, a transaction's handful).
			if rows < want || rows > 20*e.Sum().Attempts() {
				t.Errorf("rows written to objects and edges: %d; the run committed %d writes that changed rows, in %d attempts", rows, want, e.Sum().Attempts())
			}
			if db := d["tup_inserted"] + d["tup_updated"] + d["tup_deleted"]; db < rows {
				t.Errorf("database rows written %d < the tables' %d", db, rows)
			}
			t.Logf("postgres: %d write requests changed rows; %d rows written; %d commits", want, rows, d["xact_commit"])
		case "mysql":
			d := su.Deltas
			if d["Handler_commit"] <= 0 {
				t.Errorf("Handler_commit delta %d", d["Handler_commit"])
			}
			// MariaDB since 10.6 counts rows only in Handler_*.
			rows := max(d["Innodb_rows_inserted"]+d["Innodb_rows_updated"]+d["Innodb_rows_deleted"],
				d["Handler_write"]+d["Handler_update"]+d["Handler_delete"])
			if rows < want {
				t.Errorf("rows written %d; the run committed %d writes that changed rows", rows, want)
			}
			t.Logf("mysql: %d write requests changed rows; %d rows written; Com_commit %d, Handler_commit %d", want, rows, d["Com_commit"], d["Handler_commit"])
		}
		resSizes(t, su, "objects", "edges")
	})
}
