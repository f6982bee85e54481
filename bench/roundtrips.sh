#!/usr/bin/env bash
# bench/roundtrips.sh: system calls per request of the driver, a count of its
# round trips to the server that needs no proxy and does not depend on how
# busy the machine is: every request sent is at least one write system call,
# every answer at least one read. Read from /proc/PID/io (syscw, syscr) of
# the running taobench, last sample before it exits, over every request it
# made (warmup included, so divided by throughput x runtime). And the
# server's CPU per request: the user + system CPU of the database's client
# backends (their pids from pg_stat_activity once the warmup is over, each
# one's /proc/PID/stat) from half a second after the warmup to the last
# sample, every 0.1 s, before the experiment's last half second, divided by
# the requests of that interval (throughput x its length). The server must
# run on this machine.
#
# $ROUNDS times `taobench run --threads $THREADS --warmup 2s --duration
# $DURATION`, each on a database freshly loaded by `taobench load --workload
# $WORKLOAD --edges $EDGES` and checkpointed, so that no run inherits the
# writes of the one before (deletes of bidirectional associations leave the
# next run's updates finding fewer rows, fewer statements per request) or
# starts elsewhere in PostgreSQL's checkpoint cycle (the first change of a
# page after a checkpoint logs the whole page). With
# COMPARE=/path/to/another/taobench that binary too, interleaved, which goes
# first alternating by round (before/after figures); the medians last.
#
# Usage: bench/roundtrips.sh
# Environment: PG (default postgres://postgres@127.0.0.1:5432), WORKLOAD (t3;
# a built-in name or a workload file), EDGES (100000), THREADS (16),
# DURATION (8s), ROUNDS (3), TAOBENCH, COMPARE.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
need psql python3

PG=${PG-postgres://postgres@127.0.0.1:5432}
WORKLOAD=${WORKLOAD:-t3} EDGES=${EDGES:-100000} THREADS=${THREADS:-16}
DURATION=${DURATION:-8s} ROUNDS=${ROUNDS:-3}
[[ -r /proc/self/io ]] || die "needs /proc/PID/io (Linux)"
[[ $DURATION =~ ^[0-9]+s$ ]] || { echo "roundtrips.sh: DURATION=$DURATION: give whole seconds, such as 8s" >&2; exit 2; }
WORK=$(mktemp -d)
DB=taobench_rt_$$
RUNPID=""
trap '[[ -z $RUNPID ]] || kill "$RUNPID" 2>/dev/null; psql "$PG/postgres" -qc "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null 2>&1; rm -rf "$WORK"' EXIT
trap 'exit 130' INT TERM
build_taobench
URL="$PG/$DB?sslmode=disable"
echo "# $(machine)"

# fresh: a new database $DB, loaded and checkpointed.
fresh() {
	psql -X -q "$PG/postgres" -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" -c "CREATE DATABASE $DB" >/dev/null ||
		die "cannot create database $DB"
	"$TB" load --db "$URL" --workload "$WORKLOAD" --edges "$EDGES" >/dev/null 2>"$WORK/load.err" ||
		die "taobench load failed: $(tail -3 "$WORK/load.err")"
	psql -X -q "$URL" -c CHECKPOINT >/dev/null 2>&1 ||
		echo "roundtrips.sh: CHECKPOINT refused (not a superuser?): the server's CPU will vary more" >&2
}

HZ=$(getconf CLK_TCK)
WARMUP=2 SECS=${DURATION%s}
declare -A RUNS # name -> "throughput writes reads server_us" lines

# one BIN NAME: one run; prints NAME, throughput, write and read syscalls per
# request and the server's CPU per request.
one() {
	local bin=$1 name=$2 out=$WORK/r.json last="" pid l st end b t s0 s1 w sn tp r sv
	local -a backends
	fresh
	"$bin" run --db "$URL" --workload "$WORKLOAD" --threads "$THREADS" --warmup "${WARMUP}s" --duration "$DURATION" \
		--out "$out" --format json >"$WORK/out" 2>"$WORK/err" &
	pid=$! RUNPID=$!
	# The experiment starts when taobench says so (after its load check).
	until grep -q '^experiment 1 of 1:' "$WORK/err" 2>/dev/null; do
		kill -0 "$pid" 2>/dev/null || { wait "$pid" || true; die "$name: taobench run ended before its experiment: $(tail -3 "$WORK/err")"; }
		sleep 0.05
	done
	st=$(now)
	end=$(awk "BEGIN {printf \"%.3f\", $st + $WARMUP + $SECS - 0.5}")
	sleep_until "$st + $WARMUP + 0.25"
	read -ra backends < <(psql -X -A -t -q "$PG/postgres" -c \
		"SELECT string_agg(pid::text, ' ') FROM pg_stat_activity WHERE datname = '$DB' AND backend_type = 'client backend'")
	[[ ${#backends[@]} -gt 0 ]] || die "$name: no backends on $DB"
	sleep_until "$st + $WARMUP + 0.5"
	read -r s0 sn < <(ticks "${backends[@]}")
	b=$(now) t=$b s1=$s0
	while kill -0 "$pid" 2>/dev/null; do
		l=$(tr '\n' ' ' <"/proc/$pid/io" 2>/dev/null) && [[ -n "$l" ]] && last=$l
		if [[ -n $end ]]; then
			read -r w sn < <(ticks "${backends[@]}")
			if [[ $sn == "${#backends[@]}" ]] && awk "BEGIN {exit !($(now) < $end)}"; then
				s1=$w t=$(now)
			else
				end=""
			fi
		fi
		sleep 0.1
	done
	wait "$pid" || die "$name: taobench run failed: $(tail -3 "$WORK/err")"
	RUNPID=""
	awk "BEGIN {exit !($t - $b >= $SECS / 2)}" ||
		die "$name: the server's CPU was sampled over less than DURATION/2 (a busy machine; give a longer DURATION)"
	l=$(python3 - "$out" "$last" "$((s1 - s0))" "$HZ" "$b" "$t" <<'PY'
import json, re, sys
e = json.load(open(sys.argv[1]))["experiments"][0]
io = dict(re.findall(r"(\w+): (\d+)", sys.argv[2]))
n = e["throughput"] * e["runtime_s"]
srv = int(sys.argv[3]) / int(sys.argv[4]) * 1e6 / (e["throughput"] * (float(sys.argv[6]) - float(sys.argv[5])))
print(f"{e['throughput']:.0f} {int(io['syscw']) / n:.2f} {int(io['syscr']) / n:.2f} {srv:.1f}")
PY
	)
	RUNS[$name]+="$l"$'\n'
	read -r tp w r sv <<<"$l"
	printf '%-8s %10s req/s  %6s writes/req  %6s reads/req  %7s server us/req\n' "$name" "$tp" "$w" "$r" "$sv"
}

echo "# $WORKLOAD, $EDGES edges, $THREADS clients, $DURATION; name, throughput, system calls per request, server CPU per request"
for r in $(seq 1 "$ROUNDS"); do
	if [[ -n "${COMPARE:-}" && $((r % 2)) == 0 ]]; then
		one "$COMPARE" compare
		one "$TB" taobench
	else
		one "$TB" taobench
		[[ -z "${COMPARE:-}" ]] || one "$COMPARE" compare
	fi
done
echo "# medians"
for name in taobench compare; do
	[[ -n "${RUNS[$name]:-}" ]] || continue
	col() { printf '%s' "${RUNS[$name]}" | awk -v c="$1" 'NF {print $c}'; }
	# shellcheck disable=SC2046
	printf '%-8s %10s req/s  %6s writes/req  %6s reads/req  %7s server us/req\n' "$name" \
		"$(median $(col 1))" "$(median $(col 2))" "$(median $(col 3))" "$(median $(col 4))"
done
