//go:build !unix

package sqlstore

import "os"

// fileID is empty where files have no device and inode: the path alone
// then names the database.
func fileID(os.FileInfo) string { return "" }
