package clock

import (
	"slices"
	"testing"
	"time"
)

// TestUntilPrecise: 200 waits of 300 µs end after their instant, and the
// median lateness is below the half millisecond that a Go timer's
// millisecond rounding would add when the process is otherwise idle. The
// median, not the maximum, so a loaded machine's scheduling delays do not
// fail it.
func TestUntilPrecise(t *testing.T) {
	s := New()
	defer s.Close()
	late := make([]time.Duration, 200)
	for i := range late {
		at := time.Now().Add(300 * time.Microsecond)
		if !s.Until(nil, at) {
			t.Fatal("Until reported a cancel")
		}
		late[i] = time.Since(at)
		if late[i] < 0 {
			t.Fatalf("woke %v early", -late[i])
		}
	}
	slices.Sort(late)
	t.Logf("lateness: median %v, p90 %v, max %v", late[100], late[180], late[199])
	if late[100] > 500*time.Microsecond {
		t.Errorf("median lateness %v, want under 500µs", late[100])
	}
}

// TestUntilCancel: a long wait ends when done is closed.
func TestUntilCancel(t *testing.T) {
	s := New()
	defer s.Close()
	done := make(chan struct{})
	time.AfterFunc(10*time.Millisecond, func() { close(done) })
	start := time.Now()
	if s.Until(done, start.Add(time.Hour)) {
		t.Fatal("Until waited an hour")
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("cancel took %v", took)
	}
	if !s.Until(nil, time.Now().Add(-time.Second)) {
		t.Error("an instant in the past was not reached at once")
	}
}

// TestMono checks that Mono's times fall between time.Now readings taken
// around them, by their monotonic readings and by their wall times, and
// that they never go back.
func TestMono(t *testing.T) {
	m := NewMono()
	prev := m.Now()
	for i := range 2000 {
		before := time.Now()
		now := m.Now()
		after := time.Now()
		if now.Before(before) || now.After(after) {
			t.Fatalf("reading %d: %v is not between %v and %v", i, now, before, after)
		}
		// The wall times, without the monotonic readings: the base's wall
		// time plus the monotonic time since, within a millisecond of the
		// wall clock on a machine whose clock was not stepped.
		if d := now.Round(0).Sub(before.Round(0)); d < -time.Millisecond || d > time.Millisecond+after.Sub(before) {
			t.Fatalf("reading %d: wall time %v is %v from the wall clock's %v", i, now.Round(0), d, before.Round(0))
		}
		if now.Before(prev) {
			t.Fatalf("reading %d: %v is before the reading before it, %v", i, now, prev)
		}
		prev = now
		if i%500 == 0 {
			time.Sleep(time.Millisecond)
		}
	}
}
