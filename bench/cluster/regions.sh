# Regions on one machine, sourced by the scripts of bench/cluster: every
# link between two regions (replication and client traffic) goes through a
# Toxiproxy proxy (github.com/Shopify/toxiproxy) that delays each
# direction by half the pair's round trip, with jitter.
# The kernel here has no netem qdisc, so latency comes from user space.
# Toxiproxy runs as its own process, driven through its HTTP API with curl:
# taobench's module does not depend on it.
#
# Layout: 3 regions, node I in region I. --rtt D gives every pair the same
# round trip; --rtt A,B,C gives regions 1-2, 1-3 and 2-3 their own. The
# default is AWS us-east-1 (N. Virginia), us-west-1 (N. California) and
# us-west-2 (Oregon): 73, 87 and 19 ms, the averages published in "Latency
# Between AWS Global Regions" (tabled at
# https://acomputerscientistlearnsaws.blogspot.com/2017/04/aws-regions.html).
#
# Needs curl, and Go to build toxiproxy-server once (TOXIPROXY_SERVER names a
# built one).
toxiproxy_version=v2.12.0

# ms DURATION: prints DURATION (40ms, 1.5s, 40) in whole milliseconds.
ms() {
  case $1 in
  *ms) echo "${1%ms}" ;;
  *s) awk -v s="${1%s}" 'BEGIN { printf "%d", s * 1000 }' ;;
  *) echo "$1" ;;
  esac | grep -Ex '[0-9]+' || { echo "$0: $1 is not a duration (40ms, 2s)" >&2; exit 2; }
}

# regions_args ARGS...: parses --regions N --rtt D[,D,D] --jitter D --sync;
# sets regions (0: no proxies), rtt12 rtt13 rtt23, jitter_pct, sync, and rest
# (the other arguments).
regions_args() {
  regions=0 rtt=73,87,19 jitter_pct=5 sync=0 rest=()
  while [ $# -gt 0 ]; do
    case $1 in
    --regions) regions=${2:?--regions needs a number}; shift ;;
    --rtt) rtt=${2:?--rtt needs a duration, 40ms or 73ms,87ms,19ms}; shift ;;
    --jitter) jitter_pct=${2:?--jitter needs a percentage of the one-way delay}; jitter_pct=${jitter_pct%\%}; shift ;;
    --sync) sync=1 ;;
    *) rest+=("$1") ;;
    esac
    shift
  done
  case $regions in
  0 | 1) regions=0 ;;
  3) ;;
  *) echo "$0: --regions $regions: 3 regions (node I in region I), or 1 for none" >&2; exit 2 ;;
  esac
  IFS=, read -r a b c <<<"$rtt"
  rtt12=$(ms "$a")
  rtt13=$rtt12 rtt23=$rtt12
  [ -n "${b:-}" ] && rtt13=$(ms "$b")
  [ -n "${c:-}" ] && rtt23=$(ms "$c")
  [[ $jitter_pct =~ ^[0-9]+$ ]] || { echo "$0: --jitter $jitter_pct: a whole percentage (5)" >&2; exit 2; }
}

# rtt_of A B: the layout's round trip between regions A and B, in ms.
rtt_of() {
  [ "$1" = "$2" ] && { echo 0; return; }
  case "$(printf '%s\n' "$1" "$2" | sort | tr -d '\n')" in
  12) echo "$rtt12" ;; 13) echo "$rtt13" ;; 23) echo "$rtt23" ;;
  esac
}

# toxi_start DIR API_PORT: starts toxiproxy-server (built into DIR when
# TOXIPROXY_SERVER names none) with its API on API_PORT.
toxi_start() {
  local d=$1 bin=${TOXIPROXY_SERVER:-$1/toxiproxy/toxiproxy-server}
  if [ ! -x "$bin" ]; then
    command -v go >/dev/null || { echo "$0: Go is needed to build toxiproxy-server (or set TOXIPROXY_SERVER)" >&2; exit 1; }
    mkdir -p "$d/toxiproxy"
    GOBIN="$d/toxiproxy" GOFLAGS=-buildvcs=false go install "github.com/Shopify/toxiproxy/v2/cmd/server@$toxiproxy_version" >&2
    mv "$d/toxiproxy/server" "$bin"
  fi
  echo "$2" >"$d/toxiproxy.api"
  # Another server answering there would take this cluster's proxies.
  if curl -sf "http://127.0.0.1:$2/version" >/dev/null; then
    echo "$0: toxiproxy API port 127.0.0.1:$2: Address already in use" >&2
    exit 1
  fi
  "$bin" -host 127.0.0.1 -port "$2" >"$d/toxiproxy.log" 2>&1 &
  echo $! >"$d/toxiproxy.pid"
  for _ in $(seq 1 40); do
    kill -0 "$(cat "$d/toxiproxy.pid")" 2>/dev/null || break
    curl -sf "http://127.0.0.1:$2/version" >/dev/null && return 0
    sleep 0.25
  done
  echo "$0: toxiproxy-server did not answer on 127.0.0.1:$2; see $d/toxiproxy.log" >&2
  exit 1
}

toxi_stop() {
  [ -f "$1/toxiproxy.pid" ] && kill "$(cat "$1/toxiproxy.pid")" 2>/dev/null || true
  rm -f "$1/toxiproxy.pid"
}

# api DIR METHOD PATH [JSON]
api() {
  curl -sf -X "$2" -H 'Content-Type: application/json' ${4:+-d "$4"} "http://127.0.0.1:$(cat "$1/toxiproxy.api")$3" >/dev/null ||
    { echo "$0: toxiproxy $2 $3 ${4:-} failed; see $1/toxiproxy.log" >&2; exit 1; }
}

# link DIR NAME LISTEN UPSTREAM REGION_A REGION_B: a proxy (host:port, or a
# port on 127.0.0.1) between
# two regions, each direction delayed by half their round trip (Toxiproxy
# takes whole milliseconds: an odd round trip's extra one goes upstream),
# jitter jitter_pct% of that; listed in DIR/links for partitions.
link() {
  local rtt half jit
  local l=$3 u=$4
  [[ $l == *:* ]] || l=127.0.0.1:$l
  [[ $u == *:* ]] || u=127.0.0.1:$u
  rtt=$(rtt_of "$5" "$6")
  api "$1" POST /proxies "{\"name\":\"$2\",\"listen\":\"$l\",\"upstream\":\"$u\",\"enabled\":true}"
  for s in upstream downstream; do
    half=$((rtt / 2))
    [ $s = upstream ] && half=$((rtt - half))
    jit=$((half * jitter_pct / 100))
    api "$1" POST "/proxies/$2/toxics" "{\"name\":\"$s\",\"type\":\"latency\",\"stream\":\"$s\",\"attributes\":{\"latency\":$half,\"jitter\":$jit}}"
  done
  echo "$2 $5 $6 $l $u" >>"$1/links"
}

# partition DIR ARGS: --region N --at D --for D. Cuts every link between
# region N and the others at D from now, for D, then heals them, in the
# background; each step is logged with its time in DIR/partition.log.
partition() {
  local d=$1 r="" at=0 for="" cut=()
  shift
  while [ $# -gt 0 ]; do
    case $1 in
    --region | --node) r=$2; shift ;;
    --at) at=$(ms "$2"); shift ;;
    --for) for=$(ms "$2"); shift ;;
    *) echo "$0: partition: unknown argument $1 (--region N --at 10s --for 10s)" >&2; exit 2 ;;
    esac
    shift
  done
  [ -f "$d/links" ] || { echo "$0: $d has no regions (start it with --regions 3)" >&2; exit 2; }
  [[ $r =~ ^[1-3]$ ]] || { echo "$0: partition: --region 1, 2 or 3" >&2; exit 2; }
  [ -n "$for" ] || { echo "$0: partition: --for D (how long the region is cut off)" >&2; exit 2; }
  while read -r name a b _; do
    [ "$a" != "$b" ] && { [ "$a" = "$r" ] || [ "$b" = "$r" ]; } && cut+=("$name")
  done <"$d/links"
  (
    sleep "$(awk -v m="$at" 'BEGIN { print m / 1000 }')"
    echo "$(date -u +%FT%T.%3NZ) cut region $r: ${cut[*]}" >>"$d/partition.log"
    for n in "${cut[@]}"; do api "$d" POST "/proxies/$n" '{"enabled":false}' & done
    wait
    sleep "$(awk -v m="$for" 'BEGIN { print m / 1000 }')"
    for n in "${cut[@]}"; do api "$d" POST "/proxies/$n" '{"enabled":true}' & done
    wait
    echo "$(date -u +%FT%T.%3NZ) healed region $r" >>"$d/partition.log"
  ) </dev/null >/dev/null 2>>"$d/partition.log" &
  echo "region $r cut off from the others in $((at))ms for $((for))ms: ${cut[*]} (log: $d/partition.log)" >&2
}

# client_links DIR LISTEN_BASE NODE_PORT...: node N (of the ports given, in
# region N) reached from every other region R through its own proxy,
# listening on LISTEN_BASE+3(R-1)+(N-1) (host:port ports keep their host);
# the node ports are kept in DIR/nodes for region_ports. A single-node
# script gives one port: its node is in region 1, its clients anywhere.
client_links() {
  local d=$1 lb=$2 n=0
  shift 2
  : >"$d/nodes"
  for p in "$@"; do
    n=$((n + 1))
    echo "$n $p" >>"$d/nodes"
    for c in 1 2 3; do
      if [ "$c" != "$n" ]; then link "$d" "client_${c}_$n" $((lb + 3 * (c - 1) + n - 1)) "$p" "$c" "$n"; fi
    done
  done
}

# region_ports DIR R: the port of each node, one a line, as a client in
# region R reaches it: its own region's node direct, the others through
# client_links' proxies.
region_ports() {
  [[ ${2:-} =~ ^[1-3]$ ]] || { echo "$0: urls DIR --from R: R is a region, 1, 2 or 3" >&2; exit 2; }
  [ -f "$1/nodes" ] && grep -q '^client_' "$1/links" 2>/dev/null || { echo "$0: $1 has no regions (start it with --regions 3)" >&2; exit 2; }
  while read -r n p; do
    [ "$n" != "$2" ] && p=$(awk -v n="client_$2_$n" '$1 == n { print $4 }' "$1/links")
    echo "${p##*:}"
  done <"$1/nodes"
}
