package main

import (
	"fmt"
	"runtime"
	"syscall"
	"time"
)

// eventLoop measures the other client architecture: one OS thread polling
// every connection with epoll and writing the next request as soon as an
// answer is complete, as pgbench -j 1 does, with the PostgreSQL protocol
// encoded and parsed by hand. It returns the requests completed and the
// wall time.
func eventLoop(t target, clients int, duration time.Duration) (int64, time.Duration, error) {
	conns, err := dialAll(t, clients)
	defer closeAll(conns)
	if err != nil {
		return 0, 0, err
	}

	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	ep, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	if err != nil {
		return 0, 0, err
	}
	defer syscall.Close(ep)
	byFd := map[int]*loopConn{}
	for _, c := range conns {
		byFd[c.fd] = c
		if err := syscall.EpollCtl(ep, syscall.EPOLL_CTL_ADD, c.fd, &syscall.EpollEvent{Events: syscall.EPOLLIN, Fd: int32(c.fd)}); err != nil {
			return 0, 0, err
		}
	}
	var n int64
	start := time.Now()
	end := start.Add(duration)
	for _, c := range conns {
		if err := c.send(); err != nil {
			return 0, 0, err
		}
	}
	events := make([]syscall.EpollEvent, clients)
	chunk := make([]byte, 65536)
	for {
		k, err := syscall.EpollWait(ep, events, 100)
		if err != nil && err != syscall.EINTR {
			return 0, 0, err
		}
		stop := time.Now().After(end)
		for _, ev := range events[:max(k, 0)] {
			c := byFd[int(ev.Fd)]
			r, err := syscall.Read(c.fd, chunk)
			if err == syscall.EAGAIN {
				continue
			}
			if err != nil || r == 0 {
				return 0, 0, fmt.Errorf("loop: read: %v (%d bytes)", err, r)
			}
			c.buf = append(c.buf, chunk[:r]...)
			done, err := c.answered()
			if err != nil {
				return 0, 0, err
			}
			if !done {
				continue
			}
			n++
			if !stop {
				if err := c.send(); err != nil {
					return 0, 0, err
				}
			}
		}
		if stop {
			return n, time.Since(start), nil
		}
	}
}

// send writes Bind, Execute and Sync for the prepared statement with the
// connection's next value.
func (c *loopConn) send() error {
	c.encode()
	w, err := syscall.Write(c.fd, c.req)
	if err != nil || w != len(c.req) {
		return fmt.Errorf("loop: write: %v (%d of %d bytes)", err, w, len(c.req))
	}
	return nil
}
