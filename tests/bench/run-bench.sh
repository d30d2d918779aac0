#!/bin/sh
# tests/bench/run-bench.sh BUILD - what `make bench` prints.
#
# 1. Harness overhead: for each first test at 1 and 2 threads on the demo
#    SoftHSM token, hsmbench's ops/s beside tests/bench/minloop's (the same
#    PKCS#11 calls on the same kind of key and input, with no harness), in
#    interleaved rounds, medians, and their ratio (goal: >= 0.97).
# 2. Harness ceiling: hsmbench's ops/s per thread on the do-nothing module
#    (goal: >= 5 million per thread).
# Ratios, not absolute times: this machine is shared and noisy.
set -eu
BUILD=${1:-build}
ROUNDS=${BENCH_ROUNDS:-3}
SECS=${BENCH_SECONDS:-2}
TESTS=${BENCH_TESTS:-"rsa-pkcs-sign ecdsa-sign hmac-sha256 aes-gcm-encrypt sha256-digest"}
HSMBENCH="$BUILD/hsmbench"
MINLOOP="$BUILD/tests/minloop"
NULLP11="$BUILD/libhsmbench-null.so"
export HSMBENCH_HOME="${HSMBENCH_HOME:-$(pwd)/$BUILD/bench-home}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hsmbench-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

ops_from_json() {
    python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["runs"][0]["ops_per_s"])' "$1"
}

hsmbench_rate() {  # test threads [extra args]
    t=$1 n=$2
    shift 2
    "$HSMBENCH" run --quiet --test "$t" --threads "$n" --duration "$SECS" --json "$tmp/r.json" "$@" >/dev/null
    ops_from_json "$tmp/r.json"
}

minloop_rate() {
    "$MINLOOP" --test "$1" --threads "$2" --duration "$SECS" | sed -n 's/^ops_per_s=\([0-9.]*\).*/\1/p'
}

median() {
    tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'
}

echo "hsmbench $("$HSMBENCH" --version | cut -d' ' -f2): harness overhead on the demo SoftHSM token"
echo "(${ROUNDS} interleaved rounds of ${SECS}s each; medians)"
echo
printf '%-18s %7s %14s %14s %8s\n' TEST THREADS "hsmbench/s" "minloop/s" RATIO
for t in $TESTS; do
    for n in 1 2; do
        hs="" ml=""
        i=0
        while [ $i -lt "$ROUNDS" ]; do
            # Alternate who goes first so drift in the machine favours neither.
            if [ $((i % 2)) -eq 0 ]; then
                hs="$hs $(hsmbench_rate "$t" "$n")"
                ml="$ml $(minloop_rate "$t" "$n")"
            else
                ml="$ml $(minloop_rate "$t" "$n")"
                hs="$hs $(hsmbench_rate "$t" "$n")"
            fi
            i=$((i + 1))
        done
        mh=$(echo "$hs" | median)
        mm=$(echo "$ml" | median)
        printf '%-18s %7s %14.1f %14.1f %8.3f\n' "$t" "$n" "$mh" "$mm" \
            "$(awk -v a="$mh" -v b="$mm" 'BEGIN { print (b > 0) ? a / b : 0 }')"
    done
done

echo
echo "Harness ceiling: sha256-digest on the do-nothing module ($NULLP11)"
printf '%7s %16s %16s\n' THREADS "ops/s" "ops/s/thread"
for n in 1 2; do
    r=$(hsmbench_rate sha256-digest "$n" --module "$NULLP11")
    printf '%7s %16.0f %16.0f\n' "$n" "$r" "$(awk -v a="$r" -v n="$n" 'BEGIN { print a / n }')"
done

echo
echo "Non-blocking dispatch ceiling: sha256-digest on the do-nothing module, --rate far above what"
echo "the dispatcher can issue (the achieved rate is the ceiling)"
printf '%7s %16s\n' THREADS "ops/s"
for n in 1 2; do
    r=$(hsmbench_rate sha256-digest "$n" --module "$NULLP11" --mode nonblocking --rate 10000000)
    printf '%7s %16.0f\n' "$n" "$r"
done

MOCK="$BUILD/libhsmbench-mock.so"
if [ -e "$MOCK" ]; then
    echo
    echo "Rate accuracy: mock HSM with 1 ms service time and 4 cores (capacity 4000 ops/s), 4 threads"
    printf '%10s %12s %12s %8s\n' "% CAPACITY" "TARGET/s" "ACHIEVED/s" RATIO
    for pct in 50 90; do
        target=$((4000 * pct / 100))
        r=$(HSMBENCH_MOCK='service=fixed:1ms;cores=4' hsmbench_rate sha256-digest 4 --module "$MOCK" \
            --mode nonblocking --rate "$target")
        printf '%10s %12s %12.1f %8.3f\n' "$pct" "$target" "$r" "$(awk -v a="$r" -v b="$target" 'BEGIN { print a / b }')"
    done
fi

if [ -x tests/bench/rest-bench.sh ] || [ -e tests/bench/rest-bench.sh ]; then
    echo
    sh tests/bench/rest-bench.sh "$BUILD"
fi
