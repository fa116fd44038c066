#!/bin/bash
# Instructions of each span that stash-bench times, counted by callgrind: one line per span
# ("import-decode stash 123456789"), in the order the spans ran. Deterministic, so two builds
# can be compared on a loaded machine where wall-clock ratios move by a third.
#
#     swift build -c release --product stash-bench
#     Benchmarks/callgrind-spans.sh .build/release/stash-bench --records 20000 --iterations 1 \
#         --no-rest --no-read-while-writing
#
# The profiles stay in the folder printed last, for callgrind_annotate (the Nth span's is
# callgrind.out.N). The REST import and the read-while-writing latency are not spans (they
# run across tasks): count them as whole runs (`--rest-only`).
set -euo pipefail
if [ $# -lt 1 ]; then
    echo "usage: $0 STASH-BENCH [stash-bench options]" >&2
    exit 2
fi
bench=$1
shift
out=$(mktemp -d -t stash-spans.XXXXXX)
# Swift seeds its hashing per process, which moves a dictionary's costs by about 0.1%.
export SWIFT_DETERMINISTIC_HASHING=1
# Costs are zeroed as a span starts and written out as it ends (`span` in Timing.swift).
valgrind --tool=callgrind --zero-before='*spanStarts*' --dump-before='*spanEnds*' \
    --callgrind-out-file="$out/callgrind.out" "$bench" "$@" --spans >"$out/stdout" 2>"$out/stderr"
grep '^span: ' "$out/stderr" | cut -c7- >"$out/spans"
count=$(wc -l <"$out/spans")
for ((n = 1; n <= count; n++)); do
    label=$(sed -n "${n}p" "$out/spans")
    instructions=$(grep -m1 '^summary:' "$out/callgrind.out.$n" | cut -d' ' -f2)
    echo "$label $instructions"
done
echo "profiles: $out" >&2
