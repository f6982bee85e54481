package workload

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/taobench/taobench/tao"
)

// MaxLockHold bounds a lock_hold or precondition_wait value: longer than a
// web request's 30 s (TAOBench §6.2) only measures the timeout.
const MaxLockHold = time.Minute

var failPointList = nameList(enumerate(tao.NumFailPoints))

// setFailPoints reads errors or txn_errors: fail points by name.
func setFailPoints(dst func(*Workload) *Dist[tao.FailPoint]) func(*Workload, *entry) error {
	return func(w *Workload, e *entry) (err error) {
		*dst(w), err = names(e, "an injected failure", tao.ParseFailPoint, failPointList)
		return err
	}
}

// setDurations reads lock_hold or precondition_wait: durations in Go
// syntax (0, 500us, 5ms, 1.5s).
func setDurations(dst func(*Workload) *Dist[time.Duration]) func(*Workload, *entry) error {
	return func(w *Workload, e *entry) error {
		if err := checkLengths(e); err != nil {
			return err
		}
		d := Dist[time.Duration]{Values: make([]time.Duration, len(e.values)), Weights: e.weights}
		for i, s := range e.values {
			v, err := time.ParseDuration(s)
			if err != nil {
				err := errorf(e.field, "%q is not a duration; write value:weight with a duration such as 0, 500us, 5ms or 1.5s", s)
				err.Line = e.valueLine(i)
				return err
			}
			d.Values[i] = v
		}
		*dst(w) = d
		return nil
	}
}

// validateInjected checks lock_hold, errors and txn_errors.
func (w *Workload) validateInjected() error {
	for _, f := range []struct {
		field string
		d     Dist[time.Duration]
	}{{"lock_hold", w.LockHold}, {"precondition_wait", w.PreconditionWait}} {
		if err := checkDist(f.field, f.d, "", func(d time.Duration) string {
			if d < 0 || d > MaxLockHold {
				return fmt.Sprintf("%v: give 0 to %v", d, MaxLockHold)
			}
			return ""
		}); err != nil {
			return err
		}
	}
	for _, f := range []struct {
		field string
		d     Dist[tao.FailPoint]
	}{{"errors", w.Errors}, {"txn_errors", w.TxnErrors}} {
		if err := checkDist(f.field, f.d, "", func(p tao.FailPoint) string {
			if p >= tao.NumFailPoints {
				return fmt.Sprintf("%v is not an injected failure; use one of: %s", p, failPointList)
			}
			return ""
		}); err != nil {
			return err
		}
	}
	return nil
}

// writeInjected writes lock_hold, errors, txn_errors and
// precondition_wait when present.
func writeInjected(w io.Writer, wl *Workload) {
	durations := func(name string, d Dist[time.Duration]) {
		vs := make([]string, len(d.Values))
		for i, v := range d.Values {
			vs[i] = formatHold(v)
		}
		writePairs(w, name, vs, d.Weights)
	}
	durations("lock_hold", wl.LockHold)
	writeDist(w, "errors", wl.Errors)
	writeDist(w, "txn_errors", wl.TxnErrors)
	durations("precondition_wait", wl.PreconditionWait)
}

// formatHold writes a duration as time.ParseDuration reads it, without
// the zero units Duration.String adds ("1m0s" is "1m").
func formatHold(d time.Duration) string {
	if d == 0 {
		return "0"
	}
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// Holds reports whether any write may hold its locks (a positive lock_hold
// value with weight).
func (w *Workload) Holds() bool {
	for i, v := range w.LockHold.Values {
		if v > 0 && w.LockHold.Weights[i] > 0 {
			return true
		}
	}
	return false
}

// Waits reports whether any preconditioned write may wait after its read
// (a positive precondition_wait value with weight).
func (w *Workload) Waits() bool {
	for i, v := range w.PreconditionWait.Values {
		if v > 0 && w.PreconditionWait.Weights[i] > 0 {
			return true
		}
	}
	return false
}

// Injects reports whether any write may fail on purpose.
func (w *Workload) Injects() bool {
	for _, d := range []Dist[tao.FailPoint]{w.Errors, w.TxnErrors} {
		for i, v := range d.Values {
			if v != tao.Success && d.Weights[i] > 0 {
				return true
			}
		}
	}
	return false
}
