#!/usr/bin/env bash
# bench/null.sh: the driver's own ceiling and footprint, SQLite load speed
# and the newcomer's first run.
#
#  (a) GOMAXPROCS=1 taobench run --db null --threads 1 --warmup 0 --duration 10s,
#      $RUNS times: requests per second of one client on one core, no
#      database (the generator, the runner and the recorders only).
#  (b) /usr/bin/time -v taobench run --db null --edges 165000000 --threads 1024,
#      $RUNS times: peak resident memory at the original's suggested graph
#      size and a thousand clients, and how long after start the first
#      request went out ("first request issued X s after taobench started").
#  (c) taobench load --db sqlite:FILE --edges 1000000 --load-threads 2 --drop,
#      $LOADS times: rows per second as taobench reports them (the whole
#      load: rows, index builds, ANALYZE).
#  (d) taobench with no arguments (the newcomer's default run: an embedded
#      SQLite database in the user cache directory, loaded on first use)
#      with XDG_CACHE_HOME pointing at a fresh directory, $LOADS times: wall
#      clock of the whole process.
# Each prints its raw runs and the median.
#
# Usage: bench/null.sh
# Environment: RUNS (5), LOADS (3), TAOBENCH (a taobench binary; default:
# built from this checkout), SKIP (letters of parts to skip, e.g. SKIP=cd).
set -euo pipefail
source "$(dirname "$0")/lib.sh"

RUNS=${RUNS:-5}
LOADS=${LOADS:-3}
SKIP=${SKIP:-}
[[ -x /usr/bin/time ]] || die "needs GNU time at /usr/bin/time (apt-get install time)"

WORK=$(mktemp -d /tmp/taobench-null.XXXXXX)
cleanup() {
	local rc=$?
	rm -rf "$WORK"
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

build_taobench
echo "machine: $(machine)"
echo

# wall converts GNU time's "h:mm:ss" or "m:ss.ss" into seconds.
wall() { awk -F: '{s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; printf "%.2f", s}' <<<"$1"; }

if [[ $SKIP != *a* ]]; then
	v=()
	for i in $(seq "$RUNS"); do
		GOMAXPROCS=1 "$TB" run --db null --threads 1 --warmup 0 --duration 10s >"$WORK/out" 2>"$WORK/err" ||
			die "taobench run --db null failed: $(tail -3 "$WORK/err")"
		v+=("$(field 'Throughput excluding warmup:' "$WORK/out")")
	done
	echo "(a) --db null, 1 client, GOMAXPROCS=1: median $(median "${v[@]}") requests/s (raw ${v[*]}); target >= 2,000,000"
fi

if [[ $SKIP != *b* ]]; then
	rss=()
	first=()
	for i in $(seq "$RUNS"); do
		/usr/bin/time -v -o "$WORK/time" "$TB" run --db null --edges 165000000 --threads 1024 >"$WORK/out" 2>"$WORK/err" ||
			die "taobench run --db null --edges 165000000 --threads 1024 failed: $(tail -3 "$WORK/err")"
		rss+=("$(calc %.1f "$(field 'Maximum resident set size (kbytes):' "$WORK/time") / 1024")")
		first+=("$(field 'first request issued' "$WORK/err")")
	done
	echo "(b) --db null --edges 165000000 --threads 1024: peak RSS median $(median "${rss[@]}") MiB (raw ${rss[*]}); target < 150 MB"
	echo "    first request issued median $(median "${first[@]}") s after start (raw ${first[*]}); target < 1 s"
fi

if [[ $SKIP != *c* ]]; then
	v=()
	w=()
	for i in $(seq "$LOADS"); do
		rm -f "$WORK"/load.db*
		/usr/bin/time -v -o "$WORK/time" "$TB" load --db "sqlite:$WORK/load.db" --edges 1000000 --load-threads 2 --drop >"$WORK/out" 2>"$WORK/err" ||
			die "taobench load into SQLite failed: $(tail -3 "$WORK/err")"
		v+=("$(sed -n 's/^loaded .*: \([0-9.]*\) rows\/s$/\1/p' "$WORK/err")")
		[[ -n "${v[-1]}" ]] || die "no 'loaded ... rows/s' line from taobench load: $(tail -3 "$WORK/err")"
		w+=("$(wall "$(field 'Elapsed (wall clock) time (h:mm:ss or m:ss):' "$WORK/time")")")
	done
	rows=$(sed -n 's/^loaded \([0-9]*\) rows.*/\1/p' "$WORK/err")
	echo "(c) SQLite load, 1,000,000 edges ($rows rows), 2 threads: median $(median "${v[@]}") rows/s (raw ${v[*]}); process wall clock median $(median "${w[@]}") s (raw ${w[*]}); target >= 100,000 rows/s"
	rm -f "$WORK"/load.db*
fi

if [[ $SKIP != *d* ]]; then
	w=()
	for i in $(seq "$LOADS"); do
		cache=$WORK/cache$i
		mkdir "$cache"
		XDG_CACHE_HOME=$cache /usr/bin/time -v -o "$WORK/time" "$TB" >"$WORK/out" 2>"$WORK/err" ||
			die "the default run failed: $(tail -3 "$WORK/err")"
		[[ -f $cache/taobench/default.db ]] || die "the default run did not create $cache/taobench/default.db"
		w+=("$(wall "$(field 'Elapsed (wall clock) time (h:mm:ss or m:ss):' "$WORK/time")")")
		rm -rf "$cache"
	done
	echo "(d) default run (taobench, no arguments, fresh cache directory: load 100,000 edges, 2 s warmup, 10 s run): wall clock median $(median "${w[@]}") s (raw ${w[*]}); target < 30 s"
fi
