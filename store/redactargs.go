package store

import (
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"
)

// RedactArgs masks in msg every password that a URL among args carries, as
// a last line of defence: stores redact the URLs they quote, but a message
// quoting part of a URL (its parameters, say) must not show a password.
func RedactArgs(msg string, args []string) string {
	for _, a := range args {
		if _, v, ok := strings.Cut(a, "="); ok && strings.HasPrefix(a, "-") {
			a = v // --db=URL
		}
		for _, p := range urlPasswords(a) {
			msg = strings.ReplaceAll(msg, p, "xxxxx")
		}
	}
	return msg
}

// urlPasswords returns the passwords in raw, as written and decoded: the
// user's password and the values of password and sslpassword parameters.
func urlPasswords(raw string) []string {
	var ps []string
	add := func(p string) {
		if p != "" {
			ps = append(ps, p)
		}
	}
	// Whatever url.Parse makes of it, the text between "user:" and the last
	// "@" may be a password: one holding / ? or # ends url.Parse's
	// authority early, so it would not see it (the fuzzer found this in
	// store.Redact).
	if i := strings.Index(raw, "://"); i >= 0 {
		if j := strings.LastIndex(raw, "@"); j > i {
			if _, p, ok := strings.Cut(raw[i+3:j], ":"); ok {
				add(p)
			}
		}
	}
	u, err := url.Parse(raw)
	if err != nil {
		return ps
	}
	if u.User != nil {
		p, _ := u.User.Password()
		add(p)
		if i := strings.Index(u.User.String(), ":"); i >= 0 {
			add(u.User.String()[i+1:])
		}
	}
	for _, kv := range strings.Split(u.RawQuery, "&") {
		k, v, _ := strings.Cut(kv, "=")
		if strings.EqualFold(k, "password") || strings.EqualFold(k, "sslpassword") {
			add(v)
			if d, err := url.QueryUnescape(v); err == nil {
				add(d)
			}
		}
	}
	return ps
}

// RedactWriter masks the passwords of the URLs among Args in what it
// writes to W: status lines may quote a driver's error.
type RedactWriter struct {
	W    io.Writer
	Args []string
}

func (r RedactWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(r.W, RedactArgs(string(p), r.Args)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// FromEnv returns the database URL raw gives: raw itself or, for
// env:NAME, the URL in the environment variable NAME, so a URL with a
// password can come from a secret (a Kubernetes Secret,
// docs/distributed.md) without appearing in the command line. Every
// message and result redacts it as it does a typed URL.
func FromEnv(raw string) (string, error) {
	name, ok := strings.CutPrefix(raw, "env:")
	if !ok {
		return raw, nil
	}
	v := strings.TrimSpace(os.Getenv(name))
	if name == "" || v == "" {
		return "", fmt.Errorf("env:%s: the environment variable %q is unset or empty; set it to the database URL, or give the URL itself", name, name)
	}
	return v, nil
}
