#!/bin/sh
# go generate runs this (embed.go): it imports each election of the
# embedded archive from its sheets with ballot import, as a publisher
# would, and puts the five files import writes beside the sheets. Import
# replaces its output directory whole, so it writes to DIR/.imported first;
# SOURCES.md, source/ and sheets/, the record of the research, are not
# touched. Each import's last line is shown (its warnings are the elected
# cells it fills from the count sheets, the known defects and the ties the
# sheets state, which SOURCES.md and docs/RECORD.md list); a failed one
# shows every line.
set -eu
go build -o .ballot ..
trap 'rm -rf .ballot' EXIT
for dir in malta-2022 malta-2017 malta-history/[0-9]*; do
	if ! ./.ballot import --force "$dir/sheets" "$dir/.imported" >"$dir/.import.log" 2>&1; then
		cat "$dir/.import.log" >&2
		rm -rf "$dir/.imported" "$dir/.import.log"
		exit 1
	fi
	tail -n 1 "$dir/.import.log" >&2
	for f in dataset.toml parties.json districts.json candidates.json counts.json; do
		cp "$dir/.imported/$f" "$dir/$f"
	done
	rm -r "$dir/.imported" "$dir/.import.log"
done
