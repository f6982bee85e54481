// Package buildinfo tells what the running binary knows of its own build:
// the module version and the VCS revision, recorded in every result and
// graph record so a figure can be traced to the code that measured it.
package buildinfo

import "runtime/debug"

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
