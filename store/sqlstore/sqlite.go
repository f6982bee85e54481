package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"modernc.org/sqlite"

	"github.com/taobench/taobench/store"
)

// sqlitePath returns the file of sqlite:PATH or sqlite:///abs/path.
func sqlitePath(u *url.URL) (string, error) {
	path := u.Opaque
	if path == "" {
		if u.Host != "" {
			return "", fmt.Errorf("host %q in a sqlite URL: use sqlite:relative/path.db or sqlite:///absolute/path.db", u.Host)
		}
		path = u.Path
	}
	if path == "" {
		return "", errors.New("no file: use sqlite:relative/path.db or sqlite:///absolute/path.db")
	}
	if u.Fragment != "" {
		// Not quoted: it is no part of the path the store would open.
		return "", errors.New("a # in a sqlite URL ends the path there: write a # of the file name as %23")
	}
	if u.RawQuery != "" {
		// Named, not quoted: a value may be a secret (_pragma=key(...)).
		return "", fmt.Errorf("parameters in a sqlite URL (%s): it takes none; remove everything from the ?", store.ParamNames(u.RawQuery))
	}
	if path == ":memory:" {
		return "", errors.New("an in-memory database cannot be shared by the store's connections: give a file")
	}
	return path, nil
}

// openSQLite opens an SQLite file, creating it and its directory if absent.
func openSQLite(ctx context.Context, u *url.URL, raw string, opts store.Options) (store.Store, error) {
	name := store.Redact(raw)
	path, err := sqlitePath(u)
	if err != nil {
		return nil, fmt.Errorf("database URL %q: %w", name, err)
	}
	if opts.SchemaOnly {
		return &schemaOnly{name: name, schema: sqliteDialect().schema}, nil
	}
	// A URI filename, so a ? or # in the path is part of it, not the
	// start of the driver's parameters.
	dsn := sqliteURI(path) + "?"
	if opts.MustExist {
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%s: %s does not exist: load a graph into it first (taobench load --db sqlite:%s), or give the path of one loaded before", name, path, path)
		}
		// mode=rw: should the file go after the check, SQLite fails
		// rather than create an empty one.
		dsn += "mode=rw&"
	} else {
		if err := writable(path); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, fmt.Errorf("%s: creating the directory: %w", name, err)
		}
	}
	// WAL lets readers run beside the one writer; BEGIN IMMEDIATE takes the
	// write lock at the start of a write transaction, so it never fails
	// halfway on a lock upgrade.
	w, err := sql.Open("sqlite", dsn+"_txlock=immediate&_busy_timeout=10000&_journal_mode=WAL&_synchronous=NORMAL")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	if err := w.PingContext(ctx); err != nil {
		w.Close()
		return nil, sqliteOpenError(name, path, err)
	}
	r, err := sql.Open("sqlite", dsn+"_busy_timeout=10000&_query_only=1")
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	r.SetMaxOpenConns(opts.Clients + 2)
	r.SetMaxIdleConns(opts.Clients + 2)
	b := newSQLBackend(sqliteDialect(), w, r, classifySQLite)
	b.loadMode = func(ctx context.Context, on bool) error {
		// One writer connection, so the pragmas hold for the whole load.
		p := []string{"PRAGMA synchronous = OFF", "PRAGMA cache_size = -262144"}
		if !on {
			p = []string{"PRAGMA synchronous = NORMAL", "PRAGMA cache_size = -2000"}
		}
		for _, s := range p {
			if _, err := w.ExecContext(ctx, s); err != nil {
				return err
			}
		}
		return nil
	}
	product := "SQLite"
	var v string
	if err := w.QueryRowContext(ctx, "SELECT sqlite_version()").Scan(&v); err == nil {
		product += " " + v
	}
	return &DB{d: b.d, b: b, name: name, product: product}, nil
}

// sqliteURI returns path as an SQLite URI filename (https://sqlite.org/uri.html),
// through which SQLite reads parameters such as mode; % ? and # in the
// path are escaped.
func sqliteURI(path string) string {
	esc := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(filepath.ToSlash(path))
	if strings.HasPrefix(esc, "/") {
		return "file://" + esc // file:///abs/path: an empty authority
	}
	return "file:" + esc
}

// sqliteOpenError explains a failed open of the SQLite file at path, whose
// raw codes (14, 4874) say little to an operator.
func sqliteOpenError(name, path string, err error) error {
	var e *sqlite.Error
	code := 0
	if errors.As(err, &e) {
		code = e.Code()
	}
	dir := filepath.Dir(path)
	if msg := explainOpen(code, path, dir, dirWritable(dir), freeBytes(dir)); msg != "" {
		return fmt.Errorf("%s: %s (%v)", name, msg, err)
	}
	return fmt.Errorf("%s: cannot open the file: %w", name, err)
}

// fullBelow is the free space under which an I/O error at open is taken
// for a full disk: SQLite needs a few pages and the -shm file (32 KiB).
const fullBelow = 1 << 20

// explainOpen says what an open that failed with SQLite result code code
// means for the file at path in dir, given whether dir is writable and how
// many bytes are free there (-1 when unknown); "" when it has nothing to
// add.
func explainOpen(code int, path, dir string, dirOK bool, free int64) string {
	switch code & 0xff {
	case sqliteCantOpen:
		if !dirOK {
			return fmt.Sprintf("cannot create the database in %s: the directory is not writable (permissions, or a read-only file system); make it writable or give a path in a writable directory", dir)
		}
		return fmt.Sprintf("cannot open %s: check that it is a regular file taobench may read and write", path)
	case sqliteNotADB:
		return fmt.Sprintf("%s is not an SQLite database (taobench leaves it as it is): give the path of a new file, or of a database taobench loaded, e.g. --db sqlite:%s", path, filepath.Join(dir, "taobench.db"))
	case sqliteIOErr, sqliteFull:
		if 0 <= free && free < fullBelow {
			return fmt.Sprintf("the disk holding %s is full (%d bytes free): free space there or give a path on another disk", dir, free)
		}
	}
	return ""
}

// writable checks that taobench can write an existing SQLite file and
// create its -wal and -shm files beside it: SQLite would open a read-only
// file read-only and fail at the first write with "attempt to write a
// readonly database".
func writable(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil // created, with its directory, by the open
	}
	if err != nil {
		return fmt.Errorf("%s is not writable (%v): taobench writes to its database; make it writable (chmod u+w %s) or give another path", path, errors.Unwrap(err), path)
	}
	f.Close()
	dir := filepath.Dir(path)
	_, werr := os.Stat(path + "-wal")
	_, serr := os.Stat(path + "-shm")
	if werr == nil && serr == nil {
		return nil // SQLite need not create them
	}
	probe, err := os.CreateTemp(dir, ".taobench-probe-*")
	if err != nil {
		return fmt.Errorf("cannot create files in %s (%v), where SQLite keeps %s-wal and %s-shm: make the directory writable (chmod u+w %s) or give another path",
			dir, errors.Unwrap(err), filepath.Base(path), filepath.Base(path), dir)
	}
	probe.Close()
	os.Remove(probe.Name())
	return nil
}

// SQLite result codes (https://sqlite.org/rescode.html).
const (
	sqliteBusy          = 5
	sqliteLocked        = 6
	sqliteInterrupt     = 9
	sqliteIOErr         = 10
	sqliteFull          = 13
	sqliteCantOpen      = 14
	sqliteNotADB        = 26
	sqliteConstraintPK  = 1555
	sqliteConstraintUnq = 2067
)

func classifySQLite(err error) errClass {
	var e *sqlite.Error
	if !errors.As(err, &e) {
		return errOther
	}
	switch e.Code() {
	case sqliteConstraintPK, sqliteConstraintUnq:
		return errUnique
	}
	switch e.Code() & 0xff {
	case sqliteBusy, sqliteLocked:
		return errConflict
	case sqliteInterrupt:
		return errTimeout
	}
	return errOther
}
