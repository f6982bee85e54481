package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/tao"
)

// The exit statuses, documented in README.md and in the usage text.
const (
	exitOK          = 0
	exitFailed      = 1   // a failed run or check
	exitBadInput    = 2   // flags, files, URLs, --out, an unreachable database
	exitLost        = 3   // a run lost more than --max-error-rate of its requests
	exitInterrupted = 130 // SIGINT (Ctrl-C): 128 + 2
	exitTerminated  = 143 // SIGTERM: 128 + 15
)

// exitCodesHelp is the part of the usage text that lists the exit statuses.
const exitCodesHelp = `Exit status:
  0    done
  1    a run or check failed (e.g. check found violated invariants; rate: even the lowest rate missed the SLA)
  2    bad input: a flag, file or URL, an unusable --out, an unreachable database
  3    a run lost more than --max-error-rate of its requests (results still written)
  130  interrupted by Ctrl-C (SIGINT); 143 terminated by SIGTERM (results so far written)
`

// signalCause is the cause of the cancellation of realMain's context when a
// signal ended the command; realMain exits 128 + the signal's number.
type signalCause struct{ sig os.Signal }

func (c signalCause) Error() string { return "received " + c.sig.String() }

// interruptCode is the exit status of a command that ctx's cancellation cut
// short: 143 for SIGTERM, 130 otherwise (Ctrl-C, or a test's cancel).
func interruptCode(ctx context.Context) int {
	var sc signalCause
	if errors.As(context.Cause(ctx), &sc) && sc.sig == syscall.SIGTERM {
		return exitTerminated
	}
	return exitInterrupted
}

// lostRate is the --max-error-rate flag: a percentage, with or without "%".
type lostRate struct{ pct *float64 }

func (f lostRate) String() string {
	if f.pct == nil {
		return ""
	}
	return strconv.FormatFloat(*f.pct, 'g', -1, 64) + "%"
}

func (f lostRate) Set(s string) error {
	v, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(s), "%"), 64)
	if err != nil || !(v >= 0 && v <= 100) {
		return fmt.Errorf("give a percentage from 0 to 100, e.g. 1 or 0.5%%")
	}
	*f.pct = v
	return nil
}

// tooManyLost says which experiments lost more than maxPct percent of their
// measured requests to errors and timeouts (the "lost" requests of
// docs/results.md; conflicts left after all retries are contention, not
// losses), or nil when none did.
func tooManyLost(exps []*result.Experiment, maxPct float64) error {
	var msgs []string
	for i, x := range exps {
		if x == nil || x.Summary == nil {
			continue
		}
		ops := x.Summary.Requests()
		lost, _ := x.Summary.Lost()
		if ops == 0 || lost == 0 {
			continue
		}
		if pct := float64(lost) / float64(ops) * 100; pct > maxPct {
			msgs = append(msgs, fmt.Sprintf("experiment %d lost %.2f%% of its requests (%d of %d: errors %d, timeouts %d)",
				i+1, pct, lost, ops, x.Summary.Outcome(tao.Error), x.Summary.Outcome(tao.Timeout)))
		}
	}
	if len(msgs) == 0 {
		return nil
	}
	return &exitError{exitLost, fmt.Errorf("run: %s, more than --max-error-rate %s; the results above count them (see \"first lost request\" for why), or raise --max-error-rate",
		strings.Join(msgs, "; "), lostRate{&maxPct})}
}
