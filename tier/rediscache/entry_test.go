package rediscache

import (
	"testing"

	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/tier"
)

func TestEntryRoundTrip(t *testing.T) {
	e := tier.Entry{Outcome: tao.NotFound, Found: false, Version: 7, Rows: 12, Basis: 1234567890123}
	got, err := decodeEntry(encode(e))
	if err != nil || got != e {
		t.Fatalf("decode(encode(%+v)) = %+v, %v", e, got, err)
	}
	for _, bad := range []string{"", "1,2,3", "0,2,1,1,1", "99,0,1,1,1", "0,0,1,-1,1", "a,0,1,1,1"} {
		if _, err := decodeEntry(bad); err == nil {
			t.Errorf("decodeEntry(%q) took it", bad)
		}
	}
}
