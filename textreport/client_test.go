package textreport

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/taobench/taobench/result"
)

// TestClientRecorded writes a run whose client is known as JSON, reads it
// back, merges it, and writes it as text: the client object carries every
// key and value through the file and the merge; the text gives the client
// line after the original TAOBench's lines; a file of an older taobench
// (no client) reads and merges; runs of different clients are refused.
func TestClientRecorded(t *testing.T) {
	c := result.Client{Writes: "procedures", Reads: "union", ExecMode: "", RuntimeMonitor: "default", Pooler: "none", Routines: "taobench_routines"}
	exp := experimentOf(4, samples(2000), nil)
	run := testRun(1)
	run.Client = c
	raw := jsonOf(t, run, exp)
	var doc struct {
		Run struct {
			Client map[string]string `json:"client"`
		} `json:"run"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"writes": "procedures", "reads": "union", "exec_mode": "", "runtime_monitor": "default", "pooler": "none", "routines": "taobench_routines"}
	if len(doc.Run.Client) != len(want) {
		t.Errorf("client object %v, want the keys of %v", doc.Run.Client, want)
	}
	for k, v := range want {
		if got, ok := doc.Run.Client[k]; !ok || got != v {
			t.Errorf("client.%s = %q (present %v), want %q", k, got, ok, v)
		}
	}
	back, err := result.ReadJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if back.Run.Client != c {
		t.Errorf("read back client %+v, want %+v", back.Run.Client, c)
	}

	// An older file: no client object.
	var old map[string]any
	json.Unmarshal(jsonOf(t, testRun(2), experimentOf(4, samples(1000), nil)), &old)
	delete(old["run"].(map[string]any), "client")
	oldRaw, _ := json.Marshal(old)
	oldDoc, err := result.ReadJSON(bytes.NewReader(oldRaw))
	if err != nil {
		t.Fatal(err)
	}
	if oldDoc.Run.Client != (result.Client{}) {
		t.Errorf("a file without a client read as %+v", oldDoc.Run.Client)
	}
	for _, order := range [][]result.Named{{{Name: "new.json", Doc: back}, {Name: "old.json", Doc: oldDoc}}, {{Name: "old.json", Doc: oldDoc}, {Name: "new.json", Doc: back}}} {
		m, err := result.Merge(order)
		if err != nil {
			t.Fatal(err)
		}
		if m.Run.Client != c {
			t.Errorf("merged %s, %s: client %+v, want %+v", order[0].Name, order[1].Name, m.Run.Client, c)
		}
	}
	other, _ := result.ReadJSON(bytes.NewReader(raw))
	other.Run.Seed = 3
	other.Run.Client.Writes = "statements"
	if _, err := result.Merge([]result.Named{{Name: "a.json", Doc: back}, {Name: "b.json", Doc: other}}); err == nil ||
		!strings.Contains(err.Error(), "client") || !strings.Contains(err.Error(), "statements") {
		t.Errorf("merging runs of different clients: %v, want a refusal naming the client", err)
	}

	var text bytes.Buffer
	if err := WriteReports(&text, []Reporter{Reporters[0]}, run, []*result.Experiment{exp}, true); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(text.String(), "\n")
	if !strings.HasPrefix(lines[0], "Experiment description:") {
		t.Errorf("the text does not begin with the original's line: %q", lines[0])
	}
	line := "client: writes procedures, reads union, runtime monitor default, no pooler, routines in schema taobench_routines"
	if lines[8] != line {
		t.Errorf("the line after the original's is %q, want %q\n%s", lines[8], line, text.String())
	}
	text.Reset()
	if err := WriteReports(&text, []Reporter{Reporters[0]}, testRun(1), []*result.Experiment{exp}, true); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(text.String(), "client:") {
		t.Errorf("a run whose client is not known has a client line:\n%s", text.String())
	}
}
