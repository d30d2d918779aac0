#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_run.sh - every test runs on the demo SoftHSM token and prints
# pkpspeed's per-second line and the k6-style summary.  Short runs only, and
# no assertion on speed: this is real crypto on a shared machine.
. "$TOP/tests/e2e/lib.sh"

# run_ok NAME ARGS...: a 1-second run that must succeed with the usual output.
run_ok() {
    name=$1
    shift
    run "$HSMBENCH" run --duration 1 "$@"
    check "$name: exit 0" 0 || return 0
    file_has "$name: pkpspeed per-second line" "$T/out" '^OPERATIONS/second +[0-9]+/1$'
    file_has "$name: summary status ok" "$T/out" '^ +status\.+: ok$'
    file_has "$name: summary operations" "$T/out" '^ +operations\.+: [1-9][0-9]* +[0-9.]+/s$'
    file_has "$name: summary latency" "$T/out" '^ +latency\.+: avg=.* min=.* med=.* p\(99\)=.* max='
    file_has "$name: summary errors 0" "$T/out" '^ +errors\.+: 0\.00% +0 of [1-9]'
}

run_ok "rsa-pkcs-sign (default test)"
file_has "default test is rsa-pkcs-sign with RSA 2048" "$T/out" '^Running rsa-pkcs-sign \(CKM_SHA256_RSA_PKCS, RSA 2048'
run_ok "ecdsa-sign P-256" --test ecdsa-sign --curve P-256
file_has "ecdsa-sign P-256: header names the curve" "$T/out" '^Running ecdsa-sign \(CKM_ECDSA, EC P-256'
run_ok "ecdsa-sign P-384" --test ecdsa-sign --curve P-384
file_has "ecdsa-sign P-384: header names the curve" "$T/out" 'EC P-384'
run_ok "ecdsa-sign P-521" --test ecdsa-sign --curve P-521 --json "$T/p521.json"
json_check "ecdsa-sign P-521: JSON key is EC 521 on P-521" "$T/p521.json" \
    'runs[0]["key"] == {"type": "EC", "bits": 521, "curve": "P-521"}'
run_ok "hmac-sha256" --test hmac-sha256
file_has "hmac-sha256: summary shows data throughput" "$T/out" '^ +data\.+: '
run_ok "aes-gcm-encrypt 128" --test aes-gcm-encrypt --key-size 128 --json "$T/aes128.json"
json_check "aes-gcm-encrypt 128: JSON key is AES 128" "$T/aes128.json" 'runs[0]["key"] == {"type": "AES", "bits": 128}'
run_ok "aes-gcm-encrypt 256" --test aes-gcm-encrypt --key-size 256
file_has "aes-gcm-encrypt 256: header says AES 256" "$T/out" 'AES 256'
run_ok "sha256-digest 1 B" --test sha256-digest --data-size 1 --json "$T/d1.json"
json_check "sha256-digest 1 B: JSON data_size 1, key null" "$T/d1.json" \
    'runs[0]["data_size"] == 1 and runs[0]["key"] is None'
run_ok "sha256-digest 16200 B" --test sha256-digest --data-size 16200 --json "$T/d16200.json"
json_check "sha256-digest 16200 B: JSON data_size 16200" "$T/d16200.json" 'runs[0]["data_size"] == 16200'

# ---- several tests in turn --------------------------------------------------
run "$HSMBENCH" run --test sha256-digest,hmac-sha256,ecdsa-sign --iterations 30 --json "$T/multi.json"
check "--test a,b,c: exit 0" 0
n=$(grep -c '^Running ' "$T/out")
if [ "$n" -eq 3 ]; then pass "--test a,b,c: three runs announced"
else fail "--test a,b,c: three runs announced" "$n 'Running' lines"; fi
json_check "--test a,b,c: JSON has the three runs in order, all ok" "$T/multi.json" \
    '[r["test"] for r in runs] == ["sha256-digest", "hmac-sha256", "ecdsa-sign"] and all(r["status"] == "ok" and r["ops"] == 30 for r in runs)'

# ---- bounds: iterations, threads, warm-up --------------------------------
run "$HSMBENCH" run --iterations 50 --threads 2 --json "$T/it.json"
check "--iterations 50 --threads 2: exit 0" 0 '^ +operations\.+: 50 '
json_check "--iterations 50 --threads 2: exactly 50 ops, 2 threads" "$T/it.json" \
    'runs[0]["ops"] == 50 and runs[0]["threads"] == 2 and runs[0]["settings"]["iterations"] == 50 and runs[0]["errors"] == 0'
json_check "--iterations 50: histogram holds 50 operations" "$T/it.json" \
    'sum(c for _, c in runs[0]["histogram"]["counts"]) == 50 and runs[0]["latency_us"]["count"] == 50'
# With 50 operations p99 is the slowest one: no percentile may exceed it.
json_check "per_second p99_us never exceeds the run's max latency" "$T/it.json" \
    'all(s["p99_us"] <= runs[0]["latency_us"]["max"] for s in runs[0]["per_second"])'

run "$HSMBENCH" run --test sha256-digest --iterations 7 --threads 3 --json "$T/it3.json"
check "--iterations 7 --threads 3 (uneven split): exit 0" 0
json_check "--iterations 7 --threads 3: exactly 7 ops" "$T/it3.json" 'runs[0]["ops"] == 7'

run "$HSMBENCH" run --test hmac-sha256 --threads 2 --duration 0.3s --json "$T/t2.json"
check "--threads 2 --duration 0.3s on SoftHSM: exit 0" 0 '2 threads'
json_check "--threads 2: JSON threads 2, ops > 0, no errors" "$T/t2.json" \
    'runs[0]["threads"] == 2 and runs[0]["ops"] > 0 and runs[0]["errors"] == 0'

run "$HSMBENCH" run --test hmac-sha256 --warmup 1 --duration 1 --json "$T/warm.json"
check "--warmup 1 --duration 1: exit 0" 0 '^OPERATIONS/second +[0-9]+/1 +\(warm-up\)$'
file_has "--warmup: summary says the warm-up is excluded" "$T/out" 'warm-up 1s excluded'
json_check "--warmup: settings.warmup_s is 1" "$T/warm.json" 'runs[0]["settings"]["warmup_s"] == 1'
json_check "--warmup: per_second holds only measured seconds (t >= 1)" "$T/warm.json" \
    'len(runs[0]["per_second"]) >= 1 and all(s["t"] >= 1 for s in runs[0]["per_second"]) and [s["t"] for s in runs[0]["per_second"]] == list(range(1, len(runs[0]["per_second"]) + 1))'
json_check "--warmup: measured duration about 1 s, not 2" "$T/warm.json" \
    '0.9 <= runs[0]["duration_s"] < 1.9'

# ---- quiet, and errors ----------------------------------------------------
run "$HSMBENCH" run --test sha256-digest --duration 0.3s --quiet --json "$T/quiet.json"
check "--quiet: exit 0" 0
if [ -s "$T/out" ]; then fail "--quiet prints nothing on stdout" "stdout: $(head -c 200 "$T/out")"
else pass "--quiet prints nothing on stdout"; fi
if [ -s "$T/err" ]; then fail "--quiet prints nothing on stderr for a clean run" "$(head -c 200 "$T/err")"
else pass "--quiet prints nothing on stderr for a clean run"; fi
json_check "--quiet: the JSON is still written" "$T/quiet.json" 'runs[0]["status"] == "ok" and runs[0]["ops"] > 0'

# SoftHSM's HMAC keys must be 32..512 bytes: a 128-bit key fails every sign.
run "$HSMBENCH" run --test hmac-sha256 --key-size 128 --iterations 20 --json "$T/fail.json"
check "operations failing (HMAC 128 on SoftHSM): exit 1" 1 '^ +errors\.+: 100\.00% +20 of 20'
file_has "failing operations: summary counts them by code" "$T/out" 'CKR_KEY_SIZE_RANGE\.*: 20$'
json_check "failing operations: JSON errors and errors_by_code" "$T/fail.json" \
    'runs[0]["errors"] == 20 and runs[0]["error_pct"] == 100 and runs[0]["errors_by_code"] == {"CKR_KEY_SIZE_RANGE": 20}'
json_check "failing operations: empty histogram" "$T/fail.json" \
    'runs[0]["latency_us"]["count"] == 0 and runs[0]["histogram"]["counts"] == []'

# ---- raw RSA: the block (the modulus length), not "data 0 B" ------------------------
run "$HSMBENCH" run --test rsa-x509-encrypt,rsa-x509-decrypt --key-size 3072 --iterations 20 --json "$T/raw.json"
check "rsa-x509-*: header shows the block size" 0 \
    '^Running rsa-x509-encrypt \(CKM_RSA_X_509, RSA 3072, block 384 B\): 1 thread'
file_has "rsa-x509-decrypt: summary shows the block size" "$T/out" \
    '^  rsa-x509-decrypt · CKM_RSA_X_509 · RSA 3072 · block 384 B · 1 thread · blocking$'
file_lacks "rsa-x509-*: no 'data 0 B'" "$T/out" 'data 0 B'
json_check "rsa-x509-*: JSON block_size 384, data_size 0" "$T/raw.json" \
    'all(r["block_size"] == 384 and r["data_size"] == 0 for r in runs)'
json_check "other tests: no block_size" "$T/multi.json" 'all("block_size" not in r for r in runs)'
run "$HSMBENCH" report "$T/raw.json" --html "$T/raw.html"
check "report --html of raw RSA runs: exit 0" 0
file_has "HTML: raw RSA runs show their block" "$T/raw.html" 'RSA 3072 · block 384 B'
