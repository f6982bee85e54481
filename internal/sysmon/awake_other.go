//go:build !linux

package sysmon

// Awake does nothing here: the re-execution reads /proc (see the package
// comment).
func Awake() {}
