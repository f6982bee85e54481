package textreport

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/tao"
)

// TestErrorCodes: the database's codes reach the text report by outcome,
// largest first, and survive the JSON round trip; a results file with a
// code under an outcome that has none, or a negative count, is refused.
func TestErrorCodes(t *testing.T) {
	t.Parallel()
	e := experimentOf(1, samples(200), &result.Counters{})
	e.ErrorCodes = result.ErrorCodes{
		{Outcome: tao.ConflictObject, Code: "40P01"}: 2,
		{Outcome: tao.ConflictObject, Code: "55P03"}: 7,
		{Outcome: tao.Timeout}:                       1,
		{Outcome: tao.Error, Code: "\x1b[31m"}:       1, // from a hostile file: escaped
	}
	doc, err := result.ReadJSON(bytes.NewReader(jsonOf(t, testRun(1), e)))
	if err != nil {
		t.Fatal(err)
	}
	got := doc.Experiments[0].ErrorCodes
	if len(got) != 4 || got[result.ErrorCode{Outcome: tao.ConflictObject, Code: "55P03"}] != 7 || got[result.ErrorCode{Outcome: tao.Timeout}] != 1 {
		t.Errorf("error codes after the JSON round trip: %v", got)
	}
	var b strings.Builder
	if err := WriteText(&b, doc.Experiments[0]); err != nil {
		t.Fatal(err)
	}
	want := `attempts by the database's code: conflict_object 55P03 ×7, conflict_object 40P01 ×2, timeout none ×1, error \x1b[31m ×1`
	if !strings.Contains(b.String(), want+"\n") {
		t.Errorf("text report lacks %q:\n%s", want, b.String())
	}

	for _, bad := range []string{
		`{"ok": {"1213": 1}}`,
		`{"conflict_object": {"1213": -1}}`,
		`{"conflict_object": {"": 1}}`,
	} {
		var m map[string]any
		if err := json.Unmarshal(jsonOf(t, testRun(1), e), &m); err != nil {
			t.Fatal(err)
		}
		m["experiments"].([]any)[0].(map[string]any)["error_codes"] = json.RawMessage(bad)
		js, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := result.ReadJSON(bytes.NewReader(js)); err == nil || !strings.Contains(err.Error(), "error_codes") {
			t.Errorf("error_codes %s: err %v, want one naming error_codes", bad, err)
		}
	}
}
