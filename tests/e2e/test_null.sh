#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_null.sh - the do-nothing module ($NULLP11): no PIN, no
# crypto, millions of operations a second, so it exercises the threaded
# harness itself (and is cheap enough for ThreadSanitizer).
# tsan: yes (the threaded harness at millions of calls a second: workers, their counters and the stop)
# asan: yes (the threaded harness at millions of calls a second, started and stopped)
. "$TOP/tests/e2e/lib.sh"

run "$HSMBENCH" list slots --module "$NULLP11"
check "list slots --module null: exit 0" 0 '^  label +: null$'
file_has "list slots --module null: flags without LOGIN_REQUIRED" "$T/out" '^  flags +: RNG,TOKEN_INITIALIZED$'
run "$HSMBENCH" list mechanisms --module "$NULLP11"
check "list mechanisms --module null: exit 0, token null" 0 "^Token 'null' \(slot 0\)"
file_has "list mechanisms --module null shows CKM_SHA256" "$T/out" '^CKM_SHA256 +1\.\.16384 +HW,DIGEST$'

run "$HSMBENCH" run --module "$NULLP11" --test sha256-digest --threads 2 --duration 1 --json "$T/null.json" </dev/null
check "null module, sha256-digest, 2 threads, 1 s, no PIN: exit 0" 0 '^OPERATIONS/second +[0-9]+/1$'
json_check "null module: ops > 0, no errors, 2 threads" "$T/null.json" \
    'runs[0]["status"] == "ok" and runs[0]["ops"] > 0 and runs[0]["errors"] == 0 and runs[0]["threads"] == 2'
json_check "null module: environment names the null token, not the demo" "$T/null.json" \
    'doc["environment"]["token"]["label"] == "null" and doc["environment"]["module"]["demo_token"] is False'
json_check "null module: histogram counts sum to ops" "$T/null.json" \
    'sum(c for _, c in runs[0]["histogram"]["counts"]) == runs[0]["ops"]'
json_check "null module: per_second ops sum to ops" "$T/null.json" \
    'sum(s["ops"] for s in runs[0]["per_second"]) == runs[0]["ops"]'
if [ -e "$HSMBENCH_HOME" ]; then fail "--module given: no demo token created" "$HSMBENCH_HOME exists"
else pass "--module given: no demo token created"; fi

run "$HSMBENCH" run --module "$NULLP11" --test rsa-pkcs-sign,hmac-sha256,sha256-digest \
    --iterations 1000 --threads 2 --quiet --json "$T/all.json" </dev/null
check "null module: three tests, 1000 iterations each: exit 0" 0
json_check "null module: three tests ok with exactly 1000 ops" "$T/all.json" \
    'len(runs) == 3 and all(r["status"] == "ok" and r["ops"] == 1000 and r["errors"] == 0 for r in runs)'

# The null module leaves an ECDSA signature's or a GCM ciphertext's length as
# the buffer's: a "success" of the wrong length is an error, not a result.
run "$HSMBENCH" run --module "$NULLP11" --test ecdsa-sign,aes-gcm-encrypt \
    --iterations 100 --quiet --json "$T/badlen.json" </dev/null
check "null module: wrong-length results make the run fail: exit 1" 1
json_check "null module: wrong-length results counted as BAD_OUTPUT_LENGTH" "$T/badlen.json" \
    'all(r["errors_by_code"] == {"BAD_OUTPUT_LENGTH": 100} and r["attempts"] == 100 and r["ops"] == 0 for r in runs)'

run env HSMBENCH_E2E_PIN=1234 "$HSMBENCH" run --module "$NULLP11" --test sha256-digest --iterations 10 --pin-env HSMBENCH_E2E_PIN --quiet
check "null module: a PIN given to a token without login still works" 0

# Fewer iterations than threads: one worker has nothing to do (quota 0).
timeout -s INT 3 "$HSMBENCH" run --module "$NULLP11" --test sha256-digest --iterations 3 --threads 4 \
    --quiet --json "$T/few.json" >"$T/out" 2>"$T/err" </dev/null
rc=$?
check "--iterations 3 --threads 4 (fewer ops than threads) finishes on its own, no hang" 0
json_check "--iterations 3 --threads 4: exactly 3 operations, status ok" "$T/few.json" \
    'runs[0]["ops"] == 3 and runs[0]["status"] == "ok"'

# Warm-up: the measured per-second series must add up to the measured total
# (warm-up operations neither leak in nor measured ones out).
run "$HSMBENCH" run --module "$NULLP11" --test sha256-digest --threads 2 --warmup 1 --duration 1 --json "$T/warm.json" </dev/null
check "null module --warmup 1 --duration 1: exit 0" 0 '\(warm-up\)$'
json_check "null module --warmup: per_second has only measured seconds" "$T/warm.json" \
    'all(s["t"] >= 1 for s in runs[0]["per_second"]) and runs[0]["settings"]["warmup_s"] == 1'
json_check "--warmup: per_second ops sum to the run's ops (none miscounted into the warm-up line)" "$T/warm.json" \
    'sum(s["ops"] for s in runs[0]["per_second"]) == runs[0]["ops"]'

# ---- selection on the null module ----------------------------------------------
run "$HSMBENCH" run --module "$NULLP11" --slot 0 --test sha256-digest --iterations 10 --quiet </dev/null
check "null module --slot 0: exit 0" 0
run "$HSMBENCH" run --module "$NULLP11" --uri 'pkcs11:token=null' --test sha256-digest --iterations 10 --quiet </dev/null
check "null module --uri pkcs11:token=null: exit 0" 0
run "$HSMBENCH" run --module "$NULLP11" --slot 5 --duration 1 </dev/null
check_one_line_error "null module --slot 5: exit 3, the real slots listed" 3 '--slot 5: no such slot \(this module has: 0\)'
run "$HSMBENCH" run --module "$NULLP11" --init-args bogus --duration 1 </dev/null
check_one_line_error "null module refusing --init-args: exit 3, hint names --init-args" 3 'C_Initialize: CKR_ARGUMENTS_BAD .*--init-args'
