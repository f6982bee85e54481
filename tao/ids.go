package tao

import "fmt"

// Id layout (64 bits, always positive):
//
//	bit 63      0
//	bits 57-62  shard (0..63)
//	bit 56      1 for ids created at run time
//	bits 0-55   loaded ids: the node index inside the shard
//	            run-time ids: run (20 bits) | client (12 bits) | seq (24 bits)
const (
	ShardShift = 57
	MaxShards  = 1 << (63 - ShardShift)
	newIDBit   = 1 << 56
	indexMask  = newIDBit - 1

	// MaxNodesPerShard bounds a shard's node indices.
	MaxNodesPerShard = 1 << 56

	RunBits    = 20
	ClientBits = 12
	SeqBits    = 24
)

// ID returns the id of loaded node index of shard.
func ID(shard int, index int64) int64 { return int64(shard)<<ShardShift | index }

// ShardOf returns the shard an id lives on.
func ShardOf(id int64) int { return int(uint64(id) >> ShardShift) }

// IndexOf returns the node index of a loaded id (the low 56 bits).
func IndexOf(id int64) int64 { return id & indexMask }

// IsNew reports whether id was created at run time by NewID.
func IsNew(id int64) bool { return id&newIDBit != 0 }

// NewID returns the id of the seq-th object that client creates on shard
// during run. Ids of different (run, client, seq) never collide with each
// other nor with loaded ids. A field too large for its bits is an error:
// the caller decides how to wrap (the generator wraps seq, see gen).
func NewID(shard int, run int64, client int, seq uint64) (int64, error) {
	switch {
	case shard < 0 || shard >= MaxShards:
		return 0, fmt.Errorf("new id: shard %d is outside 0..%d", shard, MaxShards-1)
	case run < 0 || run >= 1<<RunBits:
		return 0, fmt.Errorf("new id: run %d is outside 0..%d; drop and reload the database to restart run numbers", run, 1<<RunBits-1)
	case client < 0 || client >= 1<<ClientBits:
		return 0, fmt.Errorf("new id: client %d is outside 0..%d; use fewer client threads", client, 1<<ClientBits-1)
	case seq >= 1<<SeqBits:
		return 0, fmt.Errorf("new id: sequence %d is outside 0..%d", seq, 1<<SeqBits-1)
	}
	return ID(shard, 0) | newIDBit | run<<(ClientBits+SeqBits) | int64(client)<<SeqBits | int64(seq), nil
}
