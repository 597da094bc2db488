#!/usr/bin/env bash
# What each layer of a request costs in the running server: the CPU time
# per request of the service with its layers taken off one at a time,
# beside the ceiling (bench/load/ceiling replaying the full service's
# answers), all serving the same hot requests (every answer from the
# answer cache) on the same core, in interleaved turns.
#
# The service is built from HEAD with bench/load/layers.patch applied:
# two environment switches that exist only in that build.
#   full           the service as shipped (access log at info, to a file)
#   no-access-log  --log-level warn: no access-log line
#   no-guard       and FRAGRANCE_LAYERS_NO_GUARD: no key check, rate limit,
#                  metering or abuse notes (the same rate-limit headers,
#                  set as constants)
#   no-middleware  and FRAGRANCE_LAYERS_NO_MIDDLEWARE: no request id,
#                  latency histogram or panic recovery (the same headers)
#   ceiling        the full service's answers replayed, headers and all
# What is left between no-middleware and the ceiling is the route table
# and the API's handler: the answer cache's lookup and the splicing of a
# kept answer.
#
# Like run.sh: wrk on the first half of the cores, the servers on the
# other half (taskset); CPU time from /proc/PID/stat. Every figure is the
# median of the rounds.
#
# Usage: bench/load/layers.sh [--class detail|list|search] [--rounds 7]
#        [--duration 4s] [--threads 2] [--connections 32]
set -euo pipefail

class=detail
rounds=7
duration=4s
threads=2
connections=32
while [ $# -gt 0 ]; do
	case "$1" in
	--class) class=$2; shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
	--duration) duration=$2; shift 2 ;;
	--threads) threads=$2; shift 2 ;;
	--connections) connections=$2; shift 2 ;;
	-h | --help) awk 'NR > 1 && !/^#/ {exit} NR > 1 {sub(/^# ?/, ""); print}' "$0"; exit 0 ;;
	*) echo "unknown argument: $1 (try --help)" >&2; exit 2 ;;
	esac
done
case "$class" in detail | list | search) ;; *) echo "--class must be detail, list or search" >&2; exit 2 ;; esac
case "$rounds" in "" | *[!0-9]* | 0) echo "--rounds must be a positive number" >&2; exit 2 ;; esac
for tool in wrk curl taskset ss git go; do
	command -v "$tool" >/dev/null || { echo "layers.sh needs $tool" >&2; exit 1; }
done
n=$(nproc)
[ "$n" -ge 2 ] || { echo "layers.sh needs two cores" >&2; exit 1; }
on_client=(taskset -c "0-$((n / 2 - 1))")
on_server=(taskset -c "$((n / 2))-$((n - 1))")

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	git -C "$root" worktree remove --force "$work/src" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
log() { echo "== $*" >&2; }

log "building HEAD with bench/load/layers.patch"
git -C "$root" worktree add --quiet --detach "$work/src" HEAD
git -C "$work/src" apply "$here/layers.patch"
(cd "$work/src" && go build -o "$work/fragrance" ./cmd/fragrance)
(cd "$root" && go build -o "$work/ceiling" ./bench/load/ceiling && go build -o "$work/record" ./bench/load/record)
bin=$work/fragrance
db=$work/bench.db
"$bin" import --db "$db" "$root/internal/bundled/catalogue.jsonl.gz" >/dev/null

# listen_addr prints the loopback address of process $1 that answers /healthz.
listen_addr() {
	local a
	for a in $(ss -ltnpH 2>/dev/null | awk -v p="pid=$1," 'index($0, p) && $4 ~ /^127\.0\.0\.1:/ {print $4}'); do
		if curl -sf -o /dev/null -m 1 "http://$a/healthz"; then echo "$a"; return; fi
	done
}

variants=(full no-access-log no-guard no-middleware)
declare -A addr pid
# start_variant starts variant $1 and waits until it answers /healthz.
start_variant() {
	local v=$1 flags=(--db "$db" --addr 127.0.0.1:0 --image-workers 0) envs=(FRAGRANCE_LAYERS=1)
	case "$v" in
	no-access-log) flags+=(--log-level warn) ;;
	no-guard) flags+=(--log-level warn); envs+=(FRAGRANCE_LAYERS_NO_GUARD=1) ;;
	no-middleware) flags+=(--log-level warn); envs+=(FRAGRANCE_LAYERS_NO_GUARD=1 FRAGRANCE_LAYERS_NO_MIDDLEWARE=1) ;;
	esac
	env "${envs[@]}" "${on_server[@]}" "$bin" serve "${flags[@]}" 2>"$work/$v.log" &
	pid[$v]=$!
	pids+=("$!")
	for _ in $(seq 1 600); do
		addr[$v]=$(listen_addr "${pid[$v]}")
		[ -n "${addr[$v]}" ] && return
		kill -0 "${pid[$v]}" 2>/dev/null || { cat "$work/$v.log" >&2; exit 1; }
		sleep 0.2
	done
	echo "$v did not start" >&2
	exit 1
}
# The full service ranks the neighbour lists and stores them; the others,
# started after, load them as they start.
start_variant full
until grep -q 'neighbour lists ready' "$work/full.log"; do
	kill -0 "${pid[full]}" 2>/dev/null || { cat "$work/full.log" >&2; exit 1; }
	sleep 0.5
done
for v in "${variants[@]:1}"; do start_variant "$v"; done
sleep 5
key=$("$bin" keys create --db "$db" --tier enterprise --per-minute 100000000 --per-day 1000000000 \
	--email bench@example.com --name layers 2>/dev/null | tail -1)
get() { curl -sf -H "X-API-Key: $key" "http://${addr[full]}$1"; }

case "$class" in
detail) (get "/api/perfumes?limit=100&page=1"; echo; get "/api/perfumes?limit=100&page=2") |
	grep -o '"id":"[^"]*"' | sed 's/"id":"\(.*\)"/\/api\/perfumes\/\1/' >"$work/paths" ;;
list) for p in $(seq 1 50); do echo "/api/perfumes?page=$p"; done >"$work/paths" ;;
search) while read -r q; do
	[ -n "$q" ] && echo "/api/perfumes?q=$(printf %s "$q" | sed 's/ /+/g; s/&/%26/g; s/'"'"'/%27/g')"
done <"$here/queries.txt" >"$work/paths" ;;
esac
[ -s "$work/paths" ] || { echo "no paths for $class" >&2; exit 1; }
{
	echo "local paths = {}"
	echo "for l in io.lines(\"$work/paths\") do paths[#paths + 1] = l end"
	echo 'local i = 0'
	echo 'request = function() i = i % #paths + 1; return wrk.format("GET", paths[i]) end'
} >"$work/rotate.lua"

FRAGRANCE_BENCH_KEY=$key "${on_client[@]}" "$work/record" --base "http://${addr[full]}" --paths "$work/paths" --dir "$work/answers" >/dev/null
"${on_server[@]}" "$work/ceiling" --addr 127.0.0.1:0 --port-file "$work/ceiling.addr" --answers "$work/answers" &
pid[ceiling]=$!
pids+=("$!")
for _ in $(seq 1 600); do [ -s "$work/ceiling.addr" ] && break; sleep 0.05; done
addr[ceiling]=$(cat "$work/ceiling.addr")

# turn runs wrk against variant $1 (a second's warm-up, then $duration)
# and prints "req/s user-µs sys-µs" per request.
hz=$(getconf CLK_TCK)
turn() {
	local p=${pid[$1]} url="http://${addr[$1]}" u0 s0 u1 s1 n
	"${on_client[@]}" wrk -t"$threads" -c"$connections" -d1s -H "X-API-Key: $key" -s "$work/rotate.lua" "$url" >/dev/null
	read -r u0 s0 < <(awk '{print $14, $15}' "/proc/$p/stat")
	n=$("${on_client[@]}" wrk -t"$threads" -c"$connections" -d"$duration" -H "X-API-Key: $key" -s "$work/rotate.lua" "$url" |
		awk '/requests in/ {print $1}')
	read -r u1 s1 < <(awk '{print $14, $15}' "/proc/$p/stat")
	local secs=${duration%s}
	awk -v n="$n" -v d="$secs" -v u=$((u1 - u0)) -v s=$((s1 - s0)) -v hz="$hz" \
		'BEGIN {printf "%d %.2f %.2f\n", n / d, u * 1e6 / hz / n, s * 1e6 / hz / n}'
}
all=("${variants[@]}" ceiling)
log "$class: $(wc -l <"$work/paths") paths, $rounds rounds of ${all[*]}"
for r in $(seq 1 "$rounds"); do
	for v in "${all[@]}"; do echo "$v $(turn "$v")"; done
done >"$work/turns"

median() { sort -g | awk '{a[NR] = $1} END {print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2)}'; }
echo
echo "Layers of a request, $class (hot: every answer kept), medians of $rounds interleaved turns; wrk -t$threads -c$connections -d$duration; wrk on CPU ${on_client[2]}, servers on CPU ${on_server[2]}"
echo "Machine: $n cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'); $(go env GOVERSION); HEAD $(git -C "$root" rev-parse --short HEAD)"
echo
echo "| variant | req/s | CPU µs/req | user | system | the layer taken off cost |"
echo "|---|---:|---:|---:|---:|---:|"
prev=""
for v in "${all[@]}"; do
	rps=$(awk -v v="$v" '$1 == v {print $2}' "$work/turns" | median)
	usr=$(awk -v v="$v" '$1 == v {print $3}' "$work/turns" | median)
	sys=$(awk -v v="$v" '$1 == v {print $4}' "$work/turns" | median)
	tot=$(awk -v v="$v" '$1 == v {print $3 + $4}' "$work/turns" | median)
	diff="-"
	[ -n "$prev" ] && diff=$(awk -v a="$prev" -v b="$tot" 'BEGIN {printf "%.1f", a - b}')
	printf "| %s | %d | %.1f | %.1f | %.1f | %s |\n" "$v" "$rps" "$tot" "$usr" "$sys" "$diff"
	prev=$tot
done
