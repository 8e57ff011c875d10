#!/usr/bin/env bash
# The run behind "the access log, four ways" in docs/PERFORMANCE.md: two
# ballot binaries (before and after the log buffer), each with the access log
# off and on, four servers side by side on the Malta data, wrk -t1 -c32 in
# rotation; server CPU per request from /proc/PID/stat. Logs go to files in
# OUT. Kept for the record; bench/run.sh is the kit.
#
#   access-log-4way.sh BEFORE-BINARY AFTER-BINARY OUT [ROUNDS] [SECONDS] [ENDPOINT...]
set -euo pipefail
B=$1 A=$2 D=$3 ROUNDS=${4:-5} DUR=${5:-5}
shift $(($# < 5 ? $# : 5))
EPS=("$@")
((${#EPS[@]})) || EPS=("/api/public/v1/parties" "/api/public/v1/candidates?district=5" "/api/public/v1/candidates")
mkdir -p "$D"
declare -A PORT=([before-off]=32001 [before-on]=32002 [after-off]=32003 [after-on]=32004) PID
start() { # NAME BINARY ACCESS-LOG
	"$2" serve --listen "127.0.0.1:${PORT[$1]}" --admin-listen "" --rate-limit 1000000000 --access-log="$3" >"$D/$1.log" 2>&1 &
	PID[$1]=$!
	for _ in $(seq 300); do grep -q "ballot: serving" "$D/$1.log" && return; sleep 0.05; done
	echo "$1 did not start" >&2
	exit 1
}
trap 'for p in "${PID[@]}"; do kill "$p" 2>/dev/null || true; done' EXIT
start before-off "$B" false
start before-on "$B" true
start after-off "$A" false
start after-on "$A" true
ticks() { local f; read -r -a f <"/proc/$1/stat"; echo $((f[13] + f[14])); }
HZ=$(getconf CLK_TCK)
SERVERS=(before-off before-on after-off after-on)
printf 'round\tendpoint\tserver\trps\tcpu_us\n' >"$D/results.tsv"
for s in "${SERVERS[@]}"; do wrk -t1 -c32 -d1s "http://127.0.0.1:${PORT[$s]}${EPS[0]}" >/dev/null; done
for ((r = 1; r <= ROUNDS; r++)); do
	for e in "${EPS[@]}"; do
		for ((i = 0; i < 4; i++)); do
			s=${SERVERS[$(((i + r - 1) % 4))]}
			c0=$(ticks "${PID[$s]}")
			out=$(wrk -t1 -c32 -d"${DUR}s" "http://127.0.0.1:${PORT[$s]}$e")
			c1=$(ticks "${PID[$s]}")
			reqs=$(awk '/ requests in /{ print $1 }' <<<"$out")
			rps=$(awk '/^Requests\/sec:/{ print $2 }' <<<"$out")
			printf '%s\t%s\t%s\t%s\t%s\n' "$r" "$e" "$s" "$rps" \
				"$(awk -v t=$((c1 - c0)) -v hz="$HZ" -v n="$reqs" 'BEGIN { printf "%.1f", t * 1e6 / hz / n }')" >>"$D/results.tsv"
		done
	done
done
