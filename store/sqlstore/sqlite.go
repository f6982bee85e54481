package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"

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
	if u.RawQuery != "" {
		return "", fmt.Errorf("parameters %q in a sqlite URL: it takes none", u.RawQuery)
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
	if err := writable(path); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("%s: creating the directory: %w", name, err)
	}
	// WAL lets readers run beside the one writer; BEGIN IMMEDIATE takes the
	// write lock at the start of a write transaction, so it never fails
	// halfway on a lock upgrade.
	w, err := sql.Open("sqlite", path+"?_txlock=immediate&_busy_timeout=10000&_journal_mode=WAL&_synchronous=NORMAL")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	if err := w.PingContext(ctx); err != nil {
		w.Close()
		return nil, fmt.Errorf("%s: cannot open the file: %w", name, err)
	}
	r, err := sql.Open("sqlite", path+"?_busy_timeout=10000&_query_only=1")
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
	return &DB{d: b.d, b: b, name: name}, nil
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
