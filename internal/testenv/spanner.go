package testenv

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// SpannerEmulator returns the address (host:port) of a Cloud Spanner
// emulator for the test: TAOBENCH_SPANNER_EMULATOR's when set (an
// emulator someone started), else one of the test's own, started with
// bench/cluster/spanner in a temporary directory on a free port and
// stopped when the test ends. Project taobench's instance taobench exists
// on the test's own; on TAOBENCH_SPANNER_EMULATOR's the test creates what
// it needs. It skips (fails under TAOBENCH_REQUIRE=1) where the emulator
// is not installed, and skips under any setting with
// TAOBENCH_SPANNER_EMULATOR=none: .ci/run's word that no apt source there
// offers the emulator (its package is in Google's, not Debian's).
func SpannerEmulator(t testing.TB) string {
	t.Helper()
	switch addr := os.Getenv("TAOBENCH_SPANNER_EMULATOR"); addr {
	case "none":
		t.Skip("TAOBENCH_SPANNER_EMULATOR=none: no Cloud Spanner emulator here (apt-get install google-cloud-cli-spanner-emulator, from Google's apt source)")
	case "":
	default:
		return addr
	}
	// Starting an emulator of the test's own is the integration suite's.
	Integration(t)
	if SpannerEmulatorDir() == "" {
		skipOrFail(t, "the Cloud Spanner emulator is not installed (apt-get install google-cloud-cli-spanner-emulator, "+
			"from Google's apt source), and TAOBENCH_SPANNER_EMULATOR is not set: no emulator")
	}
	_, here, _, _ := runtime.Caller(0)
	script := filepath.Join(filepath.Dir(here), "..", "..", "bench", "cluster", "spanner")
	dir := t.TempDir()
	reapOnExit(t, dir, stopEach(script, dir, "e")...)
	var out, errOut bytes.Buffer
	for attempt := 1; ; attempt++ {
		d := filepath.Join(dir, fmt.Sprint("e", attempt))
		out.Reset()
		errOut.Reset()
		cmd := exec.Command(script, "start", d, fmt.Sprint(freeBase(t, []int{0})))
		cmd.Stdout, cmd.Stderr = &out, &errOut
		t.Cleanup(func() {
			if err := exec.Command(script, "stop", d).Run(); err != nil {
				t.Errorf("%s stop: %v", script, err)
			}
		})
		err := cmd.Run()
		if err == nil {
			break
		}
		// The ports were free when freeBase looked; another test may have
		// taken one since.
		if attempt < 3 && strings.Contains(errOut.String(), "Address already in use") {
			t.Logf("%s start: a port was taken; starting on others", script)
			continue
		}
		t.Fatalf("%s start: %v\n%s", script, err, errOut.String())
	}
	for _, line := range strings.Fields(out.String()) {
		if addr, ok := strings.CutPrefix(line, "SPANNER_EMULATOR_HOST="); ok {
			return addr
		}
	}
	t.Fatalf("%s start printed %q: no SPANNER_EMULATOR_HOST line", script, out.String())
	return ""
}

// SpannerEmulatorDir returns the directory of the installed emulator's
// gateway_main and emulator_main (the Cloud SDK's
// bin/cloud_spanner_emulator), or "" where they are not installed.
func SpannerEmulatorDir() string {
	dirs := []string{"/usr/lib/google-cloud-sdk/bin/cloud_spanner_emulator"}
	if g, err := exec.LookPath("gcloud"); err == nil {
		if g, err = filepath.EvalSymlinks(g); err == nil {
			dirs = append(dirs, filepath.Join(filepath.Dir(g), "cloud_spanner_emulator"))
		}
	}
	for _, d := range dirs {
		ok := true
		for _, b := range []string{"gateway_main", "emulator_main"} {
			if fi, err := os.Stat(filepath.Join(d, b)); err != nil || fi.Mode()&0o111 == 0 {
				ok = false
			}
		}
		if ok {
			return d
		}
	}
	return ""
}
