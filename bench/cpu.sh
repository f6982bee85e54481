#!/usr/bin/env bash
# bench/cpu.sh: the driver's CPU time per request at 16 clients, on
# PostgreSQL and MariaDB (or MySQL), in user space and in the kernel apart.
#
# For each server: a fresh database, `taobench load --edges $EDGES` (not
# timed: a separate process), then $ROUNDS times
#   /usr/bin/time -v taobench run --db URL --workload o --threads 16 --warmup 0 --duration $DURATION
# and CPU per request = (user + system seconds of that process) /
# "Total completed operations excluding warmup", with the user and the
# system part printed apart: the user part is the client's own code; the
# system part is the kernel's work for the same one write and one read per
# request, most of it waking the server's process and being preempted by it,
# which moves with the machine's scheduling more than with the client
# (docs/performance.md, "Where a request's CPU goes").
# Each round also runs the floors, each at the same 16 clients, with
# bench/rtt, one prepared "SELECT $1" round trip per request:
#   floor: through the same driver and pool as taobench (pgx's pool,
#     database/sql for MySQL), a goroutine per client;
#   raw (PostgreSQL): the protocol encoded and parsed by hand, a goroutine
#     per client on Go's network poller: the Go runtime's own cost;
#   loop (PostgreSQL): the same by hand, one OS thread polling every
#     connection with epoll: pgbench -j 1's architecture, in Go.
# And each round runs the server's own C benchmark client at the same client
# count, the cheapest request there: `pgbench -S -M prepared` (one primary-key
# SELECT per transaction, on pgbench's own tables in the same database) and
# `mysqlslap` (one primary-key SELECT of a taobench object per query); its
# CPU per request, user + system from GNU time, is what a round trip costs a
# well-made client on this machine.
# On PostgreSQL each round also compares the two clients on the same
# request: taobench with bench/objread.workload (object reads only, keys
# uniform over the loaded objects) against pgbench -M prepared running
# taobench's own statement on the same objects (a script drawing the ids
# uniformly, written from the load's per-shard object counts), and beside
# them bench/rtt --raw making the same request by hand (the loaded objects'
# ids, shuffled). Workload o's requests cost the server, and with it the
# client's kernel, more than pgbench -S's; these show what each client adds
# on a request all three make.
# And on PostgreSQL each round takes workload o apart: taobench on o's
# single reads alone (object and edge point reads, o's shards and skew),
# then on o without its writes (those reads and its read transactions),
# each beside pgbench -S, with the requests per second and the client's CPU
# in cores of every client: on a machine the client and the server share,
# a closed-loop client's CPU per request is its share of the cores over the
# throughput the server allows, so a request mix the server finds costlier
# raises the client's CPU per request too (docs/performance.md, "Workload o
# taken apart").
# With COMPARE=/path/to/another/taobench each round also runs that binary
# (interleaved, so both see the same machine), for before/after figures.
# Each ratio is printed as the median of the rounds and, after them, as the
# geometric mean of the rounds' ratios with its 95% interval (taobench
# ratio): ROUNDS=5 or more gives an interval worth quoting.
#
# Usage: bench/cpu.sh
# Environment: PG (default postgres://postgres@127.0.0.1:5432), MY (default
# mysql://root@127.0.0.1:3306; empty skips it, as PG= skips PostgreSQL),
# EDGES (200000), DURATION (20s), ROUNDS (3), THREADS (16), SLAP_QUERIES
# (queries per mysqlslap round, 320000), TAOBENCH, COMPARE, QUIET_LOAD
# (1.5) and QUIET_WAIT (300): before each round the script waits until the
# 1-minute load average is under QUIET_LOAD, for at most QUIET_WAIT
# seconds, and prints the load at the round's start (and when the cap was
# hit instead).
set -euo pipefail
source "$(dirname "$0")/lib.sh"

PG=${PG-postgres://postgres@127.0.0.1:5432}
MY=${MY-mysql://root@127.0.0.1:3306}
EDGES=${EDGES:-200000}
DURATION=${DURATION:-20s}
ROUNDS=${ROUNDS:-3}
THREADS=${THREADS:-16}
COMPARE=${COMPARE:-}
SLAP_QUERIES=${SLAP_QUERIES:-320000}
[[ -x /usr/bin/time ]] || die "needs GNU time at /usr/bin/time (apt-get install time)"
[[ -z "$COMPARE" || -x "$COMPARE" ]] || die "COMPARE=$COMPARE is not an executable file"
check_quiet

WORK=$(mktemp -d /tmp/taobench-cpu.XXXXXX)
DB=tbbench_cpu_$$
PGDB=
MYDB=
cleanup() {
	local rc=$?
	if [[ -n "$PGDB" ]]; then
		psql -X -q "$PG/postgres?sslmode=disable" -c "DROP DATABASE IF EXISTS $PGDB WITH (FORCE)" >/dev/null 2>&1 ||
			echo "cpu.sh: could not drop PostgreSQL database $PGDB; drop it by hand" >&2
	fi
	if [[ -n "$MYDB" ]]; then
		mysqlcli -e "DROP DATABASE IF EXISTS $MYDB" >/dev/null 2>&1 ||
			echo "cpu.sh: could not drop MySQL database $MYDB; drop it by hand" >&2
	fi
	rm -rf "$WORK"
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# MY_ARGS are the mysql clients' connection options for $MY (user, host,
# port), MY_PASS its password.
MY_ARGS=()
MY_PASS=
if [[ -n "$MY" ]]; then
	rest=${MY#mysql://}
	auth=${rest%@*}
	host=${rest##*@}
	host=${host%%/*}
	[[ "$auth" == *:* ]] && MY_PASS=${auth#*:}
	MY_ARGS=(--protocol=tcp -h "${host%:*}" -P "${host##*:}" -u "${auth%%:*}")
fi

# mysqlcli runs the mysql client against $MY.
mysqlcli() { MYSQL_PWD=$MY_PASS mysql "${MY_ARGS[@]}" "$@"; }

[[ "$DURATION" =~ ^[0-9]+s?$ ]] || die "DURATION=$DURATION: give whole seconds (20 or 20s); pgbench takes seconds"

build_taobench
(cd "$ROOT" && go build -o "$WORK/rtt" ./bench/rtt) || die "go build ./bench/rtt failed"

# run_one bin url [workload]: runs taobench under GNU time (workload o by
# default) and prints its CPU per request, "total user system" in us, and
# the requests.
run_one() {
	local bin=$1 url=$2 workload=${3:-o} ops user sys errors
	/usr/bin/time -v -o "$WORK/time" "$bin" run --db "$url" --workload "$workload" --threads "$THREADS" --warmup 0 --duration "$DURATION" \
		>"$WORK/run.out" 2>"$WORK/run.err" || die "taobench run failed: $(tail -3 "$WORK/run.err")"
	ops=$(field 'Total completed operations excluding warmup:' "$WORK/run.out")
	user=$(field 'User time (seconds):' "$WORK/time")
	sys=$(field 'System time (seconds):' "$WORK/time")
	errors=$(awk '/^outcomes:/ {for (i = 1; i < NF; i++) if ($i == "error") print $(i + 1)}' "$WORK/run.out")
	[[ "${errors:-0}" == 0 ]] || echo "  warning: $errors requests ended in error" >&2
	echo "$(cpu_per "$WORK/time" "$ops") $ops"
}

# cpu_per file n: prints the CPU per request in us, "total user system",
# from GNU time's output in file for n requests.
cpu_per() {
	local user sys
	user=$(field 'User time (seconds):' "$1")
	sys=$(field 'System time (seconds):' "$1")
	echo "$(calc %.2f "($user + $sys) * 1e6 / $2") $(calc %.2f "$user * 1e6 / $2") $(calc %.2f "$sys * 1e6 / $2")"
}

# rtt url [mode flag]: runs bench/rtt and prints its CPU per round trip,
# "total user system" in us.
rtt() {
	local url=$1
	shift
	"$WORK/rtt" "$@" --db "$url" --clients "$THREADS" --duration "$DURATION" >"$WORK/rtt.out" 2>&1 ||
		die "bench/rtt $* failed: $(cat "$WORK/rtt.out")"
	awk '{t = ""; for (i = 1; i < NF; i++) {
		if ($(i + 1) == "us" && t == "") t = $i
		if ($(i + 1) == "us-user,") { u = $i; sub(/^\(/, "", u) }
		if ($(i + 1) == "us-system)") s = $i }
		if (t != "" && u != "" && s != "") print t, u, s }' "$WORK/rtt.out" | grep . ||
		die "no figure from bench/rtt $*: $(cat "$WORK/rtt.out")"
}

# show "total user system": prints "total us (user U + system S)".
show() { echo "$1 us (user $2 + system $3)"; }

# native url: runs the server's own C benchmark client (see the top) and
# prints its CPU per request, "total user system" in us.
native() {
	local url=$1 n
	if [[ $url == postgres* ]]; then
		/usr/bin/time -v -o "$WORK/ntime" pgbench -n -S -M prepared -c "$THREADS" -j 1 -T "${DURATION%s}" "$url" \
			>"$WORK/native.out" 2>&1 || die "pgbench failed: $(tail -3 "$WORK/native.out")"
		n=$(awk '/number of transactions actually processed/ {split($NF, a, "/"); print a[1]}' "$WORK/native.out")
	else
		local db=${url##*/} id
		id=$(mysqlcli -N -e "SELECT MIN(id) FROM $db.objects") || die "cannot read $db.objects"
		MYSQL_PWD=$MY_PASS /usr/bin/time -v -o "$WORK/ntime" mysqlslap "${MY_ARGS[@]}" --concurrency="$THREADS" --iterations=1 \
			--number-of-queries="$SLAP_QUERIES" --create-schema="$db" --query="SELECT id, timestamp, value FROM objects WHERE id = $id" \
			>"$WORK/native.out" 2>&1 || die "mysqlslap failed: $(tail -3 "$WORK/native.out")"
		n=$SLAP_QUERIES
	fi
	[[ -n "$n" && "$n" -gt 0 ]] || die "no request count from the native client: $(tail -3 "$WORK/native.out")"
	echo "$(cpu_per "$WORK/ntime" "$n") $n"
}

# o_parts: writes workload o with its writes left out ($WORK/onowrite.workload:
# its single reads and read transactions) and with its single reads alone
# ($WORK/oreads.workload), everything else (shards, skew, read types) o's.
o_parts() {
	local o=$ROOT/workload/builtin/o.workload
	grep -q '^operations read:[0-9]* write:[0-9]* read_txn:[0-9]* write_txn:[0-9]*$' "$o" ||
		die "$o: its operations line is not the one o_parts rewrites; update bench/cpu.sh"
	sed -e 's/^name o$/name onowrite/' -e 's/^operations read:\([0-9]*\) write:[0-9]* read_txn:\([0-9]*\) write_txn:[0-9]*$/operations read:\1 read_txn:\2/' \
		"$o" >"$WORK/onowrite.workload"
	sed -e 's/^name o$/name oreads/' -e 's/^operations .*/operations read:1/' "$o" >"$WORK/oreads.workload"
}

# rate ops: requests per second over DURATION.
rate() { calc %.0f "$1 / ${DURATION%s}"; }

# cores us ops: the client's CPU in cores (seconds per second) for ops
# requests at us per request over DURATION.
cores() { calc %.2f "$1 * $2 / 1e6 / ${DURATION%s}"; }

# objread_script url: writes $WORK/objread.sql, a pgbench script making
# taobench's object read (its statement, prepared by -M prepared) of an
# object drawn uniformly from the freshly loaded ones. A loaded object's id
# is shard << 57 | index, with indexes 0 to count-1 in each shard (tao.ID):
# the script draws n over all of them and maps it to its shard and index.
objread_script() {
	local url=$1
	psql -X -A -t -F ' ' "$url" -c 'SELECT id >> 57, count(*), max(id & ((1::bigint << 57) - 1)) FROM objects GROUP BY 1 ORDER BY 1' \
		>"$WORK/shards" || die "cannot count the objects per shard"
	awk '$3 != $2 - 1 { bad = 1 } END { exit bad }' "$WORK/shards" ||
		die "objects are not a fresh load's (indexes 0 to count-1 per shard): $(head -3 "$WORK/shards")"
	awk '{ shard[NR] = $1; cum[NR] = (NR > 1 ? cum[NR - 1] : 0) + $2 }
	END {
		s = "case"; o = "case"
		for (i = 1; i < NR; i++) {
			s = s " when :n < " cum[i] " then " shard[i]
			o = o " when :n < " cum[i] " then " (i > 1 ? cum[i - 1] : 0)
		}
		s = s " else " shard[NR] " end"; o = o " else " (NR > 1 ? cum[NR - 1] : 0) " end"
		print "\\set n random(0, " cum[NR] - 1 ")"
		print "\\set s " s
		print "\\set id (:s << 57) | (:n - (" o "))"
		print "SELECT version, timestamp, value FROM objects WHERE id = :id;"
	}' "$WORK/shards" >"$WORK/objread.sql"
	psql -X -A -t "$url" -c 'SELECT id FROM objects ORDER BY random()' >"$WORK/objids" || die "cannot list the objects"
}

# OBJREAD is taobench's object read on PostgreSQL (store/sqlstore/dialect.go).
OBJREAD='SELECT version, timestamp, value FROM objects WHERE id = $1'

# same_pgbench url: runs pgbench on $WORK/objread.sql and prints its CPU per
# request, "total user system" in us.
same_pgbench() {
	local n
	/usr/bin/time -v -o "$WORK/stime" pgbench -n -f "$WORK/objread.sql" -M prepared -c "$THREADS" -j 1 -T "${DURATION%s}" "$1" \
		>"$WORK/same.out" 2>&1 || die "pgbench -f objread.sql failed: $(tail -3 "$WORK/same.out")"
	n=$(awk '/number of transactions actually processed/ {split($NF, a, "/"); print a[1]}' "$WORK/same.out")
	[[ -n "$n" && "$n" -gt 0 ]] || die "no request count from pgbench -f objread.sql: $(tail -3 "$WORK/same.out")"
	grep -q 'number of failed transactions: 0 ' "$WORK/same.out" || ! grep -q 'number of failed transactions' "$WORK/same.out" ||
		die "pgbench -f objread.sql had failed transactions: $(grep failed "$WORK/same.out")"
	cpu_per "$WORK/stime" "$n"
}

# ratios "a au as" "c cu cs": prints a/c for the total, user and system.
ratios() {
	read -r a au as <<<"$1"
	read -r c cu cs <<<"$2"
	echo "$(calc %.2f "$a / $c") $(calc %.2f "$au / $cu") $(calc %.2f "$as / $cs")"
}

# med name: the medians, field by field, of the lines of space-separated
# figures in array name (each line as many), space-separated: "total user
# system" for the CPU triples.
med() {
	local -n v=$1
	local -a first f col
	local x i out=
	read -ra first <<<"${v[0]}"
	for i in "${!first[@]}"; do
		col=()
		for x in "${v[@]}"; do
			read -ra f <<<"$x"
			col+=("${f[i]}")
		done
		out+="${out:+ }$(median "${col[@]}")"
	done
	echo "$out"
}

# bench name url: loads and measures one server.
bench() {
	local name=$1 url=$2 r ops tops
	local -a TBV CMP FLOOR RAW LOOP NAT RAT NRAT SAMET SAMER SAMEP SRAT PREAD PNOW PRAT ORATE NRATE
	"$TB" load --db "$url" --workload o --edges "$EDGES" >/dev/null 2>"$WORK/load.err" ||
		die "taobench load into $name failed: $(tail -3 "$WORK/load.err")"
	echo "$name: loaded $EDGES edges ($(sed -n 's/^loaded \([0-9]*\) rows.*/\1 rows/p' "$WORK/load.err"))"
	if [[ $url == postgres* ]]; then
		objread_script "$url"
		o_parts
		pgbench -i -q -s 10 "$url" >"$WORK/pgbench-init.out" 2>&1 || die "pgbench -i failed: $(tail -3 "$WORK/pgbench-init.out")"
	fi
	for r in $(seq "$ROUNDS"); do
		wait_quiet "  round $r"
		read -r a au as ops < <(run_one "$TB" "$url")
		TBV+=("$a $au $as")
		tops=$ops
		echo "  round $r: taobench $(show "$a" "$au" "$as") per request ($ops requests)"
		if [[ -n "$COMPARE" ]]; then
			read -r b bu bs ops < <(run_one "$COMPARE" "$url")
			CMP+=("$b $bu $bs")
			echo "    COMPARE $(show "$b" "$bu" "$bs") ($ops requests)"
		fi
		read -r f fu fs < <(rtt "$url")
		FLOOR+=("$f $fu $fs")
		RAT+=("$(ratios "$a $au $as" "$f $fu $fs")")
		line="    floor (Go, same driver) $(show "$f" "$fu" "$fs")"
		if [[ $url == postgres* ]]; then
			read -r w wu ws < <(rtt "$url" --raw)
			RAW+=("$w $wu $ws")
			read -r l lu ls < <(rtt "$url" --loop)
			LOOP+=("$l $lu $ls")
			line+="; raw (Go, by hand) $(show "$w" "$wu" "$ws"); loop (Go, epoll) $(show "$l" "$lu" "$ls")"
		fi
		echo "$line"
		read -r c cu cs cn < <(native "$url")
		NAT+=("$c $cu $cs")
		NRAT+=("$(ratios "$a $au $as" "$c $cu $cs")")
		read -r x xu xs <<<"${NRAT[-1]}"
		echo "    $NATIVE_NAME $(show "$c" "$cu" "$cs"); taobench/$NATIVE_NAME $x (user $xu, system $xs)"
		if [[ $url == postgres* ]]; then
			read -r o ou os ops < <(run_one "$TB" "$url" "$ROOT/bench/objread.workload")
			SAMET+=("$o $ou $os")
			read -r h hu hs < <(rtt "$url" --raw --query "$OBJREAD" --keys "$WORK/objids")
			SAMER+=("$h $hu $hs")
			read -r p pu ps < <(same_pgbench "$url")
			SAMEP+=("$p $pu $ps")
			SRAT+=("$(ratios "$o $ou $os" "$p $pu $ps")")
			read -r x xu xs <<<"${SRAT[-1]}"
			echo "    same request (object read): taobench $(show "$o" "$ou" "$os"), raw (Go, by hand) $(show "$h" "$hu" "$hs"), pgbench $(show "$p" "$pu" "$ps"); taobench/pgbench $x (user $xu, system $xs)"
			# o taken apart: its single reads alone, then with its read
			# transactions, then o; each beside pgbench -S, with the
			# requests per second and the client's CPU in cores, as a
			# client's CPU per request on a saturated machine is its CPU
			# share over the throughput the server allows.
			read -r q qu qs qops < <(run_one "$TB" "$url" "$WORK/oreads.workload")
			PREAD+=("$q $qu $qs")
			read -r v vu vs vops < <(run_one "$TB" "$url" "$WORK/onowrite.workload")
			PNOW+=("$v $vu $vs")
			PRAT+=("$(calc %.2f "$q / $c") $(calc %.2f "$v / $c") $(calc %.2f "$a / $c")")
			ORATE+=("$(rate "$qops") $(rate "$vops") $(rate "$tops") $(rate "$cn")")
			NRATE+=("$(cores "$q" "$qops") $(cores "$v" "$vops") $(cores "$a" "$tops") $(cores "$c" "$cn")")
			read -r x1 x2 x3 <<<"${PRAT[-1]}"
			echo "    o taken apart, against pgbench -S: single reads alone $(show "$q" "$qu" "$qs") $x1; with read transactions (no writes) $(show "$v" "$vu" "$vs") $x2; o $x3"
			read -r r1 r2 r3 r4 <<<"${ORATE[-1]}"
			read -r k1 k2 k3 k4 <<<"${NRATE[-1]}"
			echo "      requests/s and client CPU in cores: single reads $r1, $k1; no writes $r2, $k2; o $r3, $k3; pgbench -S $r4, $k4"
		fi
	done
	echo "$name, medians of $ROUNDS rounds (us per request: total (user + system)):"
	echo "  taobench  $(show $(med TBV))"
	[[ -n "$COMPARE" ]] && echo "  COMPARE   $(show $(med CMP))"
	echo "  floor     $(show $(med FLOOR)); taobench/floor $(med RAT | awk '{print $1 " (user " $2 ", system " $3 ")"}')"
	if [[ $url == postgres* ]]; then
		echo "  raw       $(show $(med RAW))"
		echo "  loop      $(show $(med LOOP))"
	fi
	echo "  $NATIVE_NAME $(show $(med NAT)); taobench/$NATIVE_NAME $(med NRAT | awk '{print $1 " (user " $2 ", system " $3 ")"}')"
	if [[ $url == postgres* ]]; then
		echo "  same request (object read): taobench $(show $(med SAMET)), raw (Go, by hand) $(show $(med SAMER)), pgbench $(show $(med SAMEP)); taobench/pgbench $(med SRAT | awk '{print $1 " (user " $2 ", system " $3 ")"}')"
		echo "  o taken apart, against pgbench -S: single reads alone $(show $(med PREAD)); with read transactions (no writes) $(show $(med PNOW)); ratios $(med PRAT | awk '{print $1 ", " $2 ", o " $3}')"
		echo "    requests/s (single reads, no writes, o, pgbench -S): $(med ORATE | sed 's/ /, /g'); client CPU in cores: $(med NRATE | sed 's/ /, /g')"
	fi
	# The same ratios round by round, with their 95% intervals: a median of
	# 3 says nothing of how far the rounds moved (docs/performance.md
	# "Ratios with intervals"). CPU per request, totals (user + system).
	echo "$name, CPU per request ratios over the $ROUNDS rounds, geometric mean with its 95% interval:"
	ratio_ci "  taobench/floor" "$(column TBV 0)" "$(column FLOOR 0)"
	ratio_ci "  taobench/$NATIVE_NAME" "$(column TBV 0)" "$(column NAT 0)"
	[[ -n "$COMPARE" ]] && ratio_ci "  taobench/COMPARE" "$(column TBV 0)" "$(column CMP 0)"
	if [[ $url == postgres* ]]; then
		ratio_ci "  same request, taobench/pgbench" "$(column SAMET 0)" "$(column SAMEP 0)"
		ratio_ci "  single reads alone/pgbench -S" "$(column PREAD 0)" "$(column NAT 0)"
		ratio_ci "  no writes/pgbench -S" "$(column PNOW 0)" "$(column NAT 0)"
	fi
	echo
}

echo "machine: $(machine)"
echo "taobench run --workload o --threads $THREADS --warmup 0 --duration $DURATION; CPU = user + system time of the run process"
[[ -n "$COMPARE" ]] && echo "COMPARE: $COMPARE"
echo
if [[ -n "$PG" ]]; then
	need psql pgbench
	NATIVE_NAME=pgbench
	psql -X -q "$PG/postgres?sslmode=disable" -c "CREATE DATABASE $DB" || die "cannot create database $DB at $PG"
	PGDB=$DB
	bench "PostgreSQL $(psql -X -A -t "$PG/postgres?sslmode=disable" -c 'SHOW server_version' | cut -d' ' -f1)" "$PG/$DB?sslmode=disable"
fi
if [[ -n "$MY" ]]; then
	need mysql mysqlslap
	NATIVE_NAME=mysqlslap
	mysqlcli -e "CREATE DATABASE $DB" || die "cannot create database $DB at $MY"
	MYDB=$DB
	bench "MySQL protocol ($(mysqlcli -N -e 'SELECT VERSION()'))" "$MY/$DB"
fi
