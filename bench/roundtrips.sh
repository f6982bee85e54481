#!/usr/bin/env bash
# bench/roundtrips.sh: system calls per request of the driver, a count of its
# round trips to the server that needs no proxy and does not depend on how
# busy the machine is: every request sent is at least one write system call,
# every answer at least one read. Read from /proc/PID/io (syscw, syscr) of
# the running taobench, last sample before it exits, over every request it
# made (warmup included, so divided by throughput x runtime).
#
# For a fresh PostgreSQL database: `taobench load --workload $WORKLOAD
# --edges $EDGES`, then $ROUNDS times `taobench run --threads $THREADS
# --warmup 2s --duration $DURATION`, and with COMPARE=/path/to/another/taobench
# that binary too, interleaved (before/after figures).
#
# Usage: bench/roundtrips.sh
# Environment: PG (default postgres://postgres@127.0.0.1:5432), WORKLOAD (t3),
# EDGES (100000), THREADS (16), DURATION (8s), ROUNDS (3), TAOBENCH, COMPARE.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
need psql python3

PG=${PG-postgres://postgres@127.0.0.1:5432}
WORKLOAD=${WORKLOAD:-t3} EDGES=${EDGES:-100000} THREADS=${THREADS:-16}
DURATION=${DURATION:-8s} ROUNDS=${ROUNDS:-3}
[[ -r /proc/self/io ]] || die "needs /proc/PID/io (Linux)"
WORK=$(mktemp -d)
DB=taobench_rt_$$
trap 'psql "$PG/postgres" -qc "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1; rm -rf "$WORK"' EXIT
build_taobench
psql "$PG/postgres" -qc "CREATE DATABASE $DB" >/dev/null
URL="$PG/$DB?sslmode=disable"
echo "# $(machine)"
"$TB" load --db "$URL" --workload "$WORKLOAD" --edges "$EDGES" >/dev/null

# one BIN NAME: one run; prints NAME, throughput, write and read syscalls per request.
one() {
	local bin=$1 name=$2 out=$WORK/r.json last="" pid l
	"$bin" run --db "$URL" --workload "$WORKLOAD" --threads "$THREADS" --warmup 2s --duration "$DURATION" \
		--out "$out" --format json >/dev/null 2>"$WORK/err" &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		l=$(tr '\n' ' ' <"/proc/$pid/io" 2>/dev/null) && [[ -n "$l" ]] && last=$l
		sleep 0.1
	done
	wait "$pid" || die "$name: taobench run failed: $(tail -3 "$WORK/err")"
	python3 - "$out" "$last" "$name" <<'PY'
import json, re, sys
e = json.load(open(sys.argv[1]))["experiments"][0]
io = dict(re.findall(r"(\w+): (\d+)", sys.argv[2]))
n = e["throughput"] * e["runtime_s"]
print(f"{sys.argv[3]:8} {e['throughput']:10.0f} req/s  {int(io['syscw']) / n:6.2f} writes/req  {int(io['syscr']) / n:6.2f} reads/req")
PY
}

echo "# $WORKLOAD, $EDGES edges, $THREADS clients, $DURATION; name, throughput, system calls per request"
for r in $(seq 1 "$ROUNDS"); do
	one "$TB" taobench
	[[ -z "${COMPARE:-}" ]] || one "$COMPARE" compare
done
