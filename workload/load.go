package workload

import (
	"bytes"
	"embed"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"
)

// builtinFS holds the built-in workloads, one native file per name.
//
//go:embed builtin/*.workload
var builtinFS embed.FS

const builtinExt = ".workload"

// Info describes a built-in workload.
type Info struct {
	Name        string
	Description string
}

// Load reads a workload file in either format: the original JSON lines when
// its first non-blank byte is '{', else the native format.
func Load(file string) (*Workload, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, &Error{File: file, Msg: fmt.Sprintf("cannot read the workload: %v", err)}
	}
	return parseBytes(data, file)
}

func parseBytes(data []byte, file string) (*Workload, error) {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	if isOriginal(data) {
		return ParseOriginal(bytes.NewReader(data), file)
	}
	return Parse(bytes.NewReader(data), file)
}

// Resolve returns the built-in workload of that name, or else reads the
// file at that path. A file that shares a built-in's name is reached by a
// path such as ./a.
func Resolve(nameOrPath string) (*Workload, error) {
	if w, err := Builtin(nameOrPath); err == nil {
		return w, nil
	}
	if _, err := os.Stat(nameOrPath); err != nil {
		return nil, &Error{File: nameOrPath, Msg: fmt.Sprintf("neither a built-in workload (%s) nor a readable file: %v", builtinNames(), err)}
	}
	return Load(nameOrPath)
}

// Builtin returns a fresh copy of the built-in workload of that name.
func Builtin(name string) (*Workload, error) {
	file := "builtin/" + name + builtinExt
	data, err := builtinFS.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("unknown built-in workload %q; the built-ins are %s", name, builtinNames())
	}
	return Parse(bytes.NewReader(data), file)
}

// Builtins lists the built-in workloads by name.
func Builtins() []Info {
	var infos []Info
	for _, name := range builtinList() {
		w, err := Builtin(name)
		if err != nil {
			// Tests keep the embedded files valid; say so rather than hide it.
			infos = append(infos, Info{Name: name, Description: "broken built-in: " + err.Error()})
			continue
		}
		infos = append(infos, Info{Name: w.Name, Description: w.Description})
	}
	return infos
}

func builtinList() []string {
	ents, err := fs.ReadDir(builtinFS, "builtin")
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range ents {
		if n, ok := strings.CutSuffix(e.Name(), builtinExt); ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

func builtinNames() string { return strings.Join(builtinList(), ", ") }
