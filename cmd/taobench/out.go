package main

import (
	"fmt"
	"io"

	"github.com/taobench/taobench/outfile"
	"github.com/taobench/taobench/result"
)

// outFile is a file a command writes its results to: every --out, -o and
// --hdr-log goes through package outfile, so all promise the same (README.md).
type outFile struct {
	f     *outfile.File
	given string // as the user wrote it, for messages
	wrote bool   // something was written
}

// checkOutAs checks that path can be written before the work starts; a
// problem is bad input naming as (such as "merge: -o") and the fix. An
// empty path gives nil, which writes nothing.
func checkOutAs(e *env, as, path string) (*outFile, error) {
	f, err := outfile.Check(as, path, e.stdout, e.stderr)
	if err != nil {
		return nil, badInputErr(err)
	}
	if f == nil {
		return nil, nil
	}
	return &outFile{f: f, given: path}, nil
}

// stream is the standard stream the file is, or nil.
func (o *outFile) stream() io.Writer {
	if o == nil {
		return nil
	}
	return o.f.Stream()
}

// write writes run's JSON document of the experiments so far, once one
// measured a request (writeMeasured); final says the run is over (streams
// and devices are written only then).
func (o *outFile) write(info *result.Run, exps []*result.Experiment, final bool) error {
	return o.writeMeasured(func(w io.Writer) error { return result.WriteJSON(w, info, exps) }, exps, final)
}

// writeMeasured is write for any format of a run's results: fn writes the
// whole file. Until one of exps measured a request nothing is written, so
// a run that measured none (interrupted in its warmup, or a database that
// answered nothing) never replaces an earlier run's results with an empty
// one.
func (o *outFile) writeMeasured(fn func(io.Writer) error, exps []*result.Experiment, final bool) error {
	if !measured(exps) {
		return nil
	}
	return o.writeWith(fn, final)
}

// writeWith writes the whole file with fn.
func (o *outFile) writeWith(fn func(io.Writer) error, final bool) error {
	if o == nil {
		return nil
	}
	o.wrote = true
	return o.f.Write(fn, final)
}

// written says what became of the file, for the command's last line.
func (o *outFile) written(interrupted bool) string {
	switch {
	case o == nil:
		return ""
	case !o.wrote:
		return fmt.Sprintf("results not written to %s: no request was measured (an existing file is left as it was)", o.given)
	case interrupted:
		return "interrupted: results so far written to " + o.given
	}
	return "results written to " + o.given
}

func measured(exps []*result.Experiment) bool {
	for _, x := range exps {
		if x != nil && x.Sum().Requests() > 0 {
			return true
		}
	}
	return false
}
