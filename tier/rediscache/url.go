package rediscache

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/taobench/taobench/store"
)

// cacheURL is a cache URL checked and read: the go-redis options it
// gives, taobench's own options apart.
type cacheURL struct {
	shown   string // the URL redacted, for messages
	opts    *redis.Options
	db      int
	prefix  string
	expire  time.Duration
	prefill bool
}

// The kinds of the options a cache URL takes.
const (
	optName     = iota // a non-empty name without blanks or glob characters
	optDuration        // a Go duration or whole seconds, at least 1s (expire)
	optTimeout         // a positive Go duration or whole seconds: a bound that must stay one
	optSpan            // a Go duration or whole seconds, 0 or less turning it off
	optBool            // true, false, 1 or 0
	optCount           // an integer of 0 or more
	optRetries         // an integer of -1 (none) or more
	optProtocol        // 2 or 3
)

// cacheOptions are the options a cache URL takes: taobench's own
// (prefix, expire, prefill) and the go-redis options that make sense for
// the tier (https://pkg.go.dev/github.com/redis/go-redis/v9#ParseURL).
var cacheOptions = map[string]int{
	"prefix": optName, "expire": optDuration, "prefill": optBool,
	"db": optCount, "protocol": optProtocol, "client_name": optName,
	"max_retries": optRetries, "min_retry_backoff": optSpan, "max_retry_backoff": optSpan,
	"dial_timeout": optTimeout, "read_timeout": optTimeout, "write_timeout": optTimeout, "pool_timeout": optTimeout,
	"pool_fifo": optBool, "pool_size": optCount, "min_idle_conns": optCount, "max_idle_conns": optCount,
	"max_active_conns": optCount, "conn_max_idle_time": optSpan, "conn_max_lifetime": optSpan,
	"idle_timeout": optSpan, "max_conn_age": optSpan, "skip_verify": optBool,
}

// cacheExample is a cache URL to copy.
const cacheExample = "redis://127.0.0.1:6379/0?prefix=taobench"

// parseCache reads a cache URL: redis://[[USER]:PASSWORD@]HOST[:PORT][/DB],
// rediss:// (TLS) or unix://[[USER]:PASSWORD@]/PATH?db=DB, each with the
// options of cacheOptions. Every message starts with the URL redacted
// and quoted (no password or option value but harmless ones shows:
// store.Redact; the caller says where it came from) and says the fix;
// none quotes go-redis.
func parseCache(raw string, clients int) (*cacheURL, error) {
	c := &cacheURL{shown: store.Redact(raw), prefix: defaultPrefix, expire: defaultExpire}
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%q: "+format, append([]any{c.shown}, a...)...)
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "redis" && u.Scheme != "rediss" && u.Scheme != "unix" || u.Opaque != "" {
		hint := ""
		if err != nil && strings.Contains(raw, "@") {
			hint = " (a password holding / ? # @ or % must be percent-encoded: %2F %3F %23 %40 %25)"
		}
		return nil, bad("not a Redis URL; use e.g. %s, rediss:// for TLS or unix:///path/redis.sock?db=0%s", cacheExample, hint)
	}
	if u.Fragment != "" || strings.Contains(raw, "#") {
		return nil, bad("a Redis URL has no #fragment; a password holding # must be percent-encoded as %%23")
	}
	var pathDB string
	switch u.Scheme {
	case "unix":
		if u.Host != "" || strings.Trim(u.Path, "/") == "" {
			return nil, bad("a unix URL names the socket's path: unix:///path/to/redis.sock?db=0")
		}
	default:
		if u.Hostname() == "" {
			return nil, bad("no host (taobench does not assume one): give it, e.g. redis://127.0.0.1:6379/0, with a password before it as redis://:PASSWORD@HOST:6379/0")
		}
		if p := u.Port(); p != "" {
			if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
				return nil, bad("port %s: give a port from 1 to 65535 (Redis listens on 6379 by default)", visible(c.shown, p))
			}
		} else if strings.HasSuffix(u.Host, ":") {
			return nil, bad("an empty port after the host: give one (6379 by default) or drop the colon")
		}
		pathDB = strings.TrimPrefix(u.Path, "/")
		if strings.Contains(pathDB, "/") {
			return nil, bad("the path is the database number, /0 by default: give one number, as in %s", cacheExample)
		}
	}
	if strings.Contains(u.RawQuery, ";") {
		return nil, bad("options are separated by &, not ;")
	}
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return nil, bad("the options after ? are not well formed: a %% must start an escape such as %%2F")
	}
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if err := checkCacheOption(u.Scheme, k, q[k]); err != nil {
			return nil, bad("%v", err)
		}
	}
	dbText := pathDB
	if q.Has("db") {
		if pathDB != "" {
			return nil, bad("the database number is given twice (the path /%s and db=): give it once", pathDB)
		}
		dbText = q.Get("db")
	}
	if dbText != "" {
		if !allDigits(dbText) || len(dbText) > 9 {
			return nil, bad("database %s: give a database number of 0 or more (the server's databases setting bounds it: 0 to 15 by default)", visible(c.shown, dbText))
		}
		c.db, _ = strconv.Atoi(dbText)
	}
	if q.Has("prefix") {
		c.prefix = q.Get("prefix")
	}
	if q.Has("expire") {
		c.expire, _ = cacheDuration(q.Get("expire"))
	}
	if q.Has("prefill") {
		c.prefill, _ = strconv.ParseBool(q.Get("prefill"))
	}
	// go-redis reads the rest; the tier's own bounds where the URL does
	// not set them: a Redis that goes away must make reads fall through
	// to the database quickly, not hold them.
	q.Del("prefix")
	q.Del("expire")
	q.Del("prefill")
	for _, k := range []string{"dial_timeout", "read_timeout", "write_timeout"} {
		if !q.Has(k) {
			q.Set(k, defaultTimeout.String())
		}
	}
	if !q.Has("max_retries") {
		q.Set("max_retries", "-1") // no retry: a failed lookup falls through
	}
	pooled := q.Has("pool_size")
	v := *u
	v.RawQuery = q.Encode()
	if c.opts, err = redis.ParseURL(v.String()); err != nil {
		// Checked above: this would be a go-redis the checks do not know.
		return nil, bad("not a Redis URL taobench can use (%s)", store.RedactIn(err.Error(), raw))
	}
	c.opts.DB = c.db
	if !pooled {
		c.opts.PoolSize = max(c.opts.PoolSize, clients+4)
	}
	return c, nil
}

// checkCacheOption checks option k of a scheme URL, given vs.
func checkCacheOption(scheme, k string, vs []string) error {
	kind, ok := cacheOptions[k]
	switch {
	case strings.EqualFold(k, "password") || strings.EqualFold(k, "username") || strings.EqualFold(k, "user"):
		return fmt.Errorf("option %s: the user and password go before the host, percent-encoded: redis://USER:PASSWORD@HOST:6379/0 (or redis://:PASSWORD@HOST:6379/0)", k)
	case !ok:
		known := make([]string, 0, len(cacheOptions))
		for o := range cacheOptions {
			known = append(known, o)
		}
		sort.Strings(known)
		return fmt.Errorf("unknown option %s; the options are %s (docs/tiers.md)", shownName(k), strings.Join(known, ", "))
	case len(vs) > 1:
		return fmt.Errorf("option %s given %d times: give it once", k, len(vs))
	case k == "skip_verify" && scheme != "rediss":
		return fmt.Errorf("option skip_verify is for TLS (rediss://) only")
	}
	v := vs[0]
	fail := func(want string) error { return fmt.Errorf("option %s=%s: %s", k, shownValue(v), want) }
	switch kind {
	case optName:
		if v == "" || strings.ContainsAny(v, " \t\r\n*?[]") {
			return fail("give a non-empty name without blanks or glob characters (* ? [ ])")
		}
	case optDuration:
		if d, err := cacheDuration(v); err != nil || d < time.Second {
			return fail("give a duration of at least 1s, such as 1h")
		}
	case optTimeout:
		if d, err := cacheDuration(v); err != nil || d <= 0 {
			return fail("give a positive duration such as 500ms: without one a Redis that stops answering would hold every read")
		}
	case optSpan:
		if _, err := cacheDuration(v); err != nil {
			return fail("give a duration such as 30s (0 turns it off)")
		}
	case optBool:
		if _, err := strconv.ParseBool(v); err != nil || v == "" {
			return fail("give 1 or 0 (true or false)")
		}
	case optCount:
		if !allDigits(v) || len(v) > 9 {
			return fail("give a whole number of 0 or more")
		}
	case optRetries:
		if n, err := strconv.Atoi(v); err != nil || n < -1 || len(v) > 9 {
			return fail("give a whole number of retries, 0 or more, or -1 for none")
		}
	case optProtocol:
		if v != "2" && v != "3" {
			return fail("give 2 (RESP2) or 3 (RESP3)")
		}
	}
	return nil
}

// cacheDuration reads a duration as go-redis does: whole seconds, or a
// Go duration.
func cacheDuration(v string) (time.Duration, error) {
	if n, err := strconv.Atoi(v); err == nil {
		return time.Duration(n) * time.Second, nil
	}
	return time.ParseDuration(v)
}

func allDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

// shownValue is v quoted when it may show (store.HarmlessValue), else a
// word that says it is hidden: the one rule for URL parameters.
func shownValue(v string) string {
	if store.HarmlessValue(v) {
		return strconv.Quote(v)
	}
	return "(value not shown)"
}

// visible is s quoted when the redacted URL shown shows it too, and may
// (a port or path that url.Parse found in a password typed unescaped is
// masked there, so it is not quoted here either).
func visible(shown, s string) string {
	if strings.Contains(shown, s) && store.HarmlessValue(s) {
		return strconv.Quote(s)
	}
	return "(not shown)"
}

// shownName is an option's name quoted, cut to 40 bytes.
func shownName(k string) string {
	if len(k) > 40 {
		k = k[:40] + "..."
	}
	return strconv.Quote(k)
}

// pingError explains a failed first ping of the cache URL c (raw): a
// database number past the server's databases setting (go-redis selects
// it as it connects), credentials refused, or no answer.
func pingError(ctx context.Context, c *cacheURL, err error, raw string) error {
	msg := store.RedactIn(err.Error(), raw)
	where := c.opts.Addr
	switch {
	case strings.Contains(msg, "DB index is out of range"):
		n := "its databases setting"
		o := *c.opts
		o.DB = 0
		z := redis.NewClient(&o)
		defer z.Close()
		if cfg, err := z.ConfigGet(ctx, "databases").Result(); err == nil && cfg["databases"] != "" {
			n = "databases " + cfg["databases"]
			if k, err := strconv.Atoi(cfg["databases"]); err == nil && k > 0 {
				n += fmt.Sprintf(", so 0 to %d", k-1)
			}
		}
		return fmt.Errorf("%q: database %d does not exist on the Redis at %s (%s): give a lower number, or raise the server's databases setting", c.shown, c.db, where, n)
	case strings.Contains(msg, "WRONGPASS"), strings.Contains(msg, "NOAUTH"), strings.Contains(msg, "invalid password"),
		strings.Contains(msg, "invalid username-password"):
		return fmt.Errorf("%q: the Redis at %s refused the credentials (%s): check the user and password in the URL", c.shown, where, firstWords(msg))
	case errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Errorf("%q: Redis does not answer: nothing listens at %s (connection refused); start it (redis-server) or fix the URL", c.shown, where)
	case errors.Is(err, syscall.ENOENT):
		return fmt.Errorf("%q: Redis does not answer: no socket at %s; start it (redis-server --unixsocket %s) or fix the URL", c.shown, where, where)
	case errors.Is(err, context.DeadlineExceeded) || isTimeout(err):
		return fmt.Errorf("%q: Redis does not answer: no answer from %s within 3s; start it (redis-server), check the host, port and firewall, or fix the URL", c.shown, where)
	}
	return fmt.Errorf("%q: Redis does not answer as Redis at %s (%s); start it (redis-server) or fix the URL", c.shown, where, firstWords(msg))
}

// isTimeout reports whether err is a network timeout.
func isTimeout(err error) bool {
	var t interface{ Timeout() bool }
	return errors.As(err, &t) && t.Timeout()
}

// firstWords is msg's first line, at most 160 bytes.
func firstWords(msg string) string {
	msg, _, _ = strings.Cut(msg, "\n")
	if len(msg) > 160 {
		msg = msg[:160] + "..."
	}
	return msg
}
