#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_report_memory.sh - report (table, --html, --csv), merge and compare
# of large results files (issue 23, item 6: a 60 MB file took 610 MB to
# report) within a memory bound the old reader could not keep, their
# outputs byte for byte those of hsmbench before the series were read
# compactly (tests/e2e/report_memory.golden: their SHA-256, made by the old
# binary from the same files; report.html's made again by the binary whose
# page gave threads, errors/s and log latency axes their own charts and
# sizes binary units, issue 41: what it reads is unchanged, the page
# around it is not; report.html and merged.json made again by the binary
# that writes each real in its shortest text and the target's id without
# "pkcs11:", issue 40: the same values, checked equal when remade;
# report.csv's made again by the binary whose SDKMS columns count every
# attempt as JMeter does and add four success-only columns, issue 39, item
# 2).  The files: a real run of the mock
# (report_memory_seed.json) stretched by big_results.py to 100 000 seconds
# (18 MB) and two generators' 50 000 (9 MB each).  Each second's text is
# read into a struct and the document's rest parsed by jansson (see
# bench/results/series.h); peak RSS of report on a 53 MB file: 315 MB
# before, 85 MB after (docs/internals.md).
# asan: yes (results files past the fuzzer's size read compactly: report, merge and compare)
# early: no check depends on the cores it gets (outputs byte for byte, memory bounded by ulimit -v)
. "$TOP/tests/e2e/lib.sh"

S="$TOP/tests/e2e"
cd "$T" || exit 2
if all_cases; then secs=100000 half=50000; else secs=3000 half=1500; fi
python3 "$S/big_results.py" "$S/report_memory_seed.json" big.json $secs &&
    python3 "$S/big_results.py" "$S/report_memory_seed.json" a.json $half &&
    python3 "$S/big_results.py" "$S/report_memory_seed.json" b.json $half 250 || {
    fail "large results files" "big_results.py failed"
    exit 1
}

# The bound: three times the input (KiB) plus the binary's own address
# space (about 25 MB for a small file).  The old reader needed 120 MB for
# big.json and 170 MB to merge a.json and b.json; this one 50 and 45.
kib() { echo $(( $(wc -c <"$1") / 1024 )); }
BASE=30000
bounded() {
    limit=$1
    shift
    if all_cases; then
        # a sanitizer reserves terabytes of address space: no bound there
        (ulimit -v "$limit" && exec "$HSMBENCH" "$@") >"$T/out" 2>"$T/err"
    else
        "$HSMBENCH" "$@" >"$T/out" 2>"$T/err"
    fi
    rc=$?
}
golden() {
    grep " $1\$" "$S/report_memory.golden" | cut -d' ' -f1
}
same() {
    name=$1 file=$2
    if ! all_cases; then
        return 0       # the golden outputs are of the full-size files
    fi
    got=$(sha256sum "$file" 2>/dev/null | cut -d' ' -f1)
    if [ "$got" = "$(golden "$(basename "$file")")" ]; then
        pass "$name: the same bytes as before"
    else
        fail "$name" "$(basename "$file") differs from the old reader's output (sha256 $got)"
    fi
}

big=$(( 3 * $(kib big.json) + BASE ))
two=$(( 3 * ($(kib a.json) + $(kib b.json)) + BASE ))

bounded $big report big.json
cp "$T/out" report.txt
check "report of $(kib big.json) KiB under ulimit -v $big" 0 'sha256-digest'
same "report" report.txt

bounded $big report big.json --html report.html
check "report --html under ulimit -v $big" 0
same "report --html" report.html

bounded $big report big.json --csv report.csv
check "report --csv under ulimit -v $big" 0
same "report --csv" report.csv

bounded $two merge a.json b.json -o merged.json
cp "$T/out" merge.txt
check "merge of two $(kib a.json) KiB files under ulimit -v $two" 0 'merged 2 files'
same "merge -o (the series written back as jansson writes them)" merged.json
same "merge's summary" merge.txt
python3 -c '
import json, sys
a, b, m = (json.load(open(p)) for p in sys.argv[1:4])
ops = lambda d: sum(s["ops"] for s in d["runs"][0]["per_second"])
sys.exit(ops(m) != ops(a) + ops(b) or len(m["runs"][0]["per_second"]) < len(a["runs"][0]["per_second"]))
' a.json b.json merged.json 2>/dev/null && pass "merge -o: every second of both files in the merged series" ||
    fail "merge -o" "the merged series does not add up"

bounded $two compare a.json b.json
cp "$T/out" compare.txt
check "compare of the two under ulimit -v $two" 0 'per-second rates'
same "compare" compare.txt

# The same bound is too small for jansson's path: a series with a member a
# struct does not hold is read the old way (and still reported).
if all_cases; then
    sed -e '0,/"p99_us"/s//"gc_ms": 1, "p99_us"/' big.json >odd.json
    bounded $big report odd.json
    if [ "$rc" -ne 0 ] && grep -q 'out of memory reading odd.json' "$T/err"; then
        pass "a series with another member: read whole by jansson (out of memory under the bound, said so)"
    else
        fail "a series with another member" "exit $rc under the bound: $(head -c 200 "$T/err")"
    fi
    run "$HSMBENCH" report odd.json
    sed 's/^odd\.json:/big.json:/' "$T/out" >odd.txt
    cmp -s odd.txt report.txt && pass "a series with another member: the same report without the bound" ||
        fail "a series with another member" "its report differs: $(head -c 200 "$T/out")"
fi
