#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_repeat.sh - run --repeat N (issue 41): each test run N times
# in a row on the mock HSM, each its own run element marked {run, of}, and
# the interval between the runs (repeats[]) whose mean is the mean of the
# runs' ops_per_s, p50 and p99 (computed here from the file) with the
# Student t half-width, the bounds around it; the summary, report, compare
# and the HTML page say it; a sweep repeats each point; the keys are made
# once for the N runs (the call recorder counts C_GenerateKeyPair);
# --repeat 1, 0, x, 1001 and --repeat with --find-capacity are one line,
# exit 2, and a hostile mark is refused by report.  No timing is asserted.
# About 10 seconds.
. "$TOP/tests/e2e/lib.sh"

need_mock || exit 0

# ---- refusals: one line naming the flag, exit 2 -----------------------------------------
for v in 1 0; do
    run "$HSMBENCH" run --module "$MOCK" --test sha256-digest --repeat "$v"
    check_one_line_error "--repeat $v refused" 2 "^hsmbench: error: --repeat $v: at least 2 runs"
done
for v in x 2.5 -3; do
    run "$HSMBENCH" run --module "$MOCK" --test sha256-digest --repeat "$v"
    check_one_line_error "--repeat $v refused" 2 "^hsmbench: error: --repeat: '$v' is (not a whole number|negative)"
done
run "$HSMBENCH" run --module "$MOCK" --test sha256-digest --repeat 1001
check_one_line_error "--repeat 1001 refused" 2 "^hsmbench: error: --repeat.*1001"
run "$HSMBENCH" run --module "$MOCK" --test sha256-digest --repeat 3 --find-capacity 'p99<10ms'
check_one_line_error "--repeat with --find-capacity refused" 2 "--find-capacity .*leave out --repeat"

# ---- three runs of one test: three elements, the interval between them ---------------------
run env HSMBENCH_MOCK="service=fixed:1ms" "$HSMBENCH" run --module "$MOCK" --test rsa-pkcs-sign \
    --threads 2 --duration 1 --repeat 3 --json "$T/rep.json" --html "$T/rep.html"
check "--repeat 3: exit 0, the between-runs line" 0 \
    '^  rsa-pkcs-sign, RSA 2048, 2 threads: ops/s over 3 runs: [0-9.]+ ±[0-9.]+ % \(95 %, t, between runs: [0-9.]+ to [0-9.]+\); p50 [0-9.]+(ms|µs) ±[0-9.]+ %, p99 [0-9.]+(ms|µs) ±[0-9.]+ %$'
file_has "--repeat 3: each run's header says its place" "$T/out" '^\(run 3 of 3 of the same load: --repeat\)$'
json_check "--repeat 3: three run elements, each ok and marked run k of 3" "$T/rep.json" \
    'len(runs) == 3 and [r.get("repeat") for r in runs] == [{"run": k, "of": 3} for k in (1, 2, 3)] and all(r["status"] == "ok" for r in runs)'
# The figures, recomputed here: the mean of the runs', the t half-width
# (t(0.975, 2) = 4.303, to the three decimals of the table), the bounds
# around the mean; the same for p50 and p99.
cat >"$T/between.py" <<'EOF'
import json, math, sys
doc = json.load(open(sys.argv[1]))
runs, reps = doc["runs"], doc["repeats"]
assert len(reps) == 1, reps
g = reps[0]
assert g["n"] == 3 and g["of"] == 3 and g["runs"] == [0, 1, 2] and g["left_out"] == 0, g
assert g["method"] == "Student t, 95 %, between runs", g["method"]
assert g["test"] == "rsa-pkcs-sign" and g["threads"] == 2, g
for name, vals in (("ops_per_s", [r["ops_per_s"] for r in runs]),
                   ("p50_us", [r["latency_us"]["p50"] for r in runs]),
                   ("p99_us", [r["latency_us"]["p99"] for r in runs])):
    iv = g[name]
    mean = sum(vals) / 3
    sd = math.sqrt(sum((v - mean) ** 2 for v in vals) / 2)
    half = 4.303 * sd / math.sqrt(3)
    assert abs(iv["mean"] - mean) <= 1e-9 * max(1, mean), (name, iv, mean)
    assert iv["ci95_low"] <= mean <= iv["ci95_high"], (name, iv, mean)
    assert abs((iv["ci95_high"] - iv["ci95_low"]) / 2 - half) <= 1e-5 * max(1, half), (name, iv, half)
    assert abs(iv["half_width_pct"] - 100 * half / mean) <= 1e-5 * max(1, iv["half_width_pct"]), (name, iv)
EOF
if python3 "$T/between.py" "$T/rep.json" >"$T/py.err" 2>&1; then
    pass "--repeat 3: repeats[0] is the mean of the runs' ops_per_s, p50, p99, its t interval around it"
else
    fail "--repeat 3: repeats[0] is the mean of the runs' ops_per_s, p50, p99, its t interval around it" \
        "$(tail -c 400 "$T/py.err")"
fi
run "$HSMBENCH" report "$T/rep.json"
check "report: three rows and the between-runs line" 0 'ops/s over 3 runs: [0-9.]+ ±'
run "$HSMBENCH" compare "$T/rep.json" "$T/rep.json"
check "compare: each file's between-runs line" 0 '^  B  rsa-pkcs-sign, RSA 2048, 2 threads: ops/s over 3 runs'
file_has "html: the between-runs section" "$T/rep.html" '<section id="repeats"><h2>Between runs</h2>'

# ---- a sweep, repeated: each thread count twice in a row, a group each ---------------------
run env HSMBENCH_MOCK="service=fixed:1ms" "$HSMBENCH" run --module "$MOCK" --test sha256-digest \
    --threads 1,2 --iterations 200 --repeat 2 --json "$T/sweep.json"
check "--threads 1,2 --repeat 2: exit 0" 0 'sha256-digest, 2 threads: ops/s over 2 runs'
json_check "--threads 1,2 --repeat 2: four runs, 1 1 2 2 threads, two groups" "$T/sweep.json" \
    '[r["threads"] for r in runs] == [1, 1, 2, 2] and [(g["threads"], g["runs"], g["n"]) for g in doc["repeats"]] == [(1, [0, 1], 2), (2, [2, 3], 2)]'

# ---- a skipped test is not repeated --------------------------------------------------------
run env HSMBENCH_MOCK="mechanisms=CKM_SHA256" "$HSMBENCH" run --module "$MOCK" --test ecdsa-sign,sha256-digest \
    --iterations 50 --repeat 2 --json "$T/skip.json"
json_check "a skipped test: one skipped element, the other test twice" "$T/skip.json" \
    '[(r["test"], r["status"]) for r in runs] == [("ecdsa-sign", "skipped"), ("sha256-digest", "ok"), ("sha256-digest", "ok")]'

# ---- the keys are made once for the three runs: the module says so --------------------------
TRACE="$(dirname "$NULLP11")/libhsmbench-trace.so"
if all_cases && [ -f "$TRACE" ]; then
    run env HSMBENCH_MOCK="service=fixed:1ms" HSMBENCH_TRACE_MODULE="$MOCK" HSMBENCH_TRACE_FILE="$T/rep.trace" \
        "$HSMBENCH" run --module "$TRACE" --test rsa-pkcs-sign --iterations 100 --repeat 3 --json "$T/traced.json"
    check "traced --repeat 3: exit 0" 0
    "$HSMBENCH" trace --quiet "$T/rep.trace" --json "$T/rep.tj" 2>"$T/trace.err"
    json_check "traced --repeat 3: one C_GenerateKeyPair for three runs, their 300 signatures" "$T/rep.tj" \
        '(lambda m: m["rsa-keygen"]["ops"] == 1 and m["rsa-pkcs-sign"]["ops"] == 300)({r["test"]: r for r in runs})'
fi

# ---- readers refuse a hostile mark ----------------------------------------------------------
for bad in '{"run": 4, "of": 3}' '{"run": 1, "of": 1}' '{"run": 0, "of": 2}' '"x"'; do
    python3 - "$T/rep.json" "$T/bad.json" "$bad" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["runs"][1]["repeat"] = json.loads(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"))
EOF
    run "$HSMBENCH" report "$T/bad.json"
    check_one_line_error "report refuses repeat $bad" 2 "runs\[1\]\.repeat"
done
