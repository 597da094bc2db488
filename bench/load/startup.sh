#!/usr/bin/env bash
# Start-up time and resident memory of the fragrance service.
#
# Fills a database once (the bundled catalogue, or ~200,000 or ~500,000
# perfumes with --catalogue 200k|500k), then starts `fragrance serve` on it
# several times and measures, for each start: the time from starting the process to the first
# 200 of /healthz (the catalogue loaded and indexed), and the resident
# memory (VmRSS) and its peak (VmHWM) two seconds later. Prints every run
# and the median.
#
# Usage: bench/load/startup.sh [--catalogue bundled|200k|500k] [--runs 5] [--db FILE]
#        [--bin FILE] [--serve-flags "..."] [--out FILE]
#   --bin FILE   use this fragrance binary instead of building one
set -euo pipefail

catalogue=200k
runs=5
db=""
serve_flags=""
out=""
bin=""
while [ $# -gt 0 ]; do
	case "$1" in
	--catalogue) catalogue=$2; shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	--db) db=$2; shift 2 ;;
	--serve-flags) serve_flags=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--bin) bin=$2; shift 2 ;;
	-h | --help) awk 'NR > 1 && !/^#/ {exit} NR > 1 {sub(/^# ?/, ""); print}' "$0"; exit 0 ;;
	*) echo "unknown argument: $1 (try --help)" >&2; exit 2 ;;
	esac
done
case "$catalogue" in bundled | 200k | 500k) ;; *) echo "--catalogue must be bundled, 200k or 500k" >&2; exit 2 ;; esac
if [ -n "$bin" ]; then
	[ -x "$bin" ] || { echo "--bin $bin: not an executable file" >&2; exit 2; }
	bin=$(realpath "$bin")
fi

root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/fragrance-startup.XXXXXX")
pid=""
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ -z "$bin" ]; then
	echo "== building" >&2
	(cd "$root" && go build -o "$work/fragrance" ./cmd/fragrance)
	bin="$work/fragrance"
fi
if [ -z "$db" ]; then
	db="$work/bench.db"
	echo "== filling the database ($catalogue)" >&2
	"$bin" import --db "$db" "$root/internal/bundled/catalogue.jsonl.gz" >/dev/null
	generated=0
	case "$catalogue" in 200k) generated=162510 ;; 500k) generated=462510 ;; esac
	if [ "$generated" -gt 0 ]; then
		"$bin" generate --count "$generated" --out "$work/gen.jsonl" 2>/dev/null
		"$bin" import --db "$db" "$work/gen.jsonl" >/dev/null
		rm -f "$work/gen.jsonl"
	fi
fi

now() { date +%s.%N; }
results=()
for i in $(seq 1 "$runs"); do
	start=$(now)
	# shellcheck disable=SC2086 # several flags on purpose
	"$bin" serve --db "$db" --addr 127.0.0.1:0 --image-workers 0 $serve_flags 2>"$work/serve.log" &
	pid=$!
	addr=""
	until [ -n "$addr" ] && curl -sf "http://$addr/healthz" >/dev/null; do
		kill -0 "$pid" 2>/dev/null || { cat "$work/serve.log" >&2; exit 1; }
		addr=$(ss -ltnpH 2>/dev/null | awk -v p="pid=$pid," 'index($0, p) && $4 ~ /^127\.0\.0\.1:/ {print $4; exit}')
		sleep 0.01
	done
	ready=$(now)
	perfumes=$(curl -s "http://$addr/healthz" | sed -n 's/.*"perfumes":\([0-9]*\).*/\1/p')
	sleep 2
	rss=$(awk '/VmRSS/ {printf "%d", $2 / 1024}' "/proc/$pid/status")
	hwm=$(awk '/VmHWM/ {printf "%d", $2 / 1024}' "/proc/$pid/status")
	kill "$pid"
	wait "$pid" 2>/dev/null || true
	pid=""
	secs=$(awk -v a="$start" -v b="$ready" 'BEGIN {printf "%.2f", b - a}')
	echo "run $i: $perfumes perfumes, ready in $secs s, RSS $rss MB (peak $hwm MB)" >&2
	results+=("$secs $rss $hwm")
done

median() { sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
{
	echo
	echo "Start-up: $catalogue catalogue ($perfumes perfumes), $runs starts, $(nproc) cores, $(go version | awk '{print $3}')${serve_flags:+, serve $serve_flags}${bin:+, binary $bin}"
	echo
	echo "| | median | min | max |"
	echo "|---|---:|---:|---:|"
	for col in 1 2 3; do
		vals=$(printf '%s\n' "${results[@]}" | awk -v c="$col" '{print $c}')
		name=$(echo "start-up to /healthz 200 (s)|resident memory after start-up (MB)|peak resident memory (MB)" | cut -d'|' -f"$col")
		echo "| $name | $(echo "$vals" | median) | $(echo "$vals" | sort -n | head -1) | $(echo "$vals" | sort -n | tail -1) |"
	done
} | tee -a "${out:-/dev/null}"
