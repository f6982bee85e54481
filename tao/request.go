package tao

import "time"

// Key names one item of the graph: the object ID1, or the edge (ID1, Type, ID2).
type Key struct {
	Edge bool
	ID1  int64
	Type EdgeType
	ID2  int64
}

// Op is one operation of a request. Which fields matter depends on Kind:
//
//	obj_read, obj_delete            ID1
//	obj_add, obj_update             ID1, Time, Payload
//	edge_point_read                 ID1, Type, ID2
//	edge_range_read                 ID1, Type, Offset, Limit (newest first)
//	edge_count_read                 ID1, Type
//	edge_time_read                  ID1, Type, Low, High, Limit (Low <= time <= High, newest first)
//	edge_add, edge_update           ID1, Type, ID2, Time, Payload
//	edge_delete                     ID1, Type, ID2
type Op struct {
	Kind    Kind
	ID1     int64
	Type    EdgeType
	ID2     int64
	Offset  int
	Limit   int
	Low     int64
	High    int64
	Time    int64
	Payload []byte // shared by the generator; a store must not keep or modify it
}

// Key returns the key the operation reads or writes. For list reads it is
// the (ID1, Type) list with ID2 zero.
func (o *Op) Key() Key {
	if o.Kind.IsEdge() {
		return Key{Edge: true, ID1: o.ID1, Type: o.Type, ID2: o.ID2}
	}
	return Key{ID1: o.ID1}
}

// CheckKind is what a precondition checks.
type CheckKind uint8

const (
	// CheckExists holds when the key is present (visible).
	CheckExists CheckKind = iota
	// CheckVersion holds when the key is present at Version.
	CheckVersion
)

// Check is one precondition of a write or write transaction, as a store sees
// it: a compare-and-swap style test on one key, evaluated inside the write's
// transaction; if any fails nothing is written and the outcome is
// PreconditionFailed.
type Check struct {
	Kind    CheckKind
	Key     Key
	Version int64
	// Pred is the workload predicate the check came from, for accounting.
	Pred Predicate
}

// Request is one request of the paper's API. Ops has one element for Read and
// Write, and the transaction's operations for ReadTxn and WriteTxn.
type Request struct {
	Class  Class
	Ops    []Op
	Checks []Check
	// Predicates are the precondition categories the generator drew for this
	// request, kept for accounting; Checks are what they became.
	Predicates []Predicate
	Tier       Tier
	// Hold is how long a write or write transaction keeps its locks after
	// its writes, before it commits (the workload's lock_hold; TAOBench
	// §6.2). Zero for reads.
	Hold time.Duration
	// Fail is where the write's path fails on purpose (the workload's
	// errors and txn_errors); Success for reads and most writes.
	Fail FailPoint
	// Wait is how long the client waits before it sends this write, which
	// carries a version precondition on a key it read earlier: the
	// business logic between a read and its conditional write (the
	// workload's precondition_wait; TAOBench §6.3). Not part of the
	// request's latency.
	Wait time.Duration
	// Race marks a request holding a new association the application sends
	// as several identical concurrent requests from different clients
	// (the workload's racing_inserts; TAOBench §3.3): the runner has other
	// clients send copies, and the database decides which one inserts.
	Race bool
}

// OpResult is what one operation observed.
type OpResult struct {
	// Found: the row existed — for point reads, updates and deletes, and
	// for adds, which then overwrote it rather than inserting a new row.
	Found   bool
	Version int64 // the version read (obj_read, edge_point_read) when Found
	Rows    int   // rows returned by list reads; the count of edge_count_read
}

// Result is how a request ended. Ops has one element per request operation,
// filled by stores for reads (and for writes where they know it).
type Result struct {
	Outcome Outcome
	Ops     []OpResult
	// Err is the underlying error of a Timeout or Error outcome, for logs.
	Err error
	// Code is the code the database gave a conflict, timeout or error
	// (a SQLSTATE such as 40P01, a MySQL or TiDB error number such as
	// 1213 or 9007, an SQLite result code name); "" when it gave none,
	// as when the client's deadline or the connection ended the request.
	Code string
	// Served is the read tier that answered a read, when Tiered: set by
	// read tiers (package tier), not by a database.
	Served Tier
	Tiered bool
}

// Reset readies r for a request of n operations without allocating when the
// capacity suffices.
func (r *Result) Reset(n int) {
	r.Outcome = OK
	r.Err, r.Code = nil, ""
	r.Tiered = false
	if cap(r.Ops) < n {
		r.Ops = make([]OpResult, n)
	}
	r.Ops = r.Ops[:n]
	for i := range r.Ops {
		r.Ops[i] = OpResult{}
	}
}

// Object is a row of the objects table.
type Object struct {
	ID      int64
	Time    int64
	Version int64
	Value   []byte
}

// Edge is a row of the edges table.
type Edge struct {
	ID1     int64
	ID2     int64
	Type    EdgeType
	Time    int64
	Version int64
	Value   []byte
}
