package sqlstore

import (
	"strings"
	"testing"
)

// TestVitessDetected: vtgate's VERSION() (the MySQL version it claims,
// then -Vitess) selects the Vitess dialect; MySQL's, MariaDB's and TiDB's
// do not, and their dialect keeps its correlated NOT EXISTS and one
// ANALYZE.
func TestVitessDetected(t *testing.T) {
	for v, want := range map[string]bool{
		"8.4.6-Vitess":               true,
		"8.0.40-Vitess":              true,
		"10.11.19-MariaDB-0+deb12u1": false,
		"8.0.11-TiDB-v7.5.1":         false,
		"8.0.36":                     false,
	} {
		if got := isVitess(v); got != want {
			t.Errorf("isVitess(%q) = %v, want %v", v, got, want)
		}
	}
	d := mysqlDialect()
	if d.antiJoin || len(d.analyze) != 1 {
		t.Fatalf("MySQL's dialect: antiJoin %v, analyze %q", d.antiJoin, d.analyze)
	}
	d.forVitess()
	if !d.antiJoin || len(d.analyze) != 2 || strings.Contains(strings.Join(d.analyze, ";"), ",") {
		t.Errorf("Vitess's dialect: antiJoin %v, analyze %q; want the LEFT JOIN form and one table per ANALYZE", d.antiJoin, d.analyze)
	}
}
