//go:build !linux

package clock

import "time"

// Sleeper waits for instants; the zero value is not usable, use New.
type Sleeper struct {
	timer *time.Timer
}

// New returns a Sleeper. Close it when done.
func New() *Sleeper { return &Sleeper{} }

func (s *Sleeper) precise(d time.Duration) { time.Sleep(d) }

// Close does nothing.
func (s *Sleeper) Close() error { return nil }
