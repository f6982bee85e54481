package sqlstore

import (
	"errors"
	"strconv"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"
)

// errCode is the code the database gave err: PostgreSQL's SQLSTATE (40001,
// 40P01, 55P03 ...), the MySQL, MariaDB or TiDB error number (1213, 1205,
// 9007 ...), SQLite's extended result code (5 is SQLITE_BUSY,
// https://sqlite.org/rescode.html); "" when err carries none, as a
// deadline or a broken connection. Results count conflicts, timeouts and
// errors by it, so two kinds of conflict that the outcome lumps together
// (a deadlock and a lock wait timeout, say) stay apart.
func errCode(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return strconv.Itoa(int(me.Number))
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		return strconv.Itoa(se.Code())
	}
	return ""
}
