package tier_test

import (
	"context"
	"strings"
	"testing"

	"github.com/taobench/taobench/tier"
)

// TestUnknownCacheScheme: a program that did not import the cache
// package of a URL's scheme is told which import registers it, as the
// store registry tells a missing store's; a scheme no package registers
// is told what is registered and an example.
func TestUnknownCacheScheme(t *testing.T) {
	var empty tier.CacheRegistry
	raw := "redis://:s3cret@127.0.0.1:6379/0"
	for _, err := range []error{empty.Check(raw), empty.Ping(context.Background(), raw)} {
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		for _, want := range []string{`"redis://:xxxxx@127.0.0.1:6379/0": `, `scheme ("redis"); registered: none: no cache package is imported`, `import _ "github.com/taobench/taobench/tier/rediscache" to register it`} {
			if !strings.Contains(msg, want) {
				t.Errorf("a redis URL on an empty registry: %q; want it to say %q", msg, want)
			}
		}
		if strings.Contains(msg, "s3cret") {
			t.Errorf("%q shows the password", msg)
		}
	}
	// The default registry has rediscache's schemes (this test imports it).
	err := tier.CheckCache("memcached://127.0.0.1:11211")
	if err == nil || !strings.Contains(err.Error(), `("memcached"); registered: redis, rediss, unix; use e.g. redis://`) {
		t.Errorf("memcached://: %v", err)
	}
	if err := tier.CheckCache("127.0.0.1:6379"); err == nil || !strings.Contains(err.Error(), "registered") {
		t.Errorf("a URL without a scheme: %v", err)
	}
}
