#!/bin/sh
# tests/run.sh - the whole suite, as `make check` runs it.
#
# Three builds, one runner:
#   build/       unit tests and every end-to-end script
#   build/asan   the same under AddressSanitizer + UndefinedBehaviorSanitizer
#   build/tsan   the threaded core (unit tests, and the e2e scripts marked
#                "tsan: yes") under ThreadSanitizer
# and the libFuzzer harnesses (build/fuzz/fuzzers, make fuzz-build), each
# over its seed corpus and then briefly (FUZZ_CHECK_SECONDS, default 3).
# Every check prints "PASS name" or "FAIL name: why"; the last line is
# "N passed, N failed", and the exit status is non-zero when anything failed.
#
#   sh tests/run.sh --only NAME [VARIANT]   one test file alone: a unit test
#       (test_pool) or an e2e script (test_rest or tests/e2e/test_rest.sh),
#       in the plain build unless VARIANT (asan, tsan) says otherwise
#       (make check-one T=NAME [V=VARIANT]).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
log=$(mktemp -d "${TMPDIR:-/tmp}/hsmbench-tests.XXXXXX")
trap 'rm -rf "$log"' EXIT INT TERM

export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:exitcode=86:allocator_may_return_null=1"
export LSAN_OPTIONS="suppressions=$top/tests/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:exitcode=87"
export TSAN_OPTIONS="halt_on_error=1:exitcode=88:second_deadlock_stack=1"

# A variant's unit tests: every build/<variant>/tests/test_* binary, or only
# the one named by a third argument.
unit() {
    variant=$1 dir=$2 pick=${3:-test_*}
    for bin in "$dir"/tests/$pick; do
        [ -x "$bin" ] || continue
        name=$(basename "$bin")
        NULLP11_PATH="$dir/libhsmbench-null.so" MOCKHSM_PATH="$dir/libhsmbench-mock.so" \
            "$bin" >"$log/out" 2>"$log/err"
        rc=$?
        sed -n "s/^\(PASS\|FAIL\) /\1 [$variant] $name:/p" "$log/out"
        if [ $rc -ne 0 ] && ! grep -q '^FAIL' "$log/out"; then
            echo "FAIL [$variant] $name: exited $rc: $(tail -n 3 "$log/err" | tr '\n' ' ')"
        fi
    done
}

# A variant's end-to-end scripts; with "tsan" only those marked for it,
# unless a third argument names the one to run.
e2e() {
    variant=$1 dir=$2 pick=${3:-}
    for script in tests/e2e/${pick:-test_*}.sh; do
        [ -f "$script" ] || continue
        if [ -z "$pick" ] && [ "$variant" = tsan ] && ! grep -q '^# tsan: yes' "$script"; then
            continue
        fi
        HSMBENCH="$top/$dir/hsmbench" NULLP11="$top/$dir/libhsmbench-null.so" \
            VARIANT="$variant" TOP="$top" sh "$script" </dev/null 2>&1 |
            sed -n "s/^\(PASS\|FAIL\) /\1 [$variant] $(basename "$script" .sh):/p"
    done
}

{
    if [ "${1:-}" = --only ]; then
        # One test file alone: a unit test or an e2e script, in one variant.
        only=$(basename "${2:?--only NAME}" .sh)
        ovar=${3:-plain}
        case $ovar in plain) dir=build ;; *) dir=build/$ovar ;; esac
        if [ -x "$dir/tests/$only" ]; then
            unit "$ovar" "$dir" "$only"
        elif [ -f "tests/e2e/$only.sh" ]; then
            e2e "$ovar" "$dir" "$only"
        else
            echo "FAIL [$ovar] $only: no unit test $dir/tests/$only and no tests/e2e/$only.sh"
        fi
    else
        unit plain build
        e2e plain build
        if [ -x build/asan/hsmbench ]; then
            unit asan build/asan
            e2e asan build/asan
        else
            echo "FAIL [asan] build: build/asan/hsmbench is missing (make sanitizers)"
        fi
        if [ -x build/tsan/hsmbench ]; then
            unit tsan build/tsan
            e2e tsan build/tsan
        else
            echo "FAIL [tsan] build: build/tsan/hsmbench is missing (make sanitizers)"
        fi
        if ls build/fuzz/fuzzers/fuzz_* >/dev/null 2>&1; then
            sh tests/fuzz/run.sh build/fuzz/fuzzers "${FUZZ_CHECK_SECONDS:-3}"
        else
            echo "FAIL [fuzz] build: build/fuzz/fuzzers is missing (make fuzz-build)"
        fi
    fi
} | tee "$log/all"

passed=$(grep -c '^PASS' "$log/all")
failed=$(grep -c '^FAIL' "$log/all")
echo
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
