#!/usr/bin/env bash
# bench/redis.sh: throughput of ballot with its rate-limit counts in memory
# against the same ballot sharing them through Redis (rate_limit_store), side
# by side in one run.
#
#   bench/redis.sh              5 rounds x 10 s per store (~3 min)
#   QUICK=1 bench/redis.sh      3 rounds x 3 s (~1 min)
#   ROUNDS=7 DURATION=5 CLIENTS=10000 CONNS=32 PER_CONN=10 PORT_BASE=28080 bench/redis.sh
#
# One redis-server (Debian's, on loopback, no persistence) and two ballot
# serve on the Malta data, --rate-limit 1000000000 so every request is
# counted and none refused: "memory" (the default store) and "redis"
# (--rate-limit-store redis://…). loadgen sends GET URL_PATH from CLIENTS
# distinct 127.x.y.z source addresses, PER_CONN (10) requests per connection,
# to each
# in turn, the order swapped every round; the table gives medians and the
# ratio, with the Redis store's syncs and errors read from its /metrics.
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "$0")/lib.sh"

if [[ ${QUICK:-0} == 1 ]]; then
	ROUNDS=${ROUNDS:-3} DURATION=${DURATION:-3}
fi
ROUNDS=${ROUNDS:-5}
DURATION=${DURATION:-10}
CLIENTS=${CLIENTS:-10000}
CONNS=${CONNS:-32}
PER_CONN=${PER_CONN:-10}
PORT_BASE=${PORT_BASE:-18080}
URL_PATH=${URL_PATH:-/api/public/v1/parties}
P_MEM=$((PORT_BASE + 21)) P_RED=$((PORT_BASE + 22)) P_RED_ADMIN=$((PORT_BASE + 23)) P_REDIS=$((PORT_BASE + 24))

say "redis.sh: $ROUNDS rounds x ${DURATION}s x 2 stores"
install_tools curl redis-server
build
SOURCE_STATE=$(source_state)
for p in "$P_MEM" "$P_RED" "$P_RED_ADMIN" "$P_REDIS"; do port_free "$p"; done

start_bg "$OUT/redis-server.log" redis-server --bind 127.0.0.1 --port "$P_REDIS" --save '' --appendonly no --dir "$OUT" --logfile ''
wait_line "$OUT/redis-server.log" "Ready to accept connections"
# start_ballot NAME PORT FLAG...: ballot on the Malta data, run in bench/out
# so no config.toml is read; PID in BG_PID.
start_ballot() {
	local log=$OUT/redis-ballot-$1.log port=$2
	shift 2
	# shellcheck disable=SC2016 # the inner shell expands them
	start_bg "$log" bash -c 'cd "$1" && shift && exec "$@"' _ "$OUT" \
		"$OUT/ballot" serve --listen "127.0.0.1:$port" --rate-limit 1000000000 --access-log=false "$@"
	wait_line "$log" "ballot: serving"
}
start_ballot memory "$P_MEM" --admin-listen ""
PID_MEM=$BG_PID
start_ballot redis "$P_RED" --admin-listen "127.0.0.1:$P_RED_ADMIN" --rate-limit-store "redis://127.0.0.1:$P_REDIS/0"
PID_RED=$BG_PID
wait_line "$OUT/redis-ballot-redis.log" "rate-limit store connected"
metric() { curl -sS "http://127.0.0.1:$P_RED_ADMIN/metrics" | awk -v m="$1" '$1 == m { printf "%.0f", $2 }'; }
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2"; }

RESULTS=$OUT/redis.tsv
printf 'round\tstore\trps\tp50_us\tp99_us\tnot_ok\terrors\n' >"$RESULTS"
for ((round = 1; round <= ROUNDS; round++)); do
	say "round $round/$ROUNDS"
	order=(memory redis)
	((round % 2)) || order=(redis memory)
	for store in "${order[@]}"; do
		port=$P_MEM
		[[ $store == redis ]] && port=$P_RED
		wait_quiet
		r=$(timeout 120 "$OUT/loadgen" -q -url "http://127.0.0.1:$port$URL_PATH" -clients "$CLIENTS" -c "$CONNS" -d "${DURATION}s" -per-conn "$PER_CONN")
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$store" "$(field rps "$r")" "$(field p50_us "$r")" "$(field p99_us "$r")" \
			"$(field other "$r")" $(($(field dial_errors "$r") + $(field io_errors "$r"))) >>"$RESULTS"
	done
done
SYNCS=$(metric ballot_rate_limit_store_syncs_total) KEYS=$(metric ballot_rate_limit_store_keys_total) ERRS=$(metric ballot_rate_limit_store_errors_total)
REDIS_CPU=$(cpu_ticks "${PIDS[0]}")

med() { awk -F'\t' -v s="$1" -v col="$2" 'NR > 1 && $2 == s { print $col }' "$RESULTS" | median; }
{
	echo "ballot rate-limit store benchmark: $(date -u +%Y-%m-%dT%H:%MZ), $ROUNDS rounds x ${DURATION}s, $CONNS concurrent, $CLIENTS clients, $PER_CONN requests per connection, GET $URL_PATH, medians"
	echo "ballot: $SOURCE_STATE; $(redis-server --version | cut -d' ' -f1-3)"
	echo
	printf '%-8s | %8s %8s %8s\n' store req/s p50_us p99_us
	for s in memory redis; do
		printf '%-8s | %8.0f %8.0f %8.0f\n' "$s" "$(med "$s" 3)" "$(med "$s" 4)" "$(med "$s" 5)"
	done
	echo "redis/memory throughput: $(ratio "$(med redis 3)" "$(med memory 3)") (goal: at least 0.80)"
	echo "redis store: $SYNCS syncs, $KEYS client counts sent, $ERRS errors; redis-server CPU $(awk -v t="$REDIS_CPU" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.2f", t / hz }') s"
	echo "non-2xx answers and errors in all runs: $(awk -F'\t' 'NR > 1 { n += $6 + $7 } END { print n + 0 }' "$RESULTS"); runs started on a busy machine after waiting ${QUIET_WAIT:-30}s for quiet: ${NOISY_WAITS:-0}"
} | tee "$OUT/redis-summary.txt"
