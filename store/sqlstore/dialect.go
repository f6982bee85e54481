package sqlstore

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/taobench/taobench/tao"
)

// stmt names a hot-path statement; a dialect holds its text.
type stmt uint8

const (
	sObjGet     stmt = iota // (id) → version, timestamp, value
	sObjCheck               // (id) → version, locking the row for the write's transaction
	sEdgeGet                // (id1, type, id2) → version, timestamp, value
	sEdgeCheck              // (id1, type, id2) → version, locking
	sEdgeRange              // (id1, type, limit, offset) → rows, newest first
	sEdgeCount              // (id1, type) → count
	sEdgeTime               // (id1, type, low, high, limit) → rows, newest first
	sObjAdd                 // (id, time, value) insert or overwrite
	sObjUpdate              // (time, value, id)
	sObjDelete              // (id)
	sEdgeAdd                // (id1, id2, type, time, value, ukey) insert; MySQL: or overwrite the same key
	sEdgeUpdate             // (time, value, id1, type, id2)
	sEdgeDelete             // (id1, type, id2)
	numStmts
)

// cols is the number of columns a single-row statement returns.
func (s stmt) cols() int {
	if s == sObjGet || s == sEdgeGet {
		return 3
	}
	return 1
}

// dialect is what differs between the SQL databases: statement text, DDL and
// a few behaviours. Everything else in the package is shared.
type dialect struct {
	name  string
	stmts [numStmts]string
	// schema is the DDL Setup runs; every statement is idempotent. It
	// creates taobench_meta and records the tables as taobench's there
	// (ownerRecord) before it creates any other (owner.go).
	schema []string
	// indexNames and statsNames are the schema's names of indexes and
	// statistics objects that are the database's (or its schema's), not a
	// table's: the user's own objects may hold them (owner.go).
	indexNames, statsNames []string
	// dropForLoad and buildAfterLoad drop and rebuild the indexes that make
	// a bulk load into empty tables slow. buildAfterLoad is in phases run in
	// order; a phase's statements are independent and may run in parallel.
	// The order is part of the plan (see planOrder).
	dropForLoad    []string
	buildAfterLoad [][]string
	analyze        []string
	// afterLoad, where set, is what a load into empty tables ends with in
	// place of buildAfterLoad then analyze: chains run at the same time,
	// each its phases in order (finishChains).
	afterLoad [][][]string
	// insertIgnore is the multi-row insert prefix that skips duplicate keys;
	// ignoreSuffix ends it.
	insertIgnore string
	ignoreSuffix string
	// edgeAddUniqueByRows: the edge upsert reports a unique collision as zero
	// affected rows (MySQL's ON DUPLICATE KEY UPDATE ... IF) rather than an error.
	edgeAddUniqueByRows bool
	// textPayload: bind payloads as strings, so that SQLite stores TEXT, not BLOB.
	textPayload bool
	// reserveRun returns SQL that increments the run counter and reports
	// its new value in one statement (empty: use MySQL's LAST_INSERT_ID).
	reserveRun string
	metaUpsert string // (k, v) rows: ON CONFLICT / ON DUPLICATE KEY clause
	// antiJoin: find rows with no partner by LEFT JOIN ... IS NULL, not by
	// a correlated NOT EXISTS (Vitess: VT12001 across shards).
	antiJoin bool
}

// ukeyPartial makes "at most one edge of a unique type per (id1, type)" the
// database's job (PostgreSQL, SQLite): ukey is 0 exactly for unique types
// (func ukey), so only their edges enter the index. Partial, it is small,
// costs other edges' writes nothing, and no read can use it (its predicate
// is in no query), so it cannot tie with edges_pkey for the point read as
// the full (id1, type, ukey) did. MySQL has no partial indexes and keeps
// the full one.
const ukeyPartial = "CREATE UNIQUE INDEX IF NOT EXISTS edges_ukey ON edges (id1, type) WHERE ukey = 0"

const edgesTimeDDL = "CREATE INDEX IF NOT EXISTS edges_time ON edges (id1, type, timestamp)"

// metaDDL creates taobench_meta, the schema's first statement.
const metaDDL = "CREATE TABLE IF NOT EXISTS taobench_meta (k VARCHAR(191) NOT NULL PRIMARY KEY, v TEXT NOT NULL)"

// planOrder: where the generic plans through two indexes cost the same,
// PostgreSQL keeps the index it considered first, and it considers a
// table's indexes newest first (get_relation_info). Every index build
// therefore creates edges_pkey after the other edges indexes, so that a tie
// the statistics do not break still goes to the primary key. TestPlans
// checks the index of every statement.

const (
	objCols  = "id, timestamp, value, version"
	edgeCols = "id1, id2, type, timestamp, value, version, ukey"
	getObj   = "SELECT version, timestamp, value FROM objects WHERE id = ?"
	getEdge  = "SELECT version, timestamp, value FROM edges WHERE id1 = ? AND type = ? AND id2 = ?"
	verObj   = "SELECT version FROM objects WHERE id = ?"
	verEdge  = "SELECT version FROM edges WHERE id1 = ? AND type = ? AND id2 = ?"
	listCols = "SELECT id2, timestamp, version, value FROM edges WHERE id1 = ? AND type = ?"
)

// common fills the statements every dialect writes alike.
func common(d *dialect) {
	d.stmts[sObjGet] = getObj
	d.stmts[sEdgeGet] = getEdge
	d.stmts[sEdgeRange] = listCols + " ORDER BY timestamp DESC LIMIT ? OFFSET ?"
	d.stmts[sEdgeCount] = "SELECT COUNT(*) FROM edges WHERE id1 = ? AND type = ?"
	d.stmts[sEdgeTime] = listCols + " AND timestamp >= ? AND timestamp <= ? ORDER BY timestamp DESC LIMIT ?"
	d.stmts[sObjUpdate] = "UPDATE objects SET timestamp = ?, value = ?, version = version + 1 WHERE id = ?"
	d.stmts[sObjDelete] = "DELETE FROM objects WHERE id = ?"
	d.stmts[sEdgeUpdate] = "UPDATE edges SET timestamp = ?, value = ?, version = version + 1 WHERE id1 = ? AND type = ? AND id2 = ?"
	d.stmts[sEdgeDelete] = "DELETE FROM edges WHERE id1 = ? AND type = ? AND id2 = ?"
}

// upserts are PostgreSQL's and SQLite's insert-or-overwrite (objects) and
// insert-if-absent (edges): the primary key is the arbiter, so a collision
// on edges_ukey (a second edge of a unique type) remains an error the store
// classifies as a unique violation.
func upserts(d *dialect) {
	d.stmts[sObjAdd] = "INSERT INTO objects (" + objCols + ") VALUES (?, ?, ?, 1) " +
		"ON CONFLICT (id) DO UPDATE SET timestamp = excluded.timestamp, value = excluded.value, version = objects.version + 1"
	// An existing key inserts nothing (0 rows) and the store overwrites it
	// with sEdgeUpdate, so it knows a new association from an overwrite
	// without a system column (CockroachDB has no xmax).
	d.stmts[sEdgeAdd] = "INSERT INTO edges (" + edgeCols + ") VALUES (?, ?, ?, ?, ?, 1, ?) " +
		"ON CONFLICT (id1, type, id2) DO NOTHING"
	d.metaUpsert = " ON CONFLICT (k) DO UPDATE SET v = excluded.v"
}

func postgresDialect() *dialect {
	d := &dialect{name: "postgres"}
	common(d)
	upserts(d)
	// FOR SHARE makes a concurrent change of a checked row a serialization
	// failure under REPEATABLE READ instead of a silently stale check.
	d.stmts[sObjCheck] = verObj + " FOR SHARE"
	d.stmts[sEdgeCheck] = verEdge + " FOR SHARE"
	for i, s := range d.stmts {
		d.stmts[i] = dollars(s)
	}
	d.schema = []string{
		metaDDL,
		ownerRecord(d),
		// An object update changes no indexed column, so it can be a
		// heap-only (HOT) update, which writes no index entry, when its
		// page has room for the new version: a fill factor of 90 leaves
		// it from the load on (at 100, the first update of each loaded
		// page moves the row and writes the index). An association update
		// changes its timestamp, which edges_time indexes, so it cannot
		// be HOT whatever the fill factor: TAO's assoc time is data that
		// orders the list.
		"CREATE TABLE IF NOT EXISTS objects (id BIGINT NOT NULL, timestamp BIGINT NOT NULL, value VARCHAR(4096) NOT NULL, " +
			"version BIGINT NOT NULL, CONSTRAINT objects_pkey PRIMARY KEY (id)) WITH (fillfactor = 90)",
		"CREATE TABLE IF NOT EXISTS edges (id1 BIGINT NOT NULL, id2 BIGINT NOT NULL, type BIGINT NOT NULL, timestamp BIGINT NOT NULL, " +
			"value VARCHAR(150) NOT NULL, version BIGINT NOT NULL, ukey BIGINT NOT NULL, CONSTRAINT edges_pkey PRIMARY KEY (id1, type, id2))",
		edgesTimeDDL,
		ukeyPartial,
		// Without it PostgreSQL multiplies the selectivities of id1 and type
		// as if independent, estimates (id1, type) at under one row, and the
		// point read's generic plan through edges_time costs the same as
		// through edges_pkey (planOrder).
		"CREATE STATISTICS IF NOT EXISTS edges_id1_type (dependencies) ON id1, type FROM edges",
		"CREATE TABLE IF NOT EXISTS taobench_counter (name VARCHAR(64) NOT NULL PRIMARY KEY, n BIGINT NOT NULL)",
		"INSERT INTO taobench_counter (name, n) VALUES ('run', 0) ON CONFLICT DO NOTHING",
	}
	d.indexNames = []string{"objects_pkey", "edges_pkey", "edges_time", "edges_ukey"}
	d.statsNames = []string{"edges_id1_type"}
	d.dropForLoad = []string{
		"ALTER TABLE objects DROP CONSTRAINT objects_pkey",
		"ALTER TABLE edges DROP CONSTRAINT edges_pkey",
		"DROP INDEX edges_ukey",
		"DROP INDEX edges_time",
	}
	// Plain indexes, then primary keys, then cheap ALTERs that adopt them:
	// CREATE INDEX takes a SHARE lock, so a phase's builds run in parallel,
	// where ADD PRIMARY KEY would lock the table exclusively. edges_pkey is
	// created after the other edges indexes (planOrder).
	d.buildAfterLoad = [][]string{
		{"CREATE INDEX edges_time ON edges (id1, type, timestamp)", strings.Replace(ukeyPartial, "IF NOT EXISTS ", "", 1)},
		{"CREATE UNIQUE INDEX objects_pkey ON objects (id)", "CREATE UNIQUE INDEX edges_pkey ON edges (id1, type, id2)"},
		{"ALTER TABLE objects ADD CONSTRAINT objects_pkey PRIMARY KEY USING INDEX objects_pkey"},
		{"ALTER TABLE edges ADD CONSTRAINT edges_pkey PRIMARY KEY USING INDEX edges_pkey"},
	}
	// The statistics of the columns the statements filter and order by:
	// the rest (value, version, ukey; objects' timestamp, value, version)
	// are in no WHERE or ORDER BY, and sorting their samples, the text
	// values' most of all, was a third of ANALYZE's CPU. The extended
	// statistics are on id1 and type.
	d.analyze = []string{"ANALYZE objects (id)", "ANALYZE edges (id1, type, id2, timestamp)"}
	// The same statements, as one chain per table run side by side, so
	// that both cores stay busy: within a table, ANALYZE (a SHARE UPDATE
	// EXCLUSIVE lock) and CREATE INDEX (SHARE) exclude each other, so
	// ANALYZE edges goes first, beside the objects chain, and then the
	// three edges indexes build at once (CREATE INDEX takes a SHARE lock,
	// which does not exclude itself). Its statistics do not depend on the
	// indexes (none is on an expression; CREATE INDEX records the index's
	// own size). edges_pkey is created after the other edges indexes
	// (planOrder; buildIndexes creates a phase's indexes in order).
	d.afterLoad = [][][]string{
		{{d.analyze[1]}, append(slices.Clone(d.buildAfterLoad[0]), d.buildAfterLoad[1][1]), d.buildAfterLoad[3]},
		{{d.buildAfterLoad[1][0]}, d.buildAfterLoad[2], {d.analyze[0]}},
	}
	d.insertIgnore = "INSERT INTO "
	d.ignoreSuffix = " ON CONFLICT DO NOTHING"
	d.reserveRun = "UPDATE taobench_counter SET n = n + 1 WHERE name = 'run' RETURNING n"
	return d
}

func sqliteDialect() *dialect {
	d := &dialect{name: "sqlite", textPayload: true}
	common(d)
	upserts(d)
	// One writer connection serializes write transactions: no locking reads needed.
	d.stmts[sObjCheck] = verObj
	d.stmts[sEdgeCheck] = verEdge
	d.schema = []string{
		metaDDL,
		ownerRecord(d),
		// INTEGER PRIMARY KEY is SQLite's rowid: the table is the index.
		"CREATE TABLE IF NOT EXISTS objects (id INTEGER NOT NULL PRIMARY KEY, timestamp BIGINT NOT NULL, value VARCHAR(4096) NOT NULL, " +
			"version BIGINT NOT NULL)",
		// WITHOUT ROWID clusters edges by their key, as InnoDB does.
		"CREATE TABLE IF NOT EXISTS edges (id1 BIGINT NOT NULL, id2 BIGINT NOT NULL, type BIGINT NOT NULL, timestamp BIGINT NOT NULL, " +
			"value VARCHAR(150) NOT NULL, version BIGINT NOT NULL, ukey BIGINT NOT NULL, PRIMARY KEY (id1, type, id2)) WITHOUT ROWID",
		edgesTimeDDL,
		ukeyPartial,
		"CREATE TABLE IF NOT EXISTS taobench_counter (name VARCHAR(64) NOT NULL PRIMARY KEY, n BIGINT NOT NULL)",
		"INSERT INTO taobench_counter (name, n) VALUES ('run', 0) ON CONFLICT DO NOTHING",
	}
	d.dropForLoad = []string{"DROP INDEX IF EXISTS edges_ukey", "DROP INDEX IF EXISTS edges_time"}
	d.buildAfterLoad = [][]string{{edgesTimeDDL, ukeyPartial}}
	d.indexNames = []string{"edges_time", "edges_ukey"}
	d.analyze = []string{"ANALYZE"}
	d.insertIgnore = "INSERT OR IGNORE INTO "
	d.reserveRun = "UPDATE taobench_counter SET n = n + 1 WHERE name = 'run' RETURNING n"
	return d
}

func mysqlDialect() *dialect {
	d := &dialect{name: "mysql", edgeAddUniqueByRows: true}
	common(d)
	d.metaUpsert = " ON DUPLICATE KEY UPDATE v = VALUES(v)"
	// FOR UPDATE rather than LOCK IN SHARE MODE: TiDB rejects the latter
	// unless noop functions are enabled.
	d.stmts[sObjCheck] = verObj + " FOR UPDATE"
	d.stmts[sEdgeCheck] = verEdge + " FOR UPDATE"
	d.stmts[sObjAdd] = "INSERT INTO objects (" + objCols + ") VALUES (?, ?, ?, 1) " +
		"ON DUPLICATE KEY UPDATE timestamp = VALUES(timestamp), value = VALUES(value), version = version + 1"
	// ON DUPLICATE KEY UPDATE fires on any unique key. The IFs overwrite only
	// the same (id1, type, id2); when the colliding row is another edge of a
	// unique type (edges_ukey), nothing changes and MySQL reports 0 affected
	// rows (1: inserted, 2: updated) — no error text to parse. Assignments
	// read id2, which none of them changes.
	same := "IF(id2 = VALUES(id2), "
	d.stmts[sEdgeAdd] = "INSERT INTO edges (" + edgeCols + ") VALUES (?, ?, ?, ?, ?, 1, ?) ON DUPLICATE KEY UPDATE " +
		"timestamp = " + same + "VALUES(timestamp), timestamp), value = " + same + "VALUES(value), value), " +
		"version = " + same + "version + 1, version)"
	d.schema = []string{
		metaDDL,
		ownerRecord(d),
		"CREATE TABLE IF NOT EXISTS objects (id BIGINT NOT NULL, timestamp BIGINT NOT NULL, value VARCHAR(4096) NOT NULL, " +
			"version BIGINT NOT NULL, PRIMARY KEY (id))",
		"CREATE TABLE IF NOT EXISTS edges (id1 BIGINT NOT NULL, id2 BIGINT NOT NULL, type BIGINT NOT NULL, timestamp BIGINT NOT NULL, " +
			"value VARCHAR(150) NOT NULL, version BIGINT NOT NULL, ukey BIGINT NOT NULL, PRIMARY KEY (id1, type, id2), " +
			"UNIQUE KEY edges_ukey (id1, type, ukey), KEY edges_time (id1, type, timestamp))",
		"CREATE TABLE IF NOT EXISTS taobench_counter (name VARCHAR(64) NOT NULL PRIMARY KEY, n BIGINT NOT NULL)",
		"INSERT IGNORE INTO taobench_counter (name, n) VALUES ('run', 0)",
	}
	d.dropForLoad = []string{"ALTER TABLE edges DROP INDEX edges_ukey, DROP INDEX edges_time"}
	d.buildAfterLoad = [][]string{{"ALTER TABLE edges ADD UNIQUE KEY edges_ukey (id1, type, ukey), ADD KEY edges_time (id1, type, timestamp)"}}
	d.analyze = []string{"ANALYZE TABLE objects, edges"}
	d.insertIgnore = "INSERT IGNORE INTO "
	return d
}

// dollars turns ? placeholders into PostgreSQL's $1, $2, ...
func dollars(s string) string {
	var b strings.Builder
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// placeholders writes the VALUES tuples of a multi-row insert of rows rows
// of cols columns, numbered from 1 when dollar is set.
func placeholders(b *strings.Builder, rows, cols int, dollar bool) {
	n := 0
	for r := range rows {
		if r > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('(')
		for c := range cols {
			if c > 0 {
				b.WriteString(", ")
			}
			n++
			if dollar {
				b.WriteString("$" + strconv.Itoa(n))
			} else {
				b.WriteByte('?')
			}
		}
		b.WriteByte(')')
	}
}

// multiInsert is the text of a multi-row insert into table that skips
// rows whose keys exist.
func (d *dialect) multiInsert(table, cols string, ncols, rows int) string {
	var b strings.Builder
	b.WriteString(d.insertIgnore + table + " (" + cols + ") VALUES ")
	placeholders(&b, rows, ncols, d.name == "postgres")
	b.WriteString(d.ignoreSuffix)
	return b.String()
}

// metaInsert is the text of an upsert of n taobench_meta rows.
func (d *dialect) metaInsert(n int) string {
	var b strings.Builder
	b.WriteString("INSERT INTO taobench_meta (k, v) VALUES ")
	placeholders(&b, n, 2, d.name == "postgres")
	b.WriteString(d.metaUpsert)
	return b.String()
}

// ukey is the edges.ukey column of an edge: 0 for a unique type, so that
// UNIQUE (id1, type, ukey) admits one such edge per (id1, type), and id2
// otherwise, where the index then says no more than the primary key.
func ukey(t tao.EdgeType, id2 int64) int64 {
	if t.IsUnique() {
		return 0
	}
	return id2
}

// typeList renders the base types (tao.EdgeType.Base) for which keep is
// true as "1, 4"; SQL compares them with type % 8.
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
func baseOf(col string) string { return fmt.Sprintf("(%s %% %d)", col, tao.TypeStride) }

// inverseCase renders the inverse type of column col (tao.EdgeType.Inverse).
func inverseCase(col string) string {
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

// finishChains returns what a load into empty tables ends with: afterLoad,
// or else one chain, buildAfterLoad's phases then analyze.
func (d *dialect) finishChains() [][][]string {
	if d.afterLoad != nil {
		return d.afterLoad
	}
	return [][][]string{append(slices.Clone(d.buildAfterLoad), d.analyze)}
}
