package tao_test

import (
	"os/exec"
	"strings"
	"testing"

	// Linked so that go test's cache reruns this test when what they
	// import changes (it cannot see what go list reads).
	_ "github.com/taobench/taobench/store/null"
	_ "github.com/taobench/taobench/store/sqlstore"
	_ "github.com/taobench/taobench/store/storetest"
)

// TestStoresNeedNoGraph: the id layout lives here so that a store reads
// ids without linking the graph, the generator or the workload parser.
// Every store package may depend, inside the module, only on tao, store
// and internal packages.
func TestStoresNeedNoGraph(t *testing.T) {
	t.Parallel()
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH; this test runs go list -deps")
	}
	const module = "github.com/taobench/taobench/"
	out, err := exec.Command(goCmd, "list", "-deps", "-f", "{{.ImportPath}}", module+"store/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps store/...: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		inside, ok := strings.CutPrefix(dep, module)
		if !ok || inside == "tao" || inside == "store" || strings.HasPrefix(inside, "store/") || strings.HasPrefix(inside, "internal/") {
			continue
		}
		t.Errorf("a store package depends on %s; stores may use only tao, store and internal packages", inside)
	}
}
