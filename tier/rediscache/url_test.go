package rediscache_test

import (
	"context"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/taobench/taobench/internal/testenv"
	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/store/storetest"
	"github.com/taobench/taobench/tier"
	_ "github.com/taobench/taobench/tier/rediscache"
)

const urlSecret = "s3cretVal"

// openCache opens the tiers with the cache URL raw before a fake store.
func openCache(raw string) error {
	ts, err := tier.Open(context.Background(), storetest.Func{}, tier.Options{Cache: raw, Clients: 1})
	if err == nil {
		ts.Close()
	}
	return err
}

// TestCacheURLRefused: a cache URL taobench cannot use as written is
// refused before anything connects, naming Options.Cache, the URL redacted and
// the fix in taobench's words, never a password or an option's value
// (issue 37: /-1 ran on database 0, user:pw@ with no host sent the
// credentials to 127.0.0.1:6379, /abc and ?password= printed go-redis's
// words, the last with the password).
func TestCacheURLRefused(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ raw, want string }{
		{"redis://127.0.0.1:6379/-1", `database "-1": give a database number of 0 or more`},
		{"redis://127.0.0.1:6379/abc", `database "abc": give a database number of 0 or more`},
		{"redis://127.0.0.1:6379/99999999999", "give a database number of 0 or more"},
		{"redis://127.0.0.1:6379/0?password=" + urlSecret, "option password: the user and password go before the host"},
		{"redis://127.0.0.1:6379/0?username=u", "option username: the user and password go before the host"},
		{"redis://user:" + urlSecret + "@", "no host (taobench does not assume one)"},
		{"redis://:" + urlSecret + "@/0", "no host"},
		{"redis:///0", "no host"},
		{"rediss://:" + urlSecret + "@:6379/0", "no host"},
		{"redis://127.0.0.1:6379/0?token=" + urlSecret, `unknown option "token"; the options are client_name,`},
		{"redis://127.0.0.1:6379/0?dial_timeout=0", "option dial_timeout=\"0\": give a positive duration"},
		{"redis://127.0.0.1:6379/0?read_timeout=-1", "option read_timeout=\"-1\": give a positive duration"},
		{"redis://127.0.0.1:6379/0/1", "the path is the database number"},
		{"redis://127.0.0.1:6379/0?db=1", "the database number is given twice"},
		{"redis://127.0.0.1:99999/0", `port "99999": give a port from 1 to 65535`},
		{"redis://127.0.0.1:/0", "an empty port"},
		{"redis://127.0.0.1:6379/0#" + urlSecret, "no #fragment"},
		{"redis://127.0.0.1:6379/0?pool_size=-3", "option pool_size=\"-3\": give a whole number of 0 or more"},
		{"redis://127.0.0.1:6379/0?pool_size=" + urlSecret + "@x", "option pool_size=(value not shown)"},
		{"redis://127.0.0.1:6379/0?prefix=a;b=" + urlSecret, "separated by &"},
		{"redis://127.0.0.1:6379/0?prefix=a&prefix=b", "option prefix given 2 times"},
		{"redis://127.0.0.1:6379/0?skip_verify=1", "for TLS (rediss://) only"},
		{"redis://127.0.0.1:6379/0?protocol=4", "give 2 (RESP2) or 3 (RESP3)"},
		{"redis://127.0.0.1:6379/0?max_retries=" + urlSecret + "%20", "option max_retries=(value not shown)"},
		{"redis://127.0.0.1:6379/0?pool_fifo=maybe", "give 1 or 0"},
		{"redis://127.0.0.1:6379/0?client_name=a%20b", "without blanks"},
		{"redis://127.0.0.1:6379/0?x=%zz" + urlSecret, "not well formed"},
		{"unix://", "a unix URL names the socket's path"},
		{"unix://host/sock", "a unix URL names the socket's path"},
		{"http://x", `not a cache URL of a registered scheme ("http"); registered: redis, rediss, unix; use e.g. redis://`},
		{"redis:127.0.0.1:6379", "not a Redis URL"},
		{"redis://:p%zz" + urlSecret + "@127.0.0.1:6379/0", "must be percent-encoded"},
	} {
		err := openCache(c.raw)
		if err == nil {
			t.Errorf("cache %s was accepted", c.raw)
			continue
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, "Options.Cache \""+store.Redact(c.raw)+"\": ") || !strings.Contains(msg, c.want) {
			t.Errorf("cache %s: %q; want it to start with Options.Cache and the URL redacted, and say %q", c.raw, msg, c.want)
		}
		if strings.Contains(msg, urlSecret) || strings.Contains(msg, "redis: ") {
			t.Errorf("cache %s: %q shows a secret or go-redis's words", c.raw, msg)
		}
		if cerr := tier.CheckCache(c.raw); cerr == nil || "Options.Cache "+cerr.Error() != msg {
			t.Errorf("cache %s: CheckCache says %v, Open %q", c.raw, cerr, msg)
		}
	}
}

// TestCacheDatabaseRange: a database number past the server's databases
// setting is refused naming the number, the server's range and the fix
// (it said "start redis-server"); one within it opens.
func TestCacheDatabaseRange(t *testing.T) {
	t.Parallel()
	r := testenv.StartRedis(t, "--databases", "4")
	base := strings.TrimSuffix(r.URL, "/0")
	err := openCache(base + "/4?prefix=" + testenv.UniqueName())
	if err == nil || !strings.Contains(err.Error(), "database 4 does not exist on the Redis at 127.0.0.1:") ||
		!strings.Contains(err.Error(), "(databases 4, so 0 to 3): give a lower number") {
		t.Errorf("/4 on a server of 4 databases: %v", err)
	}
	if err := openCache(base + "/3?prefix=" + testenv.UniqueName()); err != nil {
		t.Errorf("/3 on a server of 4 databases: %v", err)
	}
}

// TestCacheCredentialsRefused: a wrong or missing password is said as
// such, without the password, not as a Redis to start.
func TestCacheCredentialsRefused(t *testing.T) {
	t.Parallel()
	r := testenv.StartRedis(t)
	// Set once it answers: StartRedis waits for an unauthenticated PONG.
	opts, err := redis.ParseURL(r.URL)
	if err != nil {
		t.Fatal(err)
	}
	c := redis.NewClient(opts)
	err = c.ConfigSet(context.Background(), "requirepass", "right-"+urlSecret).Err()
	c.Close()
	if err != nil {
		t.Fatal(err)
	}
	for _, raw := range []string{
		strings.Replace(r.URL, "redis://", "redis://:wrong-"+urlSecret+"@", 1),
		strings.Replace(r.URL, "redis://", "redis://someone:wrong-"+urlSecret+"@", 1),
		r.URL,
	} {
		err := openCache(raw)
		if err == nil || !strings.Contains(err.Error(), "refused the credentials") || !strings.Contains(err.Error(), "check the user and password in the URL") {
			t.Errorf("cache %s: %v; want the credentials said refused", store.Redact(raw), err)
		}
		if err != nil && strings.Contains(err.Error(), urlSecret) {
			t.Errorf("cache %s: %q shows the password", store.Redact(raw), err)
		}
	}
	if err := openCache(strings.Replace(r.URL, "redis://", "redis://:right-"+urlSecret+"@", 1)); err != nil {
		t.Errorf("the right password: %v", err)
	}
}
