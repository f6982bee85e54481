package spannerstore

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"syscall"
	"time"

	"cloud.google.com/go/spanner/admin/database/apiv1/databasepb"
	gax "github.com/googleapis/gax-go/v2"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/taobench/taobench/store"
)

// probeTimeout bounds the first exchange with Spanner or the emulator, as
// sqlstore bounds a first connection: the client retries an address that
// does not answer, or answers in another protocol, for as long as it is
// let (a closed port hung taobench until it was killed).
const probeTimeout = 15 * time.Second

// probe asks for the database once before the store is used, within
// probeTimeout (or ctx's deadline, when sooner), so that a closed port, a
// server that says nothing or one that does not speak Spanner's protocol
// ends the open with a message naming it, instead of every later call
// waiting on it. Any answer from Spanner passes, an error included (a
// missing database, a permission denied): those are for the calls that
// need them to say.
func probe(ctx context.Context, admin interface {
	GetDatabase(context.Context, *databasepb.GetDatabaseRequest, ...gax.CallOption) (*databasepb.Database, error)
}, name, path string) error {
	bound := probeTimeout
	if d, ok := ctx.Deadline(); ok && time.Until(d) < bound {
		bound = max(time.Until(d), 0)
	}
	emu := os.Getenv("SPANNER_EMULATOR_HOST")
	where := "Cloud Spanner"
	fix := "check the network and the project and instance in the URL (or set SPANNER_EMULATOR_HOST for the emulator)"
	if emu != "" {
		where = "SPANNER_EMULATOR_HOST=" + store.Redact(emu)
		fix = "start the Spanner emulator there (gcloud emulators spanner start), or set SPANNER_EMULATOR_HOST to the host:port it listens on (unset it for Cloud Spanner)"
	}
	pctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	if emu != "" {
		// A closed port is said as such at once, not as a timeout.
		c, err := (&net.Dialer{}).DialContext(pctx, "tcp", emu)
		if err != nil {
			if errors.Is(ctx.Err(), context.Canceled) {
				return ctx.Err() // interrupted: nothing to explain
			}
			why := "no connection within " + bound.Round(time.Millisecond).String()
			switch {
			case errors.Is(err, syscall.ECONNREFUSED):
				why = "connection refused"
			case errors.As(err, new(*net.DNSError)), errors.As(err, new(*net.AddrError)):
				why = "not a host:port that resolves"
			}
			return fmt.Errorf("%s: %s: %s: %s", name, where, why, fix)
		}
		c.Close()
	}
	// One call at a time, without the client's own retries, so the last
	// error is the one said; Unavailable is retried here until the bound
	// (an emulator still starting up).
	noRetry := gax.WithRetry(func() gax.Retryer { return nil })
	var last error
	for {
		_, err := admin.GetDatabase(pctx, &databasepb.GetDatabaseRequest{Name: path}, noRetry)
		if err == nil || answered(err) {
			return nil
		}
		if errors.Is(ctx.Err(), context.Canceled) {
			return ctx.Err()
		}
		if last == nil || status.Code(err) != codes.DeadlineExceeded && status.Code(err) != codes.Canceled {
			last = err
		}
		if status.Code(err) != codes.Unavailable || pctx.Err() != nil {
			break
		}
		select {
		case <-pctx.Done():
		case <-time.After(500 * time.Millisecond):
		}
		if pctx.Err() != nil {
			break
		}
	}
	what := "no answer within " + bound.Round(time.Millisecond).String()
	if c := status.Code(last); c != codes.DeadlineExceeded && c != codes.Canceled {
		what = "no Spanner answer within " + bound.Round(time.Millisecond).String() + " (" + codeName(c) + ": " + firstLine(status.Convert(last).Message()) + ")"
	}
	return fmt.Errorf("%s: %s: %s: %s", name, where, what, fix)
}

// checkEmulatorHost refuses a SPANNER_EMULATOR_HOST that is not a bare
// host:port before any client reads it: the emulator takes no credentials,
// and a client's message could quote the value whole.
func checkEmulatorHost(name string) error {
	emu := os.Getenv("SPANNER_EMULATOR_HOST")
	if _, _, err := net.SplitHostPort(emu); emu != "" && (err != nil || strings.ContainsAny(emu, "@/?#")) {
		// Not quoted: what is not a host:port may be a credential.
		return fmt.Errorf("%s: SPANNER_EMULATOR_HOST is not a host:port (it holds a user, a path or options, or no port): give the emulator's host:port only, such as localhost:9010", name)
	}
	return nil
}

// answered reports whether err is Spanner's own answer (the database is
// missing, the caller may not ask, ...) rather than a transport's failure
// or a server that is not Spanner.
func answered(err error) bool {
	switch status.Code(err) {
	case codes.NotFound, codes.PermissionDenied, codes.Unauthenticated, codes.FailedPrecondition,
		codes.InvalidArgument, codes.ResourceExhausted, codes.AlreadyExists, codes.OutOfRange:
		return true
	}
	return false
}

// firstLine is s up to its first line break, at most 200 bytes.
func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}
