package textreport

import (
	"fmt"
	"sort"
	"strings"

	"github.com/taobench/taobench/internal/termsafe"
	"github.com/taobench/taobench/result"
)

// writeResources writes a line on the driver's CPU and memory and, where
// the server was asked, one on what it counted.
func writeResources(b *strings.Builder, r *result.Resources) {
	if r == nil {
		return
	}
	d := r.Driver
	fmt.Fprintf(b, "driver: CPU %.1f%% of one core (user %.2f s, sys %.2f s), max RSS %.1f MiB", d.CPUPct, d.User.Seconds(), d.Sys.Seconds(), float64(d.MaxRSS)/(1<<20))
	if d.Error != "" {
		fmt.Fprintf(b, " (%s)", d.Error)
	}
	b.WriteString("\n")
	s := r.Server
	if s == nil {
		return
	}
	name := s.Engine
	if s.Product != "" {
		name += ", " + s.Product
	}
	name = termsafe.Escape(name) // from a results file: any text
	fmt.Fprintf(b, "server (%s)", name)
	if len(s.Before.SizeBytes)+len(s.After.SizeBytes) > 0 { // Spanner tells no sizes
		fmt.Fprintf(b, ": size %s -> %s", mib(total(s.Before.SizeBytes)), mib(total(s.After.SizeBytes)))
	}
	b.WriteString(serverCounters(s))
	b.WriteString("\n")
}

// serverCounters are the headline counters' growth (", name +n") and
// why some could not be read.
func serverCounters(s *result.ServerUsage) string {
	var b strings.Builder
	var keys []string
	for k := range s.Deltas {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if v := s.Deltas[k]; v != 0 && (serverHeadline[k] || strings.HasPrefix(k, "tidb_execute_error_")) {
			fmt.Fprintf(&b, ", %s +%d", k, v)
		}
	}
	if v, ok := s.TuplesPerRequest(); ok {
		fmt.Fprintf(&b, ", %.1f tuples/request", v)
	}
	if s.Error != "" {
		fmt.Fprintf(&b, " (%s)", termsafe.Escape(s.Error))
	}
	return b.String()
}

// serverHeadline are the counters the text report shows; the JSON has all.
var serverHeadline = map[string]bool{
	"xact_commit": true, "xact_rollback": true, "deadlocks": true, "tup_inserted": true, "tup_updated": true, "tup_deleted": true,
	"Com_commit": true, "Com_rollback": true, "Innodb_deadlocks": true, "Innodb_row_lock_waits": true,
	"Innodb_rows_inserted": true, "Innodb_rows_updated": true, "Innodb_rows_deleted": true,
	"Handler_write": true, "Handler_update": true, "Handler_delete": true,
	"wsrep_local_cert_failures": true, "wsrep_local_bf_aborts": true, // Galera's conflicts
	// TiDB's, from its status port; its statement errors by code are shown too.
	"tidb_txn_optimistic_commit": true, "tidb_txn_optimistic_abort": true,
	"tidb_txn_pessimistic_commit": true, "tidb_txn_pessimistic_abort": true, "tidb_backoff_txnLock": true,
}

// total adds up sizes; SQLite's are its files.
func total(m map[string]int64) int64 {
	var n int64
	for _, v := range m {
		n += v
	}
	return n
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
