package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"

	"github.com/taobench/taobench/session"
)

// The exit statuses, documented in README.md and in the usage text.
const (
	exitOK          = 0
	exitFailed      = 1   // a failed run or check
	exitBadInput    = 2   // flags, files, URLs, --out, an unreachable or read-only database
	exitLost        = 3   // a run measured an outage: too many lost requests, no service, no request
	exitInterrupted = 130 // SIGINT (Ctrl-C): 128 + 2
	exitTerminated  = 143 // SIGTERM: 128 + 15
)

// exitCodesHelp is the part of the usage text that lists the exit statuses.
const exitCodesHelp = `Exit status:
  0    done
  1    a run or check failed (e.g. check found violated invariants; rate: even the lowest rate missed the SLA)
  2    bad input: a flag, file or URL, an unusable --out, an unreachable or read-only database
  3    a run measured an outage: it lost more than --max-error-rate of its requests, went longer
       than --max-stall without an answer, or measured no request, or a --replica was promoted or
       out of rotation longer than --max-stall (results written if any)
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

// limitsErr maps a session.LimitError to exit status 3, naming the command.
func limitsErr(cmd string, err error) error {
	var le *session.LimitError
	if errors.As(err, &le) {
		return &exitError{exitLost, fmt.Errorf("%s: %w", cmd, err)}
	}
	return err
}
