#!/usr/bin/env bash
# API latency with the background-removal worker busy against the worker
# off (the worker must keep within its CPU budget, at low priority).
#
# Each configuration starts `fragrance serve` on its own copy of one filled
# database in which every perfume has a transparent-image job queued: with
# the worker on (--image-workers 1, the default) it is busy for hours.
# Per configuration and round it measures
#   - the server's CPU use while no request comes (10 s, from /proc), in
#     percent of one core: that is the worker's;
#   - API detail under wrk (-t1 -c32, rotating through the 200 most rated
#     perfumes): requests per second, p50 and p99.
# The configurations take turns, --rounds times, and the table shows the
# medians. wrk runs on CPU 0 and the server on the others (taskset).
#
# Configurations: "off" (--image-workers 0), "busy" (the defaults: one
# worker within --image-cpu-budget 25), "busy, no budget"
# (--image-cpu-budget 0: the worker at full speed, as before the budget);
# with --before BIN also the previous release, off and busy.
#
# Usage: bench/load/worker.sh [--duration 5s] [--rounds 3] [--bin BIN] [--before BIN]
#   --bin BIN      the binary to measure (default: built from this tree)
#   --before BIN   also measure this binary (e.g. the previous release)
set -euo pipefail

duration=5s
rounds=3
bin=""
before=""
while [ $# -gt 0 ]; do
	case "$1" in
	--duration) duration=$2; shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
	--bin) bin=$2; shift 2 ;;
	--before) before=$2; shift 2 ;;
	-h | --help) sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "unknown argument: $1 (try --help)" >&2; exit 2 ;;
	esac
done
command -v wrk >/dev/null || { echo "wrk is missing (apt-get install wrk)" >&2; exit 2; }
n=$(nproc)
[ "$n" -ge 2 ] || { echo "needs two cores" >&2; exit 2; }
on_client=(taskset -c 0) on_server=(taskset -c "1-$((n - 1))")

root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/fragrance-worker.XXXXXX")
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
log() { echo "== $*" >&2; }

if [ -z "$bin" ]; then
	(cd "$root" && go build -o "$work/fragrance" ./cmd/fragrance)
	bin="$work/fragrance"
fi

to_ms() {
	awk -v v="$1" 'BEGIN { n = v + 0; u = v; sub(/^[0-9.]+/, "", u)
		if (u == "us") n /= 1000; else if (u == "s") n *= 1000; printf "%.2f", n }'
}
median() { sort -g | awk '{a[NR] = $1} END {print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2)}'; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# start BIN DB FLAGS...: starts serve, sets $spid and $base.
start() {
	local b=$1 d=$2
	shift 2
	"${on_server[@]}" "$b" serve --db "$d" --addr 127.0.0.1:0 --log-level warn "$@" 2>>"$work/serve.log" &
	spid=$!
	pids+=("$spid")
	local addr=""
	for _ in $(seq 1 300); do
		addr=$(ss -ltnpH 2>/dev/null | awk -v p="pid=$spid," 'index($0, p) && $4 ~ /^127\.0\.0\.1:/ {print $4; exit}')
		[ -n "$addr" ] && curl -sf "http://$addr/healthz" >/dev/null && break
		kill -0 "$spid" 2>/dev/null || { cat "$work/serve.log" >&2; exit 1; }
		sleep 0.2
	done
	base="http://$addr"
}
stop() { kill "$spid" 2>/dev/null || true; wait "$spid" 2>/dev/null || true; }

# template NAME BIN: a filled database of that binary, with a key and a
# transparent-image job queued for every perfume (the server's worker
# queues them at its first refresh, a minute after start), so that a worker
# started on a copy is busy at once.
template() {
	local name=$1 b=$2
	mkdir -p "$work/$name"
	start "$b" "$work/$name/t.db" --image-workers 1
	for _ in $(seq 1 120); do
		"$b" images status --db "$work/$name/t.db" 2>/dev/null | grep -q 'pending [1-9]' && break
		sleep 1
	done
	stop
	"$b" images status --db "$work/$name/t.db" >&2
	"$b" keys create --db "$work/$name/t.db" --tier enterprise --per-minute 100000000 --per-day 1000000000 \
		--email bench@example.com 2>/dev/null | tail -1 >"$work/$name/key"
}

configs=("off|this|--image-workers 0" "busy|this|--image-workers 1" "busy, no budget|this|--image-workers 1 --image-cpu-budget 0")
log "filling a database"
template this "$bin"
if [ -n "$before" ]; then
	template before "$before"
	configs+=("off|before|--image-workers 0" "busy|before|--image-workers 1")
fi

: >"$work/results"
for r in $(seq 1 "$rounds"); do
	for i in "${!configs[@]}"; do
		IFS='|' read -r label name flags <<<"${configs[$i]}"
		b=$bin
		[ "$name" = before ] && b=$before
		run="$work/$name/run"
		rm -rf "$run" && mkdir -p "$run"
		cp "$work/$name"/t.db* "$run/"
		log "round $r: $name, $label"
		# shellcheck disable=SC2086 # split on purpose: several flags
		start "$b" "$run/t.db" $flags
		key=$(cat "$work/$name/key")
		if [ ! -s "$work/$name/detail.lua" ]; then
			slugs=$( (curl -sf -H "X-API-Key: $key" "$base/api/perfumes?limit=100&page=1"; echo
				curl -sf -H "X-API-Key: $key" "$base/api/perfumes?limit=100&page=2") |
				grep -o '"id":"[^"]*"' | sed 's/"id":"\(.*\)"/\1/')
			{
				echo "local paths = {"
				for s in $slugs; do echo "  \"/api/perfumes/$s\","; done
				echo "}"
				echo 'local i = 0'
				echo 'request = function() i = i + 1; return wrk.format("GET", paths[(i % #paths) + 1]) end'
			} >"$work/$name/detail.lua"
		fi
		sleep 5 # the worker starts
		t0=$(cpu_ticks "$spid")
		sleep 10
		t1=$(cpu_ticks "$spid")
		idle=$(awk -v a="$t0" -v b="$t1" -v hz="$(getconf CLK_TCK)" 'BEGIN {printf "%.1f", (b - a) * 100 / hz / 10}')
		res=$("${on_client[@]}" wrk -t1 -c32 -d"$duration" --latency -H "X-API-Key: $key" -s "$work/$name/detail.lua" "$base" 2>&1)
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$i" "$name" "$label" "$idle" \
			"$(echo "$res" | awk '/^Requests\/sec:/ {printf "%d", $2}')" \
			"$(to_ms "$(echo "$res" | awk '$1 == "50%" {print $2}')")" \
			"$(to_ms "$(echo "$res" | awk '$1 == "99%" {print $2}')")" >>"$work/results"
		stop
	done
done

echo
echo "| binary | worker | idle CPU (% of a core) | API detail req/s | p50 ms | p99 ms |"
echo "|---|---|---:|---:|---:|---:|"
for i in "${!configs[@]}"; do
	IFS='|' read -r label name _ <<<"${configs[$i]}"
	col() { awk -F'\t' -v i="$i" -v c="$1" '$1 == i {print $c}' "$work/results" | median; }
	echo "| $name | $label | $(col 4) | $(col 5) | $(col 6) | $(col 7) |"
done
echo
echo "(medians of $rounds rounds; each round: 10 s idle, then wrk -t1 -c32 -d$duration)"
