//go:build unix

package sqlstore

import "golang.org/x/sys/unix"

// dirWritable reports whether this process may create files in dir, as the
// kernel judges it (root included, which a read-only mount still stops).
func dirWritable(dir string) bool {
	return unix.Access(dir, unix.W_OK) == nil
}

// freeBytes returns the bytes free to this user on dir's file system, or
// -1 when it cannot tell.
func freeBytes(dir string) int64 {
	var st unix.Statfs_t
	if unix.Statfs(dir, &st) != nil {
		return -1
	}
	return int64(st.Bavail) * int64(st.Bsize)
}
