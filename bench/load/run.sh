#!/usr/bin/env bash
# Load benchmark of the fragrance service, side by side with a ceiling.
#
# Starts `fragrance serve` on a temporary database (the bundled catalogue,
# or ~200,000 or ~500,000 perfumes with --catalogue 200k|500k), creates an
# enterprise key whose limits never interfere, and measures each endpoint
# class with wrk:
# the service and a minimal Go net/http server (bench/load/ceiling)
# replaying the service's own answers to the same requests (status, headers
# and body recorded once, looked up by request URI) take turns, with the
# same wrk settings, and each figure is the median of the turns. It
# prints requests per second, p50/p99 latency, the server's CPU
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
# Mixes (--mix): which requests each class sends.
#   hot (default)  the same few hundred requests over and over (the 200 most
#                  rated perfumes, 40 queries, 20 match profiles, 50 list
#                  pages): what the answer cache serves best.
#   cold           the answer cache off (--answer-cache-mb 0) and (nearly) no
#                  request repeated: --distinct perfumes drawn uniformly from
#                  the whole catalogue, as many distinct searches, match
#                  profiles and list pages made from it; every answer computed.
#   zipf           the answer cache on; each class walks a sequence of
#                  --requests paths drawn from a Zipf distribution (s=--zipf-s)
#                  over all perfumes ranked most rated first (search, match and
#                  list over the cold mix's sets): the shape of real traffic.
#                  The service is restarted after its answers are recorded, so
#                  the cache starts empty and the first round warms it.
# In cold and zipf, each wrk thread and round starts at its own offset of the
# sequence (bench/load/mix writes them; bench/load/record records the answers).
#
# Usage: bench/load/run.sh [--mix hot|cold|zipf] [--catalogue bundled|200k|500k]
#        [--duration 5s] [--threads 2] [--connections 32] [--answer-cache N]
#        [--classes "detail list ..."] [--db FILE] [--bin FILE] [--serve-flags "..."]
#        [--out FILE] [--bare] [--layout split|shared] [--rounds 3]
#        [--distinct 20000] [--requests 100000] [--zipf-s 1.0] [--seed 1]
#   classes            detail list search similar dupes match brands notes page
#                      (the default), and for the hot mix only browse facets
#                      ids page100 (bench/load/browse.txt's filtered lists,
#                      those with every facet, lookups of 100 slugs, pages of 100)
#                      and browse-many facets-many (9,600 filtered lists, alone
#                      and with every facet: more sets than the facets memo
#                      holds, so with --answer-cache 0 every facet answer is
#                      its set's first count; each wrk thread starts apart)
#   --catalogue C      bundled (37,490 perfumes), 200k or 500k (162,510 or
#                      462,510 generated perfumes imported beside the bundled)
#   --answer-cache N   the service's --answer-cache-mb (default: the service's default;
#                      0 turns the answer cache off, to measure every answer computed;
#                      cold needs 0 and sets it, zipf refuses 0)
#   --db FILE          use an existing database (already filled) instead of a new one
#   --bin FILE         use this fragrance binary instead of building one (the same
#                      script against two binaries: before and after)
#   --serve-flags S    more flags for fragrance serve, e.g. "--log-level warn"
#   --out FILE         also append the table (Markdown) to FILE
#   --bare             also run the bare ceiling (one body, only Content-Type and
#                      Content-Length) and show its req/s for reference
#   --layout L         split (default): wrk and the server on separate cores;
#                      shared: all processes on all cores
#   --rounds N         service and ceiling take N turns per class (default 3);
#                      the table shows the median of each figure
#   --distinct N       cold: distinct paths per class (default 20000, or all
#                      perfumes when fewer); the size of the search, match and
#                      list sets of cold and zipf
#   --requests N       zipf: the length of each class's sequence (default 100000)
#   --zipf-s S         zipf: the exponent (default 1.0)
#   --seed N           cold and zipf: the random seed (default 1)
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
mix=hot
bin=""
distinct=20000
requests=100000
zipf_s=1.0
seed=1
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
	--mix) mix=$2; shift 2 ;;
	--bin) bin=$2; shift 2 ;;
	--distinct) distinct=$2; shift 2 ;;
	--requests) requests=$2; shift 2 ;;
	--zipf-s) zipf_s=$2; shift 2 ;;
	--seed) seed=$2; shift 2 ;;
	-h | --help) awk 'NR > 1 && !/^#/ {exit} NR > 1 {sub(/^# ?/, ""); print}' "$0"; exit 0 ;;
	*) echo "unknown argument: $1 (try --help)" >&2; exit 2 ;;
	esac
done
case "$catalogue" in bundled | 200k | 500k) ;; *) echo "--catalogue must be bundled, 200k or 500k" >&2; exit 2 ;; esac
case "$layout" in split | shared) ;; *) echo "--layout must be split or shared" >&2; exit 2 ;; esac
case "$rounds" in "" | *[!0-9]* | 0) echo "--rounds must be a positive number" >&2; exit 2 ;; esac
for n in "$distinct" "$requests" "$seed"; do
	case "$n" in "" | *[!0-9]*) echo "--distinct, --requests and --seed must be numbers" >&2; exit 2 ;; esac
done
case "$mix" in
hot) ;;
cold)
	# Every answer computed: a cache would serve the repeats of a short run.
	case "$answer_cache" in
	"" | 0) answer_cache=0 ;;
	*) echo "--mix cold runs with the answer cache off: leave --answer-cache out or give 0" >&2; exit 2 ;;
	esac ;;
zipf)
	if [ "$answer_cache" = 0 ]; then
		echo "--mix zipf runs with the answer cache on: leave --answer-cache out (the default size) or give a size" >&2
		exit 2
	fi ;;
*) echo "--mix must be hot, cold or zipf" >&2; exit 2 ;;
esac
bin_note=""
if [ -n "$bin" ]; then
	[ -x "$bin" ] || { echo "--bin $bin: not an executable file" >&2; exit 2; }
	bin=$(realpath "$bin")
	bin_note="; binary $bin"
fi

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
if [ -z "$bin" ]; then
	(cd "$root" && go build -o "$work/fragrance" ./cmd/fragrance)
	bin="$work/fragrance"
fi
(cd "$root" && for tool in ceiling record mix; do go build -o "$work/tools/$tool" "./bench/load/$tool"; done)

if [ -z "$db" ]; then
	db="$work/bench.db"
	generated=0
	case "$catalogue" in 200k) generated=162510 ;; 500k) generated=462510 ;; esac
	if [ "$generated" -gt 0 ]; then
		log "generating and importing $generated perfumes beside the bundled 37,490"
		"$bin" generate --count "$generated" --out "$work/gen.jsonl" 2>/dev/null
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
		if curl -sf -o /dev/null -m 1 "http://$a/healthz"; then echo "$a"; return; fi
	done
}

# start_serve starts the service on a free loopback port and waits until
# /healthz answers 200; it sets $base and $serve_pid.
start_serve() {
	local flags=(--db "$db" --addr 127.0.0.1:0 --image-workers 0)
	[ -n "$answer_cache" ] && flags+=(--answer-cache-mb "$answer_cache")
	# The load comes from one address: the pages' per-IP limit is off.
	"$bin" serve -h 2>&1 | grep -q -- -page-limit && flags+=(--page-limit 0)
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
	# A service that fills neighbour lists (similar and dupes of every
	# perfume, after a load; stored, so a filled --db loads them at once)
	# is measured once they are ready, not while it ranks them.
	if "$bin" serve -h 2>&1 | grep -q -- -neighbour-workers && [[ " $serve_flags " != *" --neighbour-workers 0 "* ]]; then
		local t0=$SECONDS
		until grep -q 'neighbour lists ready' "$work/serve.log"; do
			kill -0 "$serve_pid" 2>/dev/null || { cat "$work/serve.log" >&2; exit 1; }
			[ $((SECONDS - t0)) -lt 3600 ] || { echo "neighbour lists not ready after an hour" >&2; exit 1; }
			sleep 0.5
		done
		log "neighbour lists ready after $((SECONDS - t0)) s: $(grep -o 'chunks=.*' "$work/serve.log" | tail -1)"
	fi
}

# stop_serve stops the service started last.
stop_serve() {
	kill "$serve_pid" 2>/dev/null || true
	wait "$serve_pid" 2>/dev/null || true
	local p kept=()
	for p in "${pids[@]}"; do [ "$p" = "$serve_pid" ] || kept+=("$p"); done
	pids=("${kept[@]}")
}

log "starting the service ($catalogue catalogue)"
start_serve
key=$("$bin" keys create --db "$db" --tier enterprise --per-minute 100000000 --per-day 1000000000 \
	--email bench@example.com --name load-benchmark | tail -1)
perfumes=$(curl -s "$base/healthz" | sed -n 's/.*"perfumes":\([0-9]*\).*/\1/p')

get() { curl -sf -H "X-API-Key: $key" "$base$1"; }
export FRAGRANCE_BENCH_KEY=$key # for bench/load/record, off its command line

# The cold and zipf mixes: every perfume (from an export: paging through
# the API takes long at 500k), the accords and notes match pairs, and a
# sequence and its distinct paths per class, written by bench/load/mix.
if [ "$mix" != hot ]; then
	log "writing the $mix mix"
	"$bin" export --db "$db" --format csv --out "$work/catalogue.csv" >/dev/null 2>"$work/export.log" ||
		{ cat "$work/export.log" >&2; exit 1; }
	get "/api/accords?limit=20" >"$work/accords.json"
	get "/api/notes?limit=10" >"$work/notes.json"
	mkdir -p "$work/mix"
	"$work/tools/mix" --mix "$mix" --classes "$classes" --catalogue "$work/catalogue.csv" \
		--accords "$work/accords.json" --notes "$work/notes.json" --queries "$here/queries.txt" \
		--distinct "$distinct" --requests "$requests" --zipf-s "$zipf_s" --seed "$seed" --dir "$work/mix"
fi

# many_sets prints 9,600 filtered lists' parameters: one of 20 common
# accords crossed with a gender, a season, a time and a year range (each
# possibly none).
many_sets() {
	local a g s t y
	for a in woody citrus sweet floral fruity aromatic powdery warm+spicy fresh+spicy white+floral \
		amber vanilla green musky rose fresh earthy leather aquatic balsamic; do
		for g in "" feminine masculine unisex; do
			for s in "" winter spring summer fall; do
				for t in "" day night; do
					for y in "" 2020- 2015- 2010-2020 2005-2015 2000-2009 1990-1999 -1989; do
						echo "accords=$a${g:+&gender=$g}${s:+&season=$s}${t:+&time=$t}${y:+&year=$y}"
					done
				done
			done
		done
	done
}

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
	# Browsing (hot mix only): filtered lists, the same with every facet,
	# lookups of 100 slugs (windows over the 200 most rated), pages of 100.
	browse) grep -v '^$' "$here/browse.txt" | while read -r b; do echo "/api/perfumes?$b"; done ;;
	facets) grep -v '^$' "$here/browse.txt" | while read -r b; do echo "/api/perfumes?$b&facets=gender,season,time,accords,notes,year"; done ;;
	browse-many) many_sets | while read -r b; do echo "/api/perfumes?$b"; done ;;
	facets-many) many_sets | while read -r b; do echo "/api/perfumes?$b&facets=gender,season,time,accords,notes,year"; done ;;
	ids) all=($slugs); for o in $(seq 0 10 100); do echo "/api/perfumes?ids=$(IFS=,; echo "${all[*]:$o:100}")"; done ;;
	page100) for p in $(seq 1 50); do echo "/api/perfumes?limit=100&page=$p"; done ;;
	esac
}

# write_lua writes a wrk script that rotates through the paths of a class
# (the hot mix: every thread starts at the first).
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

# write_mix_lua writes a wrk script that walks the sequence of file $2 (one
# path a line). Each thread, in each round (the argument after --), starts
# at its own offset, so that threads do not ask for the same path at once
# and rounds do not repeat one another (unless a round goes through more
# than its share of the sequence).
write_mix_lua() {
	cat >"$1" <<LUA
local file, threads, rounds = "$2", $threads, $rounds
local next_id = 0
setup = function(thread)
  thread:set("id", next_id)
  next_id = next_id + 1
end
init = function(args)
  paths = {}
  for line in io.lines(file) do paths[#paths + 1] = line end
  local round = tonumber(args[#args]) or 1
  i = math.floor(((round - 1) * threads + id) * #paths / (threads * rounds))
end
request = function()
  i = i + 1
  return wrk.format("GET", paths[(i % #paths) + 1])
end
LUA
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

# run_wrk runs wrk against url $1 with script $2, served by process $3, in
# round $4 (1 unless given), and prints "rps p50 p99 errors cpu": cpu is
# the server's CPU time per request in microseconds, which moves far less
# than the request rate when other jobs share the machine.
run_wrk() {
	local res t0 t1
	t0=$(cpu_ticks "$3")
	res=$("${on_client[@]}" wrk -t"$threads" -c"$connections" -d"$duration" --latency -H "X-API-Key: $key" -s "$2" "$1" -- "${4:-1}" 2>&1)
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
# to its address (waiting up to 150 s).
start_ceiling() {
	rm -f "$work/ceiling.addr"
	"${on_server[@]}" "$work/tools/ceiling" --addr 127.0.0.1:0 --port-file "$work/ceiling.addr" "$@" &
	cpid=$!
	pids+=("$cpid")
	# Loading tens of thousands of answers (cold, zipf) takes seconds.
	for _ in $(seq 1 3000); do
		[ -s "$work/ceiling.addr" ] && break
		kill -0 "$cpid" 2>/dev/null || break
		sleep 0.05
	done
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
asked=()
for class in $classes; do
	if [ "$mix" = hot ]; then
		paths_for "$class" >"$work/$class.paths"
		mapfile -t paths <"$work/$class.paths"
		[ ${#paths[@]} -gt 0 ] || { echo "no paths for class $class" >&2; exit 1; }
		case "$class" in
		# Threads walking thousands of sets in step would each count what
		# the other just counted: they start apart, as in the mixes.
		*-many) write_mix_lua "$work/$class.lua" "$work/$class.paths" ;;
		*) write_lua "$work/$class.lua" "${paths[@]}" ;;
		esac
		what="${#paths[@]} paths"
	else
		cp "$work/mix/$class.paths" "$work/$class.paths"
		write_mix_lua "$work/$class.lua" "$work/mix/$class.seq"
		n_seq=$(wc -l <"$work/mix/$class.seq")
		n_paths=$(wc -l <"$work/$class.paths")
		asked+=("$class $n_paths")
		what="a sequence of $n_seq requests over $n_paths distinct paths"
	fi
	# Record the service's answer to every path (status, headers, body): the
	# ceiling replays them, so both sides move the same bytes.
	rec="$work/$class.answers"
	log "$class: recording the answers to $what"
	"${on_client[@]}" "$work/tools/record" --base "$base" --paths "$work/$class.paths" --dir "$rec" >"$work/record.out"
	read -r n_answers size <"$work/record.out"
	size=$((size / n_answers))
	if [ "$mix" = zipf ]; then
		# Recording filled the answer cache: start with it empty, as after a
		# deployment; the first round warms it.
		log "$class: restarting the service (the answer cache starts empty)"
		stop_serve
		start_serve
	fi

	# Service and ceiling take turns, $rounds times: each figure is the
	# median of its rounds, so a busy moment on the machine moves one
	# round of each, not the whole comparison.
	log "$class: answers of $size bytes on average; service and ceiling (the same answers replayed), $rounds rounds"
	start_ceiling --answers "$rec"
	log "$class: the ceiling holds the answers in $(awk '/VmRSS/ {printf "%d", $2 / 1024}' "/proc/$cpid/status") MB"
	: >"$work/s.runs"
	: >"$work/c.runs"
	for round in $(seq 1 "$rounds"); do
		run_wrk "$base/" "$work/$class.lua" "$serve_pid" "$round" >>"$work/s.runs"
		run_wrk "$ceiling" "$work/$class.lua" "$cpid" "$round" >>"$work/c.runs"
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
	case "$mix" in
	hot) about="hot mix (the same few hundred requests repeated)" ;;
	cold) about="cold mix (answer cache off; seed $seed)" ;;
	zipf) about="zipf mix (s=$zipf_s over the catalogue ranked most rated first, $requests-request sequences, seed $seed; the service restarted before each class, its cache warming in the first round)" ;;
	esac
	if [ ${#asked[@]} -gt 0 ]; then
		about+="; distinct paths per class: $(printf '%s, ' "${asked[@]}" | sed 's/, $//')"
	fi
	echo "Load benchmark, $about: $catalogue catalogue ($perfumes perfumes), wrk -t$threads -c$connections -d$duration, medians of $rounds interleaved rounds, access layer on; $where"
	echo "Machine: $(nproc) cores, $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo), $(awk '/MemTotal/ {printf "%.0f GB", $2 / 1048576}' /proc/meminfo) RAM; $(go version | awk '{print $3}'); answer cache ${answer_cache:-default} MB${serve_flags:+; serve $serve_flags}${bin_note}"
	echo
	echo "| class | ratio | service req/s | ceiling req/s | p50 ms | p99 ms | ceiling p50 ms | ceiling p99 ms | CPU µs/req | ceiling CPU µs/req | CPU ratio | body bytes | errors | bare ceiling req/s |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
	for r in "${rows[@]}"; do echo "| ${r//|/ | } |"; done
	echo
	echo "Service resident memory after the run: $rss MB"
} | tee -a "${out:-/dev/null}"
