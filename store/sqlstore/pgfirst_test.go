package sqlstore

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/taobench/taobench/internal/testenv"
)

// TestFirstInt checks firstInt, the decoding that spares pgx's Scan on the
// first column of pgQ.first, against Scan itself on what PostgreSQL sends
// to a prepared statement: every integer width at its limits and around
// zero is decoded as Scan decodes it, and what it does not handle (NULL,
// other types) it leaves to Scan.
func TestFirstInt(t *testing.T) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, testenv.PostgresURL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, c := range []struct {
		sql    string
		arg    any
		decode bool // firstInt must decode it
	}{
		{"SELECT $1::int8, 'x'::text", int64(-9223372036854775808), true},
		{"SELECT $1::int8", int64(9223372036854775807), true},
		{"SELECT $1::int8", int64(-1), true},
		{"SELECT $1::int8", int64(1 << 40), true},
		{"SELECT $1::int4", int64(-2147483648), true},
		{"SELECT $1::int4", int64(2147483647), true},
		{"SELECT $1::int4", int64(-7), true},
		{"SELECT $1::int2", int64(-32768), true},
		{"SELECT $1::int2", int64(32767), true},
		{"SELECT $1::int2", int64(-3), true},
		{"SELECT count(*) FROM generate_series(1, $1::int)", int64(70000), true},
		{"SELECT NULLIF($1::int8, 5)", int64(5), false},
		{"SELECT $1::numeric", int64(12), false},
		{"SELECT $1::int8::text", int64(12), false},
	} {
		rows, err := conn.Query(ctx, c.sql, c.arg)
		if err != nil {
			t.Fatalf("%s: %v", c.sql, err)
		}
		if !rows.Next() {
			t.Fatalf("%s: no row: %v", c.sql, rows.Err())
		}
		v, ok := firstInt(rows)
		var want *int64
		scanErr := rows.Scan(append([]any{&want}, make([]any, len(rows.RawValues())-1)...)...)
		rows.Close()
		if ok != c.decode {
			t.Errorf("%s with %d: firstInt decoded it: %v, want %v", c.sql, c.arg, ok, c.decode)
			continue
		}
		if !ok {
			continue
		}
		if scanErr != nil || want == nil {
			t.Fatalf("%s: Scan: %v (%v)", c.sql, scanErr, want)
		}
		if v != *want {
			t.Errorf("%s with %d: firstInt %d, Scan %d", c.sql, c.arg, v, *want)
		}
	}
}
