package sqlstore

import "testing"

// TestProducts: the server behind a protocol is named from its version
// string, as each product prints it.
func TestProducts(t *testing.T) {
	for v, want := range map[string]string{
		"PostgreSQL 15.19 (Debian 15.19-0+deb12u1) on x86_64-pc-linux-gnu, compiled by gcc":  "PostgreSQL 15.19",
		"CockroachDB CCL v23.2.1 (x86_64-pc-linux-gnu, built 2024/01/16 19:39:03, go1.21.5)": "CockroachDB v23.2.1",
		"PostgreSQL 11.2-YB-2.20.1.0-b0 on x86_64-pc-linux-gnu, compiled by clang":           "YugabyteDB 2.20.1.0",
		"": "PostgreSQL",
	} {
		if got := pgProduct(v); got != want {
			t.Errorf("pgProduct(%q) = %q, want %q", v, got, want)
		}
	}
	for _, c := range []struct {
		v      string
		galera bool
		want   string
	}{
		{"10.11.19-MariaDB-0+deb12u1", false, "MariaDB 10.11.19"},
		{"10.11.19-MariaDB-0+deb12u1", true, "MariaDB 10.11.19 with Galera"},
		{"8.0.11-TiDB-v7.5.1", false, "TiDB v7.5.1"},
		{"8.0.36", false, "MySQL 8.0.36"},
		{"8.0.36-28", true, "MySQL 8.0.36 with Galera"},
	} {
		if got := mysqlProduct(c.v, c.galera); got != c.want {
			t.Errorf("mysqlProduct(%q, %v) = %q, want %q", c.v, c.galera, got, c.want)
		}
	}
}
