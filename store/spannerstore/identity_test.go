package spannerstore

import (
	"context"
	"testing"
)

// A Spanner database is named by its path, and the same path on the
// emulator is another database than on Cloud Spanner.
func TestIdentity(t *testing.T) {
	a, b := &DB{path: "projects/p/instances/i/databases/a"}, &DB{path: "projects/p/instances/i/databases/b"}
	id := func(db *DB) string {
		i, err := db.Identify(context.Background())
		if err != nil || i.ReadOnly != "" || i.Replica {
			t.Fatalf("%+v, %v: want a writable database, no replica", i, err)
		}
		return i.Database
	}
	t.Setenv("SPANNER_EMULATOR_HOST", "")
	cloudA := id(a)
	if cloudA == id(b) {
		t.Errorf("two databases share the identity %q", cloudA)
	}
	t.Setenv("SPANNER_EMULATOR_HOST", "127.0.0.1:9010")
	if emuA := id(a); emuA == cloudA {
		t.Errorf("the emulator's database and the cloud's share the identity %q", emuA)
	}
}
