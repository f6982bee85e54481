package sqlstore

import (
	"context"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taobench/taobench/store"
)

// TestSQLiteMustExist: with MustExist a missing file is refused, naming it
// and the load that creates it, and neither it nor its directory is
// created; a file that exists opens and reads.
func TestSQLiteMustExist(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "no", "such", "t.db")
	_, err := store.Default.Open(context.Background(), "sqlite:"+missing, store.Options{MustExist: true})
	if err == nil {
		t.Fatal("opened a missing SQLite file")
	}
	for _, want := range []string{missing + " does not exist", "taobench load --db sqlite:" + missing} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%v: does not say %q", err, want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "no")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the directory was created: %v", err)
	}

	// A path with characters a URI filename escapes, written escaped in
	// the sqlite: URL.
	path := filepath.Join(dir, "odd %3f?#", "t.db")
	raw := (&url.URL{Scheme: "sqlite", Path: path}).String()
	s, err := store.Default.Open(context.Background(), raw, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	db := s.(store.Database)
	if err := db.Setup(context.Background(), false); err != nil {
		t.Fatal(err)
	}
	if err := db.SetMeta(context.Background(), map[string]string{"k": "v"}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	s, err = store.Default.Open(context.Background(), raw, store.Options{MustExist: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	meta, err := s.(store.Database).Meta(context.Background())
	if err != nil || meta["k"] != "v" {
		t.Fatalf("meta of the existing file: %v, %v", meta, err)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	for _, e := range entries {
		if e.Name() != "t.db" && !strings.HasPrefix(e.Name(), "t.db-") {
			t.Errorf("stray file %q beside the database", e.Name())
		}
	}
}

// TestExplainOpen: SQLite's raw open failures become what they mean.
func TestExplainOpen(t *testing.T) {
	for _, c := range []struct {
		code  int
		dirOK bool
		free  int64
		want  string
	}{
		{14, false, 1 << 30, "the directory is not writable"},
		{14, true, 1 << 30, "check that it is a regular file"},
		{4874, true, 4096, "the disk holding /d is full (4096 bytes free)"}, // SQLITE_IOERR_SHMSIZE
		{13, true, 0, "is full"},                                            // SQLITE_FULL
		{3850, true, 0, "is full"},                                          // SQLITE_IOERR_WRITE
		{4874, true, 1 << 30, ""},                                           // an I/O error with room to spare
		{4874, true, -1, ""},                                                // free space unknown
		{5, false, 0, ""},                                                   // busy: SQLite says it well
	} {
		got := explainOpen(c.code, "/d/t.db", "/d", c.dirOK, c.free)
		if c.want == "" && got != "" || !strings.Contains(got, c.want) {
			t.Errorf("explainOpen(%d, dirOK %v, free %d) = %q, want %q", c.code, c.dirOK, c.free, got, c.want)
		}
	}
}

// TestSQLiteReadOnlyDir: a new file in a directory this process may not
// write is refused naming the directory. Root writes anywhere, so as root
// the test needs a read-only mount, which it does not make.
func TestSQLiteReadOnlyDir(t *testing.T) {
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(dir, 0o755)
	if dirWritable(dir) {
		t.Skip("this process may write a 0555 directory (root): TestExplainOpen covers the message")
	}
	_, err := store.Default.Open(context.Background(), "sqlite:"+filepath.Join(dir, "t.db"), store.Options{})
	if err == nil || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), "not writable") {
		t.Fatalf("got %v; want it to name %s as not writable", err, dir)
	}
}

// TestSQLiteNotADatabase: a file that is not an SQLite database (SQLite's
// "file is not a database (26)") is refused at open, naming the file,
// saying what it is not and to give another path; the file is left as it
// was.
func TestSQLiteNotADatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "notes.txt")
	text := []byte(strings.Repeat("not a database, the user's own notes\n", 40))
	if err := os.WriteFile(path, text, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, mustExist := range []bool{false, true} {
		s, err := store.Default.Open(context.Background(), "sqlite:"+path, store.Options{MustExist: mustExist})
		if err == nil {
			s.Close()
			t.Fatalf("MustExist %v: opened a text file as a database", mustExist)
		}
		for _, want := range []string{path + " is not an SQLite database", "give the path of a new file", "--db sqlite:"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("MustExist %v: %v\ndoes not say %q", mustExist, err, want)
			}
		}
	}
	if got, err := os.ReadFile(path); err != nil || string(got) != string(text) {
		t.Errorf("the file changed: %v", err)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("files beside it: %v", entries)
	}
}
