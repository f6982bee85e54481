package main

import "github.com/taobench/taobench/outfile"

// checkOutAs checks that path can be written before the work starts
// (outfile.CheckResults: every --out, -o and --hdr-log promises the same,
// README.md); a problem is bad input naming as (such as "merge: -o") and
// the fix. An empty path gives nil, which writes nothing.
func checkOutAs(e *env, as, path string) (*outfile.Results, error) {
	o, err := outfile.CheckResults(as, path, e.stdout, e.stderr)
	if err != nil {
		return nil, badInputErr(err)
	}
	return o, nil
}
