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
