package spannerstore

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"cloud.google.com/go/spanner"
	"google.golang.org/grpc/codes"

	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/tao"
)

var _ store.PlacementCounter = (*DB)(nil)

// The integrity counts are GoogleSQL queries Spanner runs on its servers
// (aggregates, an anti-join, HAVING), the same as sqlstore's
// (integrity.go there): nothing is held in the driver. spannertest, the
// in-memory fake, parses some of them only; on it the inventory has no
// integrity counts (noIntegrity).

// newShift is the shift that leaves an id's shard and its
// created-at-run-time bit (tao.NewID): id >> newShift is 2*shard for a
// loaded id, 2*shard+1 for one created at run time.
const newShift = tao.ShardShift - 1

// indexMask keeps the node index of a loaded id (tao.IndexOf).
var indexMask = strconv.FormatInt(1<<newShift-1, 10)

// typeList renders the base types keep keeps, comma-separated.
func typeList(keep func(tao.EdgeType) bool) string {
	var s []string
	for t := tao.EdgeType(1); t <= tao.MaxBaseType; t++ {
		if keep(t) {
			s = append(s, strconv.FormatInt(int64(t), 10))
		}
	}
	return strings.Join(s, ", ")
}

// baseOf renders the base type of column col (tao.EdgeType.Base).
func baseOf(col string) string { return fmt.Sprintf("MOD(%s, %d)", col, tao.TypeStride) }

// inverseOf renders the inverse type of column col (tao.EdgeType.Inverse),
// NULL for a type with none.
func inverseOf(col string) string {
	var b strings.Builder
	b.WriteString("(" + col + " - " + baseOf(col) + " + CASE " + baseOf(col))
	for t := tao.EdgeType(1); t <= tao.MaxBaseType; t++ {
		if inv, ok := t.Inverse(); ok {
			fmt.Fprintf(&b, " WHEN %d THEN %d", t, inv)
		}
	}
	b.WriteString(" END)")
	return b.String()
}

// integrityQueries are the queries of Integrity and where each row goes.
func integrityQueries(in *store.Integrity) []struct {
	sql string
	row func(*spanner.Row) error
} {
	fwd := typeList(tao.EdgeType.IsForward)
	bidirFwd := typeList(func(t tao.EdgeType) bool { _, ok := t.Inverse(); return ok && t.IsForward() })
	bidirInv := typeList(func(t tao.EdgeType) bool { _, ok := t.Inverse(); return ok && !t.IsForward() })
	bidir := typeList(func(t tao.EdgeType) bool { _, ok := t.Inverse(); return ok })
	uniq := typeList(tao.EdgeType.IsUnique)
	// An anti-join by LEFT JOIN: the emulator runs a correlated NOT
	// EXISTS as a scan of Edges per row (seconds for a few hundred
	// edges), the join as one hash join; Spanner runs either.
	missing := func(types string) string {
		return "SELECT COUNT(*) FROM Edges AS e LEFT JOIN Edges AS i ON i.Id1 = e.Id2 AND i.Type = " + inverseOf("e.Type") + " AND i.Id2 = e.Id1 " +
			"WHERE " + baseOf("e.Type") + " IN (" + types + ") AND i.Id1 IS NULL"
	}
	// Id >> newShift is the shard and the created-at-run-time bit: ids
	// created at run time are left out.
	maxIndex := func(into map[int]int64) func(*spanner.Row) error {
		return func(r *spanner.Row) error {
			var k, m int64
			if err := r.Columns(&k, &m); err != nil {
				return err
			}
			if k&1 == 0 {
				into[int(k>>1)] = max(into[int(k>>1)], m)
			}
			return nil
		}
	}
	one := func(into *int64) func(*spanner.Row) error {
		return func(r *spanner.Row) error { return r.Columns(into) }
	}
	return []struct {
		sql string
		row func(*spanner.Row) error
	}{
		// First the two spannertest refuses as it parses them, whatever
		// the rows (noIntegrity); it parses the shifts below but cannot
		// evaluate them on a row.
		{"SELECT COALESCE(SUM(n - 1), 0) FROM (SELECT COUNT(*) AS n FROM Edges WHERE " + baseOf("Type") + " IN (" + uniq + ") GROUP BY Id1, Type HAVING COUNT(*) > 1)", one(&in.UniqueExtra)},
		// Always 0 while Edges' primary key (Id1, Type, Id2) holds, as in
		// the SQL stores: asked all the same, so that the row counts the
		// rows rather than trusting the schema.
		{"SELECT COALESCE(SUM(n - 1), 0) FROM (SELECT COUNT(*) AS n FROM Edges GROUP BY Id1, Type, Id2 HAVING COUNT(*) > 1)", one(&in.Duplicates)},
		{fmt.Sprintf("SELECT Id >> %d AS k, MAX(Id & %s) FROM Objects GROUP BY k", newShift, indexMask), maxIndex(in.ObjectMaxIndex)},
		{fmt.Sprintf("SELECT Id1 >> %d AS k, MAX(Id1 & %s) FROM Edges WHERE %s IN (%s) GROUP BY k", newShift, indexMask, baseOf("Type"), fwd), maxIndex(in.EdgeMaxIndex)},
		{missing(bidirFwd), one(&in.MissingInverse)},
		{missing(bidirInv), one(&in.MissingForward)},
		{"SELECT COUNT(*) FROM Edges WHERE " + baseOf("Type") + " IN (" + bidir + ")", one(&in.Bidirectional)},
		{"SELECT COUNT(*) FROM Edges WHERE " + baseOf("Type") + " IN (" + uniq + ")", one(&in.Unique)},
	}
}

// inspectIntegrity counts in r what no run may break: the largest node
// index of loaded ids by shard (objects, and the id1 of forward edges),
// bidirectional edges with no inverse and inverses with no forward edge,
// and edges beyond the first of a unique type's (id1, type) or of an (id1,
// type, id2). Check holds the same as invariants; these are counts for
// validate's rows. It returns nil, and no error, on spannertest, which
// runs none of these queries (noIntegrity).
func (db *DB) inspectIntegrity(ctx context.Context, r reader) (*store.Integrity, error) {
	in := &store.Integrity{ObjectMaxIndex: map[int]int64{}, EdgeMaxIndex: map[int]int64{}}
	for _, x := range integrityQueries(in) {
		err := r.Query(ctx, spanner.NewStatement(x.sql)).Do(x.row)
		if db.noIntegrity(err) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("counting the rows' integrity: %s: %w", x.sql, err)
		}
	}
	return in, nil
}

// noIntegrity reports whether err is spannertest's refusal of a query it
// cannot parse (it has no subquery in FROM and no HAVING): the fake the
// unit tests run on, reachable only through SPANNER_EMULATOR_HOST. The
// emulator and Spanner run the queries, and word their syntax errors
// otherwise ("Syntax error: ...").
func (db *DB) noIntegrity(err error) bool {
	return db.emulator && spanner.ErrCode(err) == codes.InvalidArgument && strings.HasPrefix(spanner.ErrDesc(err), "bad query: ")
}

// CountOffPlacement counts the loaded objects and forward edges (by id1)
// at or past their shard's bound (store.PlacementCounter): one query
// each, over the shards of bounds only (those Integrity's largest indices
// put off), so that a sound database costs nothing more.
func (db *DB) CountOffPlacement(ctx context.Context, bounds map[int]int64) (objects, edges int64, err error) {
	if len(bounds) == 0 {
		return 0, 0, nil
	}
	off := func(col string) string {
		var or []string
		for s, n := range bounds {
			// col >> newShift is the shard and the created-at-run-time bit (0: loaded).
			or = append(or, fmt.Sprintf("(%s >> %d = %d AND (%s & %s) >= %d)", col, newShift, 2*int64(s), col, indexMask, max(n, 0)))
		}
		sort.Strings(or)
		return "(" + strings.Join(or, " OR ") + ")"
	}
	release, err := db.enter(ctx, false) // on the emulator, beside no write (emulator.go)
	if err != nil {
		return 0, 0, err
	}
	defer release()
	ro := db.client.ReadOnlyTransaction() // both counts on one snapshot
	defer ro.Close()
	fwd := typeList(tao.EdgeType.IsForward)
	for _, q := range []struct {
		sql  string
		into *int64
	}{
		{"SELECT COUNT(*) FROM Objects WHERE " + off("Id"), &objects},
		{"SELECT COUNT(*) FROM Edges WHERE " + baseOf("Type") + " IN (" + fwd + ") AND " + off("Id1"), &edges},
	} {
		if err := ro.Query(ctx, spanner.NewStatement(q.sql)).Do(func(r *spanner.Row) error { return r.Columns(q.into) }); err != nil {
			return 0, 0, fmt.Errorf("%s: counting the rows off their placement: %w", db.name, err)
		}
	}
	return objects, edges, nil
}
