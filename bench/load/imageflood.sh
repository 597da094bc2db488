#!/usr/bin/env bash
# API throughput while the image host is flooded with random perfume ids
# (each never-seen id is drawn on demand, tens of milliseconds of CPU, so
# drawings are bounded per client and in a pool).
#
# For each binary given (e.g. the previous release and this one) it starts
# `fragrance serve` on a new database (--image-workers 0,
# --trusted-proxies 127.0.0.1), creates an enterprise key whose limits never
# bind, and takes --rounds turns of:
#   1. API detail alone (wrk rotating through the 200 most rated perfumes);
#   2. API detail while a second wrk floods /img/perfume/<random id>.jpg with
#      real perfume ids from one client IP, at --flood-rate requests per
#      second at most (default 200; each connection waits between requests,
#      so a host that answers the flood faster does not get more of it);
#   3. the same from many client IPs (a random X-Forwarded-For per request,
#      which the service trusts from loopback: per-IP limits do not bind,
#      the render pool does).
# It prints the median requests per second and p50/p99 of the API in each
# phase, and the flood's answers by status class.
#
# wrk (both) runs on CPU 0 and the server on the others (taskset), as in
# run.sh's split layout.
#
# Usage: bench/load/imageflood.sh [--duration 5s] [--rounds 3] [--flood-connections 32] [--flood-rate 200]
#        NAME=BINARY [NAME=BINARY ...]
#   e.g. bench/load/imageflood.sh before=/tmp/fragrance-main after=/tmp/fragrance
#   (with no binary: builds this tree as "this")
set -euo pipefail

duration=5s
rounds=3
flood_conns=32
flood_rate=200
bins=()
while [ $# -gt 0 ]; do
	case "$1" in
	--duration) duration=$2; shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
	--flood-connections) flood_conns=$2; shift 2 ;;
	--flood-rate) flood_rate=$2; shift 2 ;;
	-h | --help) sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*=*) bins+=("$1"); shift ;;
	*) echo "unknown argument: $1 (try --help)" >&2; exit 2 ;;
	esac
done
command -v wrk >/dev/null || { echo "wrk is missing (apt-get install wrk)" >&2; exit 2; }
n=$(nproc)
[ "$n" -ge 2 ] || { echo "needs two cores" >&2; exit 2; }
on_client=(taskset -c 0) on_server=(taskset -c "1-$((n - 1))")

root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/fragrance-flood.XXXXXX")
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
log() { echo "== $*" >&2; }

if [ ${#bins[@]} -eq 0 ]; then
	(cd "$root" && go build -o "$work/fragrance" ./cmd/fragrance)
	bins=("this=$work/fragrance")
fi

to_ms() {
	awk -v v="$1" 'BEGIN { n = v + 0; u = v; sub(/^[0-9.]+/, "", u)
		if (u == "us") n /= 1000; else if (u == "s") n *= 1000; printf "%.2f", n }'
}
median() { sort -g | awk '{a[NR] = $1} END {print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2)}'; }

# api_wrk prints "rps p50 p99" of the detail class.
api_wrk() {
	local res
	res=$("${on_client[@]}" wrk -t1 -c32 -d"$duration" --latency -H "X-API-Key: $key" -s "$work/detail.lua" "$base" 2>&1)
	echo "$(echo "$res" | awk '/^Requests\/sec:/ {printf "%d", $2}')" \
		"$(to_ms "$(echo "$res" | awk '$1 == "50%" {print $2}')")" \
		"$(to_ms "$(echo "$res" | awk '$1 == "99%" {print $2}')")"
}

for spec in "${bins[@]}"; do
	name=${spec%%=*} bin=${spec#*=}
	db="$work/$name.db"
	log "$name: starting $bin"
	"${on_server[@]}" "$bin" serve --db "$db" --addr 127.0.0.1:0 --image-workers 0 --log-level warn \
		--trusted-proxies 127.0.0.1 2>"$work/$name.log" &
	spid=$!
	pids+=("$spid")
	addr=""
	for _ in $(seq 1 300); do
		addr=$(ss -ltnpH 2>/dev/null | awk -v p="pid=$spid," 'index($0, p) && $4 ~ /^127\.0\.0\.1:/ {print $4; exit}')
		[ -n "$addr" ] && curl -sf "http://$addr/healthz" >/dev/null && break
		kill -0 "$spid" 2>/dev/null || { cat "$work/$name.log" >&2; exit 1; }
		sleep 0.2
	done
	base="http://$addr"
	key=$("$bin" keys create --db "$db" --tier enterprise --per-minute 100000000 --per-day 1000000000 \
		--email bench@example.com | tail -1)
	get() { curl -sf -H "X-API-Key: $key" "$base$1"; }
	slugs=$( (get "/api/perfumes?limit=100&page=1"; echo; get "/api/perfumes?limit=100&page=2") |
		grep -o '"id":"[^"]*"' | sed 's/"id":"\(.*\)"/\1/')
	{
		echo "local paths = {"
		for s in $slugs; do echo "  \"/api/perfumes/$s\","; done
		echo "}"
		echo 'local i = 0'
		echo 'request = function() i = i + 1; return wrk.format("GET", paths[(i % #paths) + 1]) end'
	} >"$work/detail.lua"
	# Real perfume ids (the flood draws real bottles), from 60 pages of the list.
	ids=$(for p in $(seq 1 60); do get "/api/perfumes?limit=100&page=$((p * 6))"; echo; done |
		grep -o '/img/perfume/[0-9]*\.jpg' | grep -o '[0-9]*' | sort -u | tr '\n' ',')
	for mode in one many; do
		{
			echo "local ids = {${ids%,}}"
			echo 'math.randomseed(os.time())'
			echo "delay = function() return $(( flood_conns * 1000 / flood_rate )) end"
			if [ "$mode" = many ]; then
				echo 'request = function()'
				echo '  local ip = math.random(1, 223) .. "." .. math.random(0, 255) .. "." .. math.random(0, 255) .. "." .. math.random(1, 254)'
				echo '  return wrk.format("GET", "/img/perfume/" .. ids[math.random(#ids)] .. ".jpg", {["X-Forwarded-For"] = ip})'
				echo 'end'
			else
				echo 'request = function() return wrk.format("GET", "/img/perfume/" .. ids[math.random(#ids)] .. ".jpg") end'
			fi
		} >"$work/flood-$mode.lua"
	done
	: >"$work/$name.alone" ; : >"$work/$name.one" ; : >"$work/$name.many"
	for r in $(seq 1 "$rounds"); do
		log "$name: round $r"
		api_wrk >>"$work/$name.alone"
		for mode in one many; do
			"${on_client[@]}" wrk -t1 -c"$flood_conns" -d"$(( ${duration%s} + 2 ))s" -s "$work/flood-$mode.lua" "$base" \
				>"$work/$name.flood-$mode.$r" 2>&1 &
			fpid=$!
			sleep 1
			api_wrk >>"$work/$name.$mode"
			wait "$fpid" || true
		done
	done
	for phase in alone one many; do
		printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$phase" \
			"$(awk '{print $1}' "$work/$name.$phase" | median)" \
			"$(awk '{print $2}' "$work/$name.$phase" | median)" \
			"$(awk '{print $3}' "$work/$name.$phase" | median)" >>"$work/table"
	done
	for mode in one many; do
		printf '%s\tflood from %s IP(s), round 1: %s\n' "$name" "$mode" \
			"$(awk '/Requests\/sec/ {r=$2} /Non-2xx/ {n=$NF} /requests in/ {t=$1} END {printf "%s req, %s non-2xx, %s req/s", t, n+0, r}' "$work/$name.flood-$mode.1")" >>"$work/floods"
	done
	printf '%s\timage answers by status over all rounds: %s\n' "$name" \
		"$(curl -s "$base/metrics" | awk '/^fragrance_http_request_duration_seconds_count/ && /route="images/ {
			match($0, /code="[0-9]+"/); printf "%s=%s ", substr($0, RSTART + 6, RLENGTH - 7), $NF }')" >>"$work/floods"
	kill "$spid" 2>/dev/null || true
	wait "$spid" 2>/dev/null || true
done

echo
echo "| binary | API detail | req/s (median of $rounds) | p50 ms | p99 ms |"
echo "|---|---|---:|---:|---:|"
awk -F'\t' '{ph = ($2 == "alone" ? "alone" : ($2 == "one" ? "image flood, one IP" : "image flood, many IPs")); printf "| %s | %s | %s | %s | %s |\n", $1, ph, $3, $4, $5}' "$work/table"
echo
cat "$work/floods"
