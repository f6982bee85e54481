#!/usr/bin/env bash
# bench/tiers.sh: TAO's read path against the database alone (docs/tiers.md,
# "A figure: the database alone against warm tiers").
#
# Creates a PostgreSQL database of its own, loads workload $WORKLOAD's
# graph of $EDGES edges, then $ROUNDS times, interleaved:
#  db    taobench run: every read at the database;
#  warm  the same with the client cache ($TTL) and the Redis tao tier,
#        the tier prefilled from the database in the warmup (prefill=1);
#  cold  the same tiers without prefill: the keys start empty, as a run's
#        tier did before prefill (the reads-served rows should fail).
# Each run prints its throughput, read p50/p99 at the clients, and per
# tier the share of reads served, hit ratio, stale share and the clients'
# read p50/p99 for the reads it served; the prefill's figures; and the
# verdicts of the "reads served by" fidelity rows. Then the medians per
# configuration. Redis keys live under a prefix of the script's own,
# removed at the end (never FLUSHALL).
#
# Usage: bench/tiers.sh
# Environment: PG (default postgres://postgres@127.0.0.1:5432), REDIS
# (redis://127.0.0.1:6379/0), WORKLOAD (o), EDGES (200000), THREADS (16),
# WARMUP (30; the prefill must finish in it: each run says whether it did),
# DURATION (20), ROUNDS (3), TTL (2s, the client cache's), CONFIGS ("db warm
# cold"), TAOBENCH (a binary; default: built from this checkout). Needs
# psql, redis-cli and jq.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
need psql redis-cli jq

PG=${PG-postgres://postgres@127.0.0.1:5432}
REDIS=${REDIS:-redis://127.0.0.1:6379/0}
WORKLOAD=${WORKLOAD:-o} EDGES=${EDGES:-200000} THREADS=${THREADS:-16}
WARMUP=${WARMUP:-30} DURATION=${DURATION:-20} ROUNDS=${ROUNDS:-3} TTL=${TTL:-2s}
CONFIGS=${CONFIGS:-db warm cold}

WORK=$(mktemp -d)
DB=taobench_tiers_$$
PREFIX=taobench_tiers_$$
cleanup() {
	local rc=$?
	psql "$PG/postgres" -qc "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1 || true
	redis-cli -u "$REDIS" --scan --pattern "$PREFIX:*" 2>/dev/null | xargs -r -n 1000 redis-cli -u "$REDIS" del >/dev/null 2>&1 || true
	rm -rf "$WORK"
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

build_taobench
echo "# $(machine)"
psql "$PG/postgres" -qc "CREATE DATABASE $DB" >/dev/null
URL="$PG/$DB?sslmode=disable"
"$TB" load --db "$URL" --workload "$WORKLOAD" --edges "$EDGES" 2>&1 | tail -1
echo "# workload $WORKLOAD, $EDGES edges, $THREADS clients, warmup ${WARMUP}s, ${DURATION}s measured, client cache TTL $TTL, $ROUNDS rounds"

# one CONFIG ROUND: one run; prints its line and keeps its figures.
declare -A tput p50 p99
one() {
	local cfg=$1 i=$2 out=$WORK/$1$2.json flags=()
	case $cfg in
	db) ;;
	warm) flags=(--cache "$REDIS?prefix=$PREFIX&prefill=1" --client-cache-ttl "$TTL") ;;
	cold) flags=(--cache "$REDIS?prefix=$PREFIX&prefill=0" --client-cache-ttl "$TTL") ;;
	*) die "CONFIGS: unknown configuration '$cfg' (db, warm, cold)" ;;
	esac
	"$TB" run --db "$URL" --workload "$WORKLOAD" --threads "$THREADS" --warmup "$WARMUP" --duration "$DURATION" \
		--seed "$i" "${flags[@]}" --out "$out" >"$WORK/out" 2>&1 || die "run $cfg $i failed: $(tail -3 "$WORK/out")"
	local x='.experiments[0]'
	tput[$cfg]+="$(jq -r "$x.throughput" "$out") "
	p50[$cfg]+="$(jq -r "$x.latency_us.read.p50 / 1000" "$out") "
	p99[$cfg]+="$(jq -r "$x.latency_us.read.p99 / 1000" "$out") "
	jq -r --arg cfg "$cfg" --arg i "$i" --arg load "$(cut -d' ' -f1 /proc/loadavg)" "$x"' |
		"\($cfg) \($i): \(.throughput | floor) req/s, read p50/p99 \(.latency_us.read.p50 / 1000)/\(.latency_us.read.p99 / 1000) ms, load \($load)" +
		(if .consistency == null then ""
		elif .consistency.check_only then
			"\n    no tiers: the staleness checker alone, \(.consistency.tiers.db.served) database reads checked (1 in \(.consistency.check_every)), \(.consistency.tiers.db.stale) stale" +
			"\n    rows: " + ([.fidelity.rows[] | select(.figure | startswith("stale reads")) | "\(.figure) \(.observed) vs \(.target) \(.verdict)"] | join("; "))
		else
			([.consistency.tiers as $t | .latency_by_tier_us as $l | ["client_cache", "tao", "db"][] as $n |
				"\n    \($n): served \($t[$n].served) (\(($t[$n].served / ([$t[]?.served] | add) * 1000 | round) / 10)%), hit ratio \(($t[$n].hit_ratio * 1000 | round) / 10)%, stale \($t[$n].stale) (\(($t[$n].stale_share * 100000 | round) / 1000)%), at the clients p50/p99 \(($l[$n].p50 // 0) / 1000)/\(($l[$n].p99 // 0) / 1000) ms"] | add) +
			(if .consistency.prefill == null then "\n    no prefill" else
				(.consistency.prefill | "\n    prefill: \(.objects) objects, \(.edges) edges, \(.lists) lists (\(.complete_lists) complete), \(.errors) errors, \(.seconds * 10 | round / 10) s, done \(.done)") end) +
			"\n    rows: " + ([.fidelity.rows[] | select(.figure | startswith("reads served by") or startswith("stale reads")) |
				"\(.figure | sub("reads served by "; "")) \((.observed * 1000 | round) / 10)% vs \((.target * 1000 | round) / 10)% \(.verdict)"] | join("; "))
		end)' "$out"
}

for i in $(seq 1 "$ROUNDS"); do
	for cfg in $CONFIGS; do
		one "$cfg" "$i"
	done
done
echo "# medians of $ROUNDS: throughput (req/s), read p50, p99 (ms)"
for cfg in $CONFIGS; do
	# shellcheck disable=SC2086 # word splitting of the lists is meant
	echo "$cfg: $(median ${tput[$cfg]}) req/s, read p50 $(median ${p50[$cfg]}) ms, p99 $(median ${p99[$cfg]}) ms"
done
echo "# load average at the end $(cut -d' ' -f1-3 /proc/loadavg)"
