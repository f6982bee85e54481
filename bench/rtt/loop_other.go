//go:build !linux

package main

import (
	"errors"
	"time"
)

func eventLoop(target, int, time.Duration) (int64, time.Duration, error) {
	return 0, 0, errors.New("--loop needs Linux's epoll")
}
