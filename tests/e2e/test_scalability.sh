#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_scalability.sh - the scalability analysis of a blocking thread sweep
# (bench/results/scalability.c, bench/results/usl.c) against the mock HSM, whose capacity is
# known: 4 cores of 2 ms each serve at most 2000 operations/s, so adding
# threads pays up to 4 and only adds latency beyond; the knee must land on 4.
# Then what is not analysed (two thread counts, one, non-blocking, runs left
# out), hsmbench report and the HTML page.  About 8 seconds.
# timed: the knee comes from throughput the mock's service time dictates
. "$TOP/tests/e2e/lib.sh"

need_mock || exit 0

# ---- the knee on the mock's cores -------------------------------------------------
run env HSMBENCH_MOCK="service=fixed:2ms;cores=4" "$HSMBENCH" run --module "$MOCK" --test sha256-digest \
    --threads 1,2,3,4,6,8 --duration 0.6 --warmup 0.1 --json "$T/s.json" --html "$T/s.html" </dev/null
check "sweep 1..8 threads on 4 mock cores: exit 0, a USL fit over the 6 runs after the table" 0 \
    '^scalability of sha256-digest \(data 1024 B\): Universal Scalability Law fit over 6 runs, R² [01]\.[0-9]{3}'
file_has "sweep: contention and coherency printed" "$T/out" '^  contention σ [0-9.e-]+, coherency κ [0-9.e-]+, one thread λ [0-9.]+ ops/s$'
file_has "sweep: the predicted peak printed" "$T/out" '^  predicted peak [0-9.]+ threads → [0-9.]+ ops/s'
file_has "sweep: the knee lands on the mock's 4 cores" "$T/out" \
    '^  knee \(best throughput per latency, max X²/N\) at 4 threads: [0-9.]+ ops/s, p50 [0-9.]+ms \(fitted curve: [0-9.]+ threads\)$'
# The closing table comes first, the analysis after it.
if awk '/^TEST /{t=NR} /^scalability of/{s=NR} END{exit !(t && s > t)}' "$T/out"; then
    pass "sweep: the analysis follows the closing table"
else
    fail "sweep: the analysis follows the closing table" "$(tail -n 12 "$T/out" | tr '\n' ' ')"
fi
json_check "sweep JSON: one scalability element of the test, 6 points in thread order" "$T/s.json" \
    'len(doc["scalability"]) == 1 and doc["scalability"][0]["test"] == "sha256-digest" and doc["scalability"][0]["mode"] == "blocking" and doc["scalability"][0]["key"] is None and doc["scalability"][0]["data_size"] == 1024 and [p["threads"] for p in doc["scalability"][0]["points"]] == [1, 2, 3, 4, 6, 8] and doc["scalability"][0]["left_out"] == 0'
json_check "sweep JSON: the points are the runs' ops_per_s" "$T/s.json" \
    '[p["ops_per_s"] for p in doc["scalability"][0]["points"]] == [r["ops_per_s"] for r in runs]'
json_check "sweep JSON: fit lambda near 500/s, sigma and kappa >= 0, R² > 0.9" "$T/s.json" \
    'all(k in doc["scalability"][0]["fit"] for k in ("lambda", "sigma", "kappa", "r2")) and 350 < doc["scalability"][0]["fit"]["lambda"] < 700 and doc["scalability"][0]["fit"]["sigma"] >= 0 and doc["scalability"][0]["fit"]["kappa"] > 0 and doc["scalability"][0]["fit"]["r2"] > 0.9'
json_check "sweep JSON: knee on 4 threads with its run's throughput and latency (p50 ~2 ms)" "$T/s.json" \
    'doc["scalability"][0]["knee"]["threads"] == 4 and doc["scalability"][0]["knee"]["ops_per_s"] == runs[3]["ops_per_s"] and doc["scalability"][0]["knee"]["latency_us"]["p50"] == runs[3]["latency_us"]["p50"] and 1800 < doc["scalability"][0]["knee"]["latency_us"]["p50"] < 4000 and 2 < doc["scalability"][0]["knee"]["fitted_threads"] < 8'
json_check "sweep JSON: the predicted peak past the knee, near the mock's 2000/s" "$T/s.json" \
    '4 <= doc["scalability"][0]["peak"]["threads"] <= 16 and 1500 < doc["scalability"][0]["peak"]["ops_per_s"] < 2600'
file_has "sweep HTML: the scalability chart with its fit" "$T/s.html" '<title>Scalability: USL fit, R² [01]\.[0-9]{3}</title>'
file_has "sweep HTML: the fitted curve drawn dashed" "$T/s.html" '<polyline class="ln" stroke="[^"]+" stroke-dasharray="5 3" points="'
file_has "sweep HTML: the knee marked on 4" "$T/s.html" '<text class="mk"[^>]*>knee 4</text>'
file_has "sweep HTML: the peak marked" "$T/s.html" '<text class="mk"[^>]*>peak [0-9.]+</text>'
file_has "sweep HTML: the analysis as text" "$T/s.html" '<pre class="scal">scalability of sha256-digest'

# ---- hsmbench report: the same analysis ------------------------------------------
sed -n '/^scalability of/,$p' "$T/out" >"$T/live"
run "$HSMBENCH" report "$T/s.json" </dev/null
check "report FILE: the analysis after the table" 0 '^  knee \(best throughput per latency, max X²/N\) at 4 threads'
sed -n '/^scalability of/,$p' "$T/out" >"$T/rep"
if [ -s "$T/live" ] && cmp -s "$T/live" "$T/rep"; then pass "report FILE: the same lines as the live run"
else fail "report FILE: the same lines as the live run" "$(diff "$T/live" "$T/rep" | head -c 400 | tr '\n' ' ')"; fi
run "$HSMBENCH" report "$T/s.json" --html "$T/r.html" </dev/null
check "report --html: exit 0" 0
file_has "report --html: the knee marked" "$T/r.html" '<text class="mk"[^>]*>knee 4</text>'

# Runs not ok are left out, and said so: one failed run leaves five points.
python3 - "$T/s.json" "$T/f.json" "$T/g.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
doc["runs"][5]["status"] = "failed"
doc["runs"][5]["reason"] = "97.0 % CKR_DEVICE_ERROR"
json.dump(doc, open(sys.argv[2], "w"))
for i in (0, 1, 2):
    doc["runs"][i]["status"] = "interrupted"
json.dump(doc, open(sys.argv[3], "w"))
PY
run "$HSMBENCH" report "$T/f.json" </dev/null
check "report: a failed run is left out of the fit, and counted" 0 \
    'fit over 5 runs, R² [01]\.[0-9]{3}(.*)?; 1 run not ok left out$'
file_has "report: the knee stays on 4" "$T/out" '^  knee .* at 4 threads: '
run "$HSMBENCH" report "$T/g.json" </dev/null
check "report: too few good runs left: no analysis, and why" 0 \
    '^scalability of sha256-digest \(data 1024 B\): no analysis: 2 distinct thread counts; the fit needs 3 \(4 runs not ok left out\)$'

# ---- what is not analysed ----------------------------------------------------------
run "$HSMBENCH" run --module "$NULLP11" --test sha256-digest --threads 1,2 --iterations 200 --json "$T/two.json" </dev/null
check "two thread counts: no analysis, saying why" 0 \
    '^scalability of sha256-digest \(data 1024 B\): no analysis: 2 distinct thread counts; the fit needs 3$'
json_check "two thread counts JSON: fit, peak and knee null, the reason given" "$T/two.json" \
    'doc["scalability"][0]["fit"] is None and doc["scalability"][0]["peak"] is None and doc["scalability"][0]["knee"] is None and "the fit needs 3" in doc["scalability"][0]["reason"] and len(doc["scalability"][0]["points"]) == 2'
run "$HSMBENCH" run --module "$NULLP11" --test sha256-digest,sha1-digest --iterations 200 --json "$T/one.json" </dev/null
check "one thread count, two tests: exit 0" 0
file_lacks "one thread count: no analysis printed" "$T/out" "scalability of"
json_check "one thread count: no scalability in the file" "$T/one.json" '"scalability" not in doc'
run "$HSMBENCH" run --module "$NULLP11" --test sha256-digest --mode nonblocking --rate 200 --threads 1,2,3 \
    --duration 0.3 --warmup 0 --json "$T/nb.json" </dev/null
check "non-blocking thread list: exit 0" 0
file_lacks "non-blocking thread list: not analysed (latency from the schedule)" "$T/out" "scalability of"
json_check "non-blocking thread list: no scalability in the file" "$T/nb.json" '"scalability" not in doc'
run "$HSMBENCH" run --module "$NULLP11" --test sha256-digest --threads 1,2,4 --iterations 300 --quiet --json "$T/q.json" </dev/null
check "--quiet sweep: exit 0, nothing printed" 0
if [ -s "$T/out" ]; then fail "--quiet sweep: stdout empty" "$(head -c 200 "$T/out")"; else pass "--quiet sweep: stdout empty"; fi
json_check "--quiet sweep: the analysis still in the file" "$T/q.json" 'len(doc["scalability"]) == 1 and doc["scalability"][0]["fit"] is not None'
run "$HSMBENCH" run --module "$NULLP11" --test sha256-digest --threads 1,2,4 --iterations 60 --think 1ms \
    --json "$T/th.json" --html "$T/th.html" </dev/null
check "--think sweep: analysed, the think time named" 0 '^scalability of sha256-digest \(data 1024 B, think 1ms\): Universal Scalability Law fit over 3 runs'
json_check "--think sweep: think_s in the element" "$T/th.json" 'doc["scalability"][0]["think_s"] == 0.001'
file_has "--think sweep HTML: the scalability chart" "$T/th.html" '<title>Scalability: USL fit, '
# Three thread counts, three parameters: no degrees of freedom.  It printed
# "R² 1.000" for any three points, a claim the evidence cannot make.
file_has "3 thread counts: no degrees of freedom said, no R²" "$T/out" \
    'fit over 3 runs, no degrees of freedom \(3 points, 3 parameters\), so no R²: '
if grep -Eq 'R² [0-9]' "$T/out"; then fail "3 thread counts: no R² figure printed" "$(grep 'R²' "$T/out")"
else pass "3 thread counts: no R² figure printed"; fi
json_check "3 thread counts JSON: fit with dof 0 and r2 null" "$T/th.json" \
    'doc["scalability"][0]["fit"]["dof"] == 0 and doc["scalability"][0]["fit"]["r2"] is None'
file_has "3 thread counts HTML: the chart says no degrees of freedom, no R²" "$T/th.html" \
    '<title>Scalability: USL fit, no degrees of freedom, no R²</title>'
json_check "6 thread counts JSON: 3 degrees of freedom and an R²" "$T/s.json" \
    'doc["scalability"][0]["fit"]["dof"] == 3 and isinstance(doc["scalability"][0]["fit"]["r2"], float)'
run "$HSMBENCH" run --help </dev/null
check "run --help: the sweep's analysis is named" 0 'blocking sweep of 3\+ counts ends with a scalability fit'
