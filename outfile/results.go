package outfile

import (
	"fmt"
	"io"

	"github.com/taobench/taobench/result"
)

// Results is a results file as a command writes it (--out, -o,
// --hdr-log): a File that is written only once an experiment measured a
// request, and says at the end what became of it. A nil Results writes
// nothing.
type Results struct {
	f *File
	// Given is the path as the user wrote it, for messages ("-" for
	// standard output, say).
	Given string
	wrote bool // something was written
}

// CheckResults is Check for a results file: nil for an empty path.
func CheckResults(as, path string, stdout, stderr io.Writer) (*Results, error) {
	f, err := Check(as, path, stdout, stderr)
	if err != nil || f == nil {
		return nil, err
	}
	return &Results{f: f, Given: path}, nil
}

// Stream is the standard stream the file is, or nil.
func (o *Results) Stream() io.Writer {
	if o == nil {
		return nil
	}
	return o.f.Stream()
}

// WriteRun writes run's JSON document of the experiments so far, once
// one measured a request (WriteMeasured); final says the run is over
// (streams and devices are written only then).
func (o *Results) WriteRun(info *result.Run, exps []*result.Experiment, final bool) error {
	return o.WriteMeasured(func(w io.Writer) error { return result.WriteJSON(w, info, exps) }, exps, final)
}

// WriteMeasured is WriteRun for any format of a run's results: fn writes
// the whole file. Until one of exps measured a request nothing is
// written, so a run that measured none (interrupted in its warmup, or a
// database that answered nothing) never replaces an earlier run's results
// with an empty one.
func (o *Results) WriteMeasured(fn func(io.Writer) error, exps []*result.Experiment, final bool) error {
	if !measured(exps) {
		return nil
	}
	return o.WriteWith(fn, final)
}

// WriteWith writes the whole file with fn.
func (o *Results) WriteWith(fn func(io.Writer) error, final bool) error {
	if o == nil {
		return nil
	}
	o.wrote = true
	return o.f.Write(fn, final)
}

// Written says what became of the file, for the command's last line; ""
// for a nil Results.
func (o *Results) Written(interrupted bool) string {
	switch {
	case o == nil:
		return ""
	case !o.wrote:
		return fmt.Sprintf("results not written to %s: no request was measured (an existing file is left as it was)", o.Given)
	case interrupted:
		return "interrupted: results so far written to " + o.Given
	}
	return "results written to " + o.Given
}

func measured(exps []*result.Experiment) bool {
	for _, x := range exps {
		if x != nil && x.Sum().Requests() > 0 {
			return true
		}
	}
	return false
}
