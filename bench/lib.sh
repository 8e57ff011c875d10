# Helpers shared by bench/run.sh and bench/limiter.sh; sourced, not run.
# Every process started with start_bg is stopped by its PID when the script
# exits, however it exits.

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=$ROOT/bench/out
PIDS=()

say() { printf '%s\n' "$*" >&2; }
die() { say "${0##*/}: $*"; exit 1; }

# install_tools PROGRAM... installs the missing ones from Debian's packages
# (the package is named like the program).
install_tools() {
	local need=() p
	for p in "$@"; do
		command -v "$p" >/dev/null || [[ -x /usr/sbin/$p ]] || need+=("$p")
	done
	((${#need[@]})) || return 0
	say "installing ${need[*]} with apt-get"
	local sudo=()
	((EUID == 0)) || sudo=(sudo)
	"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
	"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
}

# build compiles ballot and the benchmark's own programs into bench/out.
build() {
	mkdir -p "$OUT"
	(cd "$ROOT" &&
		go build -o "$OUT/ballot" . &&
		go build -o "$OUT/gohandler" ./bench/gohandler &&
		go build -o "$OUT/loadgen" ./bench/loadgen &&
		go build -o "$OUT/synth" ./bench/synth)
}

# synth_dataset DIR N writes the synthetic dataset of N candidates.
synth_dataset() {
	rm -rf "$1"
	"$OUT/synth" -n "$2" -out "$1"
}

# port_free PORT fails when something listens on 127.0.0.1:PORT.
port_free() {
	if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then
		die "port $1 is in use (set PORT_BASE to move every port)"
	fi
}

# start_bg LOG CMD... starts CMD in the background with its output in LOG
# and remembers its PID (CMD must not fork away: nginx runs with daemon off).
# The PID is left in BG_PID.
start_bg() {
	local log=$1
	shift
	: >"$log" # now, so that nobody reads the last run's log
	"$@" >>"$log" 2>&1 &
	BG_PID=$!
	PIDS+=("$BG_PID")
}

# stop PID: SIGTERM, then SIGKILL after 5 s.
stop() {
	local pid=$1 i
	kill -TERM "$pid" 2>/dev/null || return 0
	for ((i = 0; i < 50; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
}

stop_all() {
	local pid
	for pid in "${PIDS[@]}"; do
		stop "$pid"
	done
	PIDS=()
}

# forget PID drops a stopped process from the cleanup list.
forget() {
	local keep=() pid
	for pid in "${PIDS[@]}"; do
		[[ $pid == "$1" ]] || keep+=("$pid")
	done
	PIDS=("${keep[@]}")
}

trap stop_all EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# wait_http URL waits up to 10 s for URL to answer.
wait_http() {
	local i
	for ((i = 0; i < 200; i++)); do
		curl -s -o /dev/null --max-time 1 "$1" && return 0
		sleep 0.05
	done
	die "no answer from $1"
}

# wait_line FILE TEXT waits up to 30 s for TEXT to appear in FILE.
wait_line() {
	local i
	for ((i = 0; i < 3000; i++)); do
		grep -qF -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.01
	done
	die "\"$2\" never appeared in $1"
}

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# rss_kb PID prints the process's resident set size in KiB.
rss_kb() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; }

# cpu_ticks PID... prints the user+system CPU ticks the processes used.
cpu_ticks() {
	local t=0 p f
	for p in "$@"; do
		read -r -a f <"/proc/$p/stat"
		t=$((t + f[13] + f[14]))
	done
	echo "$t"
}

# busy_ticks prints the CPU ticks the whole machine has spent busy: user,
# nice, system, irq and softirq time, from /proc/stat. Much of loopback TCP's
# work is softirq time that no process is charged with, so the machine's
# busy ticks minus those of the server and the load generator are that work
# plus whatever else runs on the machine.
busy_ticks() {
	awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8; exit }' /proc/stat
}

# child_ticks prints the CPU ticks of this script's finished children (wrk,
# loadgen), from the shell's own cutime and cstime.
child_ticks() {
	local f
	read -r -a f <"/proc/$$/stat"
	echo $((f[15] + f[16]))
}

# wait_quiet waits, up to QUIET_WAIT seconds (default 30), until the rest of
# the machine is idle (under 0.2 cores busy over half a second): other
# people's builds and tests on this machine would skew a run.
wait_quiet() {
	local hz deadline b0 b1
	hz=$(getconf CLK_TCK)
	deadline=$((SECONDS + ${QUIET_WAIT:-30}))
	while ((SECONDS < deadline)); do
		b0=$(busy_ticks)
		sleep 0.5
		b1=$(busy_ticks)
		(((b1 - b0) * 10 < hz)) && return 0
	done
	NOISY_WAITS=$((${NOISY_WAITS:-0} + 1))
}

# source_state names the code that was built: the commit, and how many files
# of the server's packages differ from it in the working tree.
source_state() {
	local rev dirty
	rev=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
	dirty=$(git -C "$ROOT" status --porcelain -- main.go server answers dataset suggest commands go.mod 2>/dev/null | wc -l)
	echo "commit $rev, $dirty files changed in the working tree (main.go, server, answers, dataset, suggest, commands, go.mod)"
}

# median reads numbers, one a line, and prints their median.
median() {
	sort -g | awk '{ a[NR] = $1 } END { if (NR == 0) print "nan"; else if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

# ratio A B prints A/B with two decimals.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 == 0 || a == "nan" || b == "nan") print "-"; else printf "%.2f", a / b }'; }
