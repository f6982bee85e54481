#!/usr/bin/env bash
# bench/original.sh: taobench side by side with the original TAOBench
# (github.com/audreyccheng/taobench, C++) on the same PostgreSQL, the same
# published workload files, the same client counts, interleaved.
#
# The original: either ORIGINAL, a binary you built yourself per its README
# with its PostgreSQL adapter (crdb), or ORIGINAL_SRC and LIBPQXX_SRC,
# checkouts of github.com/audreyccheng/taobench (a122cfd) and of
# github.com/jtv/libpqxx (7.7.4), from which bench/build-original.sh builds
# it (in a copy, with its sleeps cut to 1 s; about 5 minutes the first time,
# reused after: see that script). The original sleeps 60 s after reading its
# keys and 150 s before and after each experiment; the script waits them out
# (it starts the clock at the experiment's first status line), so a binary
# of your own whose sleeps were not cut makes each run six minutes longer.
#
# Each run, for each tool: a fresh database; the tool's own schema and load
# of $EDGES edges with $LOAD_THREADS threads (the original's schema is the
# one in its USAGE.md); then one experiment on the workload file, $WARMUP s
# warmup and $DURATION s measured. From the experiment's start + WARMUP + 1 s
# to a second before its end (the last of samples every quarter second at
# which the driver and every backend are still there):
#   - the driver's CPU: utime + stime of its process (/proc/PID/stat);
#   - the driver's context switches, voluntary and not, over its threads
#     (/proc/PID/task/*/status);
#   - the server's CPU: utime + stime of the database's backends (the pids
#     pg_stat_activity lists for it, read from /proc: run this script on the
#     database's machine, as root or the server's user);
#   - tuples the server returned and fetched: pg_stat_database's
#     tup_returned and tup_fetched for the database (each backend flushes them
#     at most once a second, so they lag by up to a second at both ends);
# each divided by the requests in that interval (the tool's own printed
# throughput, "Throughput excluding warmup", times the interval).
# Rounds alternate which tool goes first. At the end: per cell, the medians
# and taobench/original.
#
# Usage: ORIGINAL=/path/to/original/taobench bench/original.sh
#    or: ORIGINAL_SRC=/path/to/taobench LIBPQXX_SRC=/path/to/libpqxx bench/original.sh
# Environment: ORIGINAL, or ORIGINAL_SRC and LIBPQXX_SRC (one of the two
# required; BUILD_DIR and JOBS go to build-original.sh); REFERENCE (the directory holding
# workload_o.json and workload_a.json; default reference/taobench in
# $TAOBENCH_SHARED, else in ../shared beside this checkout); WORKLOADS
# ("o a"); CLIENTS_LIST ("8 32"); EDGES (200000); LOAD_THREADS (8); ROUNDS
# (3); WARMUP (3); DURATION (20); PG (postgres://postgres@127.0.0.1:5432);
# TAOBENCH; KEEP_WORK (keep the outputs and print the sample times);
# QUIET_LOAD (1.5) and QUIET_WAIT (300): before each round the script waits
# until the 1-minute load average is under QUIET_LOAD, for at most
# QUIET_WAIT seconds, and prints the load at the round's start (and when
# the cap was hit instead).
# Time: about WORKLOADS x CLIENTS_LIST x ROUNDS x 2 x (WARMUP + DURATION +
# 13 s of load and start-up): 15 min with the defaults, once the original's
# sleeps are cut, and about 2 min per round more waiting for the load to
# fall.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
need psql awk

ORIGINAL=${ORIGINAL:-}
REFERENCE=${REFERENCE:-${TAOBENCH_SHARED:-$ROOT/../shared}/reference/taobench}
WORKLOADS=${WORKLOADS:-o a}
CLIENTS_LIST=${CLIENTS_LIST:-8 32}
EDGES=${EDGES:-200000}
LOAD_THREADS=${LOAD_THREADS:-8}
ROUNDS=${ROUNDS:-3}
WARMUP=${WARMUP:-3}
DURATION=${DURATION:-20}
PG=${PG:-postgres://postgres@127.0.0.1:5432}

ORIGINAL_SRC=${ORIGINAL_SRC:-}
LIBPQXX_SRC=${LIBPQXX_SRC:-}
usage="usage: ORIGINAL=/path/to/original/taobench bench/original.sh
   or: ORIGINAL_SRC=/path/to/taobench LIBPQXX_SRC=/path/to/libpqxx bench/original.sh (builds the original; see the header for the other settings)"
if [[ -n "$ORIGINAL" ]]; then
	[[ -z "$ORIGINAL_SRC$LIBPQXX_SRC" ]] || { echo "original.sh: both ORIGINAL and ORIGINAL_SRC or LIBPQXX_SRC are set: give either a binary (ORIGINAL) or the sources to build it from (ORIGINAL_SRC and LIBPQXX_SRC)" >&2; exit 2; }
	[[ -f "$ORIGINAL" && -x "$ORIGINAL" ]] || { echo "original.sh: ORIGINAL=$ORIGINAL is not an executable file; give the path of the original TAOBench binary" >&2; exit 2; }
elif [[ -z "$ORIGINAL_SRC$LIBPQXX_SRC" ]]; then
	echo "original.sh: neither ORIGINAL nor ORIGINAL_SRC and LIBPQXX_SRC is set: give the path of the original TAOBench binary, built with its PostgreSQL adapter (crdb), or checkouts of github.com/audreyccheng/taobench and github.com/jtv/libpqxx (7.7.4) to build it from" >&2
	echo "$usage" >&2
	exit 2
fi
for w in $WORKLOADS; do
	[[ -r "$REFERENCE/workload_$w.json" ]] || { echo "original.sh: no $REFERENCE/workload_$w.json: set REFERENCE to the directory of the published workload files" >&2; exit 2; }
done
for v in EDGES LOAD_THREADS ROUNDS WARMUP DURATION; do
	[[ "${!v}" =~ ^[0-9]+$ && "${!v}" -gt 0 ]] || { echo "original.sh: $v=${!v}: give a whole number above 0 (seconds for WARMUP and DURATION)" >&2; exit 2; }
done
[[ "$DURATION" -ge 5 ]] || { echo "original.sh: DURATION=$DURATION: give at least 5 s (a second is left out at each end)" >&2; exit 2; }
[[ "$LOAD_THREADS" -le 50 ]] || { echo "original.sh: LOAD_THREADS=$LOAD_THREADS: the original reads its keys with at most 50 threads (one per shard); give 50 or fewer" >&2; exit 2; }
for c in $CLIENTS_LIST; do
	[[ "$c" =~ ^[0-9]+$ && "$c" -gt 0 ]] || { echo "original.sh: CLIENTS_LIST has '$c': give whole numbers of clients" >&2; exit 2; }
done
check_quiet
[[ -r /proc/self/io ]] || die "needs /proc/PID/io and /proc/PID/stat (Linux)"
case $PG in postgres://* | postgresql://*) ;; *) echo "original.sh: PG=$PG: give a postgres:// URL without a database (postgres://user@host:port)" >&2; exit 2 ;; esac
# Built last, once every setting is known good: build-original.sh checks
# the sources (exit 2 on bad ones) and prints the binary's path.
if [[ -z "$ORIGINAL" ]]; then
	ORIGINAL=$(ORIGINAL_SRC=$ORIGINAL_SRC LIBPQXX_SRC=$LIBPQXX_SRC "$ROOT/bench/build-original.sh") || exit $?
fi

WORK=$(mktemp -d)
[[ -z "${KEEP_WORK:-}" ]] || echo "work directory: $WORK" >&2
DB=
PIDS=()
cleanup() {
	local rc=$? p
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
	[[ -z "$DB" ]] || psql -X -q "$PG/postgres" -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null 2>&1 ||
		echo "original.sh: could not drop database $DB; drop it by hand" >&2
	[[ -n "${KEEP_WORK:-}" ]] || rm -rf "$WORK"
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM
build_taobench
HZ=$(getconf CLK_TCK)

# psqlq sql: one value or row from the server, as the postgres database.
psqlq() { psql -X -A -t -q -F ' ' "$PG/postgres" -c "$1"; }

# switches pid: context switches of all its threads so far, voluntary and
# not (the kernel's work per wake-up is most of a client's CPU here; system
# call counts would not compare: /proc/PID/io counts read and write, which Go
# uses, but not send and recv, which libpq uses).
switches() { cat /proc/"$1"/task/*/status 2>/dev/null | awk '/^(nonvoluntary|voluntary)_ctxt_switches:/ {s += $2} END {print s + 0}'; }

# fresh: a new empty database; sets DB and URL.
fresh() {
	[[ -z "$DB" ]] || psqlq "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null
	DB=tb_orig_$$_$RANDOM
	psqlq "CREATE DATABASE $DB" >/dev/null || die "cannot create database $DB at $PG"
	URL="$PG/$DB?sslmode=disable"
}

# load_original wl: the original's schema (its USAGE.md) and batch insert.
load_original() {
	psql -X -q "$URL" -v ON_ERROR_STOP=1 >/dev/null <<-'SQL' || die "cannot create the original's tables in $DB"
		CREATE TABLE objects (id BIGINT PRIMARY KEY, timestamp BIGINT, value VARCHAR(150));
		CREATE TABLE edges (id1 BIGINT, id2 BIGINT, type BIGINT, timestamp BIGINT, value VARCHAR(150), PRIMARY KEY (id1, id2, type));
	SQL
	(umask 077 && echo "crdb.connectionstring=$URL" >"$WORK/crdb.properties")
	(cd "$WORK" && "$ORIGINAL" -load -load-threads "$LOAD_THREADS" -db crdb -p "$WORK/crdb.properties" \
		-c "$REFERENCE/workload_$1.json" -n "$EDGES" >"$WORK/load.out" 2>&1) ||
		die "the original's load failed: $(tail -3 "$WORK/load.out")"
	grep -q 'Number of failed batch inserts: 0' "$WORK/load.out" || die "the original's load had failed batches: $(grep 'failed batch' "$WORK/load.out")"
}

load_taobench() {
	"$TB" load --db "$URL" --workload "$REFERENCE/workload_$1.json" --edges "$EDGES" --load-threads "$LOAD_THREADS" \
		>/dev/null 2>"$WORK/load.out" || die "taobench load failed: $(tail -3 "$WORK/load.out")"
}

# measure tool wl clients: one run on a fresh database; sets RES to
# "rows load_s req/s driver_us server_us tuples_returned tuples_fetched switches" per request.
measure() {
	local tool=$1 wl=$2 clients=$3 out=$WORK/$1.$2.$3.$RANDOM.out pid marker t0 t1 d0 d1 s0 s1 y0 y1 b t
	local -a tup0 tup1 backends
	fresh
	t0=$(now)
	"load_$tool" "$wl"
	t1=$(now)
	local rows load_s
	rows=$(psql -X -A -t -q "$URL" -c "SELECT (SELECT count(*) FROM objects) + (SELECT count(*) FROM edges)") || die "cannot count the rows $tool loaded"
	load_s=$(calc %.2f "$t1 - $t0")
	if [[ $tool == original ]]; then
		# Its experiment length includes the warmup, which ends at the first
		# status line after it: a line a second keeps that to the second.
		echo "$clients,$WARMUP,$((WARMUP + DURATION))" >"$WORK/exp.txt"
		(cd "$WORK" && exec "$ORIGINAL" -run -load-threads "$LOAD_THREADS" -db crdb -p "$WORK/crdb.properties" -property status.interval=1 \
			-c "$REFERENCE/workload_$wl.json" -e "$WORK/exp.txt" >"$out" 2>"$out.err") &
		marker='^[0-9-]* [0-9:]* 0 sec:'
	else
		"$TB" run --db "$URL" --workload "$REFERENCE/workload_$wl.json" --threads "$clients" --warmup "$WARMUP" \
			--duration "$DURATION" >"$out" 2>"$out.err" &
		marker='^experiment 1 of 1:'
	fi
	pid=$!
	PIDS=("$pid")
	# The original's marker is its first status line, as its clients start
	# (after its 150 s sleep, if not cut); taobench's is printed as it
	# starts its experiment.
	local waited=0
	until grep -q "$marker" "$out" "$out.err" 2>/dev/null; do
		kill -0 "$pid" 2>/dev/null || { wait "$pid" || true; die "$tool run ended before its experiment started: $(tail -3 "$out.err" "$out")"; }
		sleep 0.05
		waited=$((waited + 1))
		[[ $waited -lt 12000 ]] || die "$tool run: no experiment after 600 s"
	done
	# The interval measured, from the experiment's start (st): a second
	# after the warmup to a second before the end.
	local st
	st=$(now)
	sleep_until "$st + $WARMUP + 0.5"
	read -ra backends < <(psqlq "SELECT string_agg(pid::text, ' ') FROM pg_stat_activity WHERE datname = '$DB' AND backend_type = 'client backend'")
	[[ ${#backends[@]} -ge "$clients" ]] || die "$tool: $clients clients but ${#backends[@]} backends on $DB"
	# /proc first, the server's counters after: psql can take a while on a busy machine.
	sleep_until "$st + $WARMUP + 1"
	local dn sn
	read -r d0 dn < <(ticks "$pid")
	y0=$(switches "$pid")
	read -r s0 sn < <(ticks "${backends[@]}")
	b=$(now)
	[[ $dn == 1 && $sn == "${#backends[@]}" ]] || die "$tool: the run or a backend ended before the interval began"
	read -ra tup0 < <(psqlq "SELECT tup_returned, tup_fetched FROM pg_stat_database WHERE datname = '$DB'")
	# The end: the last of samples every quarter second up to a second
	# before the experiment's end at which the driver and every backend
	# were still there (on a busy machine the start is seen late).
	local end x1 z1 w1
	end=$(awk "BEGIN {printf \"%.3f\", $st + $WARMUP + $DURATION - 1}")
	d1=0
	while :; do
		read -r x1 dn < <(ticks "$pid")
		z1=$(switches "$pid")
		read -r w1 sn < <(ticks "${backends[@]}")
		[[ $dn == 1 && $sn == "${#backends[@]}" ]] || break
		d1=$x1 y1=$z1 s1=$w1 t=$(now)
		awk "BEGIN {exit !($t < $end)}" || break
		sleep 0.25
	done
	[[ $d1 != 0 ]] && awk "BEGIN {exit !($t - $b >= $DURATION / 2)}" ||
		die "$tool: the run ended less than DURATION/2 after the interval began (the machine may be too busy to see its start in time; give a longer DURATION)"
	read -ra tup1 < <(psqlq "SELECT tup_returned, tup_fetched FROM pg_stat_database WHERE datname = '$DB'")
	[[ -z "${KEEP_WORK:-}" ]] || echo "$tool: start $(date -d @"$st" +%T.%N), interval $(date -d @"$b" +%T.%N) to $(date -d @"$t" +%T.%N); backends ${backends[*]}: $s0 -> $s1 ticks; driver $d0 -> $d1" >&2
	wait "$pid" || die "$tool run failed: $(tail -3 "$out.err" "$out")"
	PIDS=()
	local tput n
	tput=$(field 'Throughput excluding warmup:' "$out")
	[[ $tput != 0 ]] || die "$tool: no requests measured: $(tail -3 "$out")"
	n=$(calc %.1f "$tput * ($t - $b)")
	RES=$(awk -v rows="$rows" -v ls="$load_s" -v tp="$tput" -v n="$n" -v hz="$HZ" -v dd=$((d1 - d0)) -v sd=$((s1 - s0)) \
		-v r=$((tup1[0] - tup0[0])) -v f=$((tup1[1] - tup0[1])) -v y=$((y1 - y0)) \
		'BEGIN {printf "%d %.2f %.0f %.2f %.2f %.2f %.2f %.2f\n", rows, ls, tp, dd / hz * 1e6 / n, sd / hz * 1e6 / n, r / n, f / n, y / n}')
}

echo "machine: $(machine)"
echo "PostgreSQL $(psqlq 'SHOW server_version' | cut -d' ' -f1); $EDGES edges, $LOAD_THREADS load threads; warmup $WARMUP s, $DURATION s measured; $ROUNDS rounds"
echo "original: $ORIGINAL"
echo "taobench: $TB"
echo "per request: driver and server CPU in us, tuples the server returned and fetched, the driver's context switches"
echo
declare -A V
tools=(original taobench)
for r in $(seq "$ROUNDS"); do
	wait_quiet "round $r"
	for wl in $WORKLOADS; do
		for c in $CLIENTS_LIST; do
			for tool in "${tools[@]}"; do
				measure "$tool" "$wl" "$c"
				read -r rows ls tp dus sus tr tf sc <<<"$RES"
				printf 'round %d %s/%-3d %-8s %8s req/s  driver %6s us  server %6s us  tuples returned %6s fetched %6s  switches %5s  (load %s rows in %s s, load avg %s)\n' \
					"$r" "$wl" "$c" "$tool" "$tp" "$dus" "$sus" "$tr" "$tf" "$sc" "$rows" "$ls" "$(cut -d' ' -f1 /proc/loadavg)"
				k="$wl/$c/$tool"
				V[$k/tp]+=" $tp" V[$k/d]+=" $dus" V[$k/s]+=" $sus" V[$k/tr]+=" $tr" V[$k/tf]+=" $tf" V[$k/sc]+=" $sc" V[$k/lr]+=" $(calc %.0f "$rows / $ls")"
			done
		done
	done
	# The next round starts with the other tool.
	tools=("${tools[1]}" "${tools[0]}")
done

echo
echo "medians of $ROUNDS rounds; ratio = taobench / original"
printf '%-6s %-22s %-22s %-22s %-22s %-16s %-16s %-14s %s\n' cell "req/s (orig, tb)" "ratio" "driver us (o, tb)" "server us (o, tb)" "tuples returned" "tuples fetched" "switches" "load rows/s by wall clock"
for wl in $WORKLOADS; do
	for c in $CLIENTS_LIST; do
		declare -A m=()
		for tool in original taobench; do
			for f in tp d s tr tf sc lr; do
				# shellcheck disable=SC2086
				m[$tool/$f]=$(median ${V[$wl/$c/$tool/$f]})
			done
		done
		printf '%-6s %-22s %-22s %-22s %-22s %-16s %-16s %-14s %s\n' "$wl/$c" \
			"${m[original/tp]}, ${m[taobench/tp]}" \
			"$(calc %.2f "${m[taobench/tp]} / ${m[original/tp]}")x" \
			"${m[original/d]}, ${m[taobench/d]} ($(calc %.2f "${m[taobench/d]} / ${m[original/d]}")x)" \
			"${m[original/s]}, ${m[taobench/s]} ($(calc %.2f "${m[taobench/s]} / ${m[original/s]}")x)" \
			"${m[original/tr]}, ${m[taobench/tr]}" "${m[original/tf]}, ${m[taobench/tf]}" \
			"${m[original/sc]}, ${m[taobench/sc]}" "${m[original/lr]}, ${m[taobench/lr]}"
	done
done

# A ratio of medians hides how far each tool moves between rounds: on a
# 2-vCPU machine the original's throughput at 8 clients has been seen at two
# levels a fifth apart, and which one a median of 3 lands on decides the
# ratio. The spread says when more rounds are needed.
# span values...: "lowest-highest (highest/lowest x)".
span() { printf '%s\n' "$@" | sort -n | awk 'NR == 1 {lo = $1} {hi = $1} END {printf "%s-%s (%.2fx)", lo, hi, hi / lo}'; }
echo
echo "spread over the rounds: req/s lowest-highest per tool, and each round's taobench/original"
for wl in $WORKLOADS; do
	for c in $CLIENTS_LIST; do
		read -ra o <<<"${V[$wl/$c/original/tp]}"
		read -ra t <<<"${V[$wl/$c/taobench/tp]}"
		rs=()
		for i in "${!o[@]}"; do rs+=("$(calc %.2f "${t[i]} / ${o[i]}")"); done
		printf '%-6s original %s  taobench %s  rounds %s\n' "$wl/$c" "$(span "${o[@]}")" "$(span "${t[@]}")" "${rs[*]}"
	done
done

# The ratios with their 95% intervals, round by round (each round's two
# runs side by side, so what the machine did in that round falls on both):
# the geometric mean of the rounds' ratios, Student's t over their logs
# (taobench ratio; docs/performance.md "Ratios with intervals").
echo
echo "taobench/original over the $ROUNDS rounds, geometric mean with its 95% interval:"
for wl in $WORKLOADS; do
	for c in $CLIENTS_LIST; do
		ratio_ci "$wl/$c req/s" "${V[$wl/$c/taobench/tp]}" "${V[$wl/$c/original/tp]}"
		ratio_ci "$wl/$c driver us per request" "${V[$wl/$c/taobench/d]}" "${V[$wl/$c/original/d]}"
	done
done
