#!/bin/bash
# start.sh: one start of `ballot serve` with the embedded archive, from
# bench/out (no config.toml), to its serving line; then it is stopped by
# its PID. Appends the milliseconds to the serving line and the process's
# VmHWM and VmRSS at that line (kB) to $TIMES. BIN picks the binary.
#   cd bench/out && TIMES=/tmp/start.txt ../results/2026-11-28-century/start.sh
cd "$(dirname "$0")/../../out" || exit 1
log=$(mktemp)
t0=$(date +%s%N)
"${BIN:-./ballot}" serve --listen 127.0.0.1:18391 --admin-listen "" >"$log" 2>&1 &
pid=$!
until grep -q 'ballot: serving' "$log"; do
	kill -0 "$pid" 2>/dev/null || { cat "$log" >&2; exit 1; }
	sleep 0.002
done
t1=$(date +%s%N)
hwm=$(awk '/^VmHWM:/{print $2}' "/proc/$pid/status")
rss=$(awk '/^VmRSS:/{print $2}' "/proc/$pid/status")
kill -TERM "$pid"
wait "$pid"
echo "serving_ms=$(((t1 - t0) / 1000000)) vmhwm_kb=$hwm vmrss_kb=$rss" >>"${TIMES:-/dev/stdout}"
rm -f "$log"
