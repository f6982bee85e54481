package tao

import "testing"

func TestNewID(t *testing.T) {
	t.Parallel()
	seen := map[int64]bool{}
	for _, f := range [][4]int64{{0, 0, 0, 0}, {49, 0, 0, 0}, {3, 1, 0, 0}, {3, 0, 1, 0}, {3, 0, 0, 1}, {3, 1<<20 - 1, 4095, 1<<24 - 1}} {
		id, err := NewID(int(f[0]), f[1], int(f[2]), uint64(f[3]))
		if err != nil {
			t.Fatal(err)
		}
		if id < 0 || !IsNew(id) || ShardOf(id) != int(f[0]) || seen[id] {
			t.Fatalf("NewID%v = %x: negative, not new, wrong shard or repeated", f, id)
		}
		seen[id] = true
	}
	if IsNew(ID(63, MaxNodesPerShard-1)) || ID(63, 5) < 0 {
		t.Error("loaded ids must be positive and not new")
	}
	for _, f := range [][4]int64{{64, 0, 0, 0}, {-1, 0, 0, 0}, {0, 1 << 20, 0, 0}, {0, -1, 0, 0}, {0, 0, 4096, 0}, {0, 0, 0, 1 << 24}} {
		if _, err := NewID(int(f[0]), f[1], int(f[2]), uint64(f[3])); err == nil {
			t.Errorf("NewID%v accepted a field too large", f)
		}
	}
}
