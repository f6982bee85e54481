package sqlstore

import (
	"strings"
	"testing"
)

// TestTiDBMetrics: the counters kept from a tidb-server's Prometheus text,
// summed over labels the names leave out, internal transactions left out.
func TestTiDBMetrics(t *testing.T) {
	const text = `# HELP tidb_server_execute_error_total Counter of execute errors.
# TYPE tidb_server_execute_error_total counter
tidb_server_execute_error_total{db="",resource_group="default",type="kv:9007"} 50
tidb_server_execute_error_total{db="tb",resource_group="default",type="kv:9007"} 2
tidb_server_execute_error_total{db="",resource_group="default",type="executor:1062"} 3
# TYPE tidb_server_query_total counter
tidb_server_query_total{resource_group="default",result="Error",type="Query"} 50
tidb_server_query_total{resource_group="default",result="OK",type="Query"} 1000
tidb_server_query_total{resource_group="default",result="OK",type="StmtExecute"} 24
# TYPE tidb_session_transaction_duration_seconds histogram
tidb_session_transaction_duration_seconds_bucket{scope="general",txn_mode="optimistic",type="abort",le="+Inf"} 50
tidb_session_transaction_duration_seconds_sum{scope="general",txn_mode="optimistic",type="abort"} 1.5
tidb_session_transaction_duration_seconds_count{scope="general",txn_mode="optimistic",type="abort"} 50
tidb_session_transaction_duration_seconds_bucket{scope="internal",txn_mode="optimistic",type="commit",le="+Inf"} 1625
tidb_session_transaction_duration_seconds_sum{scope="internal",txn_mode="optimistic",type="commit"} 3
tidb_session_transaction_duration_seconds_count{scope="internal",txn_mode="optimistic",type="commit"} 1625
# TYPE tidb_tikvclient_backoff_seconds histogram
tidb_tikvclient_backoff_seconds_bucket{type="txnLock",le="+Inf"} 2
tidb_tikvclient_backoff_seconds_sum{type="txnLock"} 0.1
tidb_tikvclient_backoff_seconds_count{type="txnLock"} 2
tidb_tikvclient_backoff_seconds_bucket{type="",le="+Inf"} 6
tidb_tikvclient_backoff_seconds_sum{type=""} 0.1
tidb_tikvclient_backoff_seconds_count{type=""} 6
# TYPE tidb_tikvclient_lock_resolver_actions_total counter
tidb_tikvclient_lock_resolver_actions_total{type="resolve"} 5692
tidb_tikvclient_lock_resolver_actions_total{type="expired"} 5709
`
	got := map[string]int64{}
	if err := tidbMetrics(strings.NewReader(text), got); err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{
		"tidb_execute_error_kv:9007": 52, "tidb_execute_error_executor:1062": 3,
		"tidb_queries_error": 50, "tidb_queries_ok": 1024,
		"tidb_txn_optimistic_abort": 50, "tidb_backoff_txnLock": 2, "tidb_lock_resolve": 5692,
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %d, want %d", k, got[k], v)
		}
	}
	if len(got) != len(want) {
		t.Errorf("kept %v, want only %v", got, want)
	}
	if err := tidbMetrics(strings.NewReader("# TYPE go_goroutines gauge\ngo_goroutines 7\n"), map[string]int64{}); err == nil {
		t.Error("metrics with none of TiDB's counters were taken without a word")
	}
}
