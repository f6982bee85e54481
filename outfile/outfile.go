// Package outfile writes a results file as taobench's --out promises:
// checked before the work starts, replaced atomically, symlinks followed
// (not into another user's, protected_symlinks), the standard streams and
// other devices written through.
package outfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// File is where --out writes the results, checked before the run
// starts so a typo costs seconds, not a whole run:
//
//   - a regular file (or a new one) is replaced atomically after each
//     experiment: a temporary file beside it, renamed over it, so a reader
//     never sees half a document. Symlinks are followed: the link's target is
//     replaced and the link kept, except a link in a sticky world-writable
//     directory (/tmp) owned by another user (protectedSymlink). A new file gets mode 0644 (less the umask);
//     a replaced one keeps its mode.
//   - the standard output or error (/dev/stdout, /dev/fd/1, /proc/self/fd/1,
//     and 2) gets the document on the command's own stream, after the text
//     results;
//   - another special file (a device such as /dev/null, a named pipe) is
//     opened and written through, never replaced.
//
// Streams and special files cannot be rewritten, so they get one document,
// when the run ends (also when it is interrupted).
type File struct {
	as      string      // the command and flag, such as "run: --out", for messages
	given   string      // as the user wrote it, for messages
	path    string      // symlinks resolved: the file written
	stream  io.Writer   // the command's stdout or stderr, or nil
	special bool        // a device or named pipe: written through
	mode    fs.FileMode // of a new file; of the file replaced when keep
	keep    bool        // a regular file exists: its replacement keeps its mode
}

// standardStreams maps the names of the standard streams to their numbers.
var standardStreams = map[string]int{
	"/dev/stdout": 1, "/dev/fd/1": 1, "/proc/self/fd/1": 1,
	"/dev/stderr": 2, "/dev/fd/2": 2, "/proc/self/fd/2": 2,
}

// Check checks that the results can be written to path and says how to
// fix it when they cannot; as, such as "merge: -o", starts its messages.
// The standard streams (/dev/stdout, /dev/fd/1, ...) are written to stdout
// and stderr. An empty path gives a nil File, which writes nothing.
func Check(as, path string, stdout, stderr io.Writer) (*File, error) {
	if path == "" {
		return nil, nil
	}
	o := &File{as: as, given: path, mode: 0o644}
	target, fd, err := resolveOut(path)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %v", as, path, err)
	}
	o.path = target
	switch fd {
	case 1:
		o.stream = stdout
		return o, nil
	case 2:
		o.stream = stderr
		return o, nil
	}
	via := ""
	if target != filepath.Clean(path) {
		via = " (the target of the symlink " + path + ")"
	}
	fi, err := os.Stat(target)
	switch {
	case absent(err):
		return o, checkOutDir(as, path, target, via)
	case err != nil:
		return nil, fmt.Errorf("%s %s: %v", as, path, err)
	case fi.IsDir():
		return nil, fmt.Errorf("%s %s: %s%s is a directory; give a file name, e.g. --out %s", as, path, target, via, filepath.Join(path, "results.json"))
	case fi.Mode().IsRegular():
		o.mode, o.keep = fi.Mode().Perm(), true
		if f, err := os.OpenFile(target, os.O_WRONLY, 0); err != nil {
			return nil, fmt.Errorf("%s %s: %s%s cannot be written (%v); make it writable (chmod u+w %s) or choose another file", as, path, target, via, errors.Unwrap(err), target)
		} else {
			f.Close()
		}
		return o, checkOutDir(as, path, target, via)
	case fi.Mode()&(fs.ModeDevice|fs.ModeCharDevice|fs.ModeNamedPipe) != 0:
		o.special = true
		if fi.Mode()&fs.ModeNamedPipe == 0 { // opening a pipe waits for a reader
			f, err := os.OpenFile(target, os.O_WRONLY, 0)
			if err != nil {
				return nil, fmt.Errorf("%s %s: %s%s cannot be written (%v); choose another file", as, path, target, via, errors.Unwrap(err))
			}
			f.Close()
		}
		return o, nil
	default:
		return nil, fmt.Errorf("%s %s: %s%s is neither a regular file nor a device or pipe; choose another file", as, path, target, via)
	}
}

// checkOutDir checks that a file can be created beside target, as the
// atomic replacement needs.
func checkOutDir(as, path, target, via string) error {
	dir := filepath.Dir(target)
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s %s: the directory %s%s does not exist; create it (mkdir -p %s) or choose another file", as, path, dir, via, dir)
	case err != nil:
		return fmt.Errorf("%s %s: %v", as, path, err)
	case !fi.IsDir():
		return fmt.Errorf("%s %s: %s%s is not a directory; choose another file", as, path, dir, via)
	}
	f, err := createTemp(dir, 0o644)
	if err != nil {
		return fmt.Errorf("%s %s: cannot create files in %s%s (%v); choose a writable directory, or make it writable (chmod u+w %s)", as, path, dir, via, errors.Unwrap(err), dir)
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}

// absent reports whether err says a file does not exist, including because
// a "directory" on its path is a file.
func absent(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

// resolveOut follows the symlinks of path, hop by hop, and returns the
// file they lead to, or the number of the standard stream they name (else 0).
// A path that does not exist yet resolves to itself.
func resolveOut(path string) (string, int, error) {
	p := filepath.Clean(path)
	for range 40 {
		if fd, ok := standardStreams[p]; ok {
			return p, fd, nil
		}
		fi, err := os.Lstat(p)
		if absent(err) || err == nil && fi.Mode()&fs.ModeSymlink == 0 {
			return p, 0, nil
		}
		if err != nil {
			return "", 0, err
		}
		if err := protectedSymlink(p, fi); err != nil {
			return "", 0, err
		}
		t, err := os.Readlink(p)
		if err != nil {
			return "", 0, err
		}
		if !filepath.IsAbs(t) {
			t = filepath.Join(filepath.Dir(p), t)
		}
		p = filepath.Clean(t)
	}
	return "", 0, errors.New("too many levels of symbolic links")
}

// protectedSymlink refuses the symlink link (fi its Lstat) as Linux's
// fs.protected_symlinks does: in a sticky world-writable directory such as
// /tmp, a link owned by someone other than the follower and the
// directory's owner is not followed, so another user cannot point --out at
// a file of ours. The check holds whatever the kernel's setting.
func protectedSymlink(link string, fi fs.FileInfo) error {
	ls, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	dir := filepath.Dir(link)
	di, err := os.Stat(dir)
	if err != nil {
		return err
	}
	ds, ok := di.Sys().(*syscall.Stat_t)
	if !ok || di.Mode()&fs.ModeSticky == 0 || di.Mode().Perm()&0o002 == 0 {
		return nil
	}
	if int(ls.Uid) == os.Geteuid() || ls.Uid == ds.Uid {
		return nil
	}
	return fmt.Errorf("the symlink %s belongs to another user (uid %d) in the sticky world-writable directory %s: not followed (the kernel's protected_symlinks rule); remove it or choose another path", link, ls.Uid, dir)
}

// createTemp creates a new hidden file in dir with the given mode (less
// the umask); os.CreateTemp would make it 0600.
func createTemp(dir string, mode fs.FileMode) (*os.File, error) {
	for range 100 {
		name := filepath.Join(dir, ".taobench-"+strconv.FormatUint(rand.Uint64(), 36)+".json.tmp")
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, err
	}
	return nil, &fs.PathError{Op: "create", Path: dir, Err: syscall.EEXIST}
}

// Stream is the standard stream the file is, or nil.
func (o *File) Stream() io.Writer {
	if o == nil {
		return nil
	}
	return o.stream
}

// Write writes the whole file with fn. final says the work is over
// (completed, interrupted or failed): streams and special files, which
// cannot be rewritten, are written only then. A nil File writes nothing.
func (o *File) Write(fn func(io.Writer) error, final bool) error {
	if o == nil {
		return nil
	}
	if o.stream != nil || o.special {
		if !final {
			return nil
		}
		w := o.stream
		if w == nil {
			f, err := os.OpenFile(o.path, os.O_WRONLY, 0)
			if err != nil {
				return fmt.Errorf("%s %s: %w", o.as, o.given, err)
			}
			defer f.Close()
			w = f
		}
		if err := fn(w); err != nil {
			return fmt.Errorf("%s %s: %w", o.as, o.given, err)
		}
		return nil
	}
	tmp, err := createTemp(filepath.Dir(o.path), o.mode)
	if err != nil {
		return fmt.Errorf("%s %s: %w", o.as, o.given, err)
	}
	defer os.Remove(tmp.Name()) // after a successful rename there is nothing to remove
	err = fn(tmp)
	if err == nil && o.keep {
		err = tmp.Chmod(o.mode) // the replaced file's mode, whatever the umask
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), o.path)
	}
	if err != nil {
		return fmt.Errorf("%s %s: %w", o.as, o.given, err)
	}
	return nil
}
