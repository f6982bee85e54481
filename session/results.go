package session

import (
	"github.com/taobench/taobench/fidelity"
	"github.com/taobench/taobench/result"
)

// Merge reads the results files of the drivers of one run and merges
// them exactly (result.Merge: docs/results.md, "Merging results"), then
// recomputes their fidelity rows from the merged counts. lost says why
// the rows were left out; nil when they were not.
func Merge(names []string) (m *result.Doc, lost error, err error) {
	runs := make([]result.Named, len(names))
	for i, name := range names {
		doc, err := result.ReadFile(name)
		if err != nil {
			return nil, nil, badInput("merge: %v", err)
		}
		runs[i] = result.Named{Name: name, Doc: doc}
	}
	if m, err = result.Merge(runs); err != nil {
		return nil, nil, badInput("merge: %v", err)
	}
	return m, fidelity.Recompute(m), nil
}
