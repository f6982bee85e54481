package textreport

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/tao"
)

// TestEndpointsReport: a run over two endpoints prints a row for each,
// with its requests, and a line with its codes and its server's conflict
// counters, after the JSON round trip; a password never shows.
func TestEndpointsReport(t *testing.T) {
	a, b := experimentOf(2, samples(300), &result.Counters{}), experimentOf(1, samples(100), &result.Counters{})
	e := experimentOf(3, append(samples(300), samples(100)...), &result.Counters{})
	e.Endpoints = []result.Endpoint{
		{Name: "mysql://bench:xxxxx@n1:3306/t", Weight: 2, Clients: 2, Summary: a.Summary,
			ErrorCodes: result.ErrorCodes{{Outcome: tao.ConflictObject, Code: "1213"}: 5},
			Server:     &result.ServerUsage{Engine: "mysql", Deltas: map[string]int64{"wsrep_local_cert_failures": 9, "wsrep_local_bf_aborts": 4}}},
		{Name: "mysql://bench:xxxxx@n2:3306/t", Weight: 1, Clients: 1, Summary: b.Summary},
	}
	doc, err := result.ReadJSON(bytes.NewReader(jsonOf(t, testRun(1), e)))
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := WriteText(&out, doc.Experiments[0]); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, want := range []string{
		"endpoints (each one's clients; the rows add up to the figures above):",
		fmt.Sprintf("mysql://bench:xxxxx@n1:3306/t       2        2       %d", a.Sum().Requests()),
		fmt.Sprintf("mysql://bench:xxxxx@n2:3306/t       1        1        %d", b.Sum().Requests()),
		"mysql://bench:xxxxx@n1:3306/t: codes conflict_object 1213 ×5; server: wsrep_local_bf_aborts +4, wsrep_local_cert_failures +9\n",
		"mysql://bench:xxxxx@n2:3306/t: codes none\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("text report lacks %q:\n%s", want, text)
		}
	}
}
