// Package deploy holds what runs taobench elsewhere: the Kubernetes
// example (kubernetes/) and the checks of the repository's Dockerfile.
package deploy

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestDockerfileText is a TEXT CHECK ONLY: no container engine runs on the
// development machine, so nothing here builds the image. It reads
// ../Dockerfile for what the image must be: multi-stage, a static binary
// (CGO_ENABLED=0) of ./cmd/taobench copied from the build stage, a
// distroless or scratch/alpine final image, and a numeric non-root USER
// (Kubernetes' runAsNonRoot can verify only a number).
func TestDockerfileText(t *testing.T) {
	raw, err := os.ReadFile("../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	// Continuation lines join their instruction.
	for _, l := range strings.Split(strings.ReplaceAll(string(raw), "\\\n", " "), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			lines = append(lines, l)
		}
	}
	text := strings.Join(lines, "\n")
	froms := regexp.MustCompile(`(?mi)^FROM\s+(\S+)(\s+AS\s+(\S+))?`).FindAllStringSubmatch(text, -1)
	if len(froms) < 2 {
		t.Fatalf("want a multi-stage build (two or more FROM), got %d", len(froms))
	}
	build, final := froms[0], froms[len(froms)-1]
	if build[3] == "" {
		t.Errorf("the build stage %s has no name (FROM ... AS build)", build[1])
	}
	if !regexp.MustCompile(`^(gcr\.io/distroless/static|scratch|alpine)`).MatchString(final[1]) {
		t.Errorf("final image %s: want distroless static, scratch or alpine", final[1])
	}
	if !regexp.MustCompile(`(?m)CGO_ENABLED=0\b.*go build\b.*\./cmd/taobench`).MatchString(text) {
		t.Errorf("want the binary built with CGO_ENABLED=0 go build ... ./cmd/taobench")
	}
	// The image carries no symbol table or DWARF, nor the build machine's
	// paths (README, "Building", gives the sizes).
	if !regexp.MustCompile(`(?m)go build\b.*-trimpath\b.*-ldflags\s+["']?-s -w["']?`).MatchString(text) {
		t.Errorf("want the binary built with -trimpath -ldflags \"-s -w\"")
	}
	if !regexp.MustCompile(`(?m)^COPY\s+--from=` + regexp.QuoteMeta(build[3]) + `\s`).MatchString(text) {
		t.Errorf("the final stage must COPY --from=%s the binary", build[3])
	}
	users := regexp.MustCompile(`(?m)^USER\s+(\S+)`).FindAllStringSubmatch(text, -1)
	if len(users) == 0 {
		t.Fatal("no USER: the image would run as root")
	}
	u := users[len(users)-1][1]
	uid, _, _ := strings.Cut(u, ":")
	if !regexp.MustCompile(`^[1-9][0-9]*$`).MatchString(uid) {
		t.Errorf("USER %s: want a numeric, non-zero user id", u)
	}
	if !regexp.MustCompile(`(?m)^ENTRYPOINT\s+\["/taobench"\]`).MatchString(text) {
		t.Errorf("want ENTRYPOINT [\"/taobench\"], so Kubernetes args are taobench's")
	}
}
