package main

import (
	"io"

	"github.com/taobench/taobench/outfile"
	"github.com/taobench/taobench/result"
)

// outFile is a file a command writes its results to: every --out, -o and
// --hdr-log goes through package outfile, so all promise the same (README.md).
type outFile struct {
	f     *outfile.File
	given string // as the user wrote it, for messages
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

// write writes run's JSON document of the experiments so far; final says
// the run is over (streams and devices are written only then).
func (o *outFile) write(info *result.Run, exps []*result.Experiment, final bool) error {
	return o.writeWith(func(w io.Writer) error { return result.WriteJSON(w, info, exps) }, final)
}

// writeWith is write for any format: fn writes the whole file.
func (o *outFile) writeWith(fn func(io.Writer) error, final bool) error {
	if o == nil {
		return nil
	}
	return o.f.Write(fn, final)
}
