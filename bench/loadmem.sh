#!/usr/bin/env bash
# The peak memory of a dataset load as a multiple of the files' size, for
# each shape of file the rules accept: bench/synth's realistic candidates
# (SIZES, numbers of candidates) and bench/shapes' worst cases (SHAPES,
# each near BYTES, 64 MiB by default); then the embedded archive and
# archives of ARCHIVES elections of the 2022 shape (2, 10 and 50), with
# the load's time per MiB of the files. loadmem loads each once, as serve
# does, and reads the process's peak resident memory. Takes a few minutes;
# writes under bench/out/. TestLoadMemoryPerByte (commands) runs the same
# shapes near 16 MiB and holds each to dataset.PeakMemoryPerByte.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p bench/out
go build -o bench/out/synth ./bench/synth
go build -o bench/out/shapes ./bench/shapes
go build -o bench/out/loadmem ./bench/loadmem
for n in ${SIZES:-50000 135000}; do
  dir=bench/out/synth-$n
  [ -f "$dir/candidates.json" ] || bench/out/synth -n "$n" -out "$dir" >/dev/null
  echo "synth-$n $(bench/out/loadmem "$dir")"
done
bytes=${BYTES:-67108864}
for s in ${SHAPES:-parties localities longparty longnote longcand candidates everywhere}; do
  dir=bench/out/shape-$s-$bytes
  [ -d "$dir" ] || bench/out/shapes -shape "$s" -bytes "$bytes" -out "$dir"
  echo "$s $(bench/out/loadmem "$dir")"
done
echo "embedded-archive $(bench/out/loadmem dataset)"
for n in ${ARCHIVES:-2 10 50}; do
  dir=bench/out/archive-$n
  [ -d "$dir" ] || bench/out/shapes -shape archive -elections "$n" -out "$dir"
  echo "archive-$n $(bench/out/loadmem "$dir")"
done
