package spannerstore

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"cloud.google.com/go/spanner"
	"cloud.google.com/go/spanner/admin/database/apiv1/databasepb"

	"github.com/taobench/taobench/store"
)

// Ownership, as in store/sqlstore (owner.go there): taobench touches only
// the tables it created, which it knows by its record in TaobenchMeta
// (SchemaOwner = 'taobench', SchemaTables = the tables, comma-separated),
// written right after CREATE TABLE TaobenchMeta and before any other table
// (Spanner's schema changes and writes are never one transaction). Setup
// and Meta read the database's DDL first and refuse, changing nothing,
// any name the schema needs that is not recorded as taobench's.
const (
	ownerKey       = "schema_owner"
	ownerTablesKey = "schema_tables"
	ownerName      = "taobench"
	recordPrefix   = "schema_" // keys of the schema, not the graph: Meta leaves them out
)

// ownColumns are each table's columns, sorted and in lower case: a
// database set up before the record existed is recognised by
// TaobenchMeta's content and these.
var ownColumns = map[string]string{
	"Objects":         "id,time,value,version",
	"Edges":           "id1,id2,time,type,value,version",
	"TaobenchMeta":    "k,v",
	"TaobenchRuns":    "run,runkey",
	"TaobenchRunKeys": "run,runkey",
}

// indexName is the schema's index, whose name is the database's.
const indexName = "EdgesByTime"

var (
	createRE = regexp.MustCompile("(?is)^\\s*CREATE\\s+(?:OR\\s+REPLACE\\s+)?" +
		"((?:(?:UNIQUE|NULL_FILTERED|SEARCH|VECTOR)\\s+)*INDEX|TABLE|VIEW|SEQUENCE|CHANGE\\s+STREAM|PROPERTY\\s+GRAPH|MODEL|ROLE|SCHEMA)\\s+" +
		"(?:IF\\s+NOT\\s+EXISTS\\s+)?`?([\\w.]+)`?")
	onRE = regexp.MustCompile("(?is)\\bON\\s+`?([\\w.]+)`?")
)

// dbObject is a name taobench needs that exists in the database.
type dbObject struct{ name, kind, table string }

// holding is what the database holds of the names taobench needs.
type holding struct {
	found []dbObject
	meta  map[string]string // TaobenchMeta's rows; nil when absent or not taobench's
	owned map[string]bool   // tables that are taobench's, by their names in tables
}

// ours returns the name of taobench's that name is, ignoring case as
// Spanner does, or "".
func ours(name string) string {
	for _, t := range append(slices.Clone(tables), indexName) {
		if strings.EqualFold(t, name) {
			return t
		}
	}
	return ""
}

// columns returns the column names of a CREATE TABLE statement, sorted and
// in lower case.
func columns(stmt string) string {
	open := strings.IndexByte(stmt, '(')
	end := strings.LastIndex(strings.ToUpper(stmt), "PRIMARY KEY")
	if open < 0 || end < open {
		return ""
	}
	body := strings.TrimSpace(stmt[open+1 : end])
	body = strings.TrimSuffix(strings.TrimSpace(strings.TrimSuffix(body, ")")), ",")
	var parts []string
	if strings.Contains(body, "\n") {
		parts = strings.Split(body, "\n")
	} else {
		parts = strings.Split(body, ",")
	}
	var cs []string
	for _, p := range parts {
		f := strings.Fields(strings.TrimSpace(p))
		if len(f) < 2 {
			continue
		}
		switch strings.ToUpper(f[0]) {
		case "CONSTRAINT", "FOREIGN", "SYNONYM", "CHECK":
			continue
		}
		cs = append(cs, strings.ToLower(strings.Trim(f[0], "`")))
	}
	slices.Sort(cs)
	return strings.Join(cs, ",")
}

// holding reads the database's DDL and TaobenchMeta: which names taobench
// needs exist, and which are taobench's. It only reads.
func (db *DB) holding(ctx context.Context) (*holding, error) {
	resp, err := db.admin.GetDatabaseDdl(ctx, &databasepb.GetDatabaseDdlRequest{Database: db.path})
	if err != nil {
		return nil, fmt.Errorf("%s: reading the schema: %w%s", db.name, err, hint(err))
	}
	h := &holding{owned: map[string]bool{}}
	shape := map[string]bool{}
	for _, s := range resp.Statements {
		m := createRE.FindStringSubmatch(s)
		if m == nil {
			continue
		}
		name := ours(m[2])
		if name == "" {
			continue
		}
		kind := strings.ToLower(strings.Join(strings.Fields(m[1]), " "))
		o := dbObject{name: m[2], kind: kind}
		if strings.HasSuffix(kind, "index") {
			o.kind = "index"
			if on := onRE.FindStringSubmatch(s[len(m[0]):]); on != nil {
				o.table = on[1]
			}
		}
		if o.kind == "table" {
			shape[name] = name == m[2] && columns(s) == ownColumns[name]
		}
		h.found = append(h.found, o)
	}
	if !shape["TaobenchMeta"] {
		return h, nil // absent, or not taobench's: nothing is
	}
	if h.meta, err = db.readMeta(ctx); err != nil {
		return nil, err
	}
	switch {
	case h.meta[ownerKey] == ownerName:
		// A recorded table is still taobench's only with its columns:
		// one the user dropped and created again under the name is not.
		for _, t := range strings.Split(h.meta[ownerTablesKey], ",") {
			h.owned[t] = shape[t]
		}
		h.owned["TaobenchMeta"] = true
	case len(h.meta) == 0 || h.meta["state"] != "" && h.meta["edges"] != "" && h.meta["seed"] != "":
		// No record: set up before there was one (TaobenchMeta holds an
		// empty or a graph record, as every load wrote it), or between
		// CREATE TABLE TaobenchMeta and the record. Each other table is
		// taobench's by its columns.
		for t := range ownColumns {
			h.owned[t] = shape[t]
		}
	}
	return h, nil
}

// foreign returns the names found that are not taobench's.
func (h *holding) foreign() []string {
	var f []string
	for _, o := range h.found {
		switch {
		case o.kind == "table" && h.owned[o.name]:
		case o.kind == "index" && o.name == indexName && h.owned[o.table]:
		default:
			what := o.name + " (" + o.kind
			if o.table != "" {
				what += " on " + o.table
			}
			f = append(f, what+")")
		}
	}
	return f
}

// exists reports whether the database holds name as kind.
func (h *holding) exists(name, kind string) bool {
	return slices.ContainsFunc(h.found, func(o dbObject) bool { return o.name == name && o.kind == kind })
}

// refuse returns the error for names taken by something taobench did not
// create, or nil.
func (db *DB) refuse(h *holding) error {
	f := h.foreign()
	if len(f) == 0 {
		return nil
	}
	return store.ForeignSchema(db.name, f, "TaobenchMeta", "give it a database of its own "+
		"(gcloud spanner databases create NEW --instance I; then --db spanner://projects/P/instances/I/databases/NEW)")
}

// record writes the ownership record into TaobenchMeta.
func (db *DB) record(ctx context.Context) error {
	var own []string
	for _, s := range schema {
		if m := createRE.FindStringSubmatch(s); m != nil && strings.EqualFold(m[1], "TABLE") {
			own = append(own, m[2])
		}
	}
	ms := []*spanner.Mutation{
		spanner.InsertOrUpdate("TaobenchMeta", []string{"K", "V"}, []any{ownerKey, ownerName}),
		spanner.InsertOrUpdate("TaobenchMeta", []string{"K", "V"}, []any{ownerTablesKey, strings.Join(own, ",")}),
	}
	if _, err := db.client.Apply(ctx, ms); err != nil {
		return fmt.Errorf("%s: recording taobench's tables in TaobenchMeta: %w", db.name, err)
	}
	return nil
}

// graphMeta is m without the schema's keys.
func graphMeta(m map[string]string) map[string]string {
	m = maps.Clone(m)
	maps.DeleteFunc(m, func(k, _ string) bool { return strings.HasPrefix(k, recordPrefix) })
	return m
}
