package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"
)

// openTimeout bounds the first connection, so an unreachable host fails
// in seconds rather than at the operating system's TCP timeout.
const openTimeout = 15 * time.Second

// scrub removes the password from a driver's message, in case it quotes it.
func scrub(msg, password string) string {
	if password == "" {
		return msg
	}
	return strings.ReplaceAll(msg, password, "xxxxx")
}

// connectError turns a failed first connection into one line naming the
// (redacted) URL, what went wrong and what to do. family is "postgres" or
// "mysql".
func connectError(name string, err error, password, host string, port uint16, database, user, family string) error {
	addr := net.JoinHostPort(host, strconv.Itoa(int(port)))
	var dns *net.DNSError
	var pg *pgconn.PgError
	var my *mysql.MySQLError
	switch {
	case errors.As(err, &pg):
		switch pg.Code {
		case "28P01", "28000": // invalid_password, invalid_authorization_specification
			return fmt.Errorf("%s: %s: check the user and password in the URL (and pg_hba.conf)", name, pg.Message)
		case "3D000": // invalid_catalog_name
			return fmt.Errorf("%s: database %q does not exist: create it with: createdb -h %s -p %d -U %s %s",
				name, database, host, port, user, database)
		}
		return fmt.Errorf("%s: cannot connect: %s (SQLSTATE %s)", name, scrub(pg.Message, password), pg.Code)
	case errors.As(err, &my):
		switch my.Number {
		case 1045, 1044, 1698: // access denied
			return fmt.Errorf("%s: access denied for user %q: check the user and password in the URL", name, user)
		case 1049: // unknown database
			return fmt.Errorf("%s: database %q does not exist: create it with: mysql -h %s -P %d -u %s -p -e 'CREATE DATABASE %s'",
				name, database, host, port, user, database)
		}
		return fmt.Errorf("%s: cannot connect: %s (error %d)", name, scrub(my.Message, password), my.Number)
	case errors.As(err, &dns):
		return fmt.Errorf("%s: unknown host %q: check the host name in the URL", name, dns.Name)
	case errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Errorf("%s: connection refused at %s: is the %s server running and listening there?", name, addr, family)
	case isTimeout(err):
		return fmt.Errorf("%s: no answer from %s within %v: check the host, port and firewall", name, addr, openTimeout)
	}
	return fmt.Errorf("%s: cannot connect: %s", name, scrub(firstLine(err.Error()), password))
}

// isTimeout reports whether err is a dial or deadline timeout.
func isTimeout(err error) bool {
	var t interface{ Timeout() bool }
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, syscall.ETIMEDOUT) || errors.As(err, &t) && t.Timeout()
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
