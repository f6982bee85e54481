//go:build !unix

package testenv

import "testing"

// reapOnExit does nothing where there is no sh: the test's own cleanup is
// all there is. The clusters' scripts need a Unix system anyway.
func reapOnExit(testing.TB, string, ...[]string) {}
