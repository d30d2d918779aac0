#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_verdict.sh - the figures a run prints are what happened
# (issue: "numbers that cannot lie"): throughput counts successes, a run
# whose operations mostly failed is "failed" with its dominant cause, a run
# whose device is gone stops early, the per-second lines count successes and
# say when a second had errors, and the measured duration of staged,
# think-time and iteration-bounded runs is the plan's (or the real elapsed
# time), with the per-second intervals adding up to it.  Against the mock
# HSM, whose failures and service times are its own.
. "$TOP/tests/e2e/lib.sh"

MOCK="$(dirname "$NULLP11")/libhsmbench-mock.so"
mock() {
    cfg=$1
    shift
    run env HSMBENCH_MOCK="$cfg" "$HSMBENCH" "$@"
}

# ---- most operations failed: failed, with the dominant cause -----------------------
mock "service=fixed:200us;fail=CKR_DEVICE_ERROR:0.7;seed=3" run --module "$MOCK" \
    --test sha256-digest --duration 1 --json "$T/most.json"
check "70 % CKR_DEVICE_ERROR: exit 1" 1 '^ +status\.+: failed: [67][0-9]\.[0-9] % CKR_DEVICE_ERROR$'
file_has "the summary's operations are the successful ones, attempts beside them" "$T/out" \
    '^ +attempts\.+: [0-9]+'
json_check "the run is failed, the reason names the cause, ops_per_s counts successes" \
    "$T/most.json" 'runs[0]["status"] == "failed" and "CKR_DEVICE_ERROR" in runs[0]["reason"] and abs(runs[0]["ops_per_s"] - (runs[0]["attempts"] - runs[0]["errors"]) / runs[0]["duration_s"]) < 1 and runs[0]["attempts_per_s"] > runs[0]["ops_per_s"]'
if grep -Eq '^OPERATIONS/second +[0-9]+/1   errors [0-9]+$' "$T/out"; then
    pass "per-second lines keep pkpspeed's shape and add the second's errors"
else
    fail "per-second lines keep pkpspeed's shape and add the second's errors" "$(grep OPERATIONS "$T/out" | head -3 | tr '\n' ' ')"
fi

# ---- a few failures: status errors, never ok, exit 1 ----------------------------------
# (issue 41: "status ok" in the closing table of a run that exits 1; with
# --quiet nothing at all said why)
mock "service=fixed:200us;fail=CKR_DEVICE_ERROR:0.1;seed=3" run --module "$MOCK" \
    --test sha256-digest --duration 1 --json "$T/few.json"
check "10 % errors: exit 1, status errors with the count and the cause" 1 \
    '^ +status\.+: errors: [0-9]+ of [0-9]+ attempts failed \([0-9]+\.[0-9]{2} %\): CKR_DEVICE_ERROR$'
file_lacks "10 % errors: the summary never says status ok" "$T/out" "status................: ok"
json_check "10 % errors: status errors with its reason, attempts = successes + errors" "$T/few.json" \
    'runs[0]["status"] == "errors" and "attempts failed" in runs[0]["reason"] and runs[0]["errors"] > 0 and runs[0]["attempts"] == runs[0]["ops"] + runs[0]["errors"] and abs(runs[0]["ops_per_s"] * runs[0]["duration_s"] - runs[0]["ops"]) < 2 and runs[0]["latency_us"]["count"] == runs[0]["ops"]'
mock "service=fixed:100us;fail=CKR_DEVICE_ERROR:0.006;seed=3" run --module "$MOCK" \
    --test sha256-digest,sha1-digest --threads 2 --iterations 2000 --json "$T/few2.json"
check "0.6 % errors, two tests: exit 1, the closing table says errors" 1 \
    '^sha256-digest +- +1024 +2 +[0-9.]+ +[0-9.]+[µm]?s +[0-9.]+[µm]?s +[0-9.]+  errors: [0-9]+ of 2000 attempts failed'
if grep -Eq '  ok$' "$T/out"; then fail "0.6 % errors: no row of the closing table says ok" "$(grep -E '  ok$' "$T/out")"
else pass "0.6 % errors: no row of the closing table says ok"; fi
"$HSMBENCH" report "$T/few2.json" >"$T/out" 2>"$T/err"
rc=$?
check "0.6 % errors: report's table says errors" 0 '^  sha256-digest +- +1024 B +2 errors '
mock "service=fixed:100us;fail=CKR_DEVICE_ERROR:0.006;seed=3" run --module "$MOCK" \
    --test sha256-digest --threads 2 --iterations 2000 --quiet
check "0.6 % errors --quiet: exit 1, one line on stderr saying why" 1 '' \
    '^hsmbench: exit 1: sha256-digest, 2 threads: errors: [0-9]+ of 2000 attempts failed \([0-9.]+ %\): CKR_DEVICE_ERROR$'
if [ "$(wc -l <"$T/err")" -eq 1 ] && [ ! -s "$T/out" ]; then pass "0.6 % errors --quiet: that line alone"
else fail "0.6 % errors --quiet: that line alone" "stdout $(wc -c <"$T/out") bytes, stderr: $(cat "$T/err")"; fi
# A file written before says ok of a run with errors: read, it says errors too.
python3 - "$T/few2.json" "$T/old.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
for r in doc["runs"]:
    r["status"] = "ok"
    r.pop("reason", None)
json.dump(doc, open(sys.argv[2], "w"))
PY
"$HSMBENCH" report "$T/old.json" >"$T/out" 2>"$T/err"
rc=$?
check "an older file's ok run with errors: report says errors" 0 '^  sha256-digest +- +1024 B +2 errors '

# ---- everything fails: the device is gone, the run stops early -------------------------
start=$(date +%s)
mock "service=fixed:100us;fail=CKR_DEVICE_ERROR:1" run --module "$MOCK" \
    --test sha256-digest --duration 30 --abort-on-errors 2s --json "$T/gone.json"
took=$(($(date +%s) - start))
check "every operation failing: exit 1" 1 '^ +status\.+: failed: stopped early: every operation failed'
if [ "$took" -lt 15 ]; then pass "every operation failing: stopped after about 2 s, not 30 ($took s)"
else fail "every operation failing: stopped after about 2 s, not 30" "$took s"; fi
json_check "stopped early: failed, the cause named, no latency of successes" "$T/gone.json" \
    'runs[0]["status"] == "failed" and "(CKR_DEVICE_ERROR; 100.0 % of the run" in runs[0]["reason"] and runs[0]["ops_per_s"] == 0 and runs[0]["latency_us"]["count"] == 0 and runs[0]["duration_s"] < 10'
mock "service=fixed:100us;fail=CKR_DEVICE_ERROR:1" run --module "$MOCK" \
    --test sha256-digest,sha1-digest --duration 2 --abort-on-errors off --json "$T/off.json"
check "--abort-on-errors off: the run goes to its end, exit 1" 1
file_has "closing table: latency '-' when nothing succeeded, not 0ns" "$T/out" \
    '^sha256-digest +- +1024 +1 +0\.0 +- +- +100\.00  failed: every operation failed: 100\.0 % CKR_DEVICE_ERROR$'
json_check "--abort-on-errors off: the whole 2 s measured" "$T/off.json" \
    'runs[0]["status"] == "failed" and 1.9 < runs[0]["duration_s"] < 2.5'
mock "" run --module "$MOCK" --test sha256-digest --iterations 5 --abort-on-errors 0.5s
check_one_line_error "--abort-on-errors below 1 s: exit 2" 2 '--abort-on-errors'

# ---- durations that add up ------------------------------------------------------------
mock "service=fixed:1ms" run --module "$MOCK" --test sha256-digest --stages 1s:2,2s:2,1s:0 \
    --json "$T/stages.json"
check "blocking stages 1s:2,2s:2,1s:0: exit 0" 0
json_check "blocking stages: the duration is the plan's 4 s, the intervals add up to it" "$T/stages.json" \
    'abs(runs[0]["duration_s"] - 4.0) < 0.05 and abs(sum(s["span_s"] for s in runs[0]["per_second"]) - runs[0]["duration_s"]) < 0.01'
json_check "blocking stages: the rate is over the plan's duration" "$T/stages.json" \
    'abs(runs[0]["ops_per_s"] - runs[0]["ops"] / runs[0]["duration_s"]) < 1'
mock "service=fixed:1ms" run --module "$MOCK" --test sha256-digest --mode nonblocking \
    --stages 1s:200,2s:200,1s:0 --json "$T/nbst.json"
check "non-blocking stages 1s:200,2s:200,1s:0: exit 0" 0
json_check "non-blocking stages: 4 s measured, the plan's average target of 150/s" "$T/nbst.json" \
    'abs(runs[0]["duration_s"] - 4.0) < 0.05 and abs(runs[0]["schedule"]["target_ops_per_s"] - 150) < 3 and abs(sum(s["span_s"] for s in runs[0]["per_second"]) - runs[0]["duration_s"]) < 0.01'
mock "service=fixed:1ms" run --module "$MOCK" --test sha256-digest --think 50ms --duration 2 \
    --json "$T/think.json"
check "--think 50ms --duration 2: exit 0" 0
json_check "think time: 2 s measured although the last operation ended earlier" "$T/think.json" \
    'abs(runs[0]["duration_s"] - 2.0) < 0.05 and abs(sum(s["span_s"] for s in runs[0]["per_second"]) - runs[0]["duration_s"]) < 0.01'
mock "service=fixed:1ms" run --module "$MOCK" --test sha256-digest --iterations 1500 \
    --json "$T/iter.json"
check "--iterations 1500: exit 0" 0
json_check "iterations: the real elapsed time of the measured part, the intervals add up to it" \
    "$T/iter.json" 'runs[0]["ops"] == 1500 and 1.4 < runs[0]["duration_s"] < 3 and abs(sum(s["span_s"] for s in runs[0]["per_second"]) - runs[0]["duration_s"]) < 0.01'

# ---- the device lost mid-run (the mock's lost-at): the run stops, failed -------------
mock "service=fixed:500us;lost-at=1500ms" run --module "$MOCK" --test sha256-digest \
    --duration 20 --json "$T/lost.json"
check "device lost at 1.5 s: exit 1, failed, stopped early" 1 \
    '^ +status\.+: failed: stopped early: every operation failed for several seconds \(CKR_DEVICE_ERROR; [0-9.]+ % of the run.s attempts failed\)$'
json_check "device lost: the successes before it counted, stopped within seconds, not 20" "$T/lost.json" \
    'runs[0]["status"] == "failed" and runs[0]["attempts"] > runs[0]["errors"] > 0 and runs[0]["ops"] > 0 and runs[0]["duration_s"] < 8 and runs[0]["latency_us"]["count"] > 0' 2>/dev/null

# ---- a hsmbench.result/1 file (ops_per_s counted failures) is read as /2 says ----------
python3 - "$T/most.json" "$T/v1.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["schema"] = "hsmbench.result/1"
r = d["runs"][0]
r["ops_per_s"] = r.pop("attempts_per_s")
r["ops"] = r.pop("attempts")          # /1 and /2: ops counted attempts
for sec in r["per_second"]:
    sec["ops"] += sec["errors"]
json.dump(d, open(sys.argv[2], "w"))
PY
want=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["runs"][0]; print("%.2f" % r["ops_per_s"])' "$T/most.json")
run "$HSMBENCH" report "$T/v1.json" --csv -
if grep -q ",$want," "$T/out"; then pass "a /1 file's throughput is read as successes per second ($want)"
else fail "a /1 file's throughput is read as successes per second ($want)" "$(tail -1 "$T/out")"; fi
# ---- a hsmbench.result/2 file (ops counted attempts) is read as /3 says: ops are successes ----
python3 - "$T/most.json" "$T/v2.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["schema"] = "hsmbench.result/2"
r = d["runs"][0]
r["ops"] = r["attempts"]
for sec in r["per_second"]:
    sec["ops"] += sec["errors"]
json.dump(d, open(sys.argv[2], "w"))
PY
want=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["runs"][0]; print(r["ops"], r["attempts"])' "$T/most.json")
run "$HSMBENCH" report "$T/v2.json" --csv -
got=$(python3 -c 'import csv,sys; r=list(csv.DictReader(open(sys.argv[1])))[0]; print(r["successes"], r["attempts"])' "$T/out" 2>&1)
if [ "$got" = "$want" ]; then pass "a /2 file's ops (attempts then) are read as successes, attempts beside them ($want)"
else fail "a /2 file's ops (attempts then) are read as successes, attempts beside them ($want)" "$got"; fi
json_check "blocking stages: every second has its target, the last (ramp to 0) too" "$T/stages.json" \
    'all("target" in s for s in runs[0]["per_second"]) and runs[0]["per_second"][-1]["target"] == 0'
run "$HSMBENCH" report "$T/stages.json" --html "$T/stages.html"
check "report --html of a staged run: exit 0" 0
file_has "the HTML page of a staged run draws the target line" "$T/stages.html" '>target<'
