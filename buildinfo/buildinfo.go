// Package buildinfo tells what the running binary knows of its own build:
// the module version and the VCS revision, recorded in every result and
// graph record so a figure can be traced to the code that measured it.
package buildinfo

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// Info is the binary's build. A build without VCS information (go build
// -buildvcs=false, as .ci/run does, or a build outside a git checkout) has
// the revision "unknown".
type Info struct {
	Version  string // module version, "devel" for a build of a checkout without a tag
	Revision string // commit, "unknown" without VCS information
	Time     string // commit time, RFC 3339; "" when unknown
	Modified bool   // the working tree had uncommitted changes
}

// Read returns the running binary's build information.
func Read() Info {
	b := Info{Version: "devel", Revision: "unknown"}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return b
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		b.Version = v
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Revision = s.Value
		case "vcs.time":
			b.Time = s.Value
		case "vcs.modified":
			b.Modified = s.Value == "true"
		}
	}
	return b
}

// Commit is the revision with "+modified" when the working tree had
// uncommitted changes; "unknown" without VCS data.
func (b Info) Commit() string {
	if b.Modified && b.Revision != "unknown" {
		return b.Revision + "+modified"
	}
	return b.Revision
}

// Describe is what taobench version prints: the version, the revision
// with its commit time and whether the tree was modified, and the Go
// toolchain and platform it was built with.
func (b Info) Describe() string {
	rev := b.Revision
	if b.Time != "" {
		rev += ", committed " + b.Time
	}
	if b.Modified {
		rev += ", with uncommitted changes"
	}
	if b.Revision == "unknown" {
		rev += " (built without VCS information, e.g. with -buildvcs=false)"
	}
	return fmt.Sprintf("taobench %s\nrevision %s\nbuilt with %s for %s/%s\n", b.Version, rev, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
