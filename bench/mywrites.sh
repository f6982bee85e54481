#!/usr/bin/env bash
# bench/mywrites.sh: what a request costs on MariaDB, for two taobench
# builds side by side (the write procedures, docs/performance.md): the
# driver's round trips (its write and read system calls, /proc/PID/io, as
# bench/roundtrips.sh counts them) and the server's CPU (mariadbd's utime +
# stime, /proc/PID/stat; and of the server threads that served the run's
# connections, /proc/PID/task/TID/stat), each over the run process's life,
# divided by the requests it made (throughput x (warmup + duration)); and
# the throughput.
#
# For a fresh database: `taobench load --workload a --edges $EDGES` with
# COMPARE (the older build, so that the newer one meets a database without
# its procedures, as an upgrade does), then per round, per workload, a run
# of COMPARE then of this checkout's build. Workloads: a; aw, a's write
# requests alone (its single writes and write transactions, in a's
# proportions); preconditioned, half of them writes with a version check.
# The server must run on this machine.
#
# Writes go statement by statement unless the URL asks for procedures
# (writes=procedures, docs/databases.md): Q and COMPARE_Q are the URL's
# query for this checkout's build and for COMPARE, so that one build can
# be compared with itself, e.g. COMPARE=$(command -v taobench)
# COMPARE_Q=writes=procedures.
#
# Usage: bench/mywrites.sh
# Environment: MY (default mysql://root@127.0.0.1:3306), COMPARE (required:
# the build to compare with), Q and COMPARE_Q (""), WORKLOADS ("a aw
# preconditioned"), EDGES (100000), THREADS (8), WARMUP (2), DURATION (10),
# ROUNDS (3), TAOBENCH.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
need mysql python3 pgrep

MY=${MY-mysql://root@127.0.0.1:3306}
WORKLOADS=${WORKLOADS:-a aw preconditioned} EDGES=${EDGES:-100000} THREADS=${THREADS:-8}
WARMUP=${WARMUP:-2} DURATION=${DURATION:-10} ROUNDS=${ROUNDS:-3}
[[ -n "${COMPARE:-}" && -x "$COMPARE" ]] || die "COMPARE must name the taobench build to compare with"
[[ -r /proc/self/io ]] || die "needs /proc/PID/io (Linux)"
SERVER=$(pgrep -o -x mariadbd || pgrep -o -x mysqld) || die "no mariadbd or mysqld on this machine"
WORK=$(mktemp -d)
DB=taobench_myw_$$
hostport=${MY#mysql://}
hostport=${hostport#*@}
host=${hostport%:*} port=${hostport#*:}
sql() { mysql -h "$host" -P "$port" -u root -e "$1"; }
Q=${Q:-} COMPARE_Q=${COMPARE_Q:-}
export SERVER WORK DB THREADS WARMUP DURATION HOST=$host PORT=$port
trap 'sql "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1; rm -rf "$WORK"' EXIT
build_taobench
sql "CREATE DATABASE $DB"
export URL="$MY/$DB"
sed 's/^name a$/name aw/; s/^operations .*/operations write:57 write_txn:1/' "$ROOT/workload/builtin/a.workload" >"$WORK/aw.workload"
echo "# $(machine)"
"$COMPARE" load --db "$URL" --workload a --edges "$EDGES" >/dev/null

# one BIN NAME WORKLOAD QUERY: one run, the URL with QUERY; prints name, workload, throughput, write
# and read system calls per request, server CPU per request: the whole
# server's, and its threads' that served this run's connections (read from
# information_schema.PROCESSLIST's TID as they appear, so other databases'
# work on the server is left out, and so is the server's background work).
one() {
	local w=$3
	[[ $w == aw ]] && w=$WORK/aw.workload
	python3 - "$1" "$2" "$3" "$w" "$URL${4:+?$4}" <<'PY' || die "$2: taobench run failed: $(tail -3 "$WORK/err")"
import json, os, re, subprocess, sys, time
bin, name, label, w, url = sys.argv[1:6]
env = os.environ
server, hz = env["SERVER"], os.sysconf("SC_CLK_TCK")
def ticks(path):
    try:
        f = open(path).read().rsplit(")", 1)[1].split()
        return int(f[11]) + int(f[12])
    except OSError:
        return None
out = env["WORK"] + "/r.json"
c0 = ticks(f"/proc/{server}/stat")
p = subprocess.Popen([bin, "run", "--db", url, "--workload", w, "--threads", env["THREADS"], "--warmup", env["WARMUP"],
                      "--duration", env["DURATION"], "--out", out, "--format", "json"],
                     stdout=subprocess.DEVNULL, stderr=open(env["WORK"] + "/err", "w"))
io, first, last = "", {}, {}
while p.poll() is None:
    try:
        io = open(f"/proc/{p.pid}/io").read()
    except OSError:
        pass
    tids = subprocess.run(["mysql", "-h", env["HOST"], "-P", env["PORT"], "-u", "root", "-N", "-e",
                           f"SELECT TID FROM information_schema.PROCESSLIST WHERE DB = '{env['DB']}'"],
                          capture_output=True, text=True).stdout.split()
    for t in tids:
        v = ticks(f"/proc/{server}/task/{t}/stat")
        if v is not None:
            first.setdefault(t, v)
            last[t] = v
    time.sleep(0.25)
if p.returncode:
    sys.exit(1)
c1 = ticks(f"/proc/{server}/stat")
e = json.load(open(out))["experiments"][0]
io = dict(re.findall(r"(\w+): (\d+)", io))
n = e["throughput"] * e["runtime_s"]  # runtime_s: warmup and measured time
us = lambda t: t / hz * 1e6 / n
conn = sum(last[t] - first[t] for t in last)
print(f"{name:8} {label:15} {e['throughput']:8.0f} req/s  {int(io['syscw']) / n:6.2f} writes/req  "
      f"{int(io['syscr']) / n:6.2f} reads/req  {us(c1 - c0):7.1f} server-us/req  {us(conn):7.1f} conn-us/req", flush=True)
PY
}

echo "# $EDGES edges, $THREADS clients, ${WARMUP}s + ${DURATION}s; name, workload, throughput, system calls and server CPU per request"
for r in $(seq 1 "$ROUNDS"); do
	for w in $WORKLOADS; do
		one "$COMPARE" compare "$w" "$COMPARE_Q"
		one "$TB" taobench "$w" "$Q"
	done
done
