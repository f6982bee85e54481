package store_test

import (
	"context"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/store/storetest"
)

// The fuzz targets of the database URL handling. No target connects to
// anything: Open runs against a registry whose one scheme, fake, records
// what it was given.
//
//	go test -run '^$' -fuzz '^FuzzRedact$' -fuzztime 60s ./store/

const mask = "xxxxx"

// userinfoPassword returns the password of raw's user info as written in
// raw (escaped) and its offset, where url.Parse finds it, or -1.
func userinfoPassword(raw string) (string, int) {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return "", -1
	}
	if _, ok := u.User.Password(); !ok {
		return "", -1
	}
	// url.Parse cuts the fragment, the query, then the authority at the
	// first /, and the user info at the authority's last @.
	start := strings.Index(raw, "//") + 2
	auth := raw[start:]
	if j := strings.IndexAny(auth, "/?#"); j >= 0 {
		auth = auth[:j]
	}
	userinfo := auth[:strings.LastIndex(auth, "@")]
	c := strings.IndexByte(userinfo, ':') + 1
	return userinfo[c:], start + c
}

// querySecrets returns the key=value pairs of raw's query (all after its
// first ?, split on & and ;) whose value may not show: every one but a
// harmless parameter's harmless value (store.HarmlessParam), as written.
func querySecrets(raw string) []string {
	_, query, _ := strings.Cut(raw, "?")
	var pws []string
	for _, pair := range strings.FieldsFunc(query, func(r rune) bool { return r == '&' || r == ';' }) {
		k, v, _ := strings.Cut(pair, "=")
		if key, err := url.QueryUnescape(k); err == nil {
			k = key
		}
		if v != "" && v != mask && !(store.HarmlessParam(k) && store.HarmlessValue(v)) {
			pws = append(pws, pair)
		}
	}
	return pws
}

// checkRedacted asserts that r, the redaction of raw, has none of raw's
// secrets: r equals the redaction of raw with its user-info password
// replaced by the mask, and holds no key=value pair of raw's query but
// the harmless ones.
func checkRedacted(t *testing.T, raw, r string) {
	t.Helper()
	if pw, at := userinfoPassword(raw); at >= 0 && pw != mask {
		masked := raw[:at] + mask + raw[at+len(pw):]
		if r0 := store.Redact(masked); r != r0 {
			t.Fatalf("Redact(%q) = %q depends on the password %q: with it masked, %q", raw, r, pw, r0)
		}
	}
	if pairs := querySecrets(raw); len(pairs) > 0 {
		_, query, _ := strings.Cut(r, "?")
		for _, kept := range strings.FieldsFunc(query, func(r rune) bool { return r == '&' || r == ';' }) {
			for _, pair := range pairs {
				if kept == pair || strings.HasPrefix(kept, pair+"#") {
					t.Fatalf("Redact(%q) = %q keeps %q", raw, r, pair)
				}
			}
		}
	}
}

// hasPassword reports whether raw holds a password or a parameter value
// Redact must mask.
func hasPassword(raw string) bool {
	pw, at := userinfoPassword(raw)
	return at >= 0 && pw != "" && pw != mask || len(querySecrets(raw)) > 0
}

// FuzzRedact: Redact never panics, is idempotent, returns a URL without a
// secret (no @ or #, no password anywhere, no parameter value but harmless
// ones) as it is, and what it returns does not depend on the password of
// the URL's user info (as url.Parse reads it) and holds no parameter value
// but harmless ones.
func FuzzRedact(f *testing.F) {
	for _, seed := range []string{
		"spanner://projects/P/instances/I/databases/D?credentials=c2VjcmV0",
		"sqlite:x.db?_pragma=key(s3cret)",
		"postgres://u@h/db?sslmode=require&options=-c%20k%3Ds3cret",
		"redis://h:6379/0?prefix=a&password=s3cret#frag",
		"mysql://u@h/db?tls=skip-verify;token=s3cret",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		r := store.Redact(raw)
		if r2 := store.Redact(r); r2 != r {
			t.Fatalf("Redact is not idempotent: %q -> %q -> %q", raw, r, r2)
		}
		checkRedacted(t, raw, r)
		if !strings.ContainsAny(raw, "@#") && !hasPassword(raw) && !strings.Contains(strings.ToLower(raw), "password") && r != raw {
			t.Fatalf("Redact(%q) = %q; a URL without a password should stay as it is", raw, r)
		}
	})
}

func isScheme(s string) bool {
	for i, c := range s {
		switch {
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		default:
			return false
		}
	}
	return s != ""
}

// FuzzRedactPassword: a URL typed as scheme://user:PASSWORD@rest, the
// password with any characters (@ : / ? # % included, none escaped),
// redacts to exactly what it does with the password replaced by the
// mask, so no part of the password shows.
func FuzzRedactPassword(f *testing.F) {
	f.Fuzz(func(t *testing.T, scheme, user, pw, rest string) {
		if !isScheme(scheme) || strings.ContainsAny(user, ":@/?#") || strings.Contains(rest, "@") || pw == "" {
			return
		}
		raw := scheme + "://" + user + ":" + pw + "@" + rest
		r, r0 := store.Redact(raw), store.Redact(scheme+"://"+user+":"+mask+"@"+rest)
		if r != r0 {
			t.Fatalf("Redact(%q) = %q; with the password %q masked it is %q", raw, r, pw, r0)
		}
		if !strings.Contains(r0, pw) && strings.Contains(r, pw) {
			t.Fatalf("Redact(%q) = %q shows the password %q", raw, r, pw)
		}
	})
}

// FuzzOpen: Open hands a URL of a registered scheme to its store as
// written, with the parsed URL and at least one client; every other URL is
// refused with a message that names it only redacted.
func FuzzOpen(f *testing.F) {
	f.Fuzz(func(t *testing.T, raw string) {
		var got struct {
			called bool
			u      *url.URL
			raw    string
			opts   store.Options
		}
		reg := &store.Registry{}
		reg.Register("fake", func(_ context.Context, u *url.URL, raw string, opts store.Options) (store.Store, error) {
			got.called, got.u, got.raw, got.opts = true, u, raw, opts
			return storetest.Func{}, nil
		})
		s, err := reg.Open(context.Background(), raw, store.Options{})
		// A bare word names its scheme and may carry options after "?"
		// ("null?delay=2ms"), as Open documents.
		u, perr := url.Parse(raw)
		word, query, _ := strings.Cut(raw, "?")
		bare := (perr != nil || u.Scheme == "") && word == "fake"
		fake := bare || perr == nil && u.Scheme == "fake"
		if err != nil {
			msg := err.Error()
			if fake || got.called || s != nil {
				t.Fatalf("Open(%q): store %v, called %v, error %v", raw, s, got.called, err)
			}
			if !strings.Contains(msg, strconv.Quote(store.Redact(raw))) {
				t.Fatalf("Open(%q): the error does not name the redacted URL %q: %s", raw, store.Redact(raw), msg)
			}
			if hasPassword(raw) && strings.Contains(msg, strconv.Quote(raw)) {
				t.Fatalf("Open(%q): the error names the URL unredacted: %s", raw, msg)
			}
			return
		}
		switch {
		case !fake:
			t.Fatalf("Open(%q) succeeded for scheme %q", raw, u.Scheme)
		case !got.called || s == nil:
			t.Fatalf("Open(%q): store %v, called %v", raw, s, got.called)
		case got.raw != raw:
			t.Fatalf("Open(%q) gave the store %q", raw, got.raw)
		case bare && *got.u != url.URL{Scheme: "fake", RawQuery: query},
			!bare && got.u.String() != u.String():
			t.Fatalf("Open(%q) gave the store the URL %q", raw, got.u)
		case got.opts.Clients != 1:
			t.Fatalf("Open(%q) with 0 clients gave the store %d", raw, got.opts.Clients)
		}
	})
}

// checkHidden asserts that Redact(raw) is what Redact gives with the
// password replaced by the mask (so it does not depend on it), and that it
// does not show pw unless the masked form shows it too.
func checkHidden(t *testing.T, raw, masked, pw string) {
	t.Helper()
	r, r0 := store.Redact(raw), store.Redact(masked)
	if r != r0 {
		t.Fatalf("Redact(%q) = %q; with the password %q masked it is %q", raw, r, pw, r0)
	}
	if !strings.Contains(r0, pw) && strings.Contains(r, pw) {
		t.Fatalf("Redact(%q) = %q shows the password %q", raw, r, pw)
	}
	if r2 := store.Redact(r); r2 != r {
		t.Fatalf("Redact is not idempotent: %q -> %q -> %q", raw, r, r2)
	}
}

// FuzzRedactSchemeless: a URL typed without its scheme,
// user:PASSWORD@rest, the password with any characters, never shows it.
func FuzzRedactSchemeless(f *testing.F) {
	f.Add("user", "s3cret", "localhost:5432/db")
	f.Add("u", "p@ss/w?rd#", "h/db?sslmode=disable")
	f.Fuzz(func(t *testing.T, user, pw, rest string) {
		// With pw after "//", user:pw@rest is a URL with an authority,
		// whose password FuzzRedactPassword covers.
		if strings.ContainsAny(user, ":@?") || strings.Contains(rest, "@") || pw == "" || strings.HasPrefix(pw, "//") {
			return
		}
		checkHidden(t, user+":"+pw+"@"+rest, user+":"+mask+"@"+rest, pw)
	})
}

// FuzzRedactDSN: a go-sql-driver DSN, user:PASSWORD@net(addr)/db?params,
// never shows the password, which may hold any character.
func FuzzRedactDSN(f *testing.F) {
	f.Add("root", "s3cret", "tcp", "localhost:3306", "db", "parseTime=true")
	f.Add("u", "p@ss/w:rd", "unix", "/run/mysqld.sock", "", "")
	f.Fuzz(func(t *testing.T, user, pw, network, addr, db, params string) {
		if strings.ContainsAny(user, ":@?") || strings.Contains(network+addr+db+params, "@") || pw == "" || strings.HasPrefix(pw, "//") {
			return
		}
		tail := "@" + network + "(" + addr + ")/" + db
		if params != "" {
			tail += "?" + params
		}
		checkHidden(t, user+":"+pw+tail, user+":"+mask+tail, pw)
	})
}

// FuzzRedactKeyValue: a libpq key/value string, pre password=PASSWORD
// post, never shows the password, written as a word or 'quoted' with its
// quotes and backslashes escaped.
func FuzzRedactKeyValue(f *testing.F) {
	f.Add("host=localhost", "s3cret", "dbname=x", false)
	f.Add("", "it's a secret", "", true)
	f.Add("user=u", "a=b@c:d", "host=h", false)
	f.Fuzz(func(t *testing.T, pre, pw, post string, quote bool) {
		if pw == "" {
			return
		}
		if pre != "" {
			pre += " "
		}
		if post != "" {
			post = " " + post
		}
		value := pw
		if quote {
			value = "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(pw) + "'"
		} else if strings.IndexFunc(pw, func(r rune) bool { return strings.ContainsRune(" \t\n\v\f\r", r) }) >= 0 || pw[0] == '\'' {
			return // libpq would read another value
		}
		checkHidden(t, pre+"password="+value+post, pre+"password="+mask+post, pw)
	})
}
