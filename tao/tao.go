// Package tao is the vocabulary shared by every part of taobench: the TAO data
// model (objects and associations), the request kinds a workload issues, the
// preconditions they carry and the outcomes they end in.
//
// It holds types only, and the id layout (ids.go) that the graph, the
// generator and the stores share. The generator fills Requests, a store
// executes them and fills Results, and metrics count them; none of them needs
// to know the others.
package tao

import "fmt"

// Class is the request class of the paper's API (§4.1): read(key),
// write(key, [preconditions]), read_txn(keys) and write_txn(keys, [preconditions]).
type Class uint8

const (
	Read Class = iota
	Write
	ReadTxn
	WriteTxn
	NumClasses
)

var classNames = [NumClasses]string{"read", "write", "read_txn", "write_txn"}

func (c Class) String() string {
	if c < NumClasses {
		return classNames[c]
	}
	return fmt.Sprintf("class(%d)", uint8(c))
}

// ParseClass returns the class with the given name.
func ParseClass(s string) (Class, bool) {
	for i, n := range classNames {
		if n == s {
			return Class(i), true
		}
	}
	return 0, false
}

// Kind is the kind of one operation, named as in the original configuration
// files. Reads come first so that IsRead is a comparison.
type Kind uint8

const (
	ObjRead       Kind = iota // obj_get
	EdgePointRead             // assoc_get(id1, type, {id2})
	EdgeRangeRead             // assoc_range(id1, type, pos, limit), newest first
	EdgeCountRead             // assoc_count(id1, type)
	EdgeTimeRead              // assoc_time_range(id1, type, high, low, limit)
	ObjAdd
	ObjUpdate
	ObjDelete
	EdgeAdd
	EdgeUpdate
	EdgeDelete
	NumKinds
)

var kindNames = [NumKinds]string{
	"obj_read", "edge_point_read", "edge_range_read", "edge_count_read", "edge_time_read",
	"obj_add", "obj_update", "obj_delete", "edge_add", "edge_update", "edge_delete",
}

func (k Kind) String() string {
	if k < NumKinds {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// ParseKind returns the kind with the given name.
func ParseKind(s string) (Kind, bool) {
	for i, n := range kindNames {
		if n == s {
			return Kind(i), true
		}
	}
	return 0, false
}

// IsRead reports whether the kind only reads.
func (k Kind) IsRead() bool { return k <= EdgeTimeRead }

// IsEdge reports whether the kind touches associations rather than objects.
func (k Kind) IsEdge() bool {
	switch k {
	case ObjRead, ObjAdd, ObjUpdate, ObjDelete:
		return false
	}
	return true
}

// ReadKinds and WriteKinds list the kinds in their canonical order, which is
// the order of the original configuration files.
var (
	ReadKinds  = []Kind{ObjRead, EdgePointRead, EdgeRangeRead, EdgeCountRead, EdgeTimeRead}
	WriteKinds = []Kind{ObjAdd, ObjUpdate, ObjDelete, EdgeAdd, EdgeUpdate, EdgeDelete}
)

// EdgeCategory is the association category of the workload's edge_types
// distribution. It decides the constraints a write must keep.
type EdgeCategory uint8

const (
	Unique              EdgeCategory = iota // at most one edge per (id1, type)
	Bidirectional                           // the inverse edge is written with the forward one
	UniqueBidirectional                     // both
	Other                                   // no constraint
	NumEdgeCategories
)

var categoryNames = [NumEdgeCategories]string{"unique", "bidirectional", "unique_and_bidirectional", "other"}

func (c EdgeCategory) String() string {
	if c < NumEdgeCategories {
		return categoryNames[c]
	}
	return fmt.Sprintf("edge_category(%d)", uint8(c))
}

// ParseEdgeCategory returns the category with the given name.
func ParseEdgeCategory(s string) (EdgeCategory, bool) {
	for i, n := range categoryNames {
		if n == s {
			return EdgeCategory(i), true
		}
	}
	return 0, false
}

// EdgeType is the association type stored in the database's type column.
// Each category has forward types; a bidirectional category also has an
// inverse type for each (as TAO's inverse associations do), so that the
// inverse edge (id2, inverse, id1) never collides with a forward edge and
// uniqueness is a property of forward types only.
//
// A category has many types, as TAO has thousands of association types:
// type number j of a category is its base type plus j*TypeStride, so the
// base (t mod TypeStride) names the category and its direction. A unique
// category's types admit one edge each per id1, so a node holds as many
// unique edges as it has unique types.
type EdgeType int64

// Base types: the category and direction of every type (t mod TypeStride).
const (
	TypeUnique           EdgeType = 1
	TypeBidirectional    EdgeType = 2
	TypeBidirectionalInv EdgeType = 3
	TypeUniqueBidir      EdgeType = 4
	TypeUniqueBidirInv   EdgeType = 5
	TypeOther            EdgeType = 6
	MaxBaseType          EdgeType = 6
	TypeStride           EdgeType = 8
)

var categoryType = [NumEdgeCategories]EdgeType{TypeUnique, TypeBidirectional, TypeUniqueBidir, TypeOther}

// Type returns the first forward association type of the category.
func (c EdgeCategory) Type() EdgeType { return categoryType[c] }

// TypeN returns the category's forward type number j (j >= 0).
func (c EdgeCategory) TypeN(j int) EdgeType { return categoryType[c] + EdgeType(j)*TypeStride }

// Base returns the base type of t: its category and direction.
func (t EdgeType) Base() EdgeType { return t % TypeStride }

// N returns t's number within its category (TypeN's j).
func (t EdgeType) N() int { return int(t / TypeStride) }

// Category returns the category of a forward type, and false for an
// inverse or unknown type.
func (t EdgeType) Category() (EdgeCategory, bool) {
	for c, b := range categoryType {
		if t.Base() == b {
			return EdgeCategory(c), true
		}
	}
	return 0, false
}

// IsUnique reports whether at most one edge of this type may leave an id1.
func (t EdgeType) IsUnique() bool { b := t.Base(); return b == TypeUnique || b == TypeUniqueBidir }

// Inverse returns the type of the inverse edge and whether there is one.
// The inverse of an inverse type is its forward type.
func (t EdgeType) Inverse() (EdgeType, bool) {
	n := t - t.Base()
	switch t.Base() {
	case TypeBidirectional:
		return n + TypeBidirectionalInv, true
	case TypeBidirectionalInv:
		return n + TypeBidirectional, true
	case TypeUniqueBidir:
		return n + TypeUniqueBidirInv, true
	case TypeUniqueBidirInv:
		return n + TypeUniqueBidir, true
	}
	return 0, false
}

// IsForward reports whether t is a forward type (one a workload draws), as
// opposed to an inverse type written only alongside its forward edge.
func (t EdgeType) IsForward() bool {
	_, ok := t.Category()
	return ok && t > 0
}

// Predicate is a precondition kind, named as in the original configuration.
// Single writes draw from operation_predicates, write transactions from
// txn_predicates (see docs/workloads.md for what each checks).
type Predicate uint8

const (
	PredNone            Predicate = iota
	PredWriteVisibility           // the written key's object(s) exist
	PredWriteUpdateOnly           // the written key exists already: an update, never an insert
	PredWriteVersion              // the written key is at the version this client last read
	PredReadVisibility            // a key this client read, outside the write set, still exists
	PredReadVersion               // a key this client read, outside the write set, is at the version read
	NumPredicates
)

var predicateNames = [NumPredicates]string{
	"none", "write_visibility", "write_update_only", "write_version", "read_visibility", "read_version",
}

func (p Predicate) String() string {
	if p < NumPredicates {
		return predicateNames[p]
	}
	return fmt.Sprintf("predicate(%d)", uint8(p))
}

// ParsePredicate returns the predicate with the given name. The original
// files spell read_visibility as "read_visibiliy"; both are accepted.
func ParsePredicate(s string) (Predicate, bool) {
	if s == "read_visibiliy" {
		return PredReadVisibility, true
	}
	for i, n := range predicateNames {
		if n == s {
			return Predicate(i), true
		}
	}
	return 0, false
}

// Tier is the read tier of the workload's read_tiers distribution.
type Tier uint8

const (
	TierClientCache Tier = iota
	TierTAO
	TierDB
	NumTiers
)

var tierNames = [NumTiers]string{"client_cache", "tao", "db"}

func (t Tier) String() string {
	if t < NumTiers {
		return tierNames[t]
	}
	return fmt.Sprintf("tier(%d)", uint8(t))
}

// ParseTier returns the tier with the given name.
func ParseTier(s string) (Tier, bool) {
	for i, n := range tierNames {
		if n == s {
			return Tier(i), true
		}
	}
	return 0, false
}

// Outcome is how a request ended. Every request ends in exactly one.
type Outcome uint8

const (
	OK                  Outcome = iota
	NotFound                    // a read or update/delete found no row: a legal result
	PreconditionFailed          // a precondition did not hold; nothing was written
	UniqueViolation             // "unique association exists"
	ConflictObject              // serialization failure, deadlock or lock timeout on an object
	ConflictAssociation         // the same on an association
	Timeout                     // the context expired or was cancelled
	Error                       // anything else: the server went away, a bad statement
	// The failures the workload's errors and txn_errors inject into a
	// write's path (FailPoint; docs/experiments.md says what each leaves).
	FailedAfterReserve         // locks taken and writes done, then rolled back
	FailedAfterPrimaryCommit   // the primary shard's part committed, the rest never written
	FailedAfterPrimaryRollback // rolled back at the commit point, after any lock hold
	NumOutcomes
)

var outcomeNames = [NumOutcomes]string{
	"ok", "not_found", "precondition_failed", "unique_violation",
	"conflict_object", "conflict_association", "timeout", "error",
	"failed_after_reserve", "failed_after_primary_commit", "failed_after_primary_rollback",
}

func (o Outcome) String() string {
	if o < NumOutcomes {
		return outcomeNames[o]
	}
	return fmt.Sprintf("outcome(%d)", uint8(o))
}

// IsConflict reports whether the outcome is a conflict, which may be retried.
func (o Outcome) IsConflict() bool { return o == ConflictObject || o == ConflictAssociation }

// Failed reports whether the request counts as failed. Not found, a failed
// precondition and a unique violation are legal answers, not failures; an
// injected failure is a failure.
func (o Outcome) Failed() bool { return o >= ConflictObject }

// IsInjected reports whether the outcome is a failure the workload injected.
func (o Outcome) IsInjected() bool { return o >= FailedAfterReserve && o < NumOutcomes }
