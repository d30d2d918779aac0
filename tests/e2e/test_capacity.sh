#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_capacity.sh - --find-capacity against targets whose capacity
# is known: the mock HSM (service time x cores: 2 ms on 4 cores serves
# 2000 operations a second) for run, and hsmbench serve in front of the mock
# (5 ms on 2 cores: 400 requests a second) for rest ekm.  The answer must land
# within 5 % (run; the issue's acceptance test) and 10 % (rest, where HTTP and
# the drain of 32 transfers in flight add their share).  Also: the results
# file holds every step as a run and the capacity object, the HTML page its
# chart, report the answer; two threads on an eight-core target are named
# as the limit; bad objectives and contradicting flags are one
# line and exit 2; nothing passing exits 1; SIGINT mid-search exits 130 with
# the file written and no key left on the token.  Steps are 0.5-1 s.
# timed: finds capacities from the mock's service times; load beside it moves the answer
. "$TOP/tests/e2e/lib.sh"
REST_LIB_SOURCE=1
. "$TOP/tests/e2e/test_rest_lib.sh"
MOCK=${MOCK:-$(dirname "$NULLP11")/libhsmbench-mock.so}
bg=
trap 'if [ -n "$bg" ]; then kill -KILL "$bg" 2>/dev/null; fi; rest_stop_all; rm -rf "$T"' EXIT

# within NAME VALUE EXPECTED PCT: |VALUE - EXPECTED| <= PCT % of EXPECTED.
within() {
    if python3 -c "import sys; v, e, p = map(float, sys.argv[1:]); sys.exit(0 if abs(v - e) <= e * p / 100 else 1)" \
        "$2" "$3" "$4" 2>/dev/null; then pass "$1 ($2)"
    else fail "$1" "got $2, expected $3 within $4 %"; fi
}
answer() {
    python3 -c "import json, sys; print(json.load(open(sys.argv[1]))['capacity']['ops_per_s'])" "$1" 2>/dev/null
}

# ---- run: the mock's 2000/s --------------------------------------------------
HSMBENCH_MOCK='service=fixed:2ms;cores=4' run "$HSMBENCH" run --module "$MOCK" --test sha256-digest \
    --find-capacity 'p99<20ms' --threads 8 --step 1s --precision 2% --json "$T/cap.json" --html "$T/cap.html"
check "run --find-capacity on the mock (2 ms x 4 cores): exit 0, one line per step" 0 \
    '^step 1: offered [0-9]+/s  achieved [0-9]+/s  p50 .*  p99 .*  errors [0-9.]+ %  (pass|fail)'
file_has "the answer line names the objective, the threads and the precision" "$T/out" \
    '^capacity [0-9 ]+ ops/s at p99 < 20 ms, 8 threads, -[0-9.]+ %/\+[0-9.]+ % by repeated steps \([0-9 ]+ to [0-9 ]+ ops/s\); bracket [0-9.]+ %$'
file_has "the closing table lists the probe and the steps" "$T/out" '^probe +- +[0-9]+ .* closed loop$'
# (Which check a step above the capacity fails first depends on the machine:
# the objective, the achieved rate or the requests never started; under a
# sanitizer the drops may come first.  The objective's observed value is
# checked below, where nothing passes.)
file_has "the step that failed says why" "$T/out" \
    "fail: ('p99<20ms' p\\(99\\)=|achieved [0-9]+ % of the offered rate|[0-9]+ requests \\([0-9.]+ %\\) never started)"
within "the capacity found is within 5 % of the mock's 2000/s" "$(answer "$T/cap.json")" 2000 5
json_check "the capacity object: objectives, precision, threads, bounds around the answer" "$T/cap.json" \
    'doc["capacity"]["objectives"] == ["p99<20ms"] and doc["capacity"]["precision"] == 0.02 and doc["capacity"]["threads"] == 8 and doc["capacity"]["result"] == "found" and doc["capacity"]["bounds"][0] == doc["capacity"]["ops_per_s"] and (doc["capacity"]["bounds"][1] - doc["capacity"]["bounds"][0]) / doc["capacity"]["bounds"][0] <= 0.02'
json_check "every step is a run, at its rate, non-blocking; the probe a blocking run" "$T/cap.json" \
    'len([r for r in runs if r.get("capacity_step", 0) > 0]) == len(doc["capacity"]["steps"]) and all(r["mode"] == "nonblocking" and r["settings"]["rate"] == st["rate"] for r, st in zip([r for r in runs if r.get("capacity_step", 0) > 0], doc["capacity"]["steps"])) and [r["mode"] for r in runs if r.get("capacity_step") == 0] == ["blocking"]'
json_check "each step: rate, achieved, p50_us, p99_us, error_pct, pass, why; a failing one its limit" "$T/cap.json" \
    'all(set(["rate", "achieved", "p50_us", "p99_us", "error_pct", "pass"]) <= set(s) for s in doc["capacity"]["steps"]) and all(s["why"] and s["limit"] in ("target", "threads", "generator") for s in doc["capacity"]["steps"] if not s["pass"]) and doc["capacity"]["limited_by"] == "target"'
json_check "at most the step cap, and the first step at half the probe's rate" "$T/cap.json" \
    'len(doc["capacity"]["steps"]) <= 30 and doc["capacity"]["steps"][0]["role"] == "baseline" and abs([s for s in doc["capacity"]["steps"] if s["role"] == "search"][0]["rate"] - doc["capacity"]["probe_ops_per_s"] / 2) <= 0.06 * doc["capacity"]["probe_ops_per_s"]'
file_has "the HTML page draws latency against offered rate" "$T/cap.html" '<title>Latency by offered rate</title>'
file_has "the HTML chart draws the objective and the knee" "$T/cap.html" 'objective p99&lt;20ms.*capacity [0-9]'
run "$HSMBENCH" report "$T/cap.json"
check "report of a capacity file shows the answer" 0 '^capacity [0-9 ]+ ops/s at p99 < 20 ms, 8 threads, -[0-9.]+ %/\+[0-9.]+ % by repeated steps \([0-9 ]+ to [0-9 ]+ ops/s\); bracket [0-9.]+ %$'

# The searches below measure the mock's figures; their code is the first
# search's, so a sanitizer build skips to the bad input.
if all_cases; then
# ---- the client's limit: 2 threads on a target of eight 2 ms cores ------------
# Two threads carry at most 1000/s (2 ms each); the target's service time
# stays flat, so the limit is the threads, not the target.
HSMBENCH_MOCK='service=fixed:2ms;cores=8' run "$HSMBENCH" run --module "$MOCK" --test sha256-digest \
    --find-capacity 'p99<20ms' --threads 2 --step 0.5s --rate 500 --precision 5% --json "$T/thr.json"
check "2 threads against 8 cores: exit 0, the threads named as the limit" 0 '^limited by: the threads: '
# What two threads carry is 2 ms plus the client's own time per operation,
# which a sanitizer build multiplies (843/s seen under ASan): the limit's
# name is the point here, the figure only roughly.
within "2 threads of 2 ms: capacity within 25 % of 1000/s" "$(answer "$T/thr.json")" 1000 25
json_check "limited_by is threads" "$T/thr.json" 'doc["capacity"]["limited_by"] == "threads"'

# ---- nothing passes: a 1 ms objective on a 2 ms target ------------------------
HSMBENCH_MOCK='service=fixed:2ms;cores=4' run "$HSMBENCH" run --module "$MOCK" --test sha256-digest \
    --find-capacity 'p99<1ms' --threads 2 --step 0.5s --rate 160 --json "$T/none.json"
check "no rate meets p99<1ms on a 2 ms target: exit 1" 1 \
    "^no rate met the objectives: even 10/s failed p99 < 1 ms \\('p99<1ms' p\\(99\\)="
json_check "--rate gives the first step; halved four times; result none" "$T/none.json" \
    '[s["rate"] for s in doc["capacity"]["steps"] if s["role"] == "search"] == [160, 80, 40, 20, 10] and [s["rate"] for s in doc["capacity"]["steps"] if s["role"] == "confirm"] == [160, 80, 40, 20, 10] and doc["capacity"]["result"] == "none" and doc["capacity"]["ops_per_s"] is None and not [r for r in runs if r.get("capacity_step") == 0]'

# ---- an errors objective: 30 % injected failures never meet errors<1% --------
HSMBENCH_MOCK='service=fixed:2ms;cores=4;fail=CKR_DEVICE_ERROR:0.3;seed=7' run "$HSMBENCH" run \
    --module "$MOCK" --test sha256-digest --find-capacity 'p99<20ms' --find-capacity 'errors<1%' \
    --threads 2 --step 0.5s --rate 800 --json "$T/err.json"
# The errors fail every step whatever the machine; a busy one can push the
# last step's p99 past 20 ms too, and then the line names that first.
check "30 % CKR_DEVICE_ERROR against errors<1%: exit 1, the errors named" 1 \
    "^no rate met the objectives: even 50/s failed p99 < 20 ms, errors < 1 % \\(('p99<20ms' p\\(99\\)=[0-9.]+ms; )?'errors<1%' errors=[0-9.]+%"
json_check "every step failed the errors objective; the errors are counted in each run" "$T/err.json" \
    'all(chr(39) + "errors<1%" + chr(39) + " errors=" in s["why"] and s["error_pct"] > 1 for s in doc["capacity"]["steps"]) and all(r["errors_by_code"].get("CKR_DEVICE_ERROR", 0) > 0 for r in runs)'

fi

# ---- bad input: one line, exit 2 ----------------------------------------------
for bad in 'p99>20ms:upper bound' 'rate>100:bounds latency or errors' 'p99<5xs:unknown unit' \
           'sha256-digest:p99<1ms:leave out'; do
    expr=${bad%:*}
    why=${bad##*:}
    run "$HSMBENCH" run --module "$MOCK" --test sha256-digest --find-capacity "$expr"
    check_one_line_error "--find-capacity '$expr': exit 2" 2 "^hsmbench: error: --find-capacity '$expr': .*$why"
done
run "$HSMBENCH" run --module "$MOCK" --test sha256-digest --find-capacity 'p99<20ms' --stages 5s:10
check_one_line_error "--find-capacity with --stages: exit 2" 2 'leave out --stages'
run "$HSMBENCH" run --module "$MOCK" --test sha256-digest --find-capacity 'p99<20ms' --threads 1,2
check_one_line_error "--find-capacity with a --threads list: exit 2" 2 'leave out a --threads list'
run "$HSMBENCH" run --module "$MOCK" --test sha256-digest --find-capacity 'p99<20ms' --duration 5s
check_one_line_error "--find-capacity with --duration: exit 2" 2 'leave out --duration'
run "$HSMBENCH" run --module "$MOCK" --test sha256-digest,sha1-digest --find-capacity 'p99<20ms'
check_one_line_error "--find-capacity with two tests: exit 2" 2 'one --test'
run "$HSMBENCH" run --module "$MOCK" --mix sha256-digest:1,sha1-digest:1 --find-capacity 'p99<20ms'
check_one_line_error "--find-capacity with --mix: exit 2" 2 'does not take a --mix'
run "$HSMBENCH" run --module "$MOCK" --test sha256-digest --step 2s
check_one_line_error "--step without --find-capacity: exit 2" 2 '^hsmbench: error: --step applies to --find-capacity$'
run "$HSMBENCH" run --module "$MOCK" --test sha256-digest --find-capacity 'p99<20ms' --precision 0
check_one_line_error "--precision 0: exit 2" 2 '^hsmbench: error: --precision 0: '
run "$HSMBENCH" rest http --url https://127.0.0.1:9/ --plain-port 9 --tls-matrix --find-capacity 'p99<20ms'
check_one_line_error "rest http --tls-matrix with --find-capacity: exit 2" 2 'leave out --find-capacity'

# ---- rest ekm: serve in front of the mock, 400/s ------------------------------
if all_cases && HSMBENCH_MOCK='service=fixed:5ms;cores=2' start_serve mock --module "$MOCK"; then
    export CAP_EKM_TOKEN=unchecked
    run "$HSMBENCH" rest ekm --endpoint "$URL/v0/keys/k1" --token-env CAP_EKM_TOKEN --threads 2 --find-capacity 'p99<50ms' \
        --step 1s --json "$T/rest.json"
    check "rest ekm --find-capacity on serve + mock (5 ms x 2 cores): exit 0" 0 \
        '^capacity [0-9 ]+ ops/s at p99 < 50 ms, 2 threads, -[0-9.]+ %/\+[0-9.]+ % by repeated steps \([0-9 ]+ to [0-9 ]+ ops/s\); bracket [0-9.]+ %$'
    within "rest ekm: the capacity found is within 10 % of the mock's 400/s" "$(answer "$T/rest.json")" 400 10
    json_check "rest ekm: the steps ran on the lean engine's epoll loop, each with its http object" "$T/rest.json" \
        'all(r["settings"].get("engine") == "lean epoll" and "http" in r for r in runs if r.get("capacity_step", 0) > 0)'
    stop_serve mock
fi

# ---- SIGINT mid-search: 130, the file written, no key left ---------------------
run "$HSMBENCH" run --test sha256-digest --iterations 10 --quiet
check "demo token set up" 0
softhsm_env
before=$(demo_objects)
: >"$T/int.out"
"$HSMBENCH" run --test ecdsa-sign --token-keys --find-capacity 'p99<50ms' --rate 50 --step 2s \
    --json "$T/int.json" >"$T/int.out" 2>"$T/int.err" </dev/null &
bg=$!
n=0
while [ $n -lt 300 ] && ! grep -q '^step 1:' "$T/int.out" 2>/dev/null && kill -0 "$bg" 2>/dev/null; do
    sleep 0.1
    n=$((n + 1))
done
sleep 0.5
kill -INT "$bg" 2>/dev/null
n=0
while kill -0 "$bg" 2>/dev/null && [ $n -lt 50 ]; do sleep 0.1; n=$((n + 1)); done
if kill -0 "$bg" 2>/dev/null; then kill -KILL "$bg"; wait "$bg" 2>/dev/null; rc=255
else wait "$bg"; rc=$?; fi
bg=
if [ "$rc" = 130 ]; then pass "SIGINT mid-search: exit 130 within 5 s"
else fail "SIGINT mid-search: exit 130 within 5 s" "exit $rc: $(head -c 300 "$T/int.err")"; fi
json_check "SIGINT mid-search: the file has the steps done and result interrupted" "$T/int.json" \
    'doc["capacity"]["result"] == "interrupted" and len(doc["capacity"]["steps"]) >= 1 and runs[-1]["status"] == "interrupted"'
after=$(demo_objects)
if [ "$after" = "$before" ]; then pass "SIGINT mid-search: no benchmark key left on the token ($after objects)"
else fail "SIGINT mid-search: no benchmark key left on the token" "$before objects before, $after after"; fi
