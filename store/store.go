// Package store defines what taobench needs of a database and a registry of
// URL schemes, in the manner of database/sql's driver registry: a store
// package registers itself in init, and store.Open picks it by the URL's
// scheme.
package store

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/taobench/taobench/tao"
)

// Store executes requests. Exec is safe for concurrent use by many clients.
type Store interface {
	// Exec executes req once and fills res (res.Reset has been called). It
	// never retries: the runner owns retries and counts every attempt.
	Exec(ctx context.Context, req *tao.Request, res *tao.Result)
	Close() error
}

// ErrReadOnly is what a Database's error is (errors.Is) when the server
// refused a write because it, or the session, is read-only: a standby, a
// replica, default_transaction_read_only. It is the target that is wrong,
// not the database that failed.
var ErrReadOnly = errors.New("the server is read-only")

// ErrForeignSchema is what a Database's error is (errors.Is) when a name
// taobench needs (a table, an index) is taken in the database by something
// taobench did not create: the user's own tables. taobench then creates and
// drops nothing, and the fix is another database (or schema) for it.
var ErrForeignSchema = errors.New("the database holds tables taobench did not create")

// ForeignSchema is an ErrForeignSchema naming the database (name, its URL
// redacted), the objects found that taobench did not create, the table
// where it records its own (metaTable), and the fix for the engine.
func ForeignSchema(name string, found []string, metaTable, fix string) error {
	return &foreignSchema{fmt.Sprintf("%s holds %s, which taobench did not create (it records the tables it creates in %s); "+
		"taobench creates, writes and drops only its own tables, so it changed nothing there: %s",
		name, strings.Join(found, ", "), metaTable, fix)}
}

type foreignSchema struct{ msg string }

func (e *foreignSchema) Error() string        { return e.msg }
func (e *foreignSchema) Is(target error) bool { return target == ErrForeignSchema }

// Database is a Store that keeps a graph: it has a schema, loads rows in
// bulk, remembers which graph it holds and can check the graph's invariants.
type Database interface {
	Store

	// Schema returns the DDL statements Setup runs, for operators who create
	// schemas by hand.
	Schema() []string
	// Setup creates the schema where absent; with drop it first removes
	// everything taobench created. Before its first change it refuses,
	// with ErrForeignSchema, a database where a name it needs holds
	// something taobench did not create: it never alters or drops that.
	Setup(ctx context.Context, drop bool) error

	// Meta returns the recorded key/value description of the loaded graph;
	// empty when nothing was loaded. Like Setup it refuses, with
	// ErrForeignSchema, tables taobench did not create.
	Meta(ctx context.Context) (map[string]string, error)
	// SetMeta records kv, replacing keys already there.
	SetMeta(ctx context.Context, kv map[string]string) error
	// ReserveRun returns a number no earlier ReserveRun on this database
	// returned, so ids created by different runs never collide.
	ReserveRun(ctx context.Context) (int64, error)

	// BeginLoad readies the database for bulk loading (it may defer index
	// builds when the tables are empty); EndLoad finishes it.
	BeginLoad(ctx context.Context) error
	NewLoader(ctx context.Context) (Loader, error)
	EndLoad(ctx context.Context) error

	// Check verifies the graph's invariants and returns the violations found.
	Check(ctx context.Context) ([]Violation, error)
}

// Loader writes rows in bulk; one per load thread.
type Loader interface {
	Load(ctx context.Context, objects []tao.Object, edges []tao.Edge) error
	Close() error
}

// Violation is one broken invariant found by Check.
type Violation struct {
	Invariant string // e.g. "bidirectional edge has its inverse"
	Count     int64  // how many rows break it
	Example   string // one offending row
}

// Options are what every store may need to know when it opens.
type Options struct {
	// Clients is the most concurrent requests expected; pools size to it.
	Clients int
	// SchemaOnly says the caller needs only Database.Schema: a store whose
	// DDL needs no connection may then open nothing and create nothing (an
	// SQLite file, say).
	SchemaOnly bool
	// MustExist says the caller only reads what an earlier load wrote
	// (info, check): a store that would create its database on open (an
	// SQLite file, say) refuses one that is missing instead, naming it and
	// the load that creates it.
	MustExist bool
}

// OpenFunc opens a store for a URL of its scheme.
type OpenFunc func(ctx context.Context, u *url.URL, raw string, opts Options) (Store, error)

// Registry maps URL schemes to stores. The zero value is empty; Default is
// the registry the store packages register with.
type Registry struct {
	mu      sync.RWMutex
	schemes map[string]OpenFunc
}

// Default is filled by the store packages' init functions, as database/sql's
// drivers fill its registry.
var Default = &Registry{}

// Register makes a scheme available. It panics on a duplicate, a programming
// error caught at start-up.
func (r *Registry) Register(scheme string, open OpenFunc) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.schemes == nil {
		r.schemes = map[string]OpenFunc{}
	}
	if _, dup := r.schemes[scheme]; dup {
		panic("store: scheme registered twice: " + scheme)
	}
	r.schemes[scheme] = open
}

// Schemes lists the registered schemes, sorted.
func (r *Registry) Schemes() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	s := make([]string, 0, len(r.schemes))
	for k := range r.schemes {
		s = append(s, k)
	}
	sort.Strings(s)
	return s
}

// storePackages names the package of this module that registers each
// scheme when imported: a program that embeds taobench links only the
// stores it imports, and one that forgets the import learns it here.
var storePackages = map[string]string{
	"sqlite":     "store/sqlstore",
	"postgres":   "store/sqlstore",
	"postgresql": "store/sqlstore",
	"mysql":      "store/sqlstore",
	"spanner":    "store/spannerstore",
	"null":       "store/null",
}

// unknownScheme says that scheme is not registered, what is, and which
// import would register it.
func (r *Registry) unknownScheme(scheme string) string {
	known := strings.Join(r.Schemes(), ", ")
	if known == "" {
		known = "none: no store package is imported"
	}
	msg := fmt.Sprintf("unknown scheme %q; registered: %s", scheme, known)
	if pkg, ok := storePackages[scheme]; ok {
		return msg + fmt.Sprintf(`; import _ "github.com/taobench/taobench/%s" to register it`, pkg)
	}
	return msg + "; a store package registers its schemes when imported (store/sqlstore: sqlite, postgres, mysql; store/spannerstore: spanner; store/null: null)"
}

// Open opens the store named by raw, a URL such as "sqlite:taobench.db",
// "postgres://user@host/db" or "null". Errors name the URL with any password
// masked.
func (r *Registry) Open(ctx context.Context, raw string, opts Options) (Store, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" {
		word, query, _ := strings.Cut(raw, "?")
		switch {
		case isSchemeName(word):
			// A bare word such as "null" names a scheme with no address;
			// it may take options ("null?delay=2ms").
			u = &url.URL{Scheme: word, RawQuery: query}
		case strings.Contains(word, "="):
			return nil, fmt.Errorf("database URL %q: a key/value connection string is not taken; write it as a URL, e.g. postgres://user@host:5432/db?sslmode=require", Redact(raw))
		default:
			return nil, fmt.Errorf("database URL %q: not a URL; use e.g. sqlite:taobench.db, postgres://user@host:5432/db or mysql://user@host:3306/db", Redact(raw))
		}
	}
	r.mu.RLock()
	open, ok := r.schemes[u.Scheme]
	r.mu.RUnlock()
	if !ok {
		if u.Opaque != "" && strings.Contains(raw, "@") {
			// user:pw@host/db or a go-sql-driver DSN: url.Parse took the
			// user name for the scheme.
			return nil, fmt.Errorf("database URL %q: no scheme; start it with one, e.g. postgres://user@host:5432/db or mysql://user@host:3306/db (known: %s)", Redact(raw), strings.Join(r.Schemes(), ", "))
		}
		return nil, fmt.Errorf("database URL %q: %s", Redact(raw), r.unknownScheme(u.Scheme))
	}
	if opts.Clients < 1 {
		opts.Clients = 1
	}
	st, err := open(ctx, u, raw, opts)
	if err != nil {
		// A driver's message may quote the URL or a parameter's value
		// (pgx's "cannot parse `URL`", the MySQL driver's "invalid value"):
		// the one rule of params.go holds for every store's errors too.
		return nil, redactedError(err, raw)
	}
	return st, nil
}

// redactedError returns err with RedactIn(err's text, raw) as its text
// and err as what it wraps (errors.Is and As see through it); err itself
// when nothing was masked.
func redactedError(err error, raw string) error {
	msg := err.Error()
	if r := RedactIn(msg, raw); r != msg {
		return &redacted{msg: r, err: err}
	}
	return err
}

type redacted struct {
	msg string
	err error
}

func (e *redacted) Error() string { return e.msg }
func (e *redacted) Unwrap() error { return e.err }

// Redact returns raw with the password of its user info, and the value of
// every query parameter but the harmless ones (a TLS mode, a pool size, a
// timeout: params.go), replaced by "xxxxx". Every message, report and
// results file that names a database or cache URL goes through it.
//
// A password typed unescaped may hold / ? or #, which end the authority for
// url.Parse: postgres://u:123/45@h/db parses as host u, port 123 and path
// /45@h/db. So when an @ follows such a character, everything from the
// first : of the user info to the last @ of the URL is masked, even if that
// hides a port and path in a URL whose query holds an @.
//
// Strings that are not URLs are masked too, as their drivers would read
// them: a libpq key/value string's password (host=h password=pw), and in a
// URL typed without its scheme (user:pw@host/db) or a go-sql-driver DSN
// (user:pw@tcp(host)/db), everything from the first : to the last @.
//
// A pass can change what the next one finds (masking a query value may
// remove the @ that ended the user info it masked), so Redact repeats its
// pass until the text stops changing: each pass only masks, and the result
// redacts to itself.
func Redact(raw string) string {
	s := redactOnce(raw)
	for range 8 {
		t := redactOnce(s)
		if t == s {
			break
		}
		s = t
	}
	return s
}

// redactOnce is one pass of Redact.
func redactOnce(raw string) string {
	s := redactKeywords(raw)
	if start := authorityStart(s); start < 0 {
		s = redactOpaque(s)
	} else {
		if at := strings.LastIndexByte(s, '@'); at >= start {
			userinfo := s[start:at]
			// A control character makes s no URL wherever it is: url.Parse
			// forgives one in the fragment, and redactQuery's masking can
			// end the fragment, so Redact's output would redact differently.
			_, err := url.Parse(s)
			notURL := err != nil || strings.IndexFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }) >= 0
			c := strings.IndexByte(userinfo, ':')
			switch {
			case c >= 0 && (notURL || strings.ContainsAny(userinfo, "/?#")):
				s = s[:start] + userinfo[:c+1] + redactMask + s[at:]
			case c < 0 && notURL:
				// Not a URL: the whole user info may be a secret. It ends
				// at the last @ before the query (an @ past the ? is in a
				// value redactQuery may mask, after which a second pass
				// would find another); empty, it hides nothing.
				end := len(s)
				if q := strings.IndexByte(s[start:], '?'); q >= 0 {
					end = start + q
				}
				if a := strings.LastIndexByte(s[start:end], '@'); a > 0 {
					s = s[:start] + redactMask + s[start+a:]
				}
			}
		}
	}
	if u, err := url.Parse(s); err == nil && u.User != nil {
		if _, has := u.User.Password(); has {
			// Mask the password where it is written rather than print
			// the parsed URL again, which would respell the rest (the
			// scheme in lower case, escapes) and so change a redacted
			// URL when redacted twice. url.Parse found user info, so
			// the authority ends at the first / ? or #, and its user
			// info at its last @.
			if start := authorityStart(s); start >= 0 {
				end := len(s)
				if i := strings.IndexAny(s[start:], "/?#"); i >= 0 {
					end = start + i
				}
				if at := strings.LastIndexByte(s[start:end], '@'); at >= 0 {
					at += start
					if c := strings.IndexByte(s[start:at], ':'); c >= 0 {
						s = s[:start+c+1] + redactMask + s[at:]
					}
				}
			}
		}
	}
	return redactFragment(redactQuery(s))
}

// redactFragment masks the text after the first # that redactQuery left
// (a #fragment of a URL without a query, or after a harmless parameter):
// no store reads one, and it may be a secret typed where it does not
// belong. A # in a password of the user info was masked with it.
func redactFragment(s string) string {
	i := strings.IndexByte(s, '#')
	if i < 0 || s[i+1:] == "" || s[i+1:] == redactMask {
		return s
	}
	return s[:i+1] + redactMask
}

const redactMask = "xxxxx"

// isSchemeName reports whether s is a URL scheme (RFC 3986: a letter, then
// letters, digits, + - or .), so a bare word can name one.
func isSchemeName(s string) bool {
	for i, c := range s {
		switch {
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		default:
			return false
		}
	}
	return s != ""
}

// redactOpaque masks the password of a string with no authority that holds
// user info: user:pw@host:5432/db (a URL without its scheme, which url.Parse
// reads as scheme "user"), user:pw@tcp(host:3306)/db (a go-sql-driver DSN)
// or mysql:user:pw@... Everything from the first : to the last @ goes,
// since such a password may hold @ and / unescaped (the driver splits at
// the last @ before the last /); this may hide a user name or a path too,
// which is the safe side. A : past the first ? is in the query, whose
// passwords redactQuery masks.
func redactOpaque(s string) string {
	at := strings.LastIndexByte(s, '@')
	if at < 0 {
		return s
	}
	c := strings.IndexByte(s[:at], ':')
	if c < 0 {
		return s
	}
	if q := strings.IndexByte(s, '?'); q >= 0 && q < c {
		return s
	}
	return s[:c+1] + redactMask + s[at:]
}

// redactKeywords masks the value of every password or sslpassword keyword
// of a libpq key/value string (host=h password=pw dbname=d), read as libpq
// reads it: keywords start the string or follow white space, white space
// may surround the =, and a value is either a word up to the next white
// space or 'quoted' with \' and \\ escapes (up to the end when unclosed).
func redactKeywords(s string) string {
	var b strings.Builder
	i := 0 // s[:i] is written to b or will be
	for j := 0; j < len(s); j++ {
		if j > 0 && !isSpace(s[j-1]) {
			continue
		}
		k := j
		for _, key := range []string{"sslpassword", "password"} {
			if len(s)-j >= len(key) && strings.EqualFold(s[j:j+len(key)], key) {
				k = j + len(key)
				break
			}
		}
		if k == j {
			continue
		}
		for k < len(s) && isSpace(s[k]) {
			k++
		}
		if k == len(s) || s[k] != '=' {
			continue
		}
		k++
		for k < len(s) && isSpace(s[k]) {
			k++
		}
		end := k
		if end < len(s) && s[end] == '\'' {
			for end++; end < len(s) && s[end] != '\''; end++ {
				if s[end] == '\\' {
					end++
				}
			}
			end = min(end+1, len(s))
			// Text joined to the closing quote goes too: masked bare, a
			// second pass would read mask and text as one word.
			for end < len(s) && !isSpace(s[end]) {
				end++
			}
		} else {
			for end < len(s) && !isSpace(s[end]) {
				end++
			}
		}
		if end == k {
			continue
		}
		b.WriteString(s[i:k])
		b.WriteString(redactMask)
		i = end
		j = end - 1
	}
	if i == 0 {
		return s
	}
	b.WriteString(s[i:])
	return b.String()
}

// isSpace is libpq's white space (isspace in the C locale).
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// authorityStart returns the offset of the authority of raw, after its
// "scheme://" or leading "//", or -1 when it has none.
func authorityStart(raw string) int {
	i := 0
	for j, c := range raw {
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || j > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.') {
			continue
		}
		if c == ':' && j > 0 {
			i = j + 1
		}
		break
	}
	if strings.HasPrefix(raw[i:], "//") {
		return i + 2
	}
	return -1
}

// redactQuery masks the non-empty value of every parameter of s's query
// (from its first ?) but the harmless ones (showsValue: params.go), pairs
// split on & or ; as drivers may, whether or not the value is validly
// escaped. The last pair's value runs to the end of s: a # in a password
// does not end it.
func redactQuery(s string) string {
	q := strings.IndexByte(s, '?')
	if q < 0 {
		return s
	}
	var b strings.Builder
	b.WriteString(s[:q+1])
	rest := s[q+1:]
	for {
		end := strings.IndexAny(rest, "&;")
		pair := rest
		if end >= 0 {
			pair = rest[:end]
		}
		k, v, _ := strings.Cut(pair, "=")
		if key, err := url.QueryUnescape(k); err == nil {
			k = key
		}
		if v != "" && !showsValue(k, v) {
			pair = pair[:strings.IndexByte(pair, '=')+1] + redactMask
		}
		b.WriteString(pair)
		if end < 0 {
			return b.String()
		}
		b.WriteByte(rest[end])
		rest = rest[end+1:]
	}
}

// Inventory summarises the rows a database holds, for validation: what the
// graph's load (and any runs since) actually wrote.
type Inventory struct {
	// Objects counts loaded objects (not created at run time) by shard;
	// NewObjects those created at run time.
	Objects    map[int]int64
	NewObjects int64
	// Edges counts forward edges by base type (tao.EdgeType.Base) and by
	// the shard of their id2.
	EdgesByBase   map[int64]int64
	EdgesByShard2 map[int]int64
	// EdgesByShard1 counts forward edges by the shard of their id1.
	EdgesByShard1 map[int]int64
	// MissingTargets counts edges (forward and inverse) whose id2 is a
	// loaded node's id with no object, MissingIDs the distinct such ids;
	// MissingExample is one such edge.
	MissingTargets, MissingIDs int64
	MissingExample             string
	// Value sizes: forward edges with an empty value and the bytes of the
	// rest; loaded objects and their values' bytes.
	EdgeValuesEmpty, EdgeValueBytes int64
	ObjectValues, ObjectValueBytes  int64
	// The same of forward edges by base type: those with an empty value,
	// and the bytes of all (nil when the store does not count them).
	EmptyByBase, ValueBytesByBase map[int64]int64
	// EdgesBeforeTime counts forward edges by base type whose timestamp is
	// before TimeFloor (a store that does not count them leaves it nil):
	// neither a load (graph.TimeRange) nor a run (later times) writes one.
	EdgesBeforeTime map[int64]int64
	TimeFloor       int64
	// OutDegrees counts the loaded objects whose id is a multiple of
	// DegreeStride (a power of two: a sample taken alike in the store and
	// the graph) by their number of forward edges, for those with at least
	// one; nil when the store does not count them.
	OutDegrees   map[int64]int64
	DegreeStride int64
	// Integrity is what the store counted of the rows' integrity (nil
	// when it does not count it).
	Integrity *Integrity
	// ObjDeletes counts the obj_delete operations runs sent, as they
	// recorded them (DeleteRecorder); ObjDeletesKnown is false when none
	// did.
	ObjDeletes      int64
	ObjDeletesKnown bool
}

// Integrity counts what no row may break whatever the run: where loaded
// ids sit, inverses, uniqueness.
type Integrity struct {
	// ObjectMaxIndex and EdgeMaxIndex are the largest node index (the
	// id's low 56 bits) of the loaded objects, and of the id1 of the
	// forward edges from loaded ids, by shard: an index at or beyond the
	// shard's nodes in the graph is off its placement.
	ObjectMaxIndex, EdgeMaxIndex map[int]int64
	// MissingInverse counts forward bidirectional edges with no inverse
	// row, MissingForward inverse rows with no forward edge.
	MissingInverse, MissingForward int64
	// UniqueExtra counts the edges of unique types beyond the first of
	// their (id1, type); Duplicates the rows beyond the first of their
	// (id1, type, id2) (none while the primary key holds).
	UniqueExtra, Duplicates int64
	// Bidirectional counts the edges of bidirectional types (forward and
	// inverse), Unique those of unique types: the rows examined.
	Bidirectional, Unique int64
}

// PlacementCounter is a Database that counts the loaded rows off a
// placement (check's invariant counts rows, not shards): the objects, and
// the forward edges by their id1, of each shard of bounds whose node index
// is at or past bounds[shard] (0: every row of a shard the graph lacks).
// Ids created at run time are left out (runs never take loaded ones).
type PlacementCounter interface {
	CountOffPlacement(ctx context.Context, bounds map[int]int64) (objects, edges int64, err error)
}

// Inspector is a Database that can take its Inventory and tell how many
// run numbers it has handed out.
type Inspector interface {
	Inspect(ctx context.Context) (Inventory, error)
	Runs(ctx context.Context) (int64, error)
}

// DeleteRecorder is a Database that keeps the count of obj_delete
// operations runs sent: what runs can have deleted of the loaded
// objects, which the missing-objects row and check credit them with.
type DeleteRecorder interface {
	AddObjDeletes(ctx context.Context, n int64) error
	// ObjDeletes is the count; known is false when no run recorded one
	// (runs of taobench before it, or none).
	ObjDeletes(ctx context.Context) (n int64, known bool, err error)
}

// RunKeyer is a Database whose run numbers processes can share: driver
// processes of one run (docs/distributed.md) each ask with the same key and
// get the same number, so the database records one run, not one per
// process. The first ReserveRunKey of a key reserves a number as
// ReserveRun does; every later one returns it.
type RunKeyer interface {
	ReserveRunKey(ctx context.Context, key string) (int64, error)
}

// RunRecorder is a Database where taobench records its runs: a record per
// experiment of each process, so that a run can tell which other runs were
// active on the database beside it (docs/tiers.md, "Concurrent runs"), and
// the start instant the drivers of a run id share (docs/distributed.md).
// Records are opaque to the store, and kept in taobench's own tables.
type RunRecorder interface {
	// PutRunRecord creates or replaces the record under key.
	PutRunRecord(ctx context.Context, key, rec string) error
	// RunRecords returns every record by key.
	RunRecords(ctx context.Context) (map[string]string, error)
	// DeleteRunRecords removes the records under keys.
	DeleteRunRecords(ctx context.Context, keys []string) error
	// AgreeStart returns the instant recorded under key. When none is, or
	// the one recorded is before stale (an earlier run's), it records at
	// and returns it, in one transaction: of processes asking at once,
	// the first records its instant and the rest read it.
	AgreeStart(ctx context.Context, key string, at, stale time.Time) (time.Time, error)
}
