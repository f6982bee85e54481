package sqlstore

import (
	"context"
	"errors"
)

// Whether a server is a replica, asked while a run reads from it (package
// tier watches its --replica stores with it: a standby promoted mid-run
// stops being read as a replica).

// recoveryReader is a backend that can tell whether its server replays
// another's writes.
type recoveryReader interface {
	inRecovery(ctx context.Context) (bool, error)
}

// InRecovery reports whether the server is a replica: a PostgreSQL hot
// standby (pg_is_in_recovery()), a MySQL or MariaDB server with read_only
// on. errors.ErrUnsupported where the engine cannot tell (SQLite).
func (db *DB) InRecovery(ctx context.Context) (bool, error) {
	r, ok := db.b.(recoveryReader)
	if !ok {
		return false, errors.ErrUnsupported
	}
	return r.inRecovery(ctx)
}

func (b *pgBackend) inRecovery(ctx context.Context) (bool, error) {
	var in bool
	err := b.pool.QueryRow(ctx, "SELECT pg_is_in_recovery()").Scan(&in)
	return in, err
}

func (m *myBackend) inRecovery(ctx context.Context) (bool, error) {
	var on int
	err := m.read.QueryRowContext(ctx, "SELECT @@global.read_only").Scan(&on)
	return on != 0, err
}
