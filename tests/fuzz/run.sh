#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/fuzz/run.sh DIR SECONDS - run each libFuzzer harness in DIR
# (build/fuzz/fuzzers/fuzz_NAME) over its seed corpus tests/fuzz/corpus/NAME
# (the regression inputs of past findings among them), then fuzz it for
# SECONDS.  New inputs go to a scratch directory, not to the repository.
# Prints "PASS [fuzz] fuzz_NAME: ..." or "FAIL [fuzz] fuzz_NAME: ..." per
# harness; exits non-zero when one failed.  Nothing here is ever skipped:
# with no harness built, the run is one FAIL line.
set -u
dir=${1:?usage: run.sh DIR SECONDS}
secs=${2:-60}
top=$(cd "$(dirname "$0")/../.." && pwd)
scratch=$(mktemp -d "${TMPDIR:-/tmp}/hsmbench-fuzz.XXXXXX")
trap 'rm -rf "$scratch"' EXIT INT TERM
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:allocator_may_return_null=1"
export LSAN_OPTIONS="suppressions=$top/tests/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
failed=0
found=0
for bin in "$dir"/fuzz_*; do
    [ -x "$bin" ] || continue
    found=1
    name=$(basename "$bin")
    seeds="$top/tests/fuzz/corpus/${name#fuzz_}"
    work="$scratch/$name"
    mkdir -p "$work"
    "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -close_fd_mask=3 \
        -artifact_prefix="$scratch/$name-" -print_final_stats=1 "$work" "$seeds" >"$scratch/$name.log" 2>&1
    rc=$?
    if [ "$rc" -eq 0 ]; then
        runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$scratch/$name.log")
        echo "PASS [fuzz] $name: ${runs:-?} inputs in ${secs} s, no finding"
    else
        crash=$(ls "$scratch/$name-"* 2>/dev/null | head -n 1)
        why=$(grep -m 1 -E 'ERROR:|runtime error|==ERROR|deadly signal|Timeout|out-of-memory' "$scratch/$name.log")
        echo "FAIL [fuzz] $name: ${why:-exit status $rc}; input kept as $(basename "${crash:-none}") (copied to build/fuzz/findings)"
        mkdir -p "$top/build/fuzz/findings"
        [ -n "$crash" ] && cp "$crash" "$top/build/fuzz/findings/"
        tail -n 40 "$scratch/$name.log" >"$top/build/fuzz/findings/$name.log"
        failed=1
    fi
done
if [ "$found" -eq 0 ]; then
    echo "FAIL [fuzz] build: no harness in $dir (make fuzz-build)"
    exit 1
fi
exit $failed
