package store_test

import (
	"strings"
	"testing"

	"github.com/taobench/taobench/store"
)

// TestRedactArgsOddPasswords: a password holding / ? # or @ is masked in
// driver messages too, not only by store.Redact.
func TestRedactArgsOddPasswords(t *testing.T) {
	t.Parallel()
	for _, pw := range []string{"12/45", "a?b", "c#d", "e@f", "g:h/i"} {
		raw := "postgres://u:" + pw + "@db.example:5432/bench"
		msg := store.RedactArgs("connect "+raw+": refused (password "+pw+")", []string{"run", "--db", raw})
		if strings.Contains(msg, pw) {
			t.Errorf("password %q shows in %q", pw, msg)
		}
	}
}

// TestRedactWriter: status lines written through a RedactWriter show no
// password of the command line, and report the length written.
func TestRedactWriter(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	w := store.RedactWriter{W: &b, Args: []string{"--db", "mysql://root:s3cret@h/db"}}
	line := "error 1045: access denied for root:s3cret\n"
	if n, err := w.Write([]byte(line)); err != nil || n != len(line) || strings.Contains(b.String(), "s3cret") {
		t.Errorf("wrote %d, %v: %q", n, err, b.String())
	}
}

// TestFromEnv: env:NAME is the URL in NAME; an unset or empty NAME is an
// error naming it and the fix; any other URL is itself.
func TestFromEnv(t *testing.T) {
	t.Setenv("TAOBENCH_TEST_DB", " postgres://u:pw@h/db ")
	if u, err := store.FromEnv("env:TAOBENCH_TEST_DB"); err != nil || u != "postgres://u:pw@h/db" {
		t.Errorf("env:TAOBENCH_TEST_DB: %q, %v", u, err)
	}
	if u, err := store.FromEnv("sqlite:x.db"); err != nil || u != "sqlite:x.db" {
		t.Errorf("sqlite:x.db: %q, %v", u, err)
	}
	for _, raw := range []string{"env:TAOBENCH_TEST_UNSET", "env:"} {
		if _, err := store.FromEnv(raw); err == nil || !strings.Contains(err.Error(), "is unset or empty; set it to the database URL") {
			t.Errorf("%s: %v, want an error with the fix", raw, err)
		}
	}
}
