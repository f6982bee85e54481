#!/usr/bin/env bash
# bench/pgload.sh: taobench's PostgreSQL load speed against a plain COPY.
#
# Each round, on fresh databases:
#  (a) taobench: times the whole `taobench load --db postgres://.../DB
#      --workload o --edges $EDGES --load-threads $THREADS` process (wall
#      clock: connecting, the schema, the COPY streams, the index builds,
#      ANALYZE); rows/s = the rows taobench reports / those seconds. A
#      watcher samples the catalog every 0.2 s meanwhile, to show that the
#      tables had no index while the rows streamed in and that the indexes
#      were rebuilt before taobench returned.
#  (b) the baseline: exports the same rows (COPY ... TO a server-side file),
#      creates a fresh database from `taobench schema` (the same tables and
#      indexes) and times one psql session running COPY objects FROM ... and
#      COPY edges FROM ...: one stream into indexed tables.
# It prints both and the ratio taobench/COPY per round and their medians.
#
# Then it checks the other load path, INSERT ... ON CONFLICT DO NOTHING:
#  (c1) loading again over a complete graph (its taobench_meta row removed)
#       writes nothing twice: row counts unchanged, taobench check passes;
#  (c2) a load interrupted by Ctrl-C while its indexes are dropped, then run
#       again, ends with every row exactly once, every index and primary key,
#       and taobench check passing.
#
# Usage: bench/pgload.sh
# Environment: PG (server URL without database; default
# postgres://postgres@127.0.0.1:5432), EDGES (2000000), THREADS (2),
# ROUNDS (3), TAOBENCH (a taobench binary; default: built from this checkout).
# The server must run on this machine as a superuser's: COPY to and from a
# file is done by the server process.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

PG=${PG:-postgres://postgres@127.0.0.1:5432}
EDGES=${EDGES:-2000000}
THREADS=${THREADS:-2}
ROUNDS=${ROUNDS:-3}
need psql awk sort

WORK=$(mktemp -d /tmp/taobench-pgload.XXXXXX)
chmod 755 "$WORK"
DUMP=$WORK/dump # written and read by the server process
mkdir "$DUMP"
chmod 777 "$DUMP"
PREFIX=tbbench_pgload_$$
DBS=()
WATCHER=
LOADER=

url() { echo "$PG/$1?sslmode=disable"; }
sql() { # database, statements...
	local db=$1
	shift
	local args=()
	for s in "$@"; do args+=(-c "$s"); done
	psql -X -q -A -t -v ON_ERROR_STOP=1 "$(url "$db")" "${args[@]}"
}

cleanup() {
	local rc=$?
	[[ -n "$WATCHER" ]] && kill "$WATCHER" 2>/dev/null && wait "$WATCHER" 2>/dev/null
	[[ -n "$LOADER" ]] && kill "$LOADER" 2>/dev/null && wait "$LOADER" 2>/dev/null
	for db in "${DBS[@]}"; do
		sql postgres "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 ||
			echo "pgload.sh: could not drop database $db; drop it by hand" >&2
	done
	rm -rf "$WORK"
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

createdb() {
	sql postgres "CREATE DATABASE $1" || die "cannot create database $1 at $PG (is PostgreSQL running, and is the user a superuser?)"
	DBS+=("$1")
}
dropdb() { sql postgres "DROP DATABASE IF EXISTS $1 WITH (FORCE)"; }

sql postgres "SELECT 1" >/dev/null || die "cannot connect to $PG/postgres"
[[ $(sql postgres "SELECT rolsuper FROM pg_roles WHERE rolname = current_user") == t ]] ||
	die "COPY to and from server files needs a superuser; $PG connects as another user"
build_taobench

# What the watcher samples: indexes on the graph's tables, CREATE INDEX
# builds in progress in the database, rows inserted so far.
WATCH_SQL="SELECT (SELECT count(*) FROM pg_indexes WHERE schemaname = 'public' AND tablename IN ('objects', 'edges')),
 (SELECT count(*) FROM pg_stat_progress_create_index WHERE datname = current_database()),
 (SELECT COALESCE(sum(n_tup_ins), 0) FROM pg_stat_user_tables WHERE relname IN ('objects', 'edges'))"

# watch db t0 file: appends "seconds indexes builds inserted" lines until killed.
watch() {
	local db=$1 t0=$2 file=$3 line
	while :; do
		if line=$(psql -X -q -A -t -F ' ' "$(url "$db")" -c "$WATCH_SQL" 2>/dev/null); then
			echo "$(calc %.2f "$(now) - $t0") $line" >>"$file"
		fi
		sleep 0.2
	done
}

# verify db rows: the graph's tables hold rows rows in all, every object once,
# four indexes of which two are primary keys.
verify() {
	local db=$1 rows=$2 got
	got=$(sql "$db" "SELECT (SELECT count(*) FROM objects) + (SELECT count(*) FROM edges)")
	[[ "$got" == "$rows" ]] || die "$db holds $got rows; taobench reported $rows"
	[[ $(sql "$db" "SELECT count(*) = count(DISTINCT id) FROM objects") == t ]] || die "$db holds an object twice"
	[[ $(sql "$db" "SELECT count(*) FROM pg_indexes WHERE schemaname = 'public' AND tablename IN ('objects', 'edges')") == 4 ]] ||
		die "$db lacks indexes: $(sql "$db" "SELECT string_agg(indexname, ', ') FROM pg_indexes WHERE tablename IN ('objects', 'edges')")"
	[[ $(sql "$db" "SELECT count(*) FROM pg_constraint WHERE contype = 'p' AND conrelid IN ('objects'::regclass, 'edges'::regclass)") == 2 ]] ||
		die "$db lacks a primary key on objects or edges"
}

echo "machine: $(machine)"
echo "server: $(sql postgres "SELECT version()" | cut -d, -f1); graph: workload o, $EDGES edges; taobench with $THREADS load threads"
echo
declare -a TBR CPR RATIO
for r in $(seq "$ROUNDS"); do
	A=${PREFIX}_r${r}_taobench
	B=${PREFIX}_r${r}_copy
	createdb "$A"

	# (a) taobench load, watched.
	sql postgres "CHECKPOINT"
	: >"$WORK/watch"
	t0=$(now)
	watch "$A" "$t0" "$WORK/watch" &
	WATCHER=$!
	"$TB" load --db "$(url "$A")" --workload o --edges "$EDGES" --load-threads "$THREADS" >"$WORK/load.out" 2>"$WORK/load.err" ||
		die "taobench load failed: $(tail -3 "$WORK/load.err")"
	t1=$(now)
	kill "$WATCHER" && wait "$WATCHER" 2>/dev/null || true
	WATCHER=
	rows=$(sed -n 's/^loaded \([0-9]*\) rows.*/\1/p' "$WORK/load.err")
	[[ -n "$rows" ]] || die "no 'loaded N rows' line from taobench load: $(tail -3 "$WORK/load.err")"
	reported=$(sed -n 's/^loaded .*: \([0-9.]*\) rows\/s$/\1/p' "$WORK/load.err")
	wall=$(calc %.2f "$t1 - $t0")
	tb=$(calc %.0f "$rows / $wall")
	verify "$A" "$rows"
	# From the watcher: rows inserted while the tables had no index, and
	# when index builds were seen.
	read -r noidx bfirst blast < <(awk '$2 == 0 && $4 > m {m = $4} $3 > 0 {if (f == "") f = $1; l = $1} END {print m + 0, (f == "" ? "-" : f), (l == "" ? "-" : l)}' "$WORK/watch")
	[[ "$bfirst" != - ]] || die "the watcher saw no index build during taobench's load: are indexes dropped and rebuilt? (samples in $WORK/watch)"
	[[ "$noidx" -gt 0 ]] || die "the watcher saw no rows inserted while the tables had no index"

	# (b) the same rows through one plain COPY stream into indexed tables.
	sql "$A" "COPY objects TO '$DUMP/objects.copy'" "COPY edges TO '$DUMP/edges.copy'"
	createdb "$B"
	"$TB" schema --db "$(url "$B")" | psql -X -q -v ON_ERROR_STOP=1 "$(url "$B")" >/dev/null || die "creating the schema in $B failed"
	sql postgres "CHECKPOINT"
	t2=$(now)
	sql "$B" "COPY objects FROM '$DUMP/objects.copy'" "COPY edges FROM '$DUMP/edges.copy'" >/dev/null
	t3=$(now)
	verify "$B" "$rows"
	cwall=$(calc %.2f "$t3 - $t2")
	cp=$(calc %.0f "$rows / $cwall")
	ratio=$(calc %.2f "$tb / $cp")
	TBR+=("$tb")
	CPR+=("$cp")
	RATIO+=("$ratio")
	echo "round $r: taobench $rows rows in $wall s = $tb rows/s (it reports $reported rows/s);" \
		"COPY $cwall s = $cp rows/s; ratio $ratio"
	echo "         taobench's tables had no index while $noidx rows streamed in; CREATE INDEX seen from ${bfirst} s to ${blast} s; taobench returned at $wall s"
	rm -f "$DUMP"/*.copy
	dropdb "$B"
	[[ $r -lt $ROUNDS ]] && dropdb "$A"
done
echo
echo "median of $ROUNDS: taobench $(median "${TBR[@]}") rows/s, plain COPY $(median "${CPR[@]}") rows/s, ratio taobench/COPY $(median "${RATIO[@]}") (raw: ${RATIO[*]})"
echo

# (c1) Loading over a complete graph: every row's key exists.
A=${PREFIX}_r${ROUNDS}_taobench
sql "$A" "DELETE FROM taobench_meta" >/dev/null
t0=$(now)
"$TB" load --db "$(url "$A")" --workload o --edges "$EDGES" --load-threads "$THREADS" >"$WORK/load.out" 2>"$WORK/load.err" ||
	die "loading over a complete graph failed: $(tail -3 "$WORK/load.err")"
t1=$(now)
verify "$A" "$rows"
"$TB" check --db "$(url "$A")" >"$WORK/check.out" 2>&1 || die "taobench check failed after loading over a complete graph: $(cat "$WORK/check.out")"
[[ $(sql "$A" "SELECT count(*) FROM taobench_meta") -gt 0 ]] || die "loading over a complete graph recorded no graph"
echo "(c1) load over a complete graph (INSERT ... ON CONFLICT DO NOTHING, every key present): $(calc %.1f "$t1 - $t0") s," \
	"$rows rows, none twice; every index present; taobench check passes"

# (c2) An interrupted load, then the same load again.
C=${PREFIX}_resume
createdb "$C"
"$TB" load --db "$(url "$C")" --workload o --edges "$EDGES" --load-threads "$THREADS" >"$WORK/load.out" 2>"$WORK/load.err" &
LOADER=$!
# Until rows are in and the indexes dropped, read from the catalog and the
# tables (progress lines come every 10 s off a terminal, after the rows of
# a fast load are all in).
for _ in $(seq 600); do
	[[ $(sql "$C" "SELECT (SELECT count(*) FROM pg_indexes WHERE tablename IN ('objects', 'edges')) = 0 AND EXISTS (SELECT 1 FROM objects)" 2>/dev/null) == t ]] && break
	kill -0 "$LOADER" 2>/dev/null || break
	sleep 0.05
done
idx=$(sql "$C" "SELECT count(*) FROM pg_indexes WHERE tablename IN ('objects', 'edges')")
kill -INT "$LOADER" 2>/dev/null || true
rc=0
wait "$LOADER" || rc=$?
LOADER=
[[ $rc -eq 130 ]] || die "the load to interrupt ended with status $rc, not 130 (interrupted): use more EDGES so it runs longer; $(tail -2 "$WORK/load.err")"
partial=$(sql "$C" "SELECT (SELECT count(*) FROM objects) + (SELECT count(*) FROM edges)")
# The load records its graph as loading before its first row, complete
# after the last: interrupted, it must say loading.
[[ $(sql "$C" "SELECT v FROM taobench_meta WHERE k = 'state'") == loading ]] || die "an interrupted load did not leave its graph recorded as loading"
t0=$(now)
"$TB" load --db "$(url "$C")" --workload o --edges "$EDGES" --load-threads "$THREADS" >"$WORK/load.out" 2>"$WORK/load2.err" ||
	die "loading again after an interrupted load failed: $(tail -3 "$WORK/load2.err")"
t1=$(now)
verify "$C" "$rows"
"$TB" check --db "$(url "$C")" >"$WORK/check.out" 2>&1 || die "taobench check failed after the resumed load: $(cat "$WORK/check.out")"
echo "(c2) load interrupted by Ctrl-C with $partial rows in and $idx of 4 indexes present, then run again: $(calc %.1f "$t1 - $t0") s;" \
	"$rows rows, none twice; every index and primary key present; taobench check passes"
