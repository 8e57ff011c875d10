#!/usr/bin/env bash
# The peak memory of a dataset load as a multiple of the files' size: synth
# writes datasets of 50,000 and 200,000 candidates (SIZES to change), and
# loadmem loads each once, as serve does at start, and reads the process's
# peak resident memory. Takes a minute or two; writes under bench/out/.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p bench/out
go build -o bench/out/synth ./bench/synth
go build -o bench/out/loadmem ./bench/loadmem
for n in ${SIZES:-50000 200000}; do
  dir=bench/out/synth-$n
  [ -f "$dir/candidates.json" ] || bench/out/synth -n "$n" -out "$dir" >/dev/null
  bench/out/loadmem "$dir"
done
