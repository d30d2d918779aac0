#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_mock.sh - hsmbench against the mock HSM (mock/mockhsm.c,
# hsmbench-mock(7)): the mock injects service times, stalls, errors and
# quirks itself, so what hsmbench measures can be checked against them.
# About 15 seconds; the runs are too long for ThreadSanitizer.
# timed: asserts the throughput and latency the mock's service time dictates
. "$TOP/tests/e2e/lib.sh"

need_mock || exit 0

# mock CONFIG ARGS...: hsmbench with HSMBENCH_MOCK=CONFIG, through run().
mock() {
    cfg=$1
    shift
    run env HSMBENCH_MOCK="$cfg" "$HSMBENCH" "$@"
}

# ---- the token ------------------------------------------------------------------
mock "" list slots --module "$MOCK" </dev/null
check "mock: list slots shows token 'mock'" 0 '^  label +: mock$'
file_has "mock: serial 0000000000000002" "$T/out" '^  serial +: 0000000000000002$'
file_has "mock: token flags without LOGIN_REQUIRED by default" "$T/out" '^  flags +: RNG,USER_PIN_INITIALIZED,TOKEN_INITIALIZED$'
mock "mechanisms=CKM_SHA256,CKM_AES_GCM" list mechanisms --module "$MOCK" </dev/null
check "mock mechanisms=CKM_SHA256,CKM_AES_GCM: list mechanisms shows two" 0 "^Token 'mock' \(slot 1\): 2 mechanisms"
mock "bogus=1" run --module "$MOCK" --test sha256-digest --iterations 10 --quiet </dev/null
check "mock bad configuration: exit 3, C_Initialize CKR_ARGUMENTS_BAD, the mock says why" 3 '' \
    'C_Initialize: CKR_ARGUMENTS_BAD'
file_has "mock bad configuration: one line from the mock naming the key" "$T/err" \
    "^hsmbench-mock: bad configuration: HSMBENCH_MOCK: 'bogus=1': unknown key$"

# ---- (a) service time and cores: the throughput and latency the mock dictates -------
mock "service=fixed:1ms;cores=4" run --module "$MOCK" --test sha256-digest --threads 4 --duration 3 \
    --quiet --json "$T/a.json" </dev/null
check "mock service=fixed:1ms cores=4, 4 threads, 3 s: exit 0" 0
json_check "mock fixed:1ms x 4 cores: 2500 <= ops/s <= 4400 (4000 ideal)" "$T/a.json" \
    'runs[0]["status"] == "ok" and 2500 <= runs[0]["ops_per_s"] <= 4400'
json_check "mock fixed:1ms: 900 us <= p50 <= 3000 us" "$T/a.json" \
    '900 <= runs[0]["latency_us"]["p50"] <= 3000'

# ---- (b) injected errors are counted by code -----------------------------------------
mock "service=fixed:100us;fail=CKR_DEVICE_ERROR:0.01" run --module "$MOCK" --test sha256-digest \
    --threads 2 --duration 3 --quiet --json "$T/b.json" </dev/null
check "mock fail=CKR_DEVICE_ERROR:0.01: the run finishes with errors: exit 1" 1
json_check "mock fail 1%: errors_by_code has CKR_DEVICE_ERROR, 0.4 <= error_pct <= 2.5" "$T/b.json" \
    'runs[0]["errors_by_code"].get("CKR_DEVICE_ERROR", 0) > 0 and 0.4 <= runs[0]["error_pct"] <= 2.5'

# ---- (c) a reduced mechanism list: the test is skipped, not failed --------------------
mock "mechanisms=CKM_SHA256" run --module "$MOCK" --test aes-gcm-encrypt --iterations 10 \
    --json "$T/c.json" </dev/null
check "mock mechanisms=CKM_SHA256: aes-gcm-encrypt skipped, exit 0" 0 'skipped: .*CKM_AES_GCM'
json_check "mock mechanisms=CKM_SHA256: status skipped, reason names CKM_AES_GCM" "$T/c.json" \
    'runs[0]["status"] == "skipped" and "CKM_AES_GCM" in runs[0]["reason"]'

# ---- (d) an RSA size cap ------------------------------------------------------------------
mock "max-rsa=2048" run --module "$MOCK" --test rsa-pkcs-sign --key-size 4096 --iterations 10 \
    --json "$T/d.json" </dev/null
check "mock max-rsa=2048: rsa-pkcs-sign --key-size 4096 skipped, exit 0" 0 \
    "above the token's 2048 maximum"
json_check "mock max-rsa=2048: the JSON reason says so" "$T/d.json" \
    'runs[0]["status"] == "skipped" and "above the token'"'"'s 2048 maximum" in runs[0]["reason"]'
mock "max-rsa=2048" run --module "$MOCK" --test rsa-pkcs-sign --key-size 2048 --iterations 20 --quiet </dev/null
check "mock max-rsa=2048: --key-size 2048 runs, exit 0" 0

# ---- (e) a required PIN ---------------------------------------------------------------------
run env HSMBENCH_MOCK="login=required;pin=1234" MOCK_PIN=1234 "$HSMBENCH" run --module "$MOCK" \
    --test rsa-pkcs-sign,sha256-digest --iterations 20 --pin-env MOCK_PIN --quiet --json "$T/e.json" </dev/null
check "mock login=required, right PIN from --pin-env: exit 0" 0
json_check "mock login=required: both tests ok" "$T/e.json" \
    'len(runs) == 2 and all(r["status"] == "ok" and r["errors"] == 0 for r in runs)'
run env HSMBENCH_MOCK="login=required;pin=1234" MOCK_PIN=9999 "$HSMBENCH" run --module "$MOCK" \
    --test sha256-digest --iterations 20 --pin-env MOCK_PIN --quiet </dev/null
check_one_line_error "mock login=required, wrong PIN: exit 3 naming CKR_PIN_INCORRECT" 3 'CKR_PIN_INCORRECT'

# ---- (f) a stall: the blocking run sees it as a few very slow operations --------------------
mock "stall-at=2s:1s;service=fixed:1ms" run --module "$MOCK" --test sha256-digest --threads 2 \
    --duration 4 --quiet --json "$T/f.json" </dev/null
check "mock stall-at=2s:1s, 4 s run: exit 0" 0
json_check "mock stall-at=2s:1s: latency max >= 500 ms" "$T/f.json" \
    'runs[0]["latency_us"]["max"] >= 500000 and runs[0]["latency_us"]["p50"] < 100000'

# ---- (g) invalidated sessions are reopened, and counted ---------------------------------------
mock "fail=CKR_SESSION_HANDLE_INVALID:0.01;service=fixed:100us" run --module "$MOCK" --test sha256-digest \
    --threads 2 --duration 2 --quiet --json "$T/g.json" </dev/null
check "mock fail=CKR_SESSION_HANDLE_INVALID:0.01: the run completes, exit 1" 1
json_check "mock session invalidation: sessions_reopened > 0, errors_by_code has CKR_SESSION_HANDLE_INVALID" \
    "$T/g.json" 'runs[0]["status"] == "errors" and runs[0]["sessions_reopened"] > 0 and runs[0]["errors_by_code"].get("CKR_SESSION_HANDLE_INVALID", 0) > 0'

# ---- (h) a truncated "success" is an error ------------------------------------------------------
mock "quirks=truncate" run --module "$MOCK" --test sha256-digest --iterations 50 --quiet \
    --json "$T/h.json" </dev/null
check "mock quirks=truncate: exit 1" 1
json_check "mock quirks=truncate: every result BAD_OUTPUT_LENGTH" "$T/h.json" \
    'runs[0]["errors_by_code"] == {"BAD_OUTPUT_LENGTH": 50}'

# The same configuration through --init-args (C_Initialize's pReserved).
run "$HSMBENCH" run --module "$MOCK" --init-args "quirks=truncate" --test sha256-digest --iterations 10 \
    --quiet --json "$T/i.json" </dev/null
check "mock --init-args quirks=truncate: exit 1" 1
json_check "mock --init-args: the quirk applies" "$T/i.json" \
    'runs[0]["errors_by_code"] == {"BAD_OUTPUT_LENGTH": 10}'

# A short size query: hsmbench's buffers are big enough, so nothing shows.
mock "quirks=short-size-query,long-size-query" run --module "$MOCK" --test ecdsa-sign,aes-gcm-encrypt \
    --iterations 50 --quiet --json "$T/j.json" </dev/null
check "mock size-query quirks: hsmbench does not rely on size queries, exit 0" 0
