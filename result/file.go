package result

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// ReadFile reads one results file, saying which and why when it cannot,
// and what to give instead.
func ReadFile(name string) (*Doc, error) {
	const hint = "give the JSON files that taobench run, sweep, rate or merge wrote with --out"
	data, err := os.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s does not exist; %s", name, hint)
	}
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the path is named below
		}
		return nil, fmt.Errorf("cannot read %s: %v; %s", name, err, hint)
	}
	doc, err := ReadJSON(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %v; give a JSON file that taobench run, sweep, rate or merge wrote with --out", name, err)
	}
	return doc, nil
}
