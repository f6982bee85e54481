//go:build !unix

package sqlstore

// dirWritable and freeBytes know nothing here: open errors are then
// reported as SQLite gives them.
func dirWritable(string) bool { return true }
func freeBytes(string) int64  { return -1 }
