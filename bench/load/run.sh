#!/usr/bin/env bash
# Load benchmark of the fragrance service, side by side with a ceiling.
#
# Starts `fragrance serve` on a temporary database (the bundled catalogue,
# or ~200,000 perfumes with --catalogue 200k), creates an enterprise key
# whose limits never interfere, and measures each endpoint class with wrk:
# the service and a minimal Go net/http server (bench/load/ceiling)
# replaying the service's own answers to the same requests (status, headers
# and body recorded once, looked up by request URI) take turns, with the
# same wrk settings, and each figure is the median of the turns. It prints requests per second, p50/p99 latency, the server's CPU
# time per request (from /proc/PID/stat), and both ratios of the service to
# the ceiling: requests per second, and CPU time per request (ceiling/service).
#
# Both listen on loopback only. By default wrk runs on the first half of
# the machine's cores and the server under test (service or ceiling) on the
# other half (taskset): when they share every core, the latency tail mostly
# measures the kernel handing cores back and forth between wrk's threads and
# the server's, the ceiling's as much as the service's. --layout shared lets
# them share all cores (the server then also gets every core's CPU time).
# The ratio compares like with like: same cores, same client, same bytes.
#
# Usage: bench/load/run.sh [--catalogue bundled|200k] [--duration 5s]
#        [--threads 2] [--connections 32] [--answer-cache N] [--classes "detail list ..."]
#        [--db FILE] [--serve-flags "..."] [--out FILE] [--bare] [--layout split|shared]
#        [--rounds 3]
#   --answer-cache N   the service's --answer-cache-mb (default: the service's default;
#                      0 turns the answer cache off, to measure every answer computed)
#   --db FILE          use an existing database (already filled) instead of a new one
#   --serve-flags S    more flags for fragrance serve, e.g. "--log-level warn"
#   --out FILE         also append the table (Markdown) to FILE
#   --bare             also run the bare ceiling (one body, only Content-Type and
#                      Content-Length) and show its req/s for reference
#   --layout L         split (default): wrk and the server on separate cores;
#                      shared: all processes on all cores
#   --rounds N         service and ceiling take N turns per class (default 3);
#                      the table shows the median of each figure
set -euo pipefail

catalogue=bundled
duration=5s
threads=2
connections=32
answer_cache=""
classes="detail list search similar dupes match brands notes page"
db=""
serve_flags=""
out=""
bare=0
layout=split
rounds=3
while [ $# -gt 0 ]; do
	case "$1" in
	--catalogue) catalogue=$2; shift 2 ;;
	--duration) duration=$2; shift 2 ;;
	--threads) threads=$2; shift 2 ;;
	--connections) connections=$2; shift 2 ;;
	--answer-cache) answer_cache=$2; shift 2 ;;
	--classes) classes=$2; shift 2 ;;
	--db) db=$2; shift 2 ;;
	--serve-flags) serve_flags=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--bare) bare=1; shift ;;
	--layout) layout=$2; shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
	-h | --help) sed -n '2,36p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "unknown argument: $1 (try --help)" >&2; exit 2 ;;
	esac
done
case "$catalogue" in bundled | 200k) ;; *) echo "--catalogue must be bundled or 200k" >&2; exit 2 ;; esac
case "$layout" in split | shared) ;; *) echo "--layout must be split or shared" >&2; exit 2 ;; esac
case "$rounds" in "" | *[!0-9]* | 0) echo "--rounds must be a positive number" >&2; exit 2 ;; esac

# on_client and on_server prefix a command to run it on the client's and
# the server's cores: the two halves of the machine in the split layout
# (taskset execs the command: $! stays the server's PID).
client_cpus="" server_cpus="" on_client=() on_server=()
if [ "$layout" = split ]; then
	n=$(nproc)
	if [ "$n" -lt 2 ] || ! command -v taskset >/dev/null; then
		echo "--layout split needs two cores and taskset (util-linux); try --layout shared" >&2
		exit 2
	fi
	client_cpus="0-$((n / 2 - 1))" server_cpus="$((n / 2))-$((n - 1))"
	on_client=(taskset -c "$client_cpus") on_server=(taskset -c "$server_cpus")
fi

root=$(cd "$(dirname "$0")/../.." && pwd)
here="$root/bench/load"
work=$(mktemp -d "${TMPDIR:-/tmp}/fragrance-load.XXXXXX")
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

log() { echo "== $*" >&2; }

# wrk comes from Debian; install it when missing.
if ! command -v wrk >/dev/null; then
	log "installing wrk"
	sudo=""
	[ "$(id -u)" -ne 0 ] && sudo=sudo
	$sudo apt-get install -y wrk >/dev/null 2>&1 || { $sudo apt-get update >/dev/null && $sudo apt-get install -y wrk >/dev/null; }
fi

log "building"
(cd "$root" && go build -o "$work/fragrance" ./cmd/fragrance && go build -o "$work/ceiling" ./bench/load/ceiling)
bin="$work/fragrance"

if [ -z "$db" ]; then
	db="$work/bench.db"
	if [ "$catalogue" = 200k ]; then
		log "generating and importing 162,510 perfumes beside the bundled 37,490"
		"$bin" generate --count 162510 --out "$work/gen.jsonl" 2>/dev/null
		"$bin" import --db "$db" "$root/internal/bundled/catalogue.jsonl.gz" >/dev/null
		"$bin" import --db "$db" "$work/gen.jsonl" >/dev/null
		rm -f "$work/gen.jsonl"
	fi
fi

# listen_addr prints the loopback address of process $1 that answers
# /healthz, found with ss: the log may not say it (--log-level warn), and
# --serve-flags may open more listeners (--pprof-addr).
listen_addr() {
	local a
	for a in $(ss -ltnpH 2>/dev/null | awk -v p="pid=$1," 'index($0, p) && $4 ~ /^127\.0\.0\.1:/ {print $4}'); do
		if curl -s -o /dev/null -m 1 "http://$a/healthz"; then echo "$a"; return; fi
	done
}

# start_serve starts the service on a free loopback port and waits until
# /healthz answers 200; it sets $base and $serve_pid.
start_serve() {
	local flags=(--db "$db" --addr 127.0.0.1:0 --image-workers 0)
	[ -n "$answer_cache" ] && flags+=(--answer-cache-mb "$answer_cache")
	# shellcheck disable=SC2206 # split on purpose: several flags
	[ -n "$serve_flags" ] && flags+=($serve_flags)
	"${on_server[@]}" "$bin" serve "${flags[@]}" 2>"$work/serve.log" &
	serve_pid=$!
	pids+=("$serve_pid")
	local addr=""
	for _ in $(seq 1 600); do
		addr=$(listen_addr "$serve_pid")
		[ -n "$addr" ] && curl -sf "http://$addr/healthz" >/dev/null && break
		kill -0 "$serve_pid" 2>/dev/null || { cat "$work/serve.log" >&2; exit 1; }
		sleep 0.2
	done
	base="http://$addr"
	curl -sf "$base/healthz" >/dev/null || { echo "the service did not become ready" >&2; exit 1; }
}

log "starting the service ($catalogue catalogue)"
start_serve
key=$("$bin" keys create --db "$db" --tier enterprise --per-minute 100000000 --per-day 1000000000 \
	--email bench@example.com --name load-benchmark | tail -1)
perfumes=$(curl -s "$base/healthz" | sed -n 's/.*"perfumes":\([0-9]*\).*/\1/p')

get() { curl -sf -H "X-API-Key: $key" "$base$1"; }

# Realistic requests: the most rated perfumes (they get most of the
# traffic), queries people type, profiles people ask for.
slugs=$( (get "/api/perfumes?limit=100&page=1"; echo; get "/api/perfumes?limit=100&page=2") |
	grep -o '"id":"[^"]*"' | sed 's/"id":"\(.*\)"/\1/')
paths_for() {
	case "$1" in
	detail) for s in $slugs; do echo "/api/perfumes/$s"; done ;;
	list) for p in $(seq 1 50); do echo "/api/perfumes?page=$p"; done ;;
	search) cat "$here/queries.txt" | while read -r q; do
		[ -n "$q" ] && echo "/api/perfumes?q=$(printf %s "$q" | sed 's/ /+/g; s/&/%26/g; s/'"'"'/%27/g')"
	done ;;
	similar) for s in $slugs; do echo "/api/perfumes/$s/similar"; done ;;
	dupes) for s in $slugs; do echo "/api/perfumes/$s/dupes"; done ;;
	match) cat "$here/profiles.txt" | while read -r p; do [ -n "$p" ] && echo "/api/perfumes/match?$p"; done ;;
	brands) echo "/api/brands" ;;
	notes) echo "/api/notes" ;;
	page) for s in $slugs; do echo "/perfumes/$s"; done ;; # the website's perfume pages (HTML)
	esac
}

# write_lua writes a wrk script that rotates through the paths of a class.
write_lua() {
	local file=$1
	shift
	{
		echo "local paths = {"
		for p in "$@"; do echo "  \"$p\","; done
		echo "}"
		cat <<'LUA'
local i = 0
request = function()
  i = i + 1
  return wrk.format("GET", paths[(i % #paths) + 1])
end
LUA
	} >"$file"
}

# to_ms converts a wrk latency (e.g. 635.00us, 1.20ms, 1.02s) to milliseconds.
to_ms() {
	awk -v v="$1" 'BEGIN {
		n = v + 0; u = v; sub(/^[0-9.]+/, "", u)
		if (u == "us") n /= 1000; else if (u == "s") n *= 1000; else if (u == "m") n *= 60000
		printf "%.2f", n }'
}

# cpu_ticks prints the CPU time (user + system, in clock ticks) process $1
# has used so far.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# run_wrk runs wrk against url $1 with script $2, served by process $3, and
# prints "rps p50 p99 errors cpu": cpu is the server's CPU time per request
# in microseconds, which moves far less than the request rate when other
# jobs share the machine.
run_wrk() {
	local res t0 t1
	t0=$(cpu_ticks "$3")
	res=$("${on_client[@]}" wrk -t"$threads" -c"$connections" -d"$duration" --latency -H "X-API-Key: $key" -s "$2" "$1" 2>&1)
	t1=$(cpu_ticks "$3")
	local rps p50 p99 errs n cpu
	rps=$(echo "$res" | awk '/^Requests\/sec:/ {printf "%d", $2}')
	p50=$(to_ms "$(echo "$res" | awk '$1 == "50%" {print $2}')")
	p99=$(to_ms "$(echo "$res" | awk '$1 == "99%" {print $2}')")
	errs=$(echo "$res" | awk '/Non-2xx or 3xx responses:/ {n += $NF} /Socket errors:/ {for (i = 4; i <= NF; i += 2) n += $i} END {print n + 0}')
	n=$(echo "$res" | awk '/requests in/ {print $1}')
	cpu=$(awk -v a="$t0" -v b="$t1" -v n="$n" -v hz="$(getconf CLK_TCK)" 'BEGIN {printf "%.1f", (n > 0 ? (b - a) * 1e6 / hz / n : 0)}')
	echo "$rps $p50 $p99 $errs $cpu"
}

# start_ceiling starts the ceiling with the given flags and sets $ceiling
# to its address.
start_ceiling() {
	rm -f "$work/ceiling.addr"
	"${on_server[@]}" "$work/ceiling" --addr 127.0.0.1:0 --port-file "$work/ceiling.addr" "$@" &
	cpid=$!
	pids+=("$cpid")
	for _ in $(seq 1 100); do [ -s "$work/ceiling.addr" ] && break; sleep 0.05; done
	[ -s "$work/ceiling.addr" ] || { echo "the ceiling did not start" >&2; exit 1; }
	ceiling="http://$(cat "$work/ceiling.addr")/"
}
stop_ceiling() {
	kill "$cpid" 2>/dev/null || true
	wait "$cpid" 2>/dev/null || true
}

# medians prints the median of each column of file $1 (errors: the sum).
medians() {
	local col out=""
	for col in 1 2 3 4 5; do
		if [ "$col" = 4 ]; then
			out+=" $(awk '{n += $4} END {print n + 0}' "$1")"
		else
			out+=" $(awk -v c="$col" '{print $c}' "$1" | sort -g | awk '{a[NR] = $1} END {print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2)}')"
		fi
	done
	echo "$out"
}

rows=()
for class in $classes; do
	mapfile -t paths < <(paths_for "$class")
	[ ${#paths[@]} -gt 0 ] || { echo "no paths for class $class" >&2; exit 1; }
	write_lua "$work/$class.lua" "${paths[@]}"
	# Record the service's answer to every path (status, headers, body): the
	# ceiling replays them, so both sides move the same bytes.
	rec="$work/$class.answers"
	mkdir -p "$rec"
	: >"$rec/index.tsv"
	for i in "${!paths[@]}"; do
		curl -s -D "$rec/$i.head" -o "$rec/$i.body" -H "X-API-Key: $key" "$base${paths[$i]}"
		head -1 "$rec/$i.head" | grep -q ' 200' || { echo "GET ${paths[$i]}: $(head -1 "$rec/$i.head")" >&2; exit 1; }
		printf '%s\t%s\n' "${paths[$i]}" "$i" >>"$rec/index.tsv"
	done
	size=$(cat "$rec"/*.body | wc -c)
	size=$((size / ${#paths[@]}))

	# Service and ceiling take turns, $rounds times: each figure is the
	# median of its rounds, so a busy moment on the machine moves one
	# round of each, not the whole comparison.
	log "$class: ${#paths[@]} paths, answers of $size bytes on average; service and ceiling (the same answers replayed), $rounds rounds"
	start_ceiling --answers "$rec"
	: >"$work/s.runs"
	: >"$work/c.runs"
	for _ in $(seq 1 "$rounds"); do
		run_wrk "$base/" "$work/$class.lua" "$serve_pid" >>"$work/s.runs"
		run_wrk "$ceiling" "$work/$class.lua" "$cpid" >>"$work/c.runs"
	done
	stop_ceiling
	read -r s_rps s_p50 s_p99 s_err s_cpu < <(medians "$work/s.runs")
	read -r c_rps c_p50 c_p99 c_err c_cpu < <(medians "$work/c.runs")
	b_rps="-"
	if [ "$bare" = 1 ]; then
		# The median-sized answer as the only body, without the service's headers.
		body=$(ls -S "$rec"/*.body | awk '{a[NR] = $0} END {print a[int((NR + 1) / 2)]}')
		log "$class: bare ceiling (one body, two headers)"
		start_ceiling --body "$body"
		read -r b_rps _ _ _ _ < <(run_wrk "$ceiling" "$work/$class.lua" "$cpid")
		stop_ceiling
	fi
	rm -rf "$rec"
	ratio=$(awk -v s="$s_rps" -v c="$c_rps" 'BEGIN {printf "%.2f", (c > 0 ? s / c : 0)}')
	cpu_ratio=$(awk -v s="$s_cpu" -v c="$c_cpu" 'BEGIN {printf "%.2f", (s > 0 ? c / s : 0)}')
	rows+=("$class|$ratio|$s_rps|$c_rps|$s_p50|$s_p99|$c_p50|$c_p99|$s_cpu|$c_cpu|$cpu_ratio|$size|$((s_err + c_err))|$b_rps")
done

rss=$(awk '/VmRSS/ {printf "%d", $2 / 1024}' "/proc/$serve_pid/status" 2>/dev/null || echo "?")
{
	echo
	where="wrk, service and ceiling share all cores"
	[ "$layout" = split ] && where="wrk on CPU $client_cpus, service and ceiling on CPU $server_cpus"
	echo "Load benchmark: $catalogue catalogue ($perfumes perfumes), wrk -t$threads -c$connections -d$duration, medians of $rounds interleaved rounds, access layer on; $where"
	echo "Machine: $(nproc) cores, $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo), $(awk '/MemTotal/ {printf "%.0f GB", $2 / 1048576}' /proc/meminfo) RAM; $(go version | awk '{print $3}'); answer cache ${answer_cache:-default} MB${serve_flags:+; serve $serve_flags}"
	echo
	echo "| class | ratio | service req/s | ceiling req/s | p50 ms | p99 ms | ceiling p50 ms | ceiling p99 ms | CPU µs/req | ceiling CPU µs/req | CPU ratio | body bytes | errors | bare ceiling req/s |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
	for r in "${rows[@]}"; do echo "| ${r//|/ | } |"; done
	echo
	echo "Service resident memory after the run: $rss MB"
} | tee -a "${out:-/dev/null}"
