// Package docs holds tests of the documentation against the code.
package docs

import (
	"bufio"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/taobench/taobench/"

// TestArchitectureImports: the package map of architecture.md names every
// library package of the module (not the commands, not the packages of
// tests only) and, in its last column, exactly the module's packages it
// imports, as `go list` reports them. Adding an import, or a package,
// without its row fails here.
func TestArchitectureImports(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command to list the packages")
	}
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{.Name}} {{len .GoFiles}}{{range .Imports}} {{.}}{{end}}", "../...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	code := map[string][]string{}
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		path, name, files := strings.TrimPrefix(f[0], module), f[1], f[2]
		if name == "main" || files == "0" {
			continue
		}
		var own []string
		for _, imp := range f[3:] {
			if p, ok := strings.CutPrefix(imp, module); ok {
				own = append(own, p)
			}
		}
		slices.Sort(own)
		code[path] = own
	}

	doc := packageMap(t, "architecture.md")
	for path, own := range code {
		listed, ok := doc[path]
		if !ok {
			t.Errorf("package %s has no row in architecture.md's package map", path)
			continue
		}
		if !slices.Equal(listed, own) {
			t.Errorf("architecture.md says %s imports %v; it imports %v", path, listed, own)
		}
	}
	for path := range doc {
		if _, ok := code[path]; !ok {
			t.Errorf("architecture.md's package map has a row for %s, which is not a library package of the module", path)
		}
	}
}

// packageMap reads the table under "## Package map" in file: each package
// its row names in backquotes (first column) with the packages its last
// column names in backquotes, sorted.
func packageMap(t *testing.T, file string) map[string][]string {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	quoted := regexp.MustCompile("`([^`]+)`")
	names := func(cell string) []string {
		var out []string
		for _, m := range quoted.FindAllStringSubmatch(cell, -1) {
			out = append(out, m[1])
		}
		return out
	}
	rows := map[string][]string{}
	in := false
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "## Package map":
			in = true
		case in && strings.HasPrefix(line, "## "):
			in = false
		case in && strings.HasPrefix(line, "| `"):
			cells := strings.Split(strings.Trim(line, "|"), " | ")
			if len(cells) < 3 {
				t.Fatalf("architecture.md: a package map row without its imports column: %s", line)
			}
			imports := names(cells[len(cells)-1])
			slices.Sort(imports)
			for _, p := range names(cells[0]) {
				rows[p] = imports
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 {
		t.Fatal("architecture.md: no package map found under \"## Package map\"")
	}
	return rows
}
