#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_json.sh - the --json result file (schema hsmbench.result/3).
. "$TOP/tests/e2e/lib.sh"

# ---- unwritable paths are refused before anything runs ---------------------
run "$HSMBENCH" run --duration 1 --json /nonexistent-dir/x.json
check_one_line_error "--json in a missing directory: exit 2, path named" 2 '--json /nonexistent-dir/x\.json'
if [ -e /nonexistent-dir ]; then fail "--json in a missing directory: nothing created" "/nonexistent-dir exists"
else pass "--json in a missing directory: nothing created"; fi
mkdir "$T/adir"
run "$HSMBENCH" run --duration 1 --json "$T/adir"
check_one_line_error "--json naming a directory: exit 2" 2 'is a directory'
if [ -n "$(ls -A "$T/adir")" ]; then fail "--json naming a directory: nothing written in it" "$(ls -A "$T/adir")"
else pass "--json naming a directory: nothing written in it"; fi
printf 'x\n' >"$T/afile"
run "$HSMBENCH" run --duration 1 --json "$T/afile/x.json"
check_one_line_error "--json under a regular file: exit 2" 2 '--json '
if [ -e "$HSMBENCH_HOME" ]; then
    fail "bad --json is refused before any run (no token opened)" "$HSMBENCH_HOME was created"
else
    pass "bad --json is refused before any run (no token opened)"
fi

# ---- one run, every field -----------------------------------------------------
printf 'old\n' >"$T/r.json"
run "$HSMBENCH" run --test rsa-pkcs-sign --duration 1 --json "$T/r.json"
check "rsa-pkcs-sign with --json: exit 0" 0
J=$T/r.json
json_check "schema is hsmbench.result/3" "$J" 'doc["schema"] == "hsmbench.result/3"'
version=$("$HSMBENCH" --version | sed 's/^hsmbench //')
json_check "tool.version matches --version" "$J" "doc['tool']['version'] == '$version'"
json_check "command is the command line" "$J" \
    'doc["command"][:2] == ["hsmbench", "run"] and "--json" in doc["command"]'
json_check "started_at is an ISO 8601 UTC time" "$J" \
    '__import__("re").match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$", doc["started_at"]) is not None'
json_check "environment.module present (name, path, versions)" "$J" \
    'all(k in doc["environment"]["module"] for k in ("name", "path", "manufacturer", "library", "library_version", "cryptoki_version", "demo_token"))'
json_check "environment.token present (label, serial, flags)" "$J" \
    'doc["environment"]["token"]["label"] == "hsmbench-demo" and all(k in doc["environment"]["token"] for k in ("slot", "manufacturer", "model", "serial", "firmware", "hardware", "flags"))'
json_check "environment.host present (hostname, os, cpus)" "$J" \
    'all(k in doc["environment"]["host"] for k in ("hostname", "os", "kernel", "machine", "cpus")) and doc["environment"]["host"]["cpus"] >= 1'
json_check "one run, for rsa-pkcs-sign" "$J" 'len(runs) == 1 and runs[0]["test"] == "rsa-pkcs-sign"'
json_check "run: mechanism and mode blocking" "$J" \
    'runs[0]["mechanism"] == "CKM_SHA256_RSA_PKCS" and runs[0]["mode"] == "blocking"'
json_check "run: threads 1, data_size 32" "$J" 'runs[0]["threads"] == 1 and runs[0]["data_size"] == 32'
json_check "run: key {type RSA, bits 2048}" "$J" 'runs[0]["key"]["type"] == "RSA" and runs[0]["key"]["bits"] == 2048'
json_check "run: settings as given" "$J" \
    'runs[0]["settings"] == {"warmup_s": 0, "duration_s": 1, "iterations": 0}'
json_check "run: status ok, no reason" "$J" 'runs[0]["status"] == "ok" and "reason" not in runs[0]'
json_check "run: duration_s > 0 (about 1 s)" "$J" '0.5 < runs[0]["duration_s"] < 3'
json_check "run: ops > 0, errors 0, error_pct 0" "$J" \
    'runs[0]["ops"] > 0 and runs[0]["errors"] == 0 and runs[0]["error_pct"] == 0'
json_check "run: ops_per_s > 0 and consistent with ops/duration" "$J" \
    'runs[0]["ops_per_s"] > 0 and abs(runs[0]["ops_per_s"] - runs[0]["ops"] / runs[0]["duration_s"]) <= 0.01 * runs[0]["ops_per_s"] + 0.01'
json_check "run: latency_us ordered min<=p50<=p90<=p95<=p99<=p999<=max" "$J" \
    'all(runs[0]["latency_us"][a] <= runs[0]["latency_us"][b] for a, b in zip(("min","p50","p90","p95","p99","p999"), ("p50","p90","p95","p99","p999","max")))'
json_check "run: latency_us min > 0 and mean within [min, max]" "$J" \
    'runs[0]["latency_us"]["min"] > 0 and runs[0]["latency_us"]["min"] <= runs[0]["latency_us"]["mean"] <= runs[0]["latency_us"]["max"]'
json_check "run: latency_us count is ops - errors" "$J" \
    'runs[0]["latency_us"]["count"] == runs[0]["ops"]'
json_check "run: errors_by_code is {}" "$J" 'runs[0]["errors_by_code"] == {}'
json_check "run: per_second entries have t, ops, errors, p50_us, p99_us" "$J" \
    'len(runs[0]["per_second"]) >= 1 and all(all(k in s for k in ("t", "ops", "errors", "p50_us", "p99_us")) for s in runs[0]["per_second"])'
json_check "run: per_second ops sum to ops" "$J" \
    'sum(s["ops"] for s in runs[0]["per_second"]) == runs[0]["ops"]'
json_check "run: per_second p50_us <= p99_us" "$J" \
    'all(s["p50_us"] <= s["p99_us"] for s in runs[0]["per_second"])'
json_check "run: histogram counts sum to ops - errors" "$J" \
    'sum(c for _, c in runs[0]["histogram"]["counts"]) == runs[0]["ops"] == runs[0]["histogram"]["total"]'
json_check "run: histogram described (unit ns, bounds, min/max)" "$J" \
    'runs[0]["histogram"]["unit"] == "ns" and runs[0]["histogram"]["min"] <= runs[0]["histogram"]["max"]'
left=$(ls -A "$T" | grep -c '^r\.json\.tmp' || true)
if [ "$left" -eq 0 ]; then pass "--json leaves no temporary file behind"
else fail "--json leaves no temporary file behind" "$(ls -A "$T")"; fi

# ---- a test the token cannot do is skipped, with the reason -------------------
# p11-kit's trust module offers no mechanisms at all.
if "$HSMBENCH" list modules 2>/dev/null | grep -q '^p11-kit-trust '; then
    tslot=$("$HSMBENCH" list slots --module p11-kit-trust 2>/dev/null | sed -n 's/^Slot \([0-9]*\): .*/\1/p' | head -n 1)
    run "$HSMBENCH" run --module p11-kit-trust --slot "${tslot:-0}" --test rsa-pkcs-sign --duration 1 --json "$T/skip.json"
    if [ "$rc" -le 1 ]; then pass "a test the token lacks: the run completes (exit $rc)"
    else fail "a test the token lacks: the run completes" "exit $rc: $(head -c 300 "$T/err")"; fi
    file_has "a skipped test is reported on stdout with its reason" "$T/out" \
        '^rsa-pkcs-sign: skipped: CKM_SHA256_RSA_PKCS not offered'
    json_check "a skipped test: status skipped, reason names the mechanism" "$T/skip.json" \
        'runs[0]["status"] == "skipped" and "CKM_SHA256_RSA_PKCS" in runs[0]["reason"] and "ops" not in runs[0]'
else
    skip "a test the token lacks is skipped, with its reason (p11-kit-trust)" \
        "p11-kit-trust is not a registered module here (Debian package p11-kit-modules)"
fi

# ---- lib.sh's json_check itself: one interpreter answers every check -------
# Each answer is its own request's, also when the next request's answer FIFO
# is opened while the last answer's writer still holds it (that open read an
# end of file: an empty answer, and every later check its predecessor's).
# The interpreter holds each answer 50 ms (HSMBENCH_JSONCHECK_HOLD), so the
# shell meets that window at every check; a subshell with its own $T starts
# one for these checks alone.
printf '{"n": 1, "runs": []}\n' >"$T/jc.json"
(
    T="$T/jc" jc_pid=
    mkdir "$T" || exit 0
    HSMBENCH_JSONCHECK_HOLD=0.05
    export HSMBENCH_JSONCHECK_HOLD
    wrong=0 i=0
    while [ $i -lt 30 ]; do
        case $((i % 3)) in
        0) expr='doc["n"] == 1' want="PASS x" ;;
        1) expr='doc["n"] == 2' want="FAIL x: JSON check failed: $expr " ;;
        *) expr='doc["nope"]' want="FAIL x: JSON check failed: $expr  KeyError: 'nope'" ;;
        esac
        json_check x "$T/../jc.json" "$expr" >"$T/got"
        IFS= read -r got <"$T/got"
        [ "$got" = "$want" ] || wrong=$((wrong + 1))
        i=$((i + 1))
    done
    if [ "$wrong" = 0 ]; then pass "json_check: 30 checks in a row, each answered as its own (true, false, raising)"
    else fail "json_check: 30 checks in a row, each answered as its own" "$wrong wrong"; fi
    n=$(pgrep -c -f "jsoncheck.py $T/jc.req")
    if [ "$n" = 1 ]; then pass "json_check: one interpreter for the script's checks"
    else fail "json_check: one interpreter for the script's checks" "$n running"; fi
)
# A hold that is not a number fails each check, naming it, and the script
# goes on (the shell waits on the interpreter: it must answer every check).
(
    T="$T/jcbad" jc_pid=
    mkdir "$T" || exit 0
    HSMBENCH_JSONCHECK_HOLD=soon
    export HSMBENCH_JSONCHECK_HOLD
    json_check x "$T/../jc.json" 'True' >"$T/got"
    IFS= read -r got <"$T/got"
    want="FAIL x: JSON check failed: True  HSMBENCH_JSONCHECK_HOLD='soon' is not a number of seconds"
    if [ "$got" = "$want" ]; then pass "json_check: HSMBENCH_JSONCHECK_HOLD=soon fails the check, naming it"
    else fail "json_check: HSMBENCH_JSONCHECK_HOLD=soon fails the check, naming it" "got: $got"; fi
)
