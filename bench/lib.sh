# shellcheck shell=bash
# Helpers shared by the bench scripts; sourced, not run.
#
# Every script measures, prints each raw run and the median, and cleans up
# what it created (databases, files, processes it started) on any exit.

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

die() {
	echo "$(basename "$0"): $*" >&2
	exit 1
}

need() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || die "needs '$c', which is not on PATH"
	done
}

# median prints the median of its arguments (the mean of the middle two for
# an even count).
median() {
	[[ $# -gt 0 ]] || die "median of nothing"
	printf '%s\n' "$@" | sort -g | awk '{a[NR] = $1} END {if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2}'
}

# calc evaluates an arithmetic expression with awk, printing with format $1.
calc() {
	local fmt=$1
	shift
	awk "BEGIN {printf \"$fmt\", $*}"
}

# build_taobench sets TB to the taobench binary: $TAOBENCH if given, else
# one built from this checkout into $WORK.
build_taobench() {
	if [[ -n "${TAOBENCH:-}" ]]; then
		[[ -x "$TAOBENCH" ]] || die "TAOBENCH=$TAOBENCH is not an executable file"
		TB=$TAOBENCH
		return
	fi
	need go
	echo "building taobench from $ROOT" >&2
	(cd "$ROOT" && go build -o "$WORK/taobench" ./cmd/taobench) || die "go build ./cmd/taobench failed"
	TB=$WORK/taobench
}

# machine describes where the figures were measured.
machine() {
	local cpu
	cpu=$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)
	echo "$(date -u +%Y-%m-%dT%H:%MZ), $(nproc) CPUs (${cpu:-unknown}), $(awk '/^MemTotal/ {printf "%.0f GB", $2 / 1048576}' /proc/meminfo) RAM, load average at start $(cut -d' ' -f1-3 /proc/loadavg)"
}

# field prints the value after "label" in file (the text after the first
# occurrence of label on its line, up to the next space), or fails.
field() {
	local label=$1 file=$2 v
	v=$(awk -v l="$label" 'index($0, l) {s = substr($0, index($0, l) + length(l)); sub(/^[ \t]+/, "", s); sub(/[ \t].*/, "", s); print s; exit}' "$file")
	[[ -n "$v" ]] || die "no '$label' in $file: $(tail -3 "$file" | tr '\n' ' ')"
	echo "$v"
}

# now prints seconds since the epoch with nanoseconds.
now() { date +%s.%N; }

# ticks pid...: the processes' user + system CPU in clock ticks, and how
# many of them are still there ("ticks count"); one process, not one per pid,
# so that a sample stays quick on a busy machine.
ticks() {
	local p
	for p in "$@"; do echo "/proc/$p/stat"; done | xargs cat 2>/dev/null |
		# fields after the command's closing parenthesis: utime is the 12th, stime the 13th.
		awk '{sub(/.*\) /, ""); s += $12 + $13; n++} END {print s + 0, n + 0}'
}

# sleep_until expr: sleeps until the time (seconds since the epoch) awk's expr gives.
sleep_until() {
	local d
	d=$(awk "BEGIN {d = $1 - $(now); print (d > 0 ? d : 0)}")
	sleep "$d"
}

# wait_quiet what: before a round, waits until the 1-minute load average
# is under QUIET_LOAD (default 1.5: issue 38 asks for "load average under
# 1.5 at each round's start"), checking every 5 s for at most QUIET_WAIT
# seconds (default 300; 0 does not wait), then prints the load average at
# the round's start, and says so when the cap was hit: that round's
# figures are a busy machine's. The 1-minute average decays with a time
# constant of a minute, so after a round of 16-32 clients it takes about
# two minutes to fall under 1.5 on an otherwise idle machine.
wait_quiet() {
	local what=$1 start=$SECONDS load
	load=$(cut -d' ' -f1 /proc/loadavg)
	while awk "BEGIN {exit !($load >= $QUIET_LOAD)}" && ((SECONDS - start + 5 <= QUIET_WAIT)); do
		sleep 5
		load=$(cut -d' ' -f1 /proc/loadavg)
	done
	if awk "BEGIN {exit !($load >= $QUIET_LOAD)}"; then
		echo "$what: load average $load at its start, not under $QUIET_LOAD after waiting $((SECONDS - start)) s (the cap, QUIET_WAIT=$QUIET_WAIT): a busy machine's figures"
	else
		echo "$what: load average $load at its start (under $QUIET_LOAD after waiting $((SECONDS - start)) s)"
	fi
}
QUIET_LOAD=${QUIET_LOAD:-1.5}
QUIET_WAIT=${QUIET_WAIT:-300}

# check_quiet refuses a QUIET_LOAD or QUIET_WAIT wait_quiet cannot use,
# before anything is built or loaded.
check_quiet() {
	[[ "$QUIET_LOAD" =~ ^[0-9]+(\.[0-9]+)?$ ]] ||
		{ echo "$(basename "$0"): QUIET_LOAD=$QUIET_LOAD: give a load average such as 1.5" >&2; exit 2; }
	[[ "$QUIET_WAIT" =~ ^[0-9]+$ ]] ||
		{ echo "$(basename "$0"): QUIET_WAIT=$QUIET_WAIT: give whole seconds such as 300 (0: no wait)" >&2; exit 2; }
}

# ratio_ci label "n1 n2 ..." "d1 d2 ...": the ratio of the first figures to
# the second, paired round by round (one figure per round in each list, in
# the same order), with its 95% interval: `taobench ratio` (stats.Ratio:
# the geometric mean of the rounds' ratios, Student's t over their logs;
# docs/performance.md "Ratios with intervals"). Needs TB.
ratio_ci() {
	local label=$1 i
	local -a n d
	read -ra n <<<"$2"
	read -ra d <<<"$3"
	[[ ${#n[@]} -eq ${#d[@]} && ${#n[@]} -gt 0 ]] || die "ratio_ci $label: ${#n[@]} figures over ${#d[@]}"
	for i in "${!n[@]}"; do echo "${n[i]} ${d[i]}"; done | "$TB" ratio --label "$label" || die "taobench ratio failed for $label"
}

# column name k: field k (from 0) of each line of space-separated figures
# in array name, space-separated: the totals of "total user system" triples.
column() {
	local -n v=$1
	local x out=
	local -a f
	for x in "${v[@]}"; do
		read -ra f <<<"$x"
		out+="${out:+ }${f[$2]}"
	done
	echo "$out"
}
