#!/usr/bin/env bash
# ab.sh REV: this tree's ballot against the ballot of commit REV, side by
# side in one run, each with its default configuration (the access log on,
# to a file) as users run it, and both against go+hdr: net/http sending the
# bytes and header fields saved from this tree's ballot (bench/gohandler
# -ballot-headers). wrk runs in alternation over the three servers and the
# endpoints the kit compares (ENDPOINTS: /candidates, ?district=5, /parties,
# and 2017's candidates under its election's path), in many short rounds,
# the servers' order in a round one of the six in turn. An endpoint that
# REV does not answer with 200 (a path it predates) is run on the other two
# alone, and the table shows "-" for REV there. A warm-up of WARMUP seconds
# (2) on each server and endpoint comes first, not recorded.
#
# Each ratio in the table is the median over the rounds of the ratio within
# a round (paired: the two servers ran seconds apart), rather than a ratio
# of the two medians: this machine's speed drifts over seconds, and a
# pairing within the round cancels what both servers share. The table also
# gives each server's median requests per second, CPU per request and 99th
# percentile of latency (wrk --latency), and the quartiles of new/go+hdr
# over the rounds. docs/PERFORMANCE.md ("How precise one run of ab.sh is")
# says why 24 rounds of 2 s.
#
#   bench/ab.sh 1045fa0                  # 24 rounds x 2 s (~10 min)
#   ROUNDS=6 DURATION=2 bench/ab.sh HEAD~3
#
# Like run.sh it installs wrk and curl when missing, builds into bench/out,
# sends traffic to 127.0.0.1 alone, bounds every run in time, and stops every
# process it starts by its PID.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

REV=${1:?usage: bench/ab.sh REV}
ROUNDS=${ROUNDS:-24} DURATION=${DURATION:-2} CONNS=${CONNS:-32} WARMUP=${WARMUP:-2}
PORT_BASE=${PORT_BASE:-18280}
P_NEW=$((PORT_BASE + 1)) P_OLD=$((PORT_BASE + 2)) P_GOH=$((PORT_BASE + 3))
read -r -a ENDPOINTS <<<"${ENDPOINTS:-/api/public/v1/candidates /api/public/v1/candidates?district=5 /api/public/v1/parties /api/public/v1/elections/2017/candidates}"

install_tools wrk curl
build
for p in "$P_NEW" "$P_OLD" "$P_GOH"; do port_free "$p"; done
# The other commit, built from a worktree of its own.
SRC=$OUT/ab-src
git -C "$ROOT" worktree remove --force "$SRC" 2>/dev/null || rm -rf "$SRC"
git -C "$ROOT" worktree add --detach "$SRC" "$REV" >/dev/null
(cd "$SRC" && go build -o "$OUT/ballot-$REV" .)
git -C "$ROOT" worktree remove --force "$SRC"

# start PORT LOG BINARY: the default configuration (run in bench/out, so no
# config.toml is read), but for a limit the load never reaches and no admin
# listener; its log goes to a file, as a service's goes to its journal.
start() {
	# shellcheck disable=SC2016 # the inner shell expands them
	start_bg "$2" bash -c 'cd "$1" && shift && exec "$@"' _ "$OUT" \
		"$3" serve --listen "127.0.0.1:$1" --rate-limit 1000000000 --admin-listen ""
	wait_line "$2" "ballot: serving"
}
start "$P_NEW" "$OUT/ab-new.log" "$OUT/ballot"
PID_NEW=$BG_PID
start "$P_OLD" "$OUT/ab-old.log" "$OUT/ballot-$REV"
PID_OLD=$BG_PID
# The endpoints REV answers: a path it predates is run without it.
declare -A OLD_ANSWERS
for uri in "${ENDPOINTS[@]}"; do
	[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$P_OLD$uri")" = 200 ] && OLD_ANSWERS[$uri]=1
	[ -n "${OLD_ANSWERS[$uri]:-}" ] || say "ab.sh: $REV does not answer $uri with 200: run on this tree and go+hdr alone"
done

STATIC=$OUT/ab-static
rm -rf "$STATIC" && mkdir -p "$STATIC"
i=0
for uri in "${ENDPOINTS[@]}"; do
	i=$((i + 1))
	curl -sS --fail -D "$STATIC/$i.headers" -o "$STATIC/$i.json" "http://127.0.0.1:$P_NEW$uri"
	printf '%s\t%s\t%s\n' "$uri" "$i.json" "$i.headers" >>"$STATIC/urls.tsv"
done
start_bg "$OUT/ab-gohdr.log" "$OUT/gohandler" -ballot-headers -dir "$STATIC" -listen "127.0.0.1:$P_GOH"
PID_GOH=$BG_PID
wait_http "http://127.0.0.1:$P_GOH/api/public/v1/parties"

# A warm-up of each server on each endpoint, not recorded: the first run
# of a fresh server includes its heap's growth to the size the collector's
# pace allows, and the first run of all, the machine's own start.
for port in "$P_NEW" "$P_OLD" "$P_GOH"; do
	for uri in "${ENDPOINTS[@]}"; do
		[ "$port" = "$P_OLD" ] && [ -z "${OLD_ANSWERS[$uri]:-}" ] && continue
		timeout $((WARMUP + 20)) wrk -t1 -c"$CONNS" -d"${WARMUP}s" "http://127.0.0.1:$port$uri" >/dev/null
	done
done

# The six orders of the three servers, one a round in turn: over six rounds
# each server runs in each place twice, and each runs before each other
# one as often as after it, so neither a place in the round nor running
# just after another server favours one of them.
ORDERS=("new old gohdr" "gohdr new old" "old gohdr new" "new gohdr old" "old new gohdr" "gohdr old new")
((ROUNDS % 6 == 0)) || say "ab.sh: $ROUNDS rounds are no multiple of 6; the servers' orders are not balanced"

CLK_TCK=$(getconf CLK_TCK)
RESULTS=$OUT/ab.tsv
printf 'round\tendpoint\tserver\trps\tcpu_us_per_req\tp99_us\n' >"$RESULTS"
for ((round = 1; round <= ROUNDS; round++)); do
	for uri in "${ENDPOINTS[@]}"; do
		read -r -a order <<<"${ORDERS[(round - 1) % 6]}"
		for server in "${order[@]}"; do
			case $server in
			new) port=$P_NEW pid=$PID_NEW ;;
			old) port=$P_OLD pid=$PID_OLD ;;
			gohdr) port=$P_GOH pid=$PID_GOH ;;
			esac
			[ "$server" = old ] && [ -z "${OLD_ANSWERS[$uri]:-}" ] && continue
			wait_quiet
			c0=$(cpu_ticks "$pid")
			out=$(timeout $((DURATION + 20)) wrk --latency -t1 -c"$CONNS" -d"${DURATION}s" "http://127.0.0.1:$port$uri")
			c1=$(cpu_ticks "$pid")
			reqs=$(awk '/ requests in /{ print $1 }' <<<"$out")
			rps=$(awk '/^Requests\/sec:/{ print $2 }' <<<"$out")
			# wrk writes the 99th percentile as 812.00us, 1.23ms or 2.01s.
			p99=$(awk '$1 == "99%" { v = $2; u = 1; if (v ~ /us$/) u = 1; else if (v ~ /ms$/) u = 1000; else if (v ~ /s$/) u = 1e6; sub(/[a-z]+$/, "", v); printf "%.0f", v * u }' <<<"$out")
			grep -q 'Non-2xx' <<<"$out" && die "$server $uri: non-2xx answers"
			printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$uri" "$server" "$rps" \
				"$(awk -v t=$((c1 - c0)) -v hz="$CLK_TCK" -v n="$reqs" 'BEGIN { printf "%.1f", t * 1e6 / hz / n }')" "$p99" >>"$RESULTS"
		done
	done
done

col() { awk -F'\t' -v e="$1" -v s="$2" -v c="$3" '$2 == e && $3 == s { print $c }' "$RESULTS" | median; }
# paired E A B C: for endpoint E, the ratio of server A's column C to
# server B's in each round, one a line.
paired() {
	awk -F'\t' -v e="$1" -v a="$2" -v b="$3" -v c="$4" '
		$2 == e && $3 == a { x[$1] = $c }
		$2 == e && $3 == b { y[$1] = $c }
		END { for (r in x) if ((r in y) && y[r] > 0) printf "%.4f\n", x[r] / y[r] }' "$RESULTS"
}
pratio() { paired "$@" | median | awk '{ if ($1 == "nan") print "-"; else printf "%.2f", $1 }'; }
# quartiles: the 25th and 75th percentiles of the numbers read, "q1-q3".
quartiles() {
	sort -g | awk '{ a[NR] = $1 } END { if (NR == 0) { print "-"; exit } printf "%.2f-%.2f", a[int((NR - 1) * 0.25) + 1], a[int((NR - 1) * 0.75) + 1] }'
}
{
	echo "bench/ab.sh: $(source_state) against $REV; $ROUNDS rounds x ${DURATION}s, wrk -c$CONNS; the access log on (the default) on both; ratios are medians of the rounds' paired ratios"
	printf '%-42s %9s %9s %9s | %8s %8s %8s %10s | %-26s | %s\n' endpoint new old go+hdr new/old new/goh old/goh "new/goh q" "CPU us/req new old go+hdr" "p99 us new old go+hdr, new/goh"
	for uri in "${ENDPOINTS[@]}"; do
		n=$(col "$uri" new 4) o=$(col "$uri" old 4) g=$(col "$uri" gohdr 4)
		pn=$(col "$uri" new 6) po=$(col "$uri" old 6) pg=$(col "$uri" gohdr 6)
		# REV's medians, or "-" where it was not run.
		if [ "$o" = nan ]; then o=-; else o=$(printf '%.0f' "$o"); fi
		co=$(col "$uri" old 5)
		[ "$co" = nan ] && co=- && po=-
		printf '%-42s %9.0f %9s %9.0f | %8s %8s %8s %10s | %-26s | %s %s %s, %s\n' "$uri" "$n" "$o" "$g" \
			"$(pratio "$uri" new old 4)" "$(pratio "$uri" new gohdr 4)" "$(pratio "$uri" old gohdr 4)" \
			"$(paired "$uri" new gohdr 4 | quartiles)" \
			"$(col "$uri" new 5) $co $(col "$uri" gohdr 5)" \
			"$pn" "$po" "$pg" "$(pratio "$uri" new gohdr 6)"
	done
	((${NOISY_WAITS:-0} == 0)) || echo "note: the machine was not quiet before $NOISY_WAITS runs"
} | tee "$OUT/ab-summary.txt"
