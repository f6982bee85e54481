package null

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/tao"
)

func TestOpenAndExec(t *testing.T) {
	ctx := context.Background()
	st, err := store.Default.Open(ctx, "null", store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, ok := st.(store.Database); ok {
		t.Error("the null store claims to be a Database")
	}
	req := &tao.Request{Class: tao.Write, Ops: []tao.Op{{Kind: tao.ObjUpdate, ID1: 1}}}
	var res tao.Result
	res.Reset(1)
	st.Exec(ctx, req, &res)
	if res.Outcome != tao.OK || res.Err != nil || res.Ops[0] != (tao.OpResult{}) {
		t.Errorf("Exec changed the result: %+v", res)
	}
}

func TestOpenRejectsAddress(t *testing.T) {
	_, err := store.Default.Open(context.Background(), "null://user:secret@host/x", store.Options{})
	if err == nil || !strings.Contains(err.Error(), "no address") || strings.Contains(err.Error(), "secret") {
		t.Fatalf("err = %v, want a refusal without the password", err)
	}
}

func BenchmarkExec(b *testing.B) {
	st := Store{}
	req := &tao.Request{Class: tao.Read, Ops: []tao.Op{{Kind: tao.ObjRead, ID1: 1}}}
	var res tao.Result
	ctx := context.Background()
	for b.Loop() {
		res.Reset(1)
		st.Exec(ctx, req, &res)
	}
}

func TestOptions(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		url  string
		want Delayed
	}{
		{"null?delay=2ms", Delayed{Delay: 2 * time.Millisecond}},
		{"null?delay=exp:1ms", Delayed{Delay: time.Millisecond, Exp: true}},
		{"null?stall=500ms&every=5s", Delayed{Stall: 500 * time.Millisecond, Every: 5 * time.Second}},
		{"null?delay=100us&stall=1s&every=10s", Delayed{Delay: 100 * time.Microsecond, Stall: time.Second, Every: 10 * time.Second}},
	} {
		st, err := store.Default.Open(ctx, c.url, store.Options{})
		if err != nil {
			t.Errorf("%s: %v", c.url, err)
			continue
		}
		d, ok := st.(*Delayed)
		if !ok {
			t.Errorf("%s: a %T, want a *Delayed", c.url, st)
			continue
		}
		got := *d
		got.origin = time.Time{}
		if got != c.want {
			t.Errorf("%s: %+v, want %+v", c.url, got, c.want)
		}
	}
	for _, c := range []struct{ url, want string }{
		{"null?delay=2", "delay=2: give a duration"},
		{"null?delay=-1ms", "delay=-1ms: give a duration"},
		{"null?wait=1ms", `unknown option "wait"`},
		{"null?stall=1s", "stall and every go together"},
		{"null?stall=5s&every=1s", "shorter than its period"},
		{"null?delay=1ms&delay=2ms", "given 2 times"},
	} {
		_, err := store.Default.Open(ctx, c.url, store.Options{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want one saying %q", c.url, err, c.want)
		}
	}
}

// TestStalls: a request that would end inside a stall ends with it.
func TestStalls(t *testing.T) {
	o := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	d := &Delayed{Stall: 100 * time.Millisecond, Every: time.Second, origin: o}
	ms := func(n int) time.Time { return o.Add(time.Duration(n) * time.Millisecond) }
	for _, c := range []struct{ at, want int }{
		{0, 0}, {999, 999}, {1000, 1100}, {1050, 1100}, {1099, 1100}, {1100, 1100}, {1500, 1500}, {3010, 3100},
	} {
		if got := d.afterStalls(ms(c.at)); !got.Equal(ms(c.want)) {
			t.Errorf("a request ending at %d ms ends at %v, want %d ms", c.at, got.Sub(o), c.want)
		}
	}
}

// TestDelay: a fixed delay is waited out; a cancelled context ends the
// wait in a timeout.
func TestDelay(t *testing.T) {
	d := &Delayed{Delay: 20 * time.Millisecond, origin: time.Now()}
	req := &tao.Request{Class: tao.Read, Ops: []tao.Op{{Kind: tao.ObjRead, ID1: 1}}}
	var res tao.Result
	res.Reset(1)
	start := time.Now()
	d.Exec(context.Background(), req, &res)
	if took := time.Since(start); took < 20*time.Millisecond || res.Outcome != tao.OK {
		t.Errorf("Exec took %v with outcome %v; want at least 20ms and ok", took, res.Outcome)
	}
	d.Delay = time.Hour
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	res.Reset(1)
	d.Exec(ctx, req, &res)
	if res.Outcome != tao.Timeout || res.Err == nil {
		t.Errorf("cancelled Exec: outcome %v, err %v; want a timeout", res.Outcome, res.Err)
	}
}

// TestExpDelay: exponential delays have the mean asked for (2,000 draws:
// the mean is within 10% with overwhelming probability).
func TestExpDelay(t *testing.T) {
	st, err := store.Default.Open(context.Background(), "null?delay=exp:1ms", store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	d := st.(*Delayed)
	var sum time.Duration
	const n = 2000
	for range n {
		sum += time.Duration(rand.ExpFloat64() * float64(d.Delay))
	}
	if mean := sum / n; mean < 900*time.Microsecond || mean > 1100*time.Microsecond {
		t.Errorf("mean delay %v, want about 1ms", mean)
	}
}
