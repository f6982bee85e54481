package result_test

import (
	"os/exec"
	"strings"
	"testing"

	// Linked so that go test's cache reruns this test when what they
	// import changes (it cannot see what go list reads).
	_ "github.com/taobench/taobench/fidelity"
	_ "github.com/taobench/taobench/htmlreport"
	_ "github.com/taobench/taobench/outfile"
	_ "github.com/taobench/taobench/textreport"
)

const module = "github.com/taobench/taobench/"

// internal/termsafe, which textreport escapes untrusted text with, and
// internal/jsonerr, which words result's decoding errors, are leaves of
// the standard library.

// TestDataFlowsOneWay keeps results plain data: reading, merging and
// reporting them must not link the generator, the graph, the workload
// parser (but for fidelity's rows) or the store layer (issue 16). merge
// is result.Merge then fidelity.Recompute (session.Merge), report
// htmlreport, and both write through outfile. Each package below may depend,
// inside the module, only on the packages listed with it; anything else,
// such as a store or gen reached through a new import, fails the test.
func TestDataFlowsOneWay(t *testing.T) {
	t.Parallel()
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH; this test runs go list -deps")
	}
	// stats: the intervals every result carries (standard library only).
	leaves := []string{"result", "internal/jsonerr", "metrics", "stats", "tao"}
	for pkg, allowed := range map[string][]string{
		"result":     leaves,
		"textreport": append([]string{"textreport", "internal/termsafe"}, leaves...),
		"htmlreport": append([]string{"htmlreport"}, leaves...),
		// --out, -o and --hdr-log of every command, merge's and report's
		// included, write through outfile.
		"outfile": append([]string{"outfile"}, leaves...),
		// merge recomputes the fidelity rows of merged counts against the
		// targets each run recorded (result.Targets): no generator, graph
		// or store; the workload, resolved by name, gives the rows' notes
		// and the races' figures; chisquare (and gonum's distributions)
		// the p-values of the chi-square rows.
		"fidelity": append([]string{"fidelity", "chisquare", "workload", "randdist", "internal/termsafe"}, leaves...),
	} {
		out, err := exec.Command(goCmd, "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", module+pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
		}
		var bad []string
		for _, dep := range strings.Fields(string(out)) {
			inside, ok := strings.CutPrefix(dep, module)
			if !ok {
				// Outside the module: only the HDR histograms metrics keeps
				// and, for chisquare, gonum's distributions.
				gonum := contains(allowed, "chisquare") && strings.HasPrefix(dep, "gonum.org/v1/gonum/")
				if !strings.HasPrefix(dep, "github.com/HdrHistogram/") && !gonum {
					bad = append(bad, dep)
				}
				continue
			}
			if !contains(allowed, inside) {
				bad = append(bad, inside)
			}
		}
		if len(bad) > 0 {
			t.Errorf("%s depends on %s; it may use only %s (and the standard library, HDR histograms)",
				pkg, strings.Join(bad, ", "), strings.Join(allowed, ", "))
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
