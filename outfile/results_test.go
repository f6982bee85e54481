package outfile_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/taobench/taobench/metrics"
	"github.com/taobench/taobench/outfile"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/tao"
)

// TestResults: a results file is written only once an experiment measured
// a request, so an earlier run's file survives a run that measured none,
// and says at the end what became of it; a nil Results writes nothing.
func TestResults(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "r.json")
	if err := os.WriteFile(path, []byte("earlier"), 0o644); err != nil {
		t.Fatal(err)
	}
	o, err := outfile.CheckResults("run: --out", path, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	info := &result.Run{Workload: "o"}
	none := []*result.Experiment{{}}
	if err := o.WriteRun(info, none, true); err != nil {
		t.Fatal(err)
	}
	if raw, _ := os.ReadFile(path); string(raw) != "earlier" || !strings.HasPrefix(o.Written(false), "results not written to "+path) {
		t.Errorf("nothing measured: the file holds %q, the last line says %q", raw, o.Written(false))
	}
	rec := metrics.NewRecorder()
	rec.Record(&metrics.Sample{Class: tao.Read, Kind: tao.ObjRead, Outcome: tao.OK, Latency: time.Millisecond})
	one := []*result.Experiment{{Summary: rec.Snapshot()}}
	if err := o.WriteRun(info, one, false); err != nil {
		t.Fatal(err)
	}
	if raw, _ := os.ReadFile(path); !strings.Contains(string(raw), `"workload": "o"`) || o.Written(true) != "interrupted: results so far written to "+path {
		t.Errorf("one request measured: the file holds %.60q, the last line says %q", raw, o.Written(true))
	}
	var nilResults *outfile.Results
	if err := nilResults.WriteRun(info, one, true); err != nil || nilResults.Written(false) != "" || nilResults.Stream() != nil {
		t.Errorf("a nil Results: %v, %q", err, nilResults.Written(false))
	}
}
