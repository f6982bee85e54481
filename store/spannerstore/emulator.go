package spannerstore

import (
	"context"
	"math/rand/v2"
	"strings"
	"time"

	"cloud.google.com/go/spanner"
	"google.golang.org/grpc/codes"
)

// The Cloud Spanner emulator runs one read-write transaction at a time
// ("Any concurrent transaction will be aborted", its README). Seen here
// (emulator 528.0.0, client v1.96.1): when another transaction begins, or
// a read arrives, while one is open, the open one is ended, and learns it
// not as ABORTED but from its next statement or its commit:
//
//	FAILED_PRECONDITION "Invalid transaction ID. Transaction ID must be >= N"
//	FAILED_PRECONDITION "Cannot read or query using a transaction after it has been committed or rolledback."
//	FAILED_PRECONDITION "Cannot commit a transaction after it has been rolled back."
//	NOT_FOUND "Transaction not found: N"
//
// Each is a conflict lost to another transaction, what ABORTED is on
// Spanner: retried, and counted under its own code so the contention
// figures say what the emulator answered. Real Spanner gives these codes for
// other things (a transaction used after its end is a client's bug), so the
// rule holds only where SPANNER_EMULATOR_HOST is set, and only for these
// messages.
var emulatorLost = []struct {
	code codes.Code
	msg  string
}{
	{codes.FailedPrecondition, "Invalid transaction ID"},
	{codes.FailedPrecondition, "after it has been committed or rolledback"},
	{codes.FailedPrecondition, "after it has been rolled back"},
	{codes.NotFound, "Transaction not found"},
}

// The emulator's rule makes concurrent transactions end one another: a
// read-write transaction is ended by the next one to begin, and by a read
// that arrives while it is open, so at 16 clients most write attempts are
// lost and requests use up their retries. On the emulator the store
// therefore runs each read-write transaction alone, as the emulator would
// have it: reads share the gate, a read-write transaction takes it whole
// (first come, first served). The wait is the driver's, part of each
// request's latency; the emulator's conflicts remain for transactions of
// other processes (several drivers, other clients).

// gateAll is the gate's weight: more than any number of concurrent reads.
const gateAll = 1 << 30

// enter waits for the gate on the emulator, shared for a read, whole for a
// read-write transaction, and returns its release, or ctx's error.
// Elsewhere it returns at once.
func (db *DB) enter(ctx context.Context, write bool) (release func(), err error) {
	if !db.emulator {
		return func() {}, nil
	}
	n := int64(1)
	if write {
		n = gateAll
	}
	if err := db.gate.Acquire(ctx, n); err != nil {
		return nil, err
	}
	return func() { db.gate.Release(n) }, nil
}

// emulatorConflict reports whether err is the emulator telling a
// read-write transaction it lost to another (above).
func (db *DB) emulatorConflict(err error) bool {
	if !db.emulator || err == nil {
		return false
	}
	c, desc := spanner.ErrCode(err), spanner.ErrDesc(err)
	for _, l := range emulatorLost {
		if c == l.code && strings.Contains(desc, l.msg) {
			return true
		}
	}
	return false
}

// emulatorRetries bounds how often retry runs a transaction the emulator
// ended (above); the client itself retries ABORTED.
const emulatorRetries = 100

// retry runs f until it returns other than an emulator conflict, the
// retries are used up or ctx ends, with a jittered backoff of up to 50 ms
// between attempts. Exec leaves its conflicts to the runner, which counts
// them; retry is for the store's own transactions (load, run numbers, run
// records), which the client retries when ABORTED.
func (db *DB) retry(ctx context.Context, f func() error) error {
	for try := 1; ; try++ {
		release, err := db.enter(ctx, true)
		if err != nil {
			return err
		}
		err = f()
		release()
		if !db.emulatorConflict(err) || try == emulatorRetries || ctx.Err() != nil {
			return err
		}
		d := time.Duration(min(try, 50)) * time.Millisecond
		t := time.NewTimer(d/2 + rand.N(d/2+1))
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return err
		}
	}
}

// readWrite is the client's ReadWriteTransaction, run again when the
// emulator ends it (retry).
func (db *DB) readWrite(ctx context.Context, f func(context.Context, *spanner.ReadWriteTransaction) error) (time.Time, error) {
	var ts time.Time
	err := db.retry(ctx, func() error {
		var err error
		ts, err = db.client.ReadWriteTransaction(ctx, f)
		return err
	})
	return ts, err
}

// apply is the client's Apply, run again when the emulator ends it
// (retry).
func (db *DB) apply(ctx context.Context, ms []*spanner.Mutation) (time.Time, error) {
	var ts time.Time
	err := db.retry(ctx, func() error {
		var err error
		ts, err = db.client.Apply(ctx, ms)
		return err
	})
	return ts, err
}
