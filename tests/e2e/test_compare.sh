#!/bin/sh
# tests/e2e/test_compare.sh - hsmbench compare on real runs: the null module
# against SoftHSM (throughputs differ by orders of magnitude: significant),
# a file against itself (not significant), runs of other settings (flagged,
# not compared), runs too short for a verdict, and bad input.
. "$TOP/tests/e2e/lib.sh"

# A test the null module completes without errors (fall back to any).
null_test() {
    for t in sha256-digest rsa-pkcs-sign hmac-sha256 aes-gcm-encrypt; do
        "$HSMBENCH" run --module "$NULLP11" --test "$t" --iterations 200 --quiet --json "$T/probe.json" \
            </dev/null >/dev/null 2>&1
        if python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["runs"][0]; sys.exit(r["status"] != "ok" or r["errors"] > 0)' \
            "$T/probe.json" 2>/dev/null; then
            echo "$t"
            return
        fi
    done
    echo sha256-digest
}
NT=$(null_test)

# ---- real runs, side by side in time ------------------------------------------------
# 9 s each, so that each has at least 8 one-second samples.
"$HSMBENCH" run --test "$NT" --threads 1 --duration 9 --quiet --json "$T/soft.json" </dev/null >"$T/soft.out" 2>&1 &
ps=$!
"$HSMBENCH" run --module "$NULLP11" --test "$NT" --threads 1 --duration 9 --quiet --json "$T/null.json" </dev/null >/dev/null 2>&1 &
pn=$!
"$HSMBENCH" run --module "$NULLP11" --test "$NT" --threads 1 --duration 2 --quiet --json "$T/short.json" </dev/null >/dev/null 2>&1
"$HSMBENCH" run --module "$NULLP11" --test "$NT" --threads 2 --duration 1 --quiet --json "$T/two.json" </dev/null >/dev/null 2>&1
wait $pn
wait $ps
for f in soft null short two; do
    if [ ! -s "$T/$f.json" ]; then fail "results files from real runs" "$f.json missing: $(head -c 200 "$T/soft.out")"; exit 0; fi
done
pass "results files from real runs ($NT: SoftHSM 9 s, null module 9 s, 2 s, 1 s with 2 threads)"

# ---- a real, large difference -----------------------------------------------------------
run "$HSMBENCH" compare "$T/null.json" "$T/soft.json"
check "compare null vs SoftHSM: exit 0" 0 "^$NT · "
file_has "compare: both files listed, A and B" "$T/out" '^  A  .*null\.json'
file_has "compare: a row per file with ops/s, p50, p99, errors" "$T/out" '^  A +[0-9]+\.[0-9]{2} +[0-9.]+[nµm]?s +[0-9.]+[nµm]?s +[0-9.]+% *$'
file_has "compare: B's change against A in %" "$T/out" '^  B +[0-9]+\.[0-9]{2} +-[0-9]+\.[0-9]{2}% '
file_has "compare: significant, decided by Mann–Whitney, with the bootstrap interval" "$T/out" \
    'B vs A: significant \(Mann–Whitney p[=<]0\.0[0-9]*; 95% CI of Δmedian -[0-9]+\.\.-[0-9]+ ops/s\)'
file_has "compare: the different module is flagged" "$T/out" '⚠ B: different module: '
file_has "compare: the different token is flagged" "$T/out" '⚠ B: different token: hsmbench-demo'

# ---- no difference: the same file twice ----------------------------------------------------
run "$HSMBENCH" compare "$T/null.json" "$T/null.json"
check "compare a file with itself: exit 0" 0 'B vs A: not significant \(Mann–Whitney p=1; 95% CI of Δmedian [-+][0-9.]+\.\.[-+][0-9.]+ ops/s\)'
file_has "compare a file with itself: changes are +0.00%" "$T/out" '^  B +[0-9.]+ +\+0\.00% '
file_lacks "compare a file with itself: nothing flagged" "$T/out" '⚠'

# ---- other settings are flagged, not compared ------------------------------------------------
run "$HSMBENCH" compare "$T/null.json" "$T/two.json"
check "compare 1 thread vs 2 threads: exit 0" 0 'B vs A: ⚠ not comparable: threads 2 vs 1'
file_lacks "compare 1 thread vs 2 threads: no verdict" "$T/out" 'significant'

# ---- too short for a verdict ----------------------------------------------------------------------
run "$HSMBENCH" compare "$T/null.json" "$T/short.json"
check "compare against a 2 s run: too few samples" 0 \
    'B vs A: too few samples \(A: (8|9), B: [12] per-second samples; need 8 each for a verdict\)'

# ---- three files ------------------------------------------------------------------------------------
run "$HSMBENCH" compare "$T/null.json" "$T/soft.json" "$T/null.json"
check "compare three files: exit 0" 0 'C vs A: not significant'
file_has "compare three files: B still significant" "$T/out" 'B vs A: significant'

# ---- tests only in one file; a skipped run -------------------------------------------------------------
python3 - "$T/null.json" "$T/extra.json" <<'PY'
import copy, json, sys
d = json.load(open(sys.argv[1]))
other = copy.deepcopy(d["runs"][0]); other["test"] = "hmac-sha256"
d["runs"].append(other)
d["runs"].append({"test": "ecdsa-sign", "mode": "blocking", "threads": 1, "data_size": 32, "status": "skipped",
                  "reason": "CKM_ECDSA not offered by this token", "key": None})
json.dump(d, open(sys.argv[2], "w"))
PY
run "$HSMBENCH" compare "$T/null.json" "$T/extra.json"
check "compare: a test only B has is shown as not in A" 0 '\(not in A\)'
file_has "compare: a skipped run shows its reason" "$T/out" 'skipped: CKM_ECDSA not offered by this token'

# ---- bad input ----------------------------------------------------------------------------------------
run "$HSMBENCH" compare "$T/null.json"
check_one_line_error "compare one file: exit 2" 2 'at least two results files'
run "$HSMBENCH" compare "$T/null.json" "$T/missing.json"
check_one_line_error "compare a missing file: exit 2" 2 'missing\.json: No such file or directory'
printf 'not json\n' >"$T/bad.json"
run "$HSMBENCH" compare "$T/bad.json" "$T/null.json"
check_one_line_error "compare bad JSON: exit 2" 2 'bad\.json: bad JSON at line 1'
printf '{"schema": "hsmbench.result/1", "runs": []}\n' >"$T/none.json"
run "$HSMBENCH" compare "$T/null.json" "$T/none.json"
check_one_line_error "compare a file with no runs: exit 2" 2 'none\.json: no runs'
run "$HSMBENCH" compare --bogus "$T/null.json" "$T/null.json"
check_one_line_error "compare --bogus: exit 2" 2 '--bogus: unknown option'
run "$HSMBENCH" compare --help
check "compare --help: exit 0" 0 '^Usage: hsmbench compare A\.json B\.json'

# ---- the manual page ----------------------------------------------------------------------------
page="$TOP/man/hsmbench-compare.1"
if command -v groff >/dev/null 2>&1; then
    w=$(groff -man -ww -z "$page" 2>&1)
    if [ -z "$w" ]; then pass "man/hsmbench-compare.1: groff -man -ww -z clean"
    else fail "man/hsmbench-compare.1: groff -man -ww -z clean" "$(echo "$w" | head -n 3 | tr '\n' ' ')"; fi
else
    skip "man/hsmbench-compare.1: groff -man -ww -z clean" "groff is not installed (Debian package groff-base)"
fi
if command -v man >/dev/null 2>&1; then
    w=$(LC_ALL=C MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null)
    if [ -z "$w" ]; then pass "man/hsmbench-compare.1: man --warnings -l clean"
    else fail "man/hsmbench-compare.1: man --warnings -l clean" "$(echo "$w" | head -n 3 | tr '\n' ' ')"; fi
else
    skip "man/hsmbench-compare.1: man --warnings -l clean" "man is not installed (Debian package man-db)"
fi
