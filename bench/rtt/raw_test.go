package main

import (
	"encoding/binary"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/taobench/taobench/internal/testenv"
)

// TestArchitectures runs both hand-encoded clients against the server:
// every answer is checked against the value sent (answered), so a client
// that counted requests without their answers, or took one connection's
// answer for another's, fails here.
func TestArchitectures(t *testing.T) {
	url := testenv.PostgresURL(t)
	for name, f := range map[string]func(target, int, time.Duration) (int64, time.Duration, error){
		"loop": eventLoop, "raw": goroutines,
	} {
		t.Run(name, func(t *testing.T) {
			n, wall, err := f(target{url: url, query: selectOne}, 4, 300*time.Millisecond)
			if err != nil {
				t.Fatal(err)
			}
			if n < 100 || wall < 300*time.Millisecond {
				t.Fatalf("%d round trips in %v, want at least 100 in at least 300ms", n, wall)
			}
		})
	}
}

// TestAnswered checks the parser on answers split anywhere and on a wrong
// value.
func TestAnswered(t *testing.T) {
	answer := func(v int64) []byte {
		b := []byte{'2', 0, 0, 0, 4}
		b = append(b, 'D', 0, 0, 0, 18, 0, 1, 0, 0, 0, 8)
		b = binary.BigEndian.AppendUint64(b, uint64(v))
		b = append(b, 'C', 0, 0, 0, 13)
		b = append(b, "SELECT 1\x00"...)
		return append(b, 'Z', 0, 0, 0, 5, 'I')
	}
	for cut := 1; cut < len(answer(7)); cut++ {
		c := &loopConn{next: 6, check: true}
		c.encode()
		a := answer(7)
		c.buf = append(c.buf, a[:cut]...)
		if done, err := c.answered(); done || err != nil {
			t.Fatalf("cut at %d: done %v, err %v before the answer is complete", cut, done, err)
		}
		c.buf = append(c.buf, a[cut:]...)
		if done, err := c.answered(); !done || err != nil {
			t.Fatalf("cut at %d: done %v, err %v on the whole answer", cut, done, err)
		}
	}
	c := &loopConn{next: 7, check: true}
	c.encode()
	c.buf = answer(7)
	if _, err := c.answered(); err == nil || !strings.Contains(err.Error(), "wrong answer") {
		t.Fatalf("answer 7 to request 8: err %v, want a wrong answer", err)
	}
}

// TestQuery runs --raw with a statement and keys of its own, and refuses
// a statement whose parameter is not a bigint.
func TestQuery(t *testing.T) {
	url := testenv.PostgresURL(t)
	tg := target{url: url, query: "SELECT $1::bigint * 2", keys: []int64{3, 5, 7}}
	if n, _, err := goroutines(tg, 2, 200*time.Millisecond); err != nil || n < 10 {
		t.Fatalf("%d round trips, err %v", n, err)
	}
	tg.query = "SELECT $1::int"
	if _, _, err := goroutines(tg, 2, 200*time.Millisecond); err == nil || !strings.Contains(err.Error(), "one bigint parameter") {
		t.Fatalf("a statement of an int parameter: err %v, want a refusal naming the bigint", err)
	}
	dir := t.TempDir()
	bad := dir + "/keys"
	if err := os.WriteFile(bad, []byte("1\n2\nthree\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readKeys(bad); err == nil || !strings.Contains(err.Error(), "keys:3") {
		t.Fatalf("readKeys of a bad line: err %v, want it named by line", err)
	}
}
