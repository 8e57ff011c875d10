#!/usr/bin/env bash
# bench/limiter.sh: the rate limiter under many distinct clients, and ballot's
# memory with a million of them.
#
#   bench/limiter.sh            3 rounds x 10 s per case, then the memory runs (~5 min)
#   QUICK=1 bench/limiter.sh    3 rounds x 3 s, same memory runs (~3 min)
#   ROUNDS=5 DURATION=20 CLIENTS=20000 CONNS=32 PORT_BASE=28080 bench/limiter.sh
#
# 1. Throughput of one ballot (Malta data, --rate-limit 1000000000, so the
#    limiter counts every request but never refuses) with CLIENTS distinct
#    clients against 1 client at the same concurrency, in alternation:
#    - "bound": each client is its own 127.x.y.z source address, 10 requests
#      per connection, then the next client (the 1-client case reconnects
#      just as often, from one address);
#    - "xff": 32 keep-alive connections from 127.0.0.1, a trusted proxy, the
#      client named in X-Forwarded-For;
#    - and, as a control without any limiter, the Go handler of bench/run.sh
#      under the "bound" pattern.
# 2. RSS after start; after up to a million distinct real source addresses
#    within one rate-limit window (55 s); after exactly a million via
#    X-Forwarded-For; and the cap: --max-tracked-clients 100000 against
#    200,000 distinct addresses, read from the admin metrics.
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "$0")/lib.sh"

if [[ ${QUICK:-0} == 1 ]]; then
	ROUNDS=${ROUNDS:-3} DURATION=${DURATION:-3}
fi
ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-10}
CLIENTS=${CLIENTS:-10000}
CONNS=${CONNS:-32}
PORT_BASE=${PORT_BASE:-18080}
URL_PATH=${URL_PATH:-/api/public/v1/parties}
MILLION=${MILLION:-1000000}
CAP=${CAP:-100000}
P_API=$((PORT_BASE + 11)) P_ADMIN=$((PORT_BASE + 12)) P_GO=$((PORT_BASE + 13))

say "limiter.sh: $ROUNDS rounds x ${DURATION}s x 6 cases, then the memory runs"
install_tools curl
build
SOURCE_STATE=$(source_state)
for p in "$P_API" "$P_ADMIN" "$P_GO"; do port_free "$p"; done

# start_ballot LOG FLAG...: ballot on the Malta data, run in bench/out so no
# config.toml is read; PID in BG_PID, once it prints its "serving" line.
start_ballot() {
	local log=$1
	shift
	# shellcheck disable=SC2016 # the inner shell expands them
	start_bg "$log" bash -c 'cd "$1" && shift && exec "$@"' _ "$OUT" \
		"$OUT/ballot" serve --listen "127.0.0.1:$P_API" --admin-listen "127.0.0.1:$P_ADMIN" \
		--rate-limit 1000000000 --access-log=false "$@"
	wait_line "$log" "ballot: serving"
}
metric() { # NAME: its value on the admin listener, as an integer
	curl -sS "http://127.0.0.1:$P_ADMIN/metrics" | awk -v m="$1" '$1 == m { printf "%.0f", $2 }'
}
mib() { awk -v k="$1" 'BEGIN { printf "%.1f MiB", k / 1024 }'; }
loadgen() { # ARGS...: runs loadgen, bounded, and prints its RESULT line
	timeout 120 "$OUT/loadgen" -q "$@"
}
field() { # NAME LINE: NAME=value out of a RESULT line
	sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2"
}

# --- 1. throughput: many clients against one -------------------------------
start_ballot "$OUT/limiter-ballot.log" --trusted-proxies 127.0.0.1/32
PID_BALLOT=$BG_PID
RSS_START_KB=$(rss_kb "$PID_BALLOT")
mkdir -p "$OUT/limiter-static"
curl -sS --fail -o "$OUT/limiter-static/body.json" "http://127.0.0.1:$P_API$URL_PATH"
printf '%s\tbody.json\n' "$URL_PATH" >"$OUT/limiter-static/urls.tsv"
start_bg "$OUT/limiter-gohandler.log" "$OUT/gohandler" -listen "127.0.0.1:$P_GO" -dir "$OUT/limiter-static"
PID_GO=$BG_PID
wait_http "http://127.0.0.1:$P_GO/"

RESULTS=$OUT/limiter.tsv
printf 'round\tcase\tclients\trps\tp50_us\tp99_us\tnot_ok\terrors\tcpu_us_per_req\tother_cores\n' >"$RESULTS"
HZ=$(getconf CLK_TCK)
CASES=(bound-many bound-one xff-many xff-one go-many go-one)
for ((round = 1; round <= ROUNDS; round++)); do
	say "round $round/$ROUNDS ($((SECONDS / 60))m$((SECONDS % 60))s)"
	for ((i = 0; i < ${#CASES[@]}; i++)); do
		c=${CASES[$(((i + round - 1) % ${#CASES[@]}))]}
		n=$CLIENTS
		[[ $c == *-one ]] && n=1
		args=(-clients "$n" -c "$CONNS" -d "${DURATION}s" -per-conn 10)
		pid=$PID_BALLOT
		case $c in
		bound-*) args+=(-url "http://127.0.0.1:$P_API$URL_PATH") ;;
		xff-*) args+=(-xff -url "http://127.0.0.1:$P_API$URL_PATH") ;;
		go-*) args+=(-url "http://127.0.0.1:$P_GO$URL_PATH") pid=$PID_GO ;;
		esac
		wait_quiet
		c0=$(cpu_ticks "$pid") m0=$(busy_ticks) w0=$(child_ticks) t0=$(now_ms)
		r=$(loadgen "${args[@]}")
		c1=$(cpu_ticks "$pid") m1=$(busy_ticks) w1=$(child_ticks) t1=$(now_ms)
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$c" "$n" "$(field rps "$r")" "$(field p50_us "$r")" \
			"$(field p99_us "$r")" "$(field other "$r")" $(($(field dial_errors "$r") + $(field io_errors "$r"))) \
			"$(awk -v t=$((c1 - c0)) -v hz="$HZ" -v n="$(field requests "$r")" 'BEGIN { printf "%.1f", t * 1e6 / hz / n }')" \
			"$(awk -v m=$((m1 - m0 - c1 + c0 - w1 + w0)) -v hz="$HZ" -v ms=$((t1 - t0)) 'BEGIN { x = m / hz / (ms / 1000); printf "%.2f", (x < 0 ? 0 : x) }')" >>"$RESULTS"
	done
done
stop "$PID_BALLOT"
forget "$PID_BALLOT"

# --- 2. memory: a million clients, and the cap -------------------------------
# Real source addresses: as many as one window allows (a counter is dropped
# when its window ends, 60 s after its client's first request).
start_ballot "$OUT/limiter-ballot-1m.log" --max-tracked-clients "$MILLION"
PID=$BG_PID
RSS0_KB=$(rss_kb "$PID")
wait_quiet
r=$(loadgen -url "http://127.0.0.1:$P_API$URL_PATH" -clients "$MILLION" -per-conn 1 -n "$MILLION" -c 64 -d 55s)
REAL_RPS=$(field rps "$r") REAL_REQS=$(field requests "$r")
REAL_TRACKED=$(metric ballot_rate_limit_tracked_clients)
REAL_EVICTED=$(metric ballot_rate_limit_evictions_total)
REAL_RSS_KB=$(rss_kb "$PID")
REAL_HEAP=$(metric go_memstats_heap_inuse_bytes)
stop "$PID"
forget "$PID"

# X-Forwarded-For from a trusted 127.0.0.1: exactly a million clients.
start_ballot "$OUT/limiter-ballot-xff.log" --max-tracked-clients "$MILLION" --trusted-proxies 127.0.0.1/32
PID=$BG_PID
XRSS0_KB=$(rss_kb "$PID")
XHEAP0=$(metric go_memstats_heap_inuse_bytes)
wait_quiet
r=$(loadgen -xff -url "http://127.0.0.1:$P_API$URL_PATH" -clients "$MILLION" -per-conn 1 -n "$MILLION" -c "$CONNS" -d 55s)
XFF_RPS=$(field rps "$r") XFF_REQS=$(field requests "$r")
XFF_TRACKED=$(metric ballot_rate_limit_tracked_clients)
XFF_EVICTED=$(metric ballot_rate_limit_evictions_total)
XFF_RSS_KB=$(rss_kb "$PID")
XFF_HEAP=$(metric go_memstats_heap_inuse_bytes)
stop "$PID"
forget "$PID"

# The cap: twice as many distinct addresses as it allows.
start_ballot "$OUT/limiter-ballot-cap.log" --max-tracked-clients "$CAP"
PID=$BG_PID
r=$(loadgen -url "http://127.0.0.1:$P_API$URL_PATH" -clients $((2 * CAP)) -per-conn 1 -n $((2 * CAP)) -c 64 -d 55s)
CAP_REQS=$(field requests "$r")
CAP_TRACKED=$(metric ballot_rate_limit_tracked_clients)
CAP_EVICTED=$(metric ballot_rate_limit_evictions_total)
CAP_RSS_KB=$(rss_kb "$PID")
stop "$PID"
forget "$PID"

# --- the report ----------------------------------------------------------------
med() { awk -F'\t' -v c="$1" -v col="$2" 'NR > 1 && $2 == c { print $col }' "$RESULTS" | median; }
{
	echo "ballot limiter benchmark: $(date -u +%Y-%m-%dT%H:%MZ), $ROUNDS rounds x ${DURATION}s, $CONNS concurrent, GET $URL_PATH, medians"
	echo "ballot: $SOURCE_STATE"
	echo
	echo "req/s, p99 (us) and server CPU per request (us) with $CLIENTS distinct clients and with 1"
	printf '%-34s | %8s %8s %8s | %7s %7s | %6s %6s %8s\n' case "$CLIENTS" 1 many/one "p99 $CLIENTS" "p99 1" "cpu $CLIENTS" "cpu 1" many/one
	for pair in "bound:ballot, bound source addresses" "xff:ballot, X-Forwarded-For" "go:Go handler (no limiter), bound"; do
		k=${pair%%:*} label=${pair#*:}
		a=$(med "$k-many" 4) b=$(med "$k-one" 4) ca=$(med "$k-many" 9) cb=$(med "$k-one" 9)
		printf '%-34s | %8.0f %8.0f %8s | %7.0f %7.0f | %6.1f %6.1f %8s\n' "$label" "$a" "$b" "$(ratio "$a" "$b")" \
			"$(med "$k-many" 6)" "$(med "$k-one" 6)" "$ca" "$cb" "$(ratio "$ca" "$cb")"
	done
	echo "cores busy outside the server and loadgen (loopback softirq, and anything else running): median $(awk -F'\t' 'NR > 1 { print $10 }' "$RESULTS" | median), at most $(awk -F'\t' 'NR > 1 { print $10 }' "$RESULTS" | sort -g | tail -1); runs started on a busy machine after waiting ${QUIET_WAIT:-30}s for quiet: ${NOISY_WAITS:-0}"
	bad=$(awk -F'\t' 'NR > 1 { n += $7 + $8 } END { print n + 0 }' "$RESULTS")
	echo "non-2xx answers and errors in all runs: $bad"
	echo
	echo "RSS after start (Malta data): $(mib "$RSS_START_KB")"
	echo "real addresses, --max-tracked-clients $MILLION: $REAL_REQS distinct clients in 55 s at most ($REAL_RPS new connections/s);" \
		"tracked $REAL_TRACKED, evicted $REAL_EVICTED; RSS $(mib "$REAL_RSS_KB") (from $(mib "$RSS0_KB")), heap in use $((REAL_HEAP / 1048576)) MiB;" \
		"$(awk -v a="$REAL_RSS_KB" -v b="$RSS0_KB" -v n="$REAL_TRACKED" 'BEGIN { printf "%.0f", (a - b) * 1024 / n }') bytes of RSS per tracked client"
	echo "X-Forwarded-For, --max-tracked-clients $MILLION: $XFF_REQS distinct clients ($XFF_RPS req/s); tracked $XFF_TRACKED, evicted $XFF_EVICTED;" \
		"RSS $(mib "$XFF_RSS_KB") (from $(mib "$XRSS0_KB")), heap in use $((XFF_HEAP / 1048576)) MiB;" \
		"$(awk -v a="$XFF_RSS_KB" -v b="$XRSS0_KB" -v n="$XFF_TRACKED" 'BEGIN { printf "%.0f", (a - b) * 1024 / n }') bytes of RSS and" \
		"$(awk -v a="$XFF_HEAP" -v b="$XHEAP0" -v n="$XFF_TRACKED" 'BEGIN { printf "%.0f", (a - b) / n }') of heap per tracked client"
	held=no
	((CAP_TRACKED <= CAP)) && held=yes
	echo "cap: --max-tracked-clients $CAP, $CAP_REQS distinct addresses: tracked $CAP_TRACKED, evicted $CAP_EVICTED, RSS $(mib "$CAP_RSS_KB"); cap held: $held"
} | tee "$OUT/limiter-summary.txt"
