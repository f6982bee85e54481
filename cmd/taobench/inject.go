package main

import (
	"fmt"
	"strings"

	"github.com/taobench/taobench/session"
	"github.com/taobench/taobench/workload"
)

// noteInjection says once, before a run that injects latency, what it
// injects; an error when the workload gives no delays.
func noteInjection(e *env, w *workload.Workload) error {
	fields := session.LatencyFields(w)
	if len(fields) == 0 {
		return badInput("run: --inject-latency: workload %s gives none of read_operation_latency, write_operation_latency, write_txn_latency; add them (docs/target-load.md) or drop the flag", w.Name)
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
