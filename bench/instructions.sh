#!/usr/bin/env bash
# bench/instructions.sh: the driver's user-space instructions per request on
# PostgreSQL, counted by valgrind's callgrind: a figure that does not move
# with how busy the machine is, for changes too small for CPU time to show
# (CPU per request moves by 10-15% between runs of bench/cpu.sh).
#
# It runs one of store/sqlstore's benchmarks (BenchmarkPostgresRequest: one
# single read after another on the watched path, as a run's client makes
# them) under callgrind twice, for N1 and N2 requests, and takes
# (instructions at N2 - instructions at N1) / (N2 - N1): the set-up (a fresh
# database, the load) cancels out. GOMAXPROCS=1 so that no idle thread
# spins looking for work while valgrind slows everything, GOGC=off so that
# when the collector happens to run does not move the count (allocation
# itself is counted; the collection it would cause later is not), and
# GODEBUG=asyncpreemptoff=1 because callgrind fails on the runtime's
# preemption signals, and GODEBUG=cpu.rdtscp=off because valgrind 3.19
# does not know RDTSCP, which the runtime's clock uses on CPUs that have it
# (AMD Zen: "unhandled instruction bytes: 0xF 0x1 0xF9", then SIGILL).
# What still moves the total by 10-30% between runs is
# the scheduler: how long an idle client spins looking for work before it
# sleeps in the network poller. So the figure compared is the total less
# what runtime.schedule spent, inclusive (callgrind_annotate): the
# client's own path, the same within about 2% from run to run; the total
# is printed beside it. The kernel's work (the system calls, most of a
# request's CPU) is not counted: this is what the client's own code costs.
# CASES=client runs run's BenchmarkClientPostgres instead: one closed-loop
# client of workload o behind the staleness checker with a run's context,
# everything a request costs the client in user space (the generator, the
# recorders, the checker, the store, pgx), the set-up (a fresh database,
# the load, 2,000 requests to warm up) again cancelling out.
# With COMPARE_REV=<git revision> the same benchmark built from that
# revision (in a temporary worktree) runs too, interleaved, and the medians'
# ratio is printed, then the rounds' ratios' geometric mean with its 95%
# interval (ratio_ci; taobench is built for it, or TAOBENCH).
#
# Usage: bench/instructions.sh
# Environment: TAOBENCH_POSTGRES_URL (the tests' default:
# postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable), CASES
# (BenchmarkPostgresRequest's sub-benchmarks, default "obj_read
# edge_point_read edge_range_read"), N1 (2000), N2 (8000), ROUNDS (5),
# COMPARE_REV.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

CASES=${CASES:-obj_read edge_point_read edge_range_read}
N1=${N1:-2000}
N2=${N2:-8000}
ROUNDS=${ROUNDS:-5}
COMPARE_REV=${COMPARE_REV:-}
for v in N1 N2 ROUNDS; do
	[[ ${!v} =~ ^[1-9][0-9]*$ ]] || { echo "instructions.sh: $v=${!v} is not a positive whole number" >&2; exit 2; }
done
((N2 > N1)) || { echo "instructions.sh: N2=$N2 must be above N1=$N1" >&2; exit 2; }
need go valgrind callgrind_annotate git

WORK=$(mktemp -d /tmp/taobench-instr.XXXXXX)
cleanup() {
	local rc=$?
	[[ -d "$WORK/compare" ]] && git -C "$ROOT" worktree remove --force "$WORK/compare" >/dev/null 2>&1
	rm -rf "$WORK"
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The package the cases' benchmarks are in, and a case's -test.bench.
PKG=./store/sqlstore/
[[ " $CASES " == *" client "* ]] && PKG=./run/
for c in $CASES; do
	[[ $c == client || $PKG == ./store/sqlstore/ ]] ||
		{ echo "instructions.sh: CASES=$CASES: give client alone or BenchmarkPostgresRequest's cases" >&2; exit 2; }
done
bench_name() {
	if [[ $1 == client ]]; then echo 'ClientPostgres$'; else echo "PostgresRequest/$1\$"; fi
}

builds=(this)
(cd "$ROOT" && go test -c -o "$WORK/this.test" "$PKG") || die "go test -c $PKG failed"
if [[ -n "$COMPARE_REV" ]]; then
	git -C "$ROOT" rev-parse --verify --quiet "$COMPARE_REV^{commit}" >/dev/null ||
		{ echo "instructions.sh: COMPARE_REV=$COMPARE_REV is not a commit of $ROOT" >&2; exit 2; }
	git -C "$ROOT" worktree add --detach -q "$WORK/compare" "$COMPARE_REV"
	(cd "$WORK/compare" && go test -c -o "$WORK/compare.test" "$PKG") || die "go test -c $PKG at $COMPARE_REV failed"
	builds+=(compare)
fi

# count prints the instructions callgrind collected for n requests of case c
# by build b.
count() {
	local b=$1 c=$2 n=$3 out
	out=$WORK/$b.$c.$n.out
	GOGC=off GOMAXPROCS=1 GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off valgrind --tool=callgrind --callgrind-out-file="$WORK/cg.out" \
		"$WORK/$b.test" -test.run XXX -test.bench "$(bench_name "$c")" -test.benchtime "${n}x" >"$out" 2>&1 ||
		{ cat "$out" >&2; die "the benchmark failed under valgrind (build $b, case $c, $n requests)"; }
	local total sched
	total=$(awk '/Collected :/ {print $NF; found = 1} END {if (!found) exit 1}' "$out") || die "no instruction count in $out"
	sched=$(callgrind_annotate --inclusive=yes "$WORK/cg.out" 2>/dev/null |
		awk '!found && /:runtime\.schedule \[/ {gsub(",", "", $1); print $1; found = 1}')
	echo "$total ${sched:-0}"
}

echo "machine: $(machine)"
echo "user-space instructions per request outside the scheduler (total with it), callgrind, (I($N2) - I($N1)) / $((N2 - N1)); builds: this checkout${COMPARE_REV:+, COMPARE_REV=$COMPARE_REV}"
declare -A raw m
for r in $(seq 1 "$ROUNDS"); do
	for c in $CASES; do
		line="round $r $c:"
		for b in "${builds[@]}"; do
			read -r t1 s1 < <(count "$b" "$c" "$N1")
			read -r t2 s2 < <(count "$b" "$c" "$N2")
			per=$(calc '%.0f' "(($t2 - $s2) - ($t1 - $s1)) / ($N2 - $N1)")
			tot=$(calc '%.0f' "($t2 - $t1) / ($N2 - $N1)")
			raw[$b.$c]+="$per "
			line+=" $b $per (total $tot)"
		done
		echo "$line"
	done
done
for c in $CASES; do
	line="median $c:"
	for b in "${builds[@]}"; do
		# shellcheck disable=SC2086
		m[$b]=$(median ${raw[$b.$c]})
		line+=" $b ${m[$b]} (raw ${raw[$b.$c]% })"
	done
	[[ -n "$COMPARE_REV" ]] && line+="; this/compare $(calc '%.2f' "${m[this]} / ${m[compare]}")"
	echo "$line"
done
if [[ -n "$COMPARE_REV" ]]; then
	build_taobench
	echo "this/compare over the $ROUNDS rounds, geometric mean with its 95% interval:"
	for c in $CASES; do
		# shellcheck disable=SC2086
		ratio_ci "$c instructions per request" "${raw[this.$c]% }" "${raw[compare.$c]% }"
	done
fi
