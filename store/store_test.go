package store_test

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/taobench/taobench/store"
)

// TestRedactMalformed: the --db forms that are not URLs, as an operator
// may type them, lose their password (issue 17: each was printed verbatim).
func TestRedactMalformed(t *testing.T) {
	for _, c := range []struct{ raw, want string }{
		// A URL without its scheme: url.Parse reads scheme "user".
		{"user:s3cret@localhost:5432/db", "user:xxxxx@localhost:5432/db"},
		{"user:s3/c@ret@localhost:5432/db", "user:xxxxx@localhost:5432/db"},
		// A go-sql-driver DSN.
		{"user:s3cret@tcp(localhost:3306)/db", "user:xxxxx@tcp(localhost:3306)/db"},
		{"root:p@ss/w:rd@tcp(127.0.0.1:3306)/taobench?parseTime=true", "root:xxxxx@tcp(127.0.0.1:3306)/taobench?parseTime=true"},
		// libpq key/value strings.
		{"host=localhost password=s3cret dbname=x", "host=localhost password=xxxxx dbname=x"},
		{"host=localhost password = s3cret", "host=localhost password = xxxxx"},
		{"password='s3 cr\\'et' host=h", "password=xxxxx host=h"},
		{"PASSWORD=s3cret sslpassword=k3y", "PASSWORD=xxxxx sslpassword=xxxxx"},
		{"password='unclosed s3cret", "password=xxxxx"},
		// Left alone: no password.
		{"host=localhost user=u dbname=x", "host=localhost user=u dbname=x"},
		{"user@tcp(localhost:3306)/db", "user@tcp(localhost:3306)/db"},
		{"sqlite:taobench.db", "sqlite:taobench.db"},
		{"null?a=b:c@d", "null?a=xxxxx"},
	} {
		got := store.Redact(c.raw)
		if got != c.want {
			t.Errorf("Redact(%q) = %q, want %q", c.raw, got, c.want)
		}
		if strings.Contains(got, "s3") || strings.Contains(got, "k3y") || strings.Contains(got, "p@ss") {
			t.Errorf("Redact(%q) = %q shows the password", c.raw, got)
		}
	}
}

// TestOpenMalformed: Open refuses each malformed form with a message that
// says what is wrong and never holds the password.
func TestOpenMalformed(t *testing.T) {
	reg := &store.Registry{}
	reg.Register("postgres", func(context.Context, *url.URL, string, store.Options) (store.Store, error) {
		t.Fatal("opened")
		return nil, nil
	})
	for _, c := range []struct{ raw, want string }{
		{"user:s3cret@localhost:5432/db", "no scheme"},
		{"user:s3cret@tcp(localhost:3306)/db", "no scheme"},
		{"host=localhost password=s3cret dbname=x", "key/value connection string"},
		{"password=s3cret", "key/value connection string"},
		{"a b password=s3cret", "key/value connection string"},
		{"foo bar", "not a URL"},
	} {
		_, err := reg.Open(context.Background(), c.raw, store.Options{})
		if err == nil {
			t.Fatalf("Open(%q) succeeded", c.raw)
		}
		msg := err.Error()
		if strings.Contains(msg, "s3cret") {
			t.Errorf("Open(%q): the error shows the password: %s", c.raw, msg)
		}
		if !strings.Contains(msg, c.want) {
			t.Errorf("Open(%q): %s; want it to say %q", c.raw, msg, c.want)
		}
	}
}

// TestRedactParams: the one rule for URL parameters (params.go), in every
// scheme's forms: a parameter shows by name, its value only for a
// harmless setting with a harmless value; RedactArgs masks the same
// values (and the URL whole) in a driver's message. Before, only password
// and sslpassword were masked (issue 37: a spanner: URL's credentials=
// and a SQLite _pragma=key(...) showed).
func TestRedactParams(t *testing.T) {
	const secret = "S3CRETv4l"
	for _, c := range []struct{ raw, want string }{
		{"spanner://projects/P/instances/I/databases/D?credentials=" + secret, "spanner://projects/P/instances/I/databases/D?credentials=xxxxx"},
		{"spanner:projects/P/instances/I/databases/D?key=" + secret + "#x", "spanner:projects/P/instances/I/databases/D?key=xxxxx"},
		{"sqlite:x.db?_pragma=key(" + secret + ")", "sqlite:x.db?_pragma=xxxxx"},
		{"sqlite:x.db#" + secret, "sqlite:x.db#xxxxx"},
		{"postgres://u@h:5432/db?sslmode=require&options=-c%20k%3D" + secret, "postgres://u@h:5432/db?sslmode=require&options=xxxxx"},
		{"postgres://u@h/db?search_path=public&pool_max_conns=8&token=" + secret, "postgres://u@h/db?search_path=public&pool_max_conns=8&token=xxxxx"},
		{"postgres://u@h/db?sslmode=" + secret + "%20x", "postgres://u@h/db?sslmode=xxxxx"},
		{"postgres://u@h/db?application_name=a@b", "postgres://u@h/db?application_name=xxxxx"},
		{"postgres://u:pw@h/db#" + secret, "postgres://u:xxxxx@h/db#xxxxx"},
		{"mysql://root@h:3306/db?tls=skip-verify&parseTime=true;apikey=" + secret, "mysql://root@h:3306/db?tls=skip-verify&parseTime=true;apikey=xxxxx"},
		{"mysql://root@h/db?tidb_txn_mode=optimistic&connectionAttributes=a:" + secret, "mysql://root@h/db?tidb_txn_mode=optimistic&connectionAttributes=xxxxx"},
		{"redis://h:6379/0?prefix=tb&expire=1h&prefill=1&password=" + secret, "redis://h:6379/0?prefix=tb&expire=1h&prefill=1&password=xxxxx"},
		{"redis://h:6379/0?prefix=a*b", "redis://h:6379/0?prefix=xxxxx"},
		{"null?delay=2ms&stall=1s&every=5s", "null?delay=2ms&stall=1s&every=5s"},
		{"null?token=" + secret, "null?token=xxxxx"},
		{"bogus://h/db?flag&x=", "bogus://h/db?flag&x="},
	} {
		if got := store.Redact(c.raw); got != c.want {
			t.Errorf("Redact(%q) = %q, want %q", c.raw, got, c.want)
		}
		// A driver quotes the URL, or the value as written or decoded.
		i := strings.LastIndexAny(c.raw, "=#")
		value := c.raw[i+1:]
		decoded, _ := url.QueryUnescape(value)
		msg := "cannot parse `" + c.raw + "`: bad value " + value + " (" + decoded + ")"
		if got := store.RedactArgs(msg, []string{"run", "--db", c.raw}); strings.Contains(got, secret) && strings.Contains(c.raw, secret) {
			t.Errorf("RedactArgs(%q) = %q shows the value", msg, got)
		}
	}
}
