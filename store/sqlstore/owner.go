package sqlstore

import (
	"context"
	"maps"
	"slices"
	"strings"

	"github.com/taobench/taobench/store"
)

// Ownership: taobench touches only the tables it created, which it knows
// by its record in taobench_meta, never by their names alone. The record
// is two rows, schema_owner = 'taobench' and schema_tables (the tables it
// created, comma-separated), written by the schema's second statement,
// right after CREATE TABLE taobench_meta and before any other table: in
// the same transaction where DDL is transactional (PostgreSQL, SQLite),
// and before the other tables exist where it is not (MySQL commits each
// CREATE), so an interrupted setup is still recognisably taobench's.
// Before its first statement Setup (and Meta, which every command reads
// first) looks which of the names it needs exist; any that is not
// recorded as taobench's is refused with store.ErrForeignSchema, and
// nothing is created or dropped. docs/databases.md ("Whose tables")
// describes the rule.
const (
	ownerKey       = "schema_owner"
	ownerTablesKey = "schema_tables"
	ownerName      = "taobench"
	// recordPrefix starts the keys of taobench_meta that describe the
	// schema, not the graph: Meta leaves them out.
	recordPrefix = "schema_"
)

// ownTables are the tables Setup creates, in the order a drop takes them:
// taobench_meta last, so that a drop cut short (MySQL drops table by
// table) leaves the record of the tables that remain.
var ownTables = []string{"edges", "objects", "taobench_counter", "taobench_meta"}

// ownColumns are each table's columns, sorted: a database set up before
// the record existed is recognised by taobench_meta's content and these.
var ownColumns = map[string]string{
	"objects":          "id,timestamp,value,version",
	"edges":            "id1,id2,timestamp,type,ukey,value,version",
	"taobench_meta":    "k,v",
	"taobench_counter": "n,name",
}

// ownerRecord is the statement that records the tables as taobench's; the
// schema runs it right after creating taobench_meta.
func ownerRecord(d *dialect) string {
	tables := slices.Clone(ownTables)
	slices.Reverse(tables)
	return "INSERT INTO taobench_meta (k, v) VALUES ('" + ownerKey + "', '" + ownerName + "'), ('" +
		ownerTablesKey + "', '" + strings.Join(tables, ",") + "')" + d.metaUpsert
}

// dbObject is a name taobench needs that exists in the database: what it
// is (table, index, view ...) and, for an index or a statistics object,
// its table.
type dbObject struct{ name, kind, table string }

func (o dbObject) String() string {
	if o.table != "" && o.table != o.name {
		return o.name + " (" + o.kind + " on " + o.table + ")"
	}
	return o.name + " (" + o.kind + ")"
}

// holding is what a database holds of the names taobench needs.
type holding struct {
	found []dbObject
	// meta is taobench_meta's rows, nil when it is absent or is not
	// taobench's (other columns).
	meta  map[string]string
	owned map[string]bool // tables that are taobench's
}

// foreign returns the names found that are not taobench's.
func (h *holding) foreign() []dbObject {
	var f []dbObject
	for _, o := range h.found {
		switch {
		case o.kind == "table" && h.owned[o.name]:
		case (o.kind == "index" || o.kind == "statistics") && h.owned[o.table]:
		default:
			f = append(f, o)
		}
	}
	return f
}

// drops returns the tables of taobench that exist, in drop order.
func (h *holding) drops() []string {
	var ts []string
	for _, t := range ownTables {
		if h.owned[t] && slices.ContainsFunc(h.found, func(o dbObject) bool { return o.name == t && o.kind == "table" }) {
			ts = append(ts, t)
		}
	}
	return ts
}

// graphMeta is taobench_meta's graph record: the schema's keys and the
// run records (runrec.go) left out.
func (h *holding) graphMeta() map[string]string {
	m := maps.Clone(h.meta)
	maps.DeleteFunc(m, func(k, _ string) bool {
		return strings.HasPrefix(k, recordPrefix) || strings.HasPrefix(k, runRecPrefix)
	})
	return m
}

// refuse returns the error for names taken by something taobench did not
// create, or nil.
func (db *DB) refuse(h *holding) error {
	f := h.foreign()
	if len(f) == 0 {
		return nil
	}
	// Tables first, as the schema names them; then indexes.
	order := append([]string{"objects", "edges", "taobench_meta", "taobench_counter"}, append(db.d.indexNames, db.d.statsNames...)...)
	slices.SortStableFunc(f, func(a, b dbObject) int {
		return slices.Index(order, strings.ToLower(a.name)) - slices.Index(order, strings.ToLower(b.name))
	})
	names := make([]string, len(f))
	for i, o := range f {
		names[i] = o.String()
	}
	var fix string
	switch db.d.name {
	case "sqlite":
		fix = "give it a file of its own (--db sqlite:OTHER.db)"
	case "postgres":
		fix = "give it a database of its own (CREATE DATABASE taobench; then --db postgres://HOST/taobench) " +
			"or a schema of its own (CREATE SCHEMA taobench; then add ?search_path=taobench to the --db URL)"
	default:
		fix = "give it a database of its own (CREATE DATABASE taobench; then --db mysql://HOST/taobench)"
	}
	return store.ForeignSchema(db.name, names, "taobench_meta", fix)
}

// foreignHeld reports whether names taobench needs hold what taobench did
// not create; false when that cannot be read (Setup and Meta then say why).
func (db *DB) foreignHeld(ctx context.Context) bool {
	h, err := db.holding(ctx)
	return err == nil && len(h.foreign()) > 0
}

// holding looks which of the names taobench needs exist and which of them
// are taobench's. It only reads.
func (db *DB) holding(ctx context.Context) (*holding, error) {
	h := &holding{owned: map[string]bool{}}
	q := db.b.auto()
	add := func(scan func(...any) error) error {
		var o dbObject
		if err := scan(&o.name, &o.kind, &o.table); err != nil {
			return err
		}
		o.kind = kindWord(db.d.name, o.kind)
		h.found = append(h.found, o)
		return nil
	}
	if err := q.query(ctx, db.d.namesQuery(), nil, add); err != nil {
		return nil, err
	}
	if db.d.statsQuery() != "" {
		// Statistics objects are PostgreSQL's; a kin without the catalog
		// (CockroachDB) has none to find.
		_ = q.query(ctx, db.d.statsQuery(), nil, add)
	}
	if len(h.found) == 0 {
		return h, nil
	}
	cols := map[string][]string{}
	err := q.query(ctx, db.d.columnsQuery(), nil, func(scan func(...any) error) error {
		var t, c string
		if err := scan(&t, &c); err != nil {
			return err
		}
		cols[t] = append(cols[t], strings.ToLower(c))
		return nil
	})
	if err != nil {
		return nil, err
	}
	shape := map[string]bool{}
	for t, cs := range cols {
		slices.Sort(cs)
		shape[t] = strings.Join(cs, ",") == ownColumns[t]
	}
	if !shape["taobench_meta"] {
		return h, nil // absent, or not taobench's: nothing is
	}
	h.meta = map[string]string{}
	err = q.query(ctx, "SELECT k, v FROM taobench_meta", nil, func(scan func(...any) error) error {
		var k, v string
		if err := scan(&k, &v); err != nil {
			return err
		}
		h.meta[k] = v
		return nil
	})
	if err != nil {
		return nil, err
	}
	switch {
	case h.meta[ownerKey] == ownerName:
		// A recorded table is still taobench's only with its columns:
		// one the user dropped and created again under the name is not.
		for _, t := range strings.Split(h.meta[ownerTablesKey], ",") {
			h.owned[t] = shape[t]
		}
		h.owned["taobench_meta"] = true
	case len(h.meta) == 0 || legacyRecord(h.meta):
		// No record: a schema set up before there was one, or a setup
		// between creating taobench_meta and recording itself there
		// (MySQL). taobench_meta is taobench's by its shape and content;
		// each other table by its columns, so that the user's tables a
		// version without the record set up beside are still refused.
		for t := range ownColumns {
			h.owned[t] = shape[t]
		}
	}
	return h, nil
}

// legacyRecord reports whether m is a graph record as every version of
// taobench's load wrote it (graph.Meta and the load state), before
// taobench_meta held the ownership record.
func legacyRecord(m map[string]string) bool {
	return m["state"] != "" && m["edges"] != "" && m["seed"] != ""
}

// namesQuery lists the names of ownTables and the dialect's database-wide
// index names that exist, as (name, kind, table of an index).
func (d *dialect) namesQuery() string {
	in := "('" + strings.Join(append(slices.Clone(ownTables), d.indexNames...), "', '") + "')"
	switch d.name {
	case "postgres":
		// The schema CREATE TABLE creates in: the first of search_path
		// that exists.
		return "SELECT c.relname::text, c.relkind::text, COALESCE(t.relname::text, '') FROM pg_class c " +
			"LEFT JOIN pg_index i ON i.indexrelid = c.oid LEFT JOIN pg_class t ON t.oid = i.indrelid " +
			"WHERE c.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema()) AND c.relname IN " + in
	case "sqlite":
		// SQLite's names ignore case.
		return "SELECT name, type, tbl_name FROM sqlite_master WHERE lower(name) IN " + in
	}
	return "SELECT TABLE_NAME, TABLE_TYPE, '' FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME IN " + in
}

// statsQuery lists the statistics objects of the schema that exist
// (PostgreSQL), or is empty.
func (d *dialect) statsQuery() string {
	if len(d.statsNames) == 0 {
		return ""
	}
	return "SELECT s.stxname::text, 's', t.relname::text FROM pg_statistic_ext s JOIN pg_class t ON t.oid = s.stxrelid " +
		"WHERE s.stxnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema()) AND s.stxname IN ('" +
		strings.Join(d.statsNames, "', '") + "')"
}

// columnsQuery lists the columns of the tables of ownTables that exist, as
// (table, column).
func (d *dialect) columnsQuery() string {
	in := "('" + strings.Join(ownTables, "', '") + "')"
	switch d.name {
	case "postgres":
		return "SELECT table_name::text, column_name::text FROM information_schema.columns WHERE table_schema = current_schema() AND table_name IN " + in
	case "sqlite":
		return "SELECT m.name, p.name FROM sqlite_master m JOIN pragma_table_info(m.name) p WHERE m.type = 'table' AND m.name IN " + in
	}
	return "SELECT TABLE_NAME, COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME IN " + in
}

// kindWord names a catalog's kind of object in words.
func kindWord(dialect, k string) string {
	if dialect == "postgres" {
		switch k {
		case "r", "p":
			return "table"
		case "i", "I":
			return "index"
		case "v":
			return "view"
		case "m":
			return "materialized view"
		case "S":
			return "sequence"
		case "c":
			return "type"
		case "f":
			return "foreign table"
		case "s":
			return "statistics"
		}
		return "relation"
	}
	switch strings.ToUpper(k) {
	case "BASE TABLE", "TABLE":
		return "table"
	case "VIEW", "SYSTEM VIEW":
		return "view"
	case "SEQUENCE":
		return "sequence"
	}
	return strings.ToLower(k)
}
