package store

import (
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"
)

// RedactArgs masks in msg every secret that a URL among args carries, as
// a last line of defence: stores redact the URLs they quote, but a
// driver's message may quote a whole URL or part of one (its parameters,
// say). A URL quoted whole is replaced by its redaction (Redact); then
// each password, and each value of a parameter whose value may not show
// (params.go) of 4 bytes or more, is masked wherever it appears. A shorter
// value is hidden only where the URL is quoted whole: masking every "1"
// or "on" in a message would garble it and hide nothing.
func RedactArgs(msg string, args []string) string {
	for _, a := range args {
		if _, v, ok := strings.Cut(a, "="); ok && strings.HasPrefix(a, "-") {
			a = v // --db=URL
		}
		if r := Redact(a); r != a && a != "" {
			msg = strings.ReplaceAll(msg, a, r)
		}
		for _, p := range urlSecrets(a) {
			msg = strings.ReplaceAll(msg, p, "xxxxx")
		}
	}
	return msg
}

// RedactIn is RedactArgs for the one URL raw: what a store's or a
// driver's message about raw may show.
func RedactIn(msg, raw string) string { return RedactArgs(msg, []string{raw}) }

// urlSecrets returns the secrets in raw, as written and decoded: the
// user's password, the values of password and sslpassword parameters,
// those of the other parameters whose value may not show and a
// #fragment, of 4 bytes or more.
func urlSecrets(raw string) []string {
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
	// The query as written, from the first ?, whether or not raw parses,
	// and a #fragment (Redact masks it).
	if _, q, ok := strings.Cut(raw, "?"); ok {
		ps = append(ps, querySecrets(q)...)
	}
	if _, f, ok := strings.Cut(raw, "#"); ok && len(f) >= 4 {
		ps = append(ps, f)
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
	return ps
}

// querySecrets returns the values of query (pairs split on & or ;) that
// may not show, as written and decoded: any password, and the others of 4
// bytes or more.
func querySecrets(query string) []string {
	var ps []string
	for _, kv := range strings.FieldsFunc(query, func(r rune) bool { return r == '&' || r == ';' }) {
		k, v, _ := strings.Cut(kv, "=")
		if key, err := url.QueryUnescape(k); err == nil {
			k = key
		}
		if v == "" || showsValue(k, v) {
			continue
		}
		pw := strings.EqualFold(k, "password") || strings.EqualFold(k, "sslpassword")
		for _, x := range []string{v, unescape(v)} {
			if pw && x != "" || len(x) >= 4 {
				ps = append(ps, x)
			}
		}
	}
	return ps
}

// unescape is v query-unescaped, or "" when it is not validly escaped.
func unescape(v string) string {
	d, err := url.QueryUnescape(v)
	if err != nil {
		return ""
	}
	return d
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
