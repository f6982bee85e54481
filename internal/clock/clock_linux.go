package clock

import (
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// Sleeper waits for instants; the zero value is not usable, use New.
type Sleeper struct {
	timer *time.Timer
	fd    *os.File // a non-blocking timerfd, read through the runtime poller
	buf   [8]byte
}

// New returns a Sleeper. Close it when done.
func New() *Sleeper {
	s := &Sleeper{}
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err == nil {
		s.fd = os.NewFile(uintptr(fd), "timerfd")
	}
	return s
}

// precise sleeps d: on the timerfd, or on a Go timer when there is none or
// it fails.
func (s *Sleeper) precise(d time.Duration) {
	if s.fd != nil {
		spec := unix.ItimerSpec{Value: unix.NsecToTimespec(int64(d))}
		if err := unix.TimerfdSettime(int(s.fd.Fd()), 0, &spec, nil); err == nil {
			if _, err := s.fd.Read(s.buf[:]); err == nil {
				return
			}
		}
	}
	time.Sleep(d)
}

// Close releases the timerfd.
func (s *Sleeper) Close() error {
	if s.fd == nil {
		return nil
	}
	return s.fd.Close()
}
