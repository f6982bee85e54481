package docs

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestSessionLinksNoRedisNorPrometheus: a program that imports only
// session and store/sqlstore links neither go-redis (the tao tier's Redis
// plugs in by importing tier/rediscache) nor Prometheus's client library
// (live metrics plug in through session.Options.Monitor), as `go list
// -deps` of such a program reports (issue 41).
func TestSessionLinksNoRedisNorPrometheus(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command to list the packages")
	}
	// Inside the module, so that its go.mod resolves the imports; removed after.
	dir, err := os.MkdirTemp("..", "depstest")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	prog := `package main

import (
	_ "github.com/taobench/taobench/session"
	_ "github.com/taobench/taobench/store/sqlstore"
)

func main() {}
`
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(prog), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("go", "list", "-deps", dir).CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 50 || !slices.Contains(deps, module+"session") {
		t.Fatalf("go list -deps listed %d packages, without session: %s", len(deps), out)
	}
	for _, banned := range []string{"github.com/redis/go-redis", "github.com/prometheus/client_golang"} {
		for _, d := range deps {
			if strings.HasPrefix(d, banned) {
				t.Errorf("a program importing session and store/sqlstore links %s (%d packages in all)", d, len(deps))
			}
		}
	}
	t.Logf("%d packages", len(deps))
}
