//go:build !unix

package resources

import (
	"errors"
	"runtime"
)

func readUsage() (usage, error) {
	return usage{}, errors.New("CPU and memory sampling is not supported on " + runtime.GOOS)
}
