#!/usr/bin/env bash
# A full walk of the change feed, as a nightly copy makes it: every page of
# GET /api/perfumes/changes?limit=1000 from the beginning, each read whole
# (curl, its body to a file the cursor is read from), against a running
# server; prints the walk's time, pages and bytes, and the server's
# CPU time and its resident memory sampled every 0.2 s during the walk
# (min, median, max).
# Run the server with its neighbour lists ready ("neighbour lists ready"
# in its log): until then each perfume's similar list is ranked on demand.
#
# A walk of N perfumes costs N/100 requests of the key's per-minute window
# (a page of 1,000 counts 10): 200,000 perfumes take 2,000, so use a key
# whose tier allows the runs asked for (fragrance tiers set).
#
# Usage: bench/load/changes.sh --addr http://127.0.0.1:8080 --key KEY --pid PID [--runs 3]
set -euo pipefail

addr=""; key=""; pid=""; runs=3
while [ $# -gt 0 ]; do
	case "$1" in
	--addr) addr=$2; shift 2 ;;
	--key) key=$2; shift 2 ;;
	--pid) pid=$2; shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	-h | --help) awk 'NR > 1 && !/^#/ {exit} NR > 1 {sub(/^# ?/, ""); print}' "$0"; exit 0 ;;
	*) echo "unknown argument: $1 (try --help)" >&2; exit 2 ;;
	esac
done
[ -n "$addr" ] && [ -n "$key" ] && [ -n "$pid" ] || { echo "--addr, --key and --pid are required" >&2; exit 2; }

rss() { awk '/^VmRSS/ {print int($2 / 1024)}' "/proc/$pid/status"; }
# cpu is the server's CPU time so far (user + system), in seconds.
cpu() { awk -v hz="$(getconf CLK_TCK)" '{print ($14 + $15) / hz}' "/proc/$pid/stat"; }
walk() {
	local cursor="" pages=0 code tail
	while :; do
		# A page that is not a 200 (a 429 once the key's window is spent)
		# ends the run with its status and answer, never as a short walk.
		code=$(curl -s -o "$work/page" -w '%{http_code}' -H "X-API-Key: $key" \
			"$addr/api/perfumes/changes?limit=1000&since=$cursor")
		if [ "$code" != 200 ]; then
			echo "page $((pages + 1)) answered $code: $(head -c 300 "$work/page")" >&2
			return 1
		fi
		wc -c <"$work/page" >>"$work/bytes"
		tail=$(tail -c 200 "$work/page")
		pages=$((pages + 1))
		cursor=$(grep -o '"nextCursor":"[^"]*"' <<<"$tail" | cut -d'"' -f4)
		grep -q '"hasMore":true' <<<"$tail" || break
	done
	echo "$pages"
}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for i in $(seq 1 "$runs"); do
	: >"$work/bytes"; : >"$work/rss"
	(while :; do rss >>"$work/rss"; sleep 0.2; done) &
	sampler=$!
	start=$(date +%s.%N); cpu0=$(cpu)
	pages=$(walk) || { kill "$sampler"; exit 1; }
	end=$(date +%s.%N); cpu1=$(cpu)
	kill "$sampler"; wait "$sampler" 2>/dev/null || true
	bytes=$(awk '{s += $1} END {print s}' "$work/bytes")
	read -r lo med hi < <(sort -n "$work/rss" | awk '{a[NR] = $1} END {print a[1], a[int((NR + 1) / 2)], a[NR]}')
	printf 'run %d: %.2f s, %d pages, %d MB; server CPU %.2f s; server RSS during the walk %s / %s / %s MB (min / median / max)\n' \
		"$i" "$(echo "$end - $start" | bc)" "$pages" "$((bytes / 1000000))" "$(echo "$cpu1 - $cpu0" | bc)" "$lo" "$med" "$hi"
done
