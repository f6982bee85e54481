package result

import (
	"strings"
	"testing"
	"time"
)

// TestResourcesJSONMerged: results merged from several processes keep no
// resources, and the JSON says so (moved from report's TestResourcesJSON
// with the code).
func TestResourcesJSONMerged(t *testing.T) {
	t.Parallel()
	e := &Experiment{Resources: &Resources{
		Interval: time.Second,
		Driver:   DriverUsage{CPUPct: 40, Samples: []DriverSample{{At: time.Second, CPUPct: 38.5}}},
		Server:   &ServerUsage{Engine: "postgres", Deltas: map[string]int64{"xact_commit": 1234}},
	}}
	e.Processes = 2
	x := resourcesJSON(e.Resources, e.Procs())
	if x.Server != nil || !strings.HasPrefix(x.Driver.Error, "not recorded") || x.Driver.Samples == nil {
		t.Errorf("merged resources: %+v", x)
	}
}
