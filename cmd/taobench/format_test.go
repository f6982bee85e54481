package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// TestCLIFormat: --format json writes one JSON document on standard output
// and no text; text,json writes the text summary, then the document; an
// unknown format is refused before anything runs, naming the flag.
func TestCLIFormat(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	args := []string{"run", "--db", "null", "--edges", "10000", "--threads", "2", "--warmup", "0", "--duration", "0.3s"}

	r := cliRun(t, append(args, "--format", "json")...)
	if r.code != 0 {
		t.Fatalf("%v", r)
	}
	if strings.Contains(r.stdout, "Experiment description") {
		t.Errorf("--format json printed the text summary:\n%s", r.stdout)
	}
	only := filepath.Join(dir, "stdout.json")
	if err := os.WriteFile(only, []byte(r.stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	if doc := cliReadJSON(t, only); len(doc.Experiments) != 1 {
		t.Errorf("--format json: %d experiments in the document, want 1", len(doc.Experiments))
	}

	r = cliRun(t, append(args, "--format", "text,json")...)
	if r.code != 0 {
		t.Fatalf("%v", r)
	}
	text, js, ok := strings.Cut(r.stdout, "\n{\n")
	if !ok {
		t.Fatalf("--format text,json: no JSON document after the text:\n%s", r.stdout)
	}
	if sums := cliParse(t, text+"\n"); len(sums) != 1 {
		t.Errorf("--format text,json: %d text summaries, want 1", len(sums))
	}
	both := filepath.Join(dir, "both.json")
	if err := os.WriteFile(both, []byte("{\n"+js), 0o644); err != nil {
		t.Fatal(err)
	}
	if doc := cliReadJSON(t, both); len(doc.Experiments) != 1 {
		t.Errorf("--format text,json: %d experiments in the document, want 1", len(doc.Experiments))
	}

	r = cliRun(t, append(args, "--format", "json", "--out", "/dev/stdout")...)
	if r.code != 2 || !strings.Contains(r.stderr, "--format json and --out /dev/stdout both write the document to standard output") {
		t.Errorf("--format json --out /dev/stdout: want exit 2 saying both write to standard output, got %v", r)
	}

	r = cliRun(t, append(args, "--format", "text,html")...)
	if r.code != 2 || !strings.Contains(r.stderr, `--format "text,html": unknown format "html"`) {
		t.Errorf("--format text,html: want exit 2 naming the flag and the format, got %v", r)
	}
}

// TestCLIHDRLog: --hdr-log writes an interval log whose measured intervals
// hold exactly the requests the JSON counts, and whose warmup intervals
// are tagged apart.
func TestCLIHDRLog(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out, log := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.hlog")
	r := cliRun(t, "run", "--db", "null", "--edges", "10000", "--threads", "2", "--warmup", "0.3s", "--duration", "1.2s", "--out", out, "--hdr-log", log)
	if r.code != 0 {
		t.Fatalf("%v", r)
	}
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	var measured, warmup int64
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if strings.HasPrefix(line, "#") || strings.HasPrefix(line, `"StartTimestamp"`) {
			continue
		}
		f := strings.Split(line, ",")
		if len(f) != 5 {
			t.Fatalf("interval line %q: want 5 fields", line)
		}
		h, err := hdrhistogram.Decode([]byte(f[4]))
		if err != nil {
			t.Fatalf("interval line %q: %v", line, err)
		}
		if strings.HasPrefix(f[0], "Tag=warmup_") {
			warmup += h.TotalCount()
		} else {
			measured += h.TotalCount()
		}
	}
	doc := cliReadJSON(t, out)
	if ops := doc.Experiments[0]["ops"].(float64); float64(measured) != ops || warmup == 0 {
		t.Errorf("the log holds %d measured requests and %d of warmup; the JSON counts %v measured", measured, warmup, ops)
	}

	r = cliRun(t, "run", "--db", "null", "--duration", "1", "--hdr-log", filepath.Join(dir, "no", "such", "dir.hlog"))
	if r.code != 2 || !strings.Contains(r.stderr, "run: --hdr-log") || !strings.Contains(r.stderr, "does not exist; create it") {
		t.Errorf("--hdr-log in a missing directory: want exit 2 naming the flag and the fix, got %v", r)
	}
}
