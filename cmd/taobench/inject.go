package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/taobench/taobench/workload"
)

// latencyFields names the injected-latency fields w gives, in field order.
func latencyFields(w *workload.Workload) []string {
	var names []string
	for _, f := range []struct {
		name string
		d    workload.Dist[time.Duration]
	}{{"read_operation_latency", w.ReadLatency}, {"write_operation_latency", w.WriteLatency}, {"write_txn_latency", w.WriteTxnLatency}} {
		if len(f.d.Values) > 0 {
			names = append(names, f.name)
		}
	}
	return names
}

// notApplied lists the fields of w a run does not apply: the latency
// fields unless it injects latency (--inject-latency), then the workload's
// own list.
func notApplied(w *workload.Workload, inject bool) []string {
	var names []string
	if !inject {
		names = latencyFields(w)
	}
	return append(names, w.NotApplied...)
}

// noteInjection says once, before a run that injects latency, what it
// injects; an error when the workload gives no delays.
func noteInjection(e *env, w *workload.Workload) error {
	fields := latencyFields(w)
	if len(fields) == 0 {
		return badInput("run: --inject-latency: workload %s gives none of read_operation_latency, write_operation_latency, write_txn_latency; add them (docs/load.md) or drop the flag", w.Name)
	}
	msg := fmt.Sprintf("injecting client-side latency from workload %s's %s (read transactions use read_operation_latency)", w.Name, strings.Join(fields, ", "))
	if w.LatencyBuckets {
		vals := make([]string, len(workload.LatencyBucketValues))
		for i, v := range workload.LatencyBucketValues {
			vals[i] = fmt.Sprintf("%d: %v", i, v)
		}
		msg += "; the original format gives bucket weights only, taken as " + strings.Join(vals, ", ")
	}
	fmt.Fprintln(e.stderr, msg)
	return nil
}
