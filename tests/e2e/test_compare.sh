#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_compare.sh - hsmbench compare on real runs: the null module
# against SoftHSM (throughputs differ by orders of magnitude: slower), a file
# against itself (no change), runs of other settings (flagged, not
# compared), short runs judged from their histograms, the mock HSM at known
# service times (2 ms twice, 2.2 ms), a REST pair against hsmbench serve's
# --latency, the JMeter seed's enclave test replayed, --fail-on rules and
# their exit status, --json and --html, and bad input.
# timed: judges the mock's and the server's service times against each other; load beside it moves them
# serial-variants: plain
. "$TOP/tests/e2e/lib.sh"
REST_LIB_SOURCE=1 . "$TOP/tests/e2e/test_rest_lib.sh"

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
check "compare null vs SoftHSM: exit 0 (no --fail-on)" 0 "^$NT · "
file_has "compare: both files listed, A and B" "$T/out" '^  A  .*null\.json'
file_has "compare: a row per file with ops/s, p50, p99, errors" "$T/out" '^  A +[0-9]+\.[0-9]{2} +[0-9.]+[nµm]?s +[0-9.]+[nµm]?s +[0-9.]+% *$'
file_has "compare: B's change against A in %" "$T/out" '^  B +[0-9]+\.[0-9]{2} +-[0-9]+\.[0-9]{2}% '
file_has "compare: B slower, ops/s in the verdict" "$T/out" 'B vs A: (slower|mixed) \(ops/s -[0-9.]+%'
file_has "compare: ops/s decided by Mann–Whitney on the per-second rates, with the bootstrap interval" "$T/out" \
    '^ +ops/s +-[0-9.]+% +slower +Mann–Whitney U of (8|9) and (8|9) per-second rates, p[=<]0\.0[0-9]*; 95% CI of Δmedian -[0-9]+\.\.-[0-9]+ ops/s$'
file_has "compare: p99 from the histograms" "$T/out" '^ +p99 +\+[0-9.]+% +slower +quantile test of the histograms'
file_has "compare: the different module is flagged" "$T/out" '⚠ B: different module: '
file_has "compare: the different token is flagged" "$T/out" '⚠ B: different token: hsmbench-demo'

# ---- no difference: the same file twice ----------------------------------------------------
run "$HSMBENCH" compare "$T/null.json" "$T/null.json"
check "compare a file with itself: exit 0, no change" 0 'B vs A: no change \(within noise\)$'
file_lacks "compare a file with itself: no machine flagged" "$T/out" 'different machine'
file_has "compare a file with itself: Mann–Whitney p=1" "$T/out" \
    '^ +ops/s +\+0\.00% +no change +Mann–Whitney U of [0-9]+ and [0-9]+ per-second rates, p=1; 95% CI of Δmedian [-+][0-9.]+\.\.[-+][0-9.]+ ops/s$'
file_has "compare a file with itself: changes are +0.00%" "$T/out" '^  B +[0-9.]+ +\+0\.00% '
file_lacks "compare a file with itself: nothing flagged" "$T/out" '⚠'
# seed 004 compares a 4-vCPU instance with a 2-vCPU one: the same file, its
# host given 4 CPUs and another instance type, is flagged so at the top
python3 - "$T/null.json" "$T/null4.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["environment"]["host"].update(cpus=4, product="m5.xlarge")
json.dump(d, open(sys.argv[2], "w"))
PY
run "$HSMBENCH" compare "$T/null.json" "$T/null4.json"
file_has "compare: a machine of 4 CPUs against 2 flagged, with its instance type" "$T/out" \
    '^  ⚠ B: different machine: 4 CPUs.*\(m5\.xlarge\) vs [0-9]+ CPUs'

# ---- other settings are flagged, not compared ------------------------------------------------
run "$HSMBENCH" compare "$T/null.json" "$T/two.json"
check "compare 1 thread vs 2 threads: exit 0" 0 'B vs A: ⚠ not comparable: threads 2 vs 1'
file_lacks "compare 1 thread vs 2 threads: no verdict" "$T/out" 'no change'

# ---- a short run: judged from the operations, not the per-second rates ----------------------
run "$HSMBENCH" compare "$T/null.json" "$T/short.json"
check "compare against a 2 s run: a verdict" 0 'B vs A: (no change|slower|faster|mixed)'
file_has "compare against a 2 s run: ops/s by the rate test, the too few per-second rates named" "$T/out" \
    '^ +ops/s .*rate test of [0-9]+ and [0-9]+ operations a thread \(latency cv [0-9.e+-]+ and [0-9.e+-]+\), p[=<][0-9.e-]+; (8|9) and [12] per-second rates are too few for Mann–Whitney$'
file_lacks "compare against a 2 s run: no 'too few samples'" "$T/out" 'too few samples'

# ---- three files ------------------------------------------------------------------------------------
run "$HSMBENCH" compare "$T/null.json" "$T/soft.json" "$T/null.json"
check "compare three files: exit 0" 0 'C vs A: no change'
file_has "compare three files: B still slower" "$T/out" 'B vs A: (slower|mixed)'

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

# The verdicts below hang on the mock's and the server's delays being kept:
# the plain build's (all_cases); the sections above run compare's code for
# the sanitizers.
# ---- the mock HSM at known service times: 1.5 s runs, one after another -------------------------
if all_cases && need_mock; then
    for v in a:2ms b:2ms c:2.2ms; do
        HSMBENCH_MOCK="service=fixed:${v#*:}" "$HSMBENCH" run --module "$MOCK" --test ecdsa-sign --threads 2 \
            --duration 1.5 --quiet --json "$T/mock_${v%%:*}.json" </dev/null >"$T/mock.out" 2>&1
    done
    run "$HSMBENCH" compare "$T/mock_a.json" "$T/mock_b.json" "$T/mock_c.json"
    # The p50 is what stalls of a loaded machine move least: the rules and
    # verdicts asserted here are on it; ops/s, mean and p99 are only named
    # (one stall of the machine beside one run moves its p99 by half and
    # makes the pair's word "slower", or "mixed" beside a slower p50,
    # truthfully).
    check "compare the mock at 2 ms, 2 ms and 2.2 ms: exit 0 without rules" 0 'B vs A: '
    if awk '/B vs A:/ { b = 1 } /C vs A:/ { b = 0 } b && $1 == "p50" { found = 1; ok = ($3 == "no" && $4 == "change") }
            END { exit !(found && ok) }' "$T/out"; then
        pass "compare the mock: 2 ms against 2 ms, the p50 row says no change"
    else fail "compare the mock: 2 ms against 2 ms, the p50 row says no change" "$(grep -A6 'B vs A:' "$T/out" | head -7)"; fi
    file_has "compare the mock: 2.2 ms is slower, p50 about +10%" "$T/out" 'C vs A: (slower|mixed) \((ops/s -[0-9.]+%, )?(mean \+[0-9.]+%, )?p50 \+([5-9]|1[0-5])\.[0-9]+%'
    file_has "compare the mock: ops/s of 1.5 s runs by the rate test" "$T/out" \
        '^ +ops/s +-[0-9.]+% +(slower|no change) +rate test of [0-9]+ and [0-9]+ operations a thread'
    file_has "compare the mock: p50 +10% slower by the quantile test" "$T/out" \
        '^ +p50 +\+([5-9]|1[0-5])\.[0-9]+% +slower +quantile test of the histograms \([0-9]+ and [0-9]+\), p<0\.0001$'
    file_has "compare the mock: mean by Welch" "$T/out" '^ +mean +\+[0-9.]+% +(slower|no change) +Welch test of [0-9]+ and [0-9]+ latencies a thread'
    file_has "compare the mock: errors by two proportions" "$T/out" \
        '^ +errors +\+0\.00pp +no change +two-proportion test of 0 of [0-9]+ and 0 of [0-9]+ attempts, p=1$'

    # The gate: beyond the rule and significant fails (exit 1), else 0.
    run "$HSMBENCH" compare "$T/mock_a.json" "$T/mock_c.json" --fail-on 'p50>+3%' --fail-on 'error_pct>+1' \
        --json "$T/cmp.json" --html "$T/cmp.html"
    check "compare --fail-on p50>+3%: 2.2 ms fails it, exit 1" 1 \
        '^       B vs A: --fail-on p50>\+3%: fails: \+[0-9.]+% > \+3\.00%, p<0\.0001$'
    file_has "compare --fail-on error_pct>+1: passes" "$T/out" 'B vs A: --fail-on error_pct>\+1: passes: '
    file_has "compare --fail-on: the count and the exit status said" "$T/out" '^1 of 2 rule checks failed \(exit status 1\)$'
    json_check "compare --json: hsmbench.compare/1, the figures, the rules, exit_status 1" "$T/cmp.json" \
        'doc["schema"] == "hsmbench.compare/1" and doc["exit_status"] == 1 and doc["failed_rules"] == 1 and [f["label"] for f in doc["files"]] == ["A", "B"] and (lambda p: p["comparable"] and p["verdict"] in ("slower", "mixed") and p["base"] == "A" and p["run"] == "B" and [f["name"] for f in p["figures"]] == ["ops_per_s", "mean", "p50", "p99", "error_pct"] and p["figures"][2]["verdict"] == "slower" and p["figures"][2]["test"]["significant"] is True and 4 < p["figures"][2]["change_pct"] < 16 and p["figures"][0]["change_pct"] < 0 and [r["result"] for r in p["rules"]] == ["fail", "pass"])(doc["comparisons"][0])'
    file_has "compare --html: the page in the report's style" "$T/cmp.html" '^<title>hsmbench compare</title>$'
    file_has "compare --html: the verdict and the failed rule" "$T/cmp.html" '<li class="bad"><code>--fail-on p50&gt;\+3%</code>: fails: '
    run "$HSMBENCH" compare "$T/mock_a.json" "$T/mock_b.json" --fail-on 'p50>+5%' --fail-on 'error_pct>+1'
    check "compare --fail-on on two equal runs: exit 0" 0 '^0 of 2 rule checks failed$'
    run "$HSMBENCH" compare "$T/mock_a.json" "$T/mock_b.json" --fail-on 'ops_per_s>-50%!'
    check "compare --fail-on with !: fails without significance" 1 'fails: [-+][0-9.]+% > -50\.00%, p'
    run "$HSMBENCH" compare "$T/mock_a.json" "$T/mock_c.json" --json -
    if [ "$rc" -eq 0 ] && python3 -c 'import json,sys; d=json.load(sys.stdin); sys.exit(d["exit_status"] != 0)' <"$T/out"; then
        pass "compare --json -: the document alone on stdout, exit 0 without rules"
    else fail "compare --json -: the document alone on stdout" "exit $rc: $(head -c 200 "$T/out")"; fi
fi

# ---- a REST pair: hsmbench serve answering in 2 ms, then in 12 ms -----------------------------
# Welch's test of waiting counts a thread's requests, so a stall of either
# process moves a short run's mean more the fewer requests it has.  Stopping
# the slow server (SIGSTOP) inside its run: 2 vs 3 ms over 1 s, a 100 ms stall
# gave p=0.00053 and 300 ms p=0.09 (the rule passed, exit 0); 2 vs 12 ms over
# 2 s, 300 ms gave p<0.0001 and 600 ms p=0.0038 (the rule still fails).  A
# whole suite's run once ended the 2-vs-3 ms pair with p between the two.
if all_cases && start_serve fast --latency 2ms && FAST=$URL && start_serve slow --latency 12ms && SLOW=$URL; then
    "$HSMBENCH" rest http --url "$FAST/hello" --threads 2 --duration 2 --quiet --json "$T/h_fast.json" </dev/null >/dev/null 2>&1
    "$HSMBENCH" rest http --url "$SLOW/hello" --threads 2 --duration 2 --quiet --json "$T/h_slow.json" </dev/null >/dev/null 2>&1
    run "$HSMBENCH" compare "$T/h_fast.json" "$T/h_slow.json" --fail-on 'http_req_waiting>+10%'
    check "compare REST 2 ms vs 12 ms: http_req_waiting>+10% fails, exit 1" 1 \
        'B vs A: --fail-on http_req_waiting>\+10%: fails: \+[1-9][0-9]{2}\.[0-9]+% > \+10\.00%, p(<0\.0001|=[0-9.e-]+)$'
    file_has "compare REST: a row per HTTP phase, waiting slower by Welch" "$T/out" \
        '^ +http waiting +\+[1-9][0-9]{2}\.[0-9]+% +slower +Welch test of the means of [0-9]+ and [0-9]+ requests'
    file_has "compare REST: the connecting phase compared too" "$T/out" '^ +http connecting '
    file_has "compare REST: the duration phase too" "$T/out" '^ +http duration '
    file_has "compare REST: the other port flagged" "$T/out" '⚠ B: different target: http '
    stop_serve fast
    stop_serve slow
fi

# ---- the JMeter seed: the enclave test (004), replayed --------------------------------------------
# Its text: GET https://localhost:8082/hello on a Go server with a self-signed
# certificate, run with JMeter with 4 vCPUs and then with 2; 12000 requests
# each ("summary = 12000 in 00:00:42 = 283.7/s Avg: 155 ... Err: 0"); "no
# significant difference in TPS".  Here: hsmbench serve over TLS (its /hello),
# the server's time a constant 10 ms, a tenth of the requests, JMeter's line,
# and compare says what the seed concluded, with a verdict and a gate.
if all_cases && ekm_tls_server --latency 10ms; then
    for c in 4vcpu 2vcpu; do
        run "$HSMBENCH" rest http --url "$URL/hello" --cacert "$P/ca.pem" --threads 4 --iterations 1200 \
            --summary jmeter --quiet --json "$T/jm_$c.json"
        check "seed 004: the $c run, JMeter's summary line" 0 '^summary = +1200 in 00:00:0[0-9] = +[0-9.]+/s Avg: +[0-9]+ Min: +[0-9]+ Max: +[0-9]+ Err: +0 \(0\.00%\)$'
    done
    # The gate is on what a stall of the machine moves least (the p50) and
    # on a fall of throughput no stall of a few milliseconds explains; a
    # stall beside one run moves its p99 and ops/s, and compare says so.
    run "$HSMBENCH" compare "$T/jm_4vcpu.json" "$T/jm_2vcpu.json" --fail-on 'ops_per_s<-20%' --fail-on 'p50>+10%' \
        --json "$T/jm.json"
    check "seed 004: compare 4 vCPU vs 2 vCPU: the gate passes (exit 0)" 0 \
        '^ +ops/s +[-+][0-9.]+% +(no change|slower|faster) +rate test of 300 and 300 operations a thread'
    file_has "seed 004: p50 no change" "$T/out" '^ +p50 +[-+][0-9.]+% +no change +quantile test of the histograms \(1200 and 1200\)'
    file_lacks "seed 004: no 'too few samples' on a short run" "$T/out" 'too few samples'
    file_has "seed 004: the HTTP phases compared" "$T/out" '^ +http waiting '
    json_check "seed 004: the JSON has the pair's verdict and both rules passed" "$T/jm.json" \
        'doc["exit_status"] == 0 and [r["result"] for r in doc["comparisons"][0]["rules"]] == ["pass", "pass"] and "http_req_waiting" in [f["name"] for f in doc["comparisons"][0]["figures"]]'
fi

# ---- bad rules and outputs ------------------------------------------------------------------------
for bad in 'bogus<5%:unknown figure .bogus.' 'p99>+10:a latency.s bound is a percentage or a duration' \
           'error_pct>+1%:error_pct changes in points' 'ops_per_s<=5%:.<=. is not a rule.s operator' 'ops_per_s:not FIGURE<BOUND'; do
    run "$HSMBENCH" compare "$T/null.json" "$T/null.json" --fail-on "${bad%%:*}"
    check_one_line_error "compare --fail-on '${bad%%:*}' refused: exit 2" 2 "^hsmbench: error: --fail-on '.*': ${bad#*:}"
done
run "$HSMBENCH" compare "$T/null.json" "$T/soft.json" --json "$T/soft.json"
check_one_line_error "compare --json naming an input: refused, exit 2" 2 '--json.*soft\.json'
run "$HSMBENCH" compare "$T/null.json" "$T/soft.json" --json - --html -
check_one_line_error "compare --json - --html -: refused, exit 2" 2 'only one output can go to standard output'

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
