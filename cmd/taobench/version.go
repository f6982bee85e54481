package main

import (
	"flag"
	"fmt"
	"runtime"
	"runtime/debug"
)

// buildInfo is what the binary knows of its own build: the module version
// and the VCS revision it was built from. A build without VCS information
// (go build -buildvcs=false, as .ci/run does, or a build outside a git
// checkout) has the revision "unknown".
type buildInfo struct {
	version  string // module version, "devel" for a build of a checkout without a tag
	revision string // commit, "unknown" without VCS information
	time     string // commit time, RFC 3339; "" when unknown
	modified bool   // the working tree had uncommitted changes
}

func readBuildInfo() buildInfo {
	b := buildInfo{version: "devel", revision: "unknown"}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return b
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		b.version = v
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			b.revision = s.Value
		case "vcs.time":
			b.time = s.Value
		case "vcs.modified":
			b.modified = s.Value == "true"
		}
	}
	return b
}

func version() string { return readBuildInfo().version }

// revision is the commit the binary was built from, with "+modified" when
// the working tree had uncommitted changes; "unknown" without VCS data.
func revision() string {
	b := readBuildInfo()
	if b.modified && b.revision != "unknown" {
		return b.revision + "+modified"
	}
	return b.revision
}

func cmdVersion(e *env, args []string) error {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	if err := parse(fs, args); err != nil {
		return err
	}
	b := readBuildInfo()
	fmt.Fprintf(e.stdout, "taobench %s\n", b.version)
	rev := b.revision
	if b.time != "" {
		rev += ", committed " + b.time
	}
	if b.modified {
		rev += ", with uncommitted changes"
	}
	if b.revision == "unknown" {
		rev += " (built without VCS information, e.g. with -buildvcs=false)"
	}
	fmt.Fprintf(e.stdout, "revision %s\n", rev)
	fmt.Fprintf(e.stdout, "built with %s for %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return nil
}
