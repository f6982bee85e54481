//go:build unix

package sqlstore

import (
	"fmt"
	"os"
	"syscall"
)

// fileID is a file's device and inode: another file at the same path,
// a copy, has others.
func fileID(fi os.FileInfo) string {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return fmt.Sprintf("%d:%d", st.Dev, st.Ino)
	}
	return ""
}
