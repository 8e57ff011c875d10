#!/usr/bin/env bash
# bench/run.sh: ballot against nginx and a minimal Go handler serving the very
# same response bytes, with wrk, in alternation; prints medians and ratios.
# A second Go handler ("go+hdr") also sends the header fields saved from
# ballot's answers, with ballot's server timeouts: what net/http alone costs
# for the header fields the contract requires. On the Malta data a second
# ballot ("ballot-log") runs with the access log on, as configured by
# default, beside the first with it off.
#
#   bench/run.sh                 5 rounds x 10 s per server and endpoint (~15 min)
#   QUICK=1 bench/run.sh         3 rounds x 3 s (~3 min)
#   ROUNDS=7 DURATION=20 CONNS=64 PORT_BASE=28080 SYNTH_N=20000 bench/run.sh
#
# Loopback only. Results: bench/out/results.tsv (every run) and
# bench/out/summary.txt (the table printed at the end).
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "$0")/lib.sh"

if [[ ${QUICK:-0} == 1 ]]; then
	ROUNDS=${ROUNDS:-3} DURATION=${DURATION:-3}
fi
ROUNDS=${ROUNDS:-5}
DURATION=${DURATION:-10}
CONNS=${CONNS:-32}
PORT_BASE=${PORT_BASE:-18080}
SYNTH_N=${SYNTH_N:-20000}

# Ports: ballot, nginx, Go handler on the Malta data; then on the synthetic;
# then the Go handler with ballot's header fields on both; then ballot with
# its access log on, on the Malta data.
P_BALLOT=$((PORT_BASE + 1)) P_NGINX=$((PORT_BASE + 2)) P_GO=$((PORT_BASE + 3))
P_BALLOT_S=$((PORT_BASE + 4)) P_NGINX_S=$((PORT_BASE + 5)) P_GO_S=$((PORT_BASE + 6))
P_GOH=$((PORT_BASE + 7)) P_GOH_S=$((PORT_BASE + 8)) P_BALLOT_L=$((PORT_BASE + 9))

# The endpoints: name, site (malta or synth), request URI.
ENDPOINTS=(
	"candidates malta /api/public/v1/candidates"
	"district5 malta /api/public/v1/candidates?district=5"
	"parties malta /api/public/v1/parties"
	"synth-candidates synth /api/public/v1/candidates"
	"synth-district5 synth /api/public/v1/candidates?district=5"
)
# Servers per endpoint; "ballot-gzip" is ballot with Accept-Encoding: gzip,
# on the first endpoint only; "ballot-log" is ballot with its access log on,
# on the Malta endpoints.
SERVERS=(ballot nginx go gohdr)
GZIP_ENDPOINT=candidates
MALTA_ENDPOINTS=3

runs=$((${#ENDPOINTS[@]} * ${#SERVERS[@]} + 1 + MALTA_ENDPOINTS))
# The time limit leaves room for waits on a busy machine; past it, the
# remaining runs are skipped and the table shows what was measured.
MAX_SECONDS=${MAX_SECONDS:-$((ROUNDS * runs * (DURATION + 8) + 120))}
TIMED_OUT=0
say "run.sh: $ROUNDS rounds x ${DURATION}s x $runs runs, wrk -t1 -c$CONNS; at most ${MAX_SECONDS}s"

install_tools wrk nginx curl
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
build
SOURCE_STATE=$(source_state)
for p in "$P_BALLOT" "$P_NGINX" "$P_GO" "$P_BALLOT_S" "$P_NGINX_S" "$P_GO_S" "$P_GOH" "$P_GOH_S" "$P_BALLOT_L"; do port_free "$p"; done

# --- the synthetic dataset, and its load time ----------------------------
SYNTH=$OUT/synth-$SYNTH_N
synth_dataset "$SYNTH" "$SYNTH_N"
validate_ms=()
for _ in 1 2 3; do
	t0=$(now_ms)
	out=$("$OUT/ballot" validate "$SYNTH" 2>&1) || die "ballot validate $SYNTH failed: $out"
	validate_ms+=($(($(now_ms) - t0)))
done
VALIDATE_MS=$(printf '%s\n' "${validate_ms[@]}" | median)

# --- ballot, on both datasets ---------------------------------------------
ballot_flags=(--rate-limit 1000000000 --admin-listen "")
# start_ballot PORT LOG [FLAG...]: runs ballot in bench/out (so no config.toml
# is read), leaving its PID in BG_PID and the ms from start to its "serving"
# line in START_MS.
start_ballot() {
	local port=$1 log=$2 t0
	shift 2
	t0=$(now_ms)
	# shellcheck disable=SC2016 # the inner shell expands them
	start_bg "$log" bash -c 'cd "$1" && shift && exec "$@"' _ "$OUT" \
		"$OUT/ballot" serve --listen "127.0.0.1:$port" "${ballot_flags[@]}" "$@"
	wait_line "$log" "ballot: serving"
	START_MS=$(($(now_ms) - t0))
}
start_ballot "$P_BALLOT" "$OUT/ballot-malta.log" --access-log=false
PID_BALLOT=$BG_PID START_MALTA_MS=$START_MS
start_ballot "$P_BALLOT_S" "$OUT/ballot-synth.log" --access-log=false --data "$SYNTH"
PID_BALLOT_S=$BG_PID START_SYNTH_MS=$START_MS
# The access log goes to a file, as it would to a journal: each line is
# written out, not thrown away.
start_ballot "$P_BALLOT_L" "$OUT/ballot-malta-log.log" --access-log=true
PID_BALLOT_L=$BG_PID
RSS_MALTA_KB=$(rss_kb "$PID_BALLOT")
RSS_SYNTH_KB=$(rss_kb "$PID_BALLOT_S")

# --- the same bytes, saved from ballot --------------------------------------
STATIC=$OUT/static
rm -rf "$STATIC"
mkdir -p "$STATIC/malta" "$STATIC/synth"
declare -A BYTES GZBYTES
for e in "${ENDPOINTS[@]}"; do
	read -r name site uri <<<"$e"
	port=$P_BALLOT
	[[ $site == synth ]] && port=$P_BALLOT_S
	file=${name#synth-}.json
	curl -sS --fail -D "$STATIC/$site/${file%.json}.headers" -o "$STATIC/$site/$file" "http://127.0.0.1:$port$uri"
	printf '%s\t%s\t%s\n' "$uri" "$file" "${file%.json}.headers" >>"$STATIC/$site/urls.tsv"
	BYTES[$name]=$(wc -c <"$STATIC/$site/$file")
	GZBYTES[$name]=$(curl -sS --fail -H 'Accept-Encoding: gzip' "http://127.0.0.1:$port$uri" | wc -c)
done

# --- nginx: the saved files, mapped from the same URIs ----------------------
mkdir -p "$OUT/nginx/tmp"
{
	cat <<EOF
# Written by bench/run.sh. Serves the bodies saved from ballot as static files.
daemon off;
master_process on;
worker_processes auto;
pid $OUT/nginx.pid;
error_log $OUT/nginx-error.log warn;
events { worker_connections 4096; }
http {
    access_log off;
    sendfile on;
    tcp_nopush on;
    tcp_nodelay on;
    keepalive_timeout 65s;
    keepalive_requests 100000000;
    types { }
    default_type application/json;
    charset utf-8;
    charset_types application/json;
    client_body_temp_path $OUT/nginx/tmp/body;
    proxy_temp_path $OUT/nginx/tmp/proxy;
    fastcgi_temp_path $OUT/nginx/tmp/fastcgi;
    uwsgi_temp_path $OUT/nginx/tmp/uwsgi;
    scgi_temp_path $OUT/nginx/tmp/scgi;
EOF
	for site in malta synth; do
		port=$P_NGINX
		[[ $site == synth ]] && port=$P_NGINX_S
		echo "    map \$request_uri \$${site}_file {"
		echo "        default /not-benchmarked;"
		while IFS=$'\t' read -r uri file _; do
			echo "        \"$uri\" /$file;"
		done <"$STATIC/$site/urls.tsv"
		echo "    }"
		echo "    server {"
		echo "        listen 127.0.0.1:$port reuseport;"
		echo "        root $STATIC/$site;"
		echo "        location / { try_files \$${site}_file =404; }"
		echo "    }"
	done
	echo "}"
} >"$OUT/nginx.conf"
start_bg "$OUT/nginx.log" "$NGINX" -p "$OUT/nginx/" -c "$OUT/nginx.conf" -e "$OUT/nginx-error.log"
PID_NGINX=$BG_PID

# --- the Go handler, on the same saved bodies ------------------------------
start_bg "$OUT/gohandler-malta.log" "$OUT/gohandler" -listen "127.0.0.1:$P_GO" -dir "$STATIC/malta"
PID_GO=$BG_PID
start_bg "$OUT/gohandler-synth.log" "$OUT/gohandler" -listen "127.0.0.1:$P_GO_S" -dir "$STATIC/synth"
PID_GO_S=$BG_PID
start_bg "$OUT/gohandler-hdr-malta.log" "$OUT/gohandler" -ballot-headers -listen "127.0.0.1:$P_GOH" -dir "$STATIC/malta"
PID_GOH=$BG_PID
start_bg "$OUT/gohandler-hdr-synth.log" "$OUT/gohandler" -ballot-headers -listen "127.0.0.1:$P_GOH_S" -dir "$STATIC/synth"
PID_GOH_S=$BG_PID
for p in "$P_NGINX" "$P_GO" "$P_NGINX_S" "$P_GO_S" "$P_GOH" "$P_GOH_S"; do wait_http "http://127.0.0.1:$p/"; done

# Every server answers every endpoint with the same body, but for the
# timestamp; ballot's gzip answer decompresses to it as well.
mask() { sed 's/"generatedAt":"[^"]*"/"generatedAt":"…"/'; }
for e in "${ENDPOINTS[@]}"; do
	read -r name site uri <<<"$e"
	file=$STATIC/$site/${name#synth-}.json
	want=$(mask <"$file")
	ports=("$P_BALLOT" "$P_NGINX" "$P_GO" "$P_GOH" "$P_BALLOT_L")
	[[ $site == synth ]] && ports=("$P_BALLOT_S" "$P_NGINX_S" "$P_GO_S" "$P_GOH_S")
	for p in "${ports[@]}"; do
		[[ $(curl -sS --fail "http://127.0.0.1:$p$uri" | mask) == "$want" ]] ||
			die "127.0.0.1:$p$uri does not serve the bytes saved in $file"
	done
	[[ $(curl -sS --fail --compressed "http://127.0.0.1:${ports[0]}$uri" | mask) == "$want" ]] ||
		die "ballot's gzip answer to $uri differs"
done
HDR_BALLOT=$(curl -sS -o /dev/null -D - "http://127.0.0.1:$P_BALLOT/api/public/v1/parties" | wc -c)
HDR_NGINX=$(curl -sS -o /dev/null -D - "http://127.0.0.1:$P_NGINX/api/public/v1/parties" | wc -c)
HDR_GO=$(curl -sS -o /dev/null -D - "http://127.0.0.1:$P_GO/api/public/v1/parties" | wc -c)
HDR_GOH=$(curl -sS -o /dev/null -D - "http://127.0.0.1:$P_GOH/api/public/v1/parties" | wc -c)
# go+hdr sends ballot's header fields, the Date net/http adds aside.
fields() { curl -sS -o /dev/null -D - "$1" | tr -d '\r' | awk -F: 'NR > 1 && NF > 1 && tolower($1) != "date" { print tolower($1) }' | sort; }
[[ $(fields "http://127.0.0.1:$P_GOH/api/public/v1/parties") == "$(fields "http://127.0.0.1:$P_BALLOT/api/public/v1/parties")" ]] ||
	die "the Go handler with ballot's headers does not send the same header fields as ballot"

# --- wrk, in alternation ----------------------------------------------------
CLK_TCK=$(getconf CLK_TCK)
RESULTS=$OUT/results.tsv
printf 'round\tendpoint\tserver\trps\tp50_us\tp99_us\tcpu_us_per_req\trequests\terrors\tother_cores\n' >"$RESULTS"

to_us() { # "412.00us", "1.23ms", "2.00s" -> microseconds
	awk -v v="$1" 'BEGIN { n = v + 0; u = v; sub(/^[0-9.]+/, "", u)
		m = (u == "us") ? 1 : (u == "ms") ? 1e3 : (u == "s") ? 1e6 : (u == "m") ? 6e7 : 1
		printf "%.1f", n * m }'
}

# bench_one ROUND ENDPOINT SERVER URL PIDS [WRK-ARGS...]
bench_one() {
	local round=$1 name=$2 server=$3 url=$4 pids=$5 out c0 c1 m0 m1 w0 w1 t0 reqs rps p50 p99 errors
	shift 5
	if ((SECONDS >= MAX_SECONDS)); then
		TIMED_OUT=1
		return 0
	fi
	wait_quiet
	# shellcheck disable=SC2086 # $pids is a list of PIDs
	c0=$(cpu_ticks $pids) m0=$(busy_ticks) w0=$(child_ticks) t0=$(now_ms)
	out=$(timeout $((DURATION + 20)) wrk -t1 -c"$CONNS" -d"${DURATION}s" --latency "$@" "$url")
	# shellcheck disable=SC2086
	c1=$(cpu_ticks $pids) m1=$(busy_ticks) w1=$(child_ticks)
	reqs=$(awk '/ requests in /{ print $1 }' <<<"$out")
	rps=$(awk '/^Requests\/sec:/{ print $2 }' <<<"$out")
	p50=$(to_us "$(awk '$1 == "50%" { print $2 }' <<<"$out")")
	p99=$(to_us "$(awk '$1 == "99%" { print $2 }' <<<"$out")")
	errors=$(awk '/Non-2xx/ { n += $NF } /Socket errors/ { gsub(/,/, ""); n += $4 + $6 + $8 + $10 } END { print n + 0 }' <<<"$out")
	# other_cores: the cores busy with anything but the server and wrk:
	# the kernel's softirq work for loopback TCP (0.2 to 0.6 cores here on
	# a quiet machine) and whatever else runs.
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$name" "$server" "$rps" "$p50" "$p99" \
		"$(awk -v t=$((c1 - c0)) -v hz="$CLK_TCK" -v n="$reqs" 'BEGIN { printf "%.1f", t * 1e6 / hz / n }')" \
		"$reqs" "$errors" \
		"$(awk -v m=$((m1 - m0 - c1 + c0 - w1 + w0)) -v hz="$CLK_TCK" -v ms=$(($(now_ms) - t0)) 'BEGIN { x = m / hz / (ms / 1000); printf "%.2f", (x < 0 ? 0 : x) }')" >>"$RESULTS"
	((errors == 0)) || say "warning: $server $name: $errors errors or non-2xx answers"
}

nginx_pids() { echo "$PID_NGINX $(ps -o pid= --ppid "$PID_NGINX" | tr '\n' ' ')"; }

# bench_server ROUND ENDPOINT SITE URI SERVER
bench_server() {
	local round=$1 name=$2 site=$3 uri=$4 server=$5 base pids args=()
	case $site/$server in
	malta/ballot | malta/ballot-gzip) base=$P_BALLOT pids=$PID_BALLOT ;;
	malta/ballot-log) base=$P_BALLOT_L pids=$PID_BALLOT_L ;;
	malta/nginx) base=$P_NGINX pids=$(nginx_pids) ;;
	malta/go) base=$P_GO pids=$PID_GO ;;
	malta/gohdr) base=$P_GOH pids=$PID_GOH ;;
	synth/ballot) base=$P_BALLOT_S pids=$PID_BALLOT_S ;;
	synth/nginx) base=$P_NGINX_S pids=$(nginx_pids) ;;
	synth/go) base=$P_GO_S pids=$PID_GO_S ;;
	synth/gohdr) base=$P_GOH_S pids=$PID_GOH_S ;;
	esac
	[[ $server == ballot-gzip ]] && args=(-H "Accept-Encoding: gzip")
	bench_one "$round" "$name" "$server" "http://127.0.0.1:$base$uri" "$pids" "${args[@]}"
}

# A short warm-up of each server, not recorded.
for p in "$P_BALLOT" "$P_NGINX" "$P_GO" "$P_BALLOT_S" "$P_NGINX_S" "$P_GO_S" "$P_GOH" "$P_GOH_S" "$P_BALLOT_L"; do
	timeout 10 wrk -t1 -c"$CONNS" -d1s "http://127.0.0.1:$p/api/public/v1/candidates" >/dev/null
done

for ((round = 1; round <= ROUNDS && !TIMED_OUT; round++)); do
	say "round $round/$ROUNDS ($((SECONDS / 60))m$((SECONDS % 60))s)"
	for e in "${ENDPOINTS[@]}"; do
		read -r name site uri <<<"$e"
		servers=("${SERVERS[@]}")
		[[ $site == malta ]] && servers+=(ballot-log)
		[[ $name == "$GZIP_ENDPOINT" ]] && servers+=(ballot-gzip)
		# Rotate the order each round, so no server is always first.
		n=${#servers[@]}
		for ((i = 0; i < n; i++)); do
			bench_server "$round" "$name" "$site" "$uri" "${servers[$(((i + round - 1) % n))]}"
		done
	done
done

# --- the table ----------------------------------------------------------------
med() { # ENDPOINT SERVER COLUMN
	awk -F'\t' -v e="$1" -v s="$2" -v c="$3" 'NR > 1 && $2 == e && $3 == s { print $c }' "$RESULTS" | median
}
{
	echo "ballot benchmark: $(date -u +%Y-%m-%dT%H:%MZ), $ROUNDS rounds x ${DURATION}s, wrk -t1 -c$CONNS, medians"
	echo "ballot: $SOURCE_STATE"
	echo "machine: $(nproc) cores, $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo), $(go version | awk '{ print $3 }'), $("$NGINX" -v 2>&1 | sed 's/.*: //'), $(wrk -v 2>&1 | awk 'NR == 1 { print $1, $2 }')"
	echo
	echo "throughput (req/s) and server CPU per request (us, user+system, all threads/workers)"
	echo "(go+hdr: the Go handler sending ballot's header fields, with ballot's server timeouts)"
	printf '%-17s %7s | %8s %8s %8s %8s | %7s %7s %8s | %9s | %6s %6s %6s %6s | %8s %9s\n' \
		endpoint bytes ballot nginx go go+hdr b/nginx b/go b/go+hdr go+hdr/go "cpu b" "cpu n" "cpu go" "cpu g+h" "cpu b/go" "cpu b/g+h"
	for e in "${ENDPOINTS[@]}"; do
		read -r name _ _ <<<"$e"
		rb=$(med "$name" ballot 4) rn=$(med "$name" nginx 4) rg=$(med "$name" go 4) rh=$(med "$name" gohdr 4)
		cb=$(med "$name" ballot 7) cg=$(med "$name" go 7) ch=$(med "$name" gohdr 7)
		printf '%-17s %7s | %8.0f %8.0f %8.0f %8.0f | %7s %7s %8s | %9s | %6.1f %6.1f %6.1f %6.1f | %8s %9s\n' \
			"$name" "${BYTES[$name]}" "$rb" "$rn" "$rg" "$rh" "$(ratio "$rb" "$rn")" "$(ratio "$rb" "$rg")" \
			"$(ratio "$rb" "$rh")" "$(ratio "$rh" "$rg")" \
			"$cb" "$(med "$name" nginx 7)" "$cg" "$ch" "$(ratio "$cb" "$cg")" "$(ratio "$cb" "$ch")"
	done
	echo
	echo "the access log: ballot with it on (the default configuration) beside ballot with it off, Malta data"
	printf '%-17s | %8s %8s %7s | %9s %9s | %6s %6s %7s\n' \
		endpoint "log on" "log off" on/off "on/go+hdr" "off/go+hdr" "cpu on" "cpu off" "cpu o/o"
	for e in "${ENDPOINTS[@]:0:MALTA_ENDPOINTS}"; do
		read -r name _ _ <<<"$e"
		rl=$(med "$name" ballot-log 4) rb=$(med "$name" ballot 4) rh=$(med "$name" gohdr 4)
		cl=$(med "$name" ballot-log 7) cb=$(med "$name" ballot 7)
		printf '%-17s | %8.0f %8.0f %7s | %9s %9s | %6.1f %6.1f %7s\n' "$name" "$rl" "$rb" "$(ratio "$rl" "$rb")" \
			"$(ratio "$rl" "$rh")" "$(ratio "$rb" "$rh")" "$cl" "$cb" "$(ratio "$cl" "$cb")"
	done
	echo
	echo "latency (us) as wrk reports it"
	printf '%-17s | %7s %7s %7s %7s | %7s %7s %7s %7s | %8s %9s\n' \
		endpoint "p50 b" "p50 n" "p50 go" "p50 g+h" "p99 b" "p99 n" "p99 go" "p99 g+h" "p99 b/go" "p99 b/g+h"
	for e in "${ENDPOINTS[@]}"; do
		read -r name _ _ <<<"$e"
		printf '%-17s | %7.0f %7.0f %7.0f %7.0f | %7.0f %7.0f %7.0f %7.0f | %8s %9s\n' "$name" \
			"$(med "$name" ballot 5)" "$(med "$name" nginx 5)" "$(med "$name" go 5)" "$(med "$name" gohdr 5)" \
			"$(med "$name" ballot 6)" "$(med "$name" nginx 6)" "$(med "$name" go 6)" "$(med "$name" gohdr 6)" \
			"$(ratio "$(med "$name" ballot 6)" "$(med "$name" go 6)")" "$(ratio "$(med "$name" ballot 6)" "$(med "$name" gohdr 6)")"
	done
	echo
	g=$(med "$GZIP_ENDPOINT" ballot-gzip 4) p=$(med "$GZIP_ENDPOINT" ballot 4)
	printf 'gzip: ballot %s with Accept-Encoding: gzip %.0f req/s (%s bytes), plain %.0f req/s: gzip/plain %s; p99 %.0f us; CPU %s us/req\n' \
		"$GZIP_ENDPOINT" "$g" "${GZBYTES[$GZIP_ENDPOINT]}" "$p" "$(ratio "$g" "$p")" \
		"$(med "$GZIP_ENDPOINT" ballot-gzip 6)" "$(med "$GZIP_ENDPOINT" ballot-gzip 7)"
	for s in ballot go; do
		a=$(med synth-candidates "$s" 4) b=$(med candidates "$s" 4)
		printf '%-6s 100 candidates of %s vs of the Malta data: %.0f vs %.0f req/s, ratio %s (bodies %s vs %s bytes)\n' \
			"$s" "$SYNTH_N" "$a" "$b" "$(ratio "$a" "$b")" "${BYTES[synth-candidates]}" "${BYTES[candidates]}"
	done
	echo "load: ballot validate of $SYNTH_N candidates ${VALIDATE_MS} ms (median of 3); start to \"serving\": synthetic ${START_SYNTH_MS} ms, Malta ${START_MALTA_MS} ms"
	echo "RSS after start: Malta $((RSS_MALTA_KB / 1024)) MiB (${RSS_MALTA_KB} KiB), synthetic $((RSS_SYNTH_KB / 1024)) MiB (${RSS_SYNTH_KB} KiB)"
	echo "response header bytes (parties): ballot $HDR_BALLOT, nginx $HDR_NGINX, go $HDR_GO, go+hdr $HDR_GOH"
	errs=$(awk -F'\t' 'NR > 1 { n += $9 } END { print n + 0 }' "$RESULTS")
	echo "errors or non-2xx answers in all runs: $errs"
	((TIMED_OUT == 0)) || echo "STOPPED EARLY at the time limit of ${MAX_SECONDS}s: some rounds are missing"
	echo "cores busy outside the server and wrk (loopback softirq, and anything else running): median $(awk -F'\t' 'NR > 1 { print $10 }' "$RESULTS" | median), at most $(awk -F'\t' 'NR > 1 { print $10 }' "$RESULTS" | sort -g | tail -1); runs started on a busy machine after waiting ${QUIET_WAIT:-30}s for quiet: ${NOISY_WAITS:-0}"
} | tee "$OUT/summary.txt"
