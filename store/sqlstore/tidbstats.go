package sqlstore

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// TiDB answers SHOW GLOBAL STATUS with almost none of the counters taobench
// reads; it keeps its own as Prometheus metrics on each tidb-server's
// status port. tidbCounters reads those of the tidb-server this connection
// is on: information_schema.cluster_info names its status address.
func (db *DB) tidbCounters(ctx context.Context, into map[string]int64) error {
	addr, err := db.tidbStatusAddr(ctx)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	url := "http://" + addr + "/metrics"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("TiDB's status port (its Prometheus metrics): %w; taobench must reach the tidb-server's status address", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("TiDB's status port: GET %s: %s", url, resp.Status)
	}
	return tidbMetrics(io.LimitReader(resp.Body, 64<<20), into)
}

// tidbStatusAddr finds the status address of the tidb-server this
// connection talks to: the cluster_info row whose SQL address has this
// server's port (and, when several servers share a port on different hosts,
// its host name).
func (db *DB) tidbStatusAddr(ctx context.Context) (string, error) {
	q := db.b.auto()
	var port, host string
	if err := q.query(ctx, "SELECT @@port, @@hostname", nil, func(scan func(...any) error) error { return scan(&port, &host) }); err != nil {
		return "", err
	}
	var all, match []string
	err := q.query(ctx, "SELECT instance, status_address FROM information_schema.cluster_info WHERE type = 'tidb'", nil,
		func(scan func(...any) error) error {
			var inst, status string
			if err := scan(&inst, &status); err != nil {
				return err
			}
			all = append(all, status)
			if strings.HasSuffix(inst, ":"+port) {
				match = append(match, status)
			}
			return nil
		})
	if err != nil {
		return "", fmt.Errorf("information_schema.cluster_info: %w", err)
	}
	switch {
	case len(match) == 1:
		return match[0], nil
	case len(all) == 1:
		return all[0], nil
	case len(match) > 1:
		for _, m := range match {
			if strings.HasPrefix(m, host+":") {
				return m, nil
			}
		}
	}
	return "", fmt.Errorf("information_schema.cluster_info lists %d tidb-servers and none is plainly this connection's (port %s, host %s)", len(all), port, host)
}

// tidbMetrics keeps, from TiDB's Prometheus text, the counters that tell
// the work done and its contention, under names of their own:
//
//	tidb_txn_<mode>_<type>         transactions of every session on this
//	                               tidb-server not marked internal, taobench's
//	                               or not, by each one's mode (optimistic,
//	                               pessimistic) and end (commit, abort, rollback)
//	tidb_execute_error_<type>      statement errors by TiDB's type and code
//	                               (kv:9007 a write conflict, …)
//	tidb_queries_ok, _error        statements answered
//	tidb_backoff_<type>            backoffs (txnLock: waits for another
//	                               transaction's lock)
//	tidb_lock_resolve              locks resolved
//	tidb_deadlock_detect           statements that ran deadlock detection
func tidbMetrics(r io.Reader, into map[string]int64) error {
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(r)
	if err != nil {
		return fmt.Errorf("TiDB's metrics: %w", err)
	}
	each := func(name string, f func(labels map[string]string, v float64)) {
		fam := fams[name]
		if fam == nil {
			return
		}
		for _, m := range fam.GetMetric() {
			l := map[string]string{}
			for _, lp := range m.GetLabel() {
				l[lp.GetName()] = lp.GetValue()
			}
			f(l, value(fam.GetType(), m))
		}
	}
	add := func(key string, v float64) { into[key] += int64(v) }
	each("tidb_session_transaction_duration_seconds", func(l map[string]string, v float64) {
		if l["scope"] == "general" {
			add("tidb_txn_"+l["txn_mode"]+"_"+l["type"], v)
		}
	})
	each("tidb_server_execute_error_total", func(l map[string]string, v float64) { add("tidb_execute_error_"+l["type"], v) })
	each("tidb_server_query_total", func(l map[string]string, v float64) {
		add("tidb_queries_"+strings.ToLower(l["result"]), v)
	})
	each("tidb_tikvclient_backoff_seconds", func(l map[string]string, v float64) {
		if l["type"] != "" {
			add("tidb_backoff_"+l["type"], v)
		}
	})
	each("tidb_tikvclient_lock_resolver_actions_total", func(l map[string]string, v float64) {
		if l["type"] == "resolve" {
			add("tidb_lock_resolve", v)
		}
	})
	each("tidb_session_statement_deadlock_detect_duration_seconds", func(_ map[string]string, v float64) { add("tidb_deadlock_detect", v) })
	if len(into) == 0 {
		return fmt.Errorf("TiDB's metrics hold none of the counters taobench reads (tidb_server_query_total, tidb_session_transaction_duration_seconds, …)")
	}
	return nil
}

// value is a counter's value, or a histogram's or summary's count.
func value(t dto.MetricType, m *dto.Metric) float64 {
	switch t {
	case dto.MetricType_HISTOGRAM:
		return float64(m.GetHistogram().GetSampleCount())
	case dto.MetricType_SUMMARY:
		return float64(m.GetSummary().GetSampleCount())
	case dto.MetricType_GAUGE:
		return m.GetGauge().GetValue()
	}
	return m.GetCounter().GetValue()
}
