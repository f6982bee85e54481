package session_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/taobench/taobench/session"
)

// TestTierSpecErrors: TierSpec's errors are input errors naming its
// fields, never a command's flags; a cache URL this program cannot open
// (this test binary imports no cache package, as a program embedding
// session need not) names the import that registers its scheme.
func TestTierSpecErrors(t *testing.T) {
	for _, c := range []struct {
		spec session.TierSpec
		want string
	}{
		{session.TierSpec{TTL: -time.Second}, "TierSpec.TTL -1s: give a positive duration"},
		{session.TierSpec{Size: -1}, "TierSpec.Size -1: give a positive number"},
		{session.TierSpec{Size: 10}, "TierSpec.Size 10 without TierSpec.TTL"},
		{session.TierSpec{TTL: time.Second, Locality: 2}, "TierSpec.Locality 2: give a share from 0 to 1"},
		{session.TierSpec{Cache: "redis://127.0.0.1:6379/0"}, `TierSpec.Cache "redis://127.0.0.1:6379/0": not a cache URL of a registered scheme ("redis"); registered: none: no cache package is imported; import _ "github.com/taobench/taobench/tier/rediscache" to register it`},
	} {
		err := c.spec.Check()
		var in *session.InputError
		if !errors.As(err, &in) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v; want an input error saying %q", c.spec, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "--") {
			t.Errorf("%+v: %q names a flag", c.spec, err)
		}
	}
	if err := (session.TierSpec{TTL: time.Second, Locality: 1}).Check(); err != nil {
		t.Errorf("a client cache of 1 s: %v", err)
	}
}
