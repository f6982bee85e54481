#!/usr/bin/env bash
# bench/replica.sh: stale reads on a PostgreSQL streaming standby, beside
# the replay lag PostgreSQL reports (docs/tiers.md, "Read replicas").
#
# Starts a primary with two streaming standbys of its own
# (bench/cluster/postgres: initdb, pg_basebackup -R, on loopback), loads
# workload a's graph on the primary, then $RUNS times, alternately:
#  (a) taobench run --db PRIMARY --replica STANDBY --workload a: reads on the
#      standby, writes (25% of requests) on the primary;
#  (b) the same with the standby's replay paused (pg_wal_replay_pause) for
#      $PAUSE seconds, $AT seconds into the measured window.
# While each runs, the primary's pg_stat_replication.replay_lag (the most
# of the standbys) and the standby's now() - pg_last_xact_replay_timestamp()
# are sampled every 0.1 s. Prints each run's db_replica figures (reads,
# stale, share, age p50/p99/max) beside the lag samples (p50/max), and the
# medians.
#
# Usage: bench/replica.sh
# Environment: RUNS (3), EDGES (100000), THREADS (16), WARMUP (5),
# DURATION (20), PAUSE (2), AT (8), PORT (a free base port; default 25432),
# TAOBENCH (a binary; default: built from this checkout). Needs root (the
# servers run as user postgres), jq and Debian's postgresql.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
need jq psql

RUNS=${RUNS:-3} EDGES=${EDGES:-100000} THREADS=${THREADS:-16}
WARMUP=${WARMUP:-5} DURATION=${DURATION:-20} PAUSE=${PAUSE:-2} AT=${AT:-8}
PORT=${PORT:-25432}

WORK=$(mktemp -d /tmp/taobench-replica.XXXXXX)
chmod 755 "$WORK"
cleanup() {
	local rc=$?
	"$ROOT/bench/cluster/postgres" stop "$WORK/c" >/dev/null 2>&1 || true
	rm -rf "$WORK"
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

build_taobench
echo "$(machine)"
mapfile -t URLS < <("$ROOT/bench/cluster/postgres" start "$WORK/c" "$PORT")
P=${URLS[0]} S=${URLS[1]}
echo "primary $P, standby $S"
"$TB" load --db "$P" --workload a --edges "$EDGES" 2>&1 | tail -1

q() { psql -h 127.0.0.1 -p "$1" -U postgres -d taobench -XAtqc "$2"; }

# sample writes "replay_lag_ms replay_age_ms" lines every 0.1 s until killed.
sample() {
	while :; do
		echo "$(q "$PORT" "SELECT COALESCE(max(EXTRACT(EPOCH FROM replay_lag)) * 1000, 0) FROM pg_stat_replication") \
$(q $((PORT + 1)) "SELECT COALESCE(EXTRACT(EPOCH FROM now() - pg_last_xact_replay_timestamp()) * 1000, 0)")"
		sleep 0.1
	done
}

# pct P FILE COLUMN prints the P-th percentile of a column of numbers.
pct() { awk -v c="$3" '{print $c}' "$2" | sort -g | awk -v p="$1" '{a[NR] = $1} END {i = int(NR * p / 100 + 0.5); if (i < 1) i = 1; if (i > NR) i = NR; printf "%.1f", a[i]}'; }

declare -A share age50 age99 agemax
for i in $(seq 1 "$RUNS"); do
	for mode in a b; do
		out=$WORK/$mode$i.json
		sample >"$WORK/lag$mode$i" &
		sp=$!
		pp=
		if [[ $mode == b ]]; then
			(sleep $((WARMUP + AT)); q $((PORT + 1)) "SELECT pg_wal_replay_pause()" >/dev/null
			 sleep "$PAUSE"; q $((PORT + 1)) "SELECT pg_wal_replay_resume()" >/dev/null) &
			pp=$!
		fi
		"$TB" run --db "$P" --replica "$S" --workload a --threads "$THREADS" --warmup "$WARMUP" \
			--duration "$DURATION" --seed "$i" --out "$out" >/dev/null 2>"$WORK/err" || die "run failed: $(tail -3 "$WORK/err")"
		[[ -z $pp ]] || wait "$pp"
		kill "$sp"
		wait "$sp" 2>/dev/null || true
		r=$(jq -r '.experiments[0] | [.consistency.tiers.db_replica.served, .consistency.tiers.db_replica.stale,
			.consistency.tiers.db_replica.stale_share * 100, .consistency.tiers.db_replica.stale_age_us.p50 / 1000,
			.consistency.tiers.db_replica.stale_age_us.p99 / 1000, .consistency.tiers.db_replica.stale_age_us.max / 1000,
			.consistency.tiers.db.stale] | @tsv' "$out")
		read -r served stale sh a50 a99 amax dbstale <<<"$r"
		[[ $dbstale == 0 ]] || die "the primary served $dbstale stale reads: the checker is wrong"
		share[$mode]+="$sh " age50[$mode]+="$a50 " age99[$mode]+="$a99 " agemax[$mode]+="$amax "
		printf '%s run %d: standby reads %d, stale %d (%.3f%%), age p50/p99/max %.1f/%.1f/%.1f ms; replay_lag p50/max %s/%s ms, replay age p50/max %s/%s ms\n' \
			"$mode" "$i" "$served" "$stale" "$sh" "$a50" "$a99" "$amax" \
			"$(pct 50 "$WORK/lag$mode$i" 1)" "$(pct 100 "$WORK/lag$mode$i" 1)" "$(pct 50 "$WORK/lag$mode$i" 2)" "$(pct 100 "$WORK/lag$mode$i" 2)"
	done
done
for mode in a b; do
	# shellcheck disable=SC2086
	printf 'median %s: stale share %.3f%%, age p50 %.1f ms, p99 %.1f ms, max %.1f ms\n' "$mode" \
		"$(median ${share[$mode]})" "$(median ${age50[$mode]})" "$(median ${age99[$mode]})" "$(median ${agemax[$mode]})"
done
