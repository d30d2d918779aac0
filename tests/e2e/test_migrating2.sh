#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_migrating2.sh - issue 39's last gaps between the old tools'
# own texts (../shared/seeds/) and hsmbench, each from the seed's wording:
# a fixed rate is an open loop as k6's constant-arrival-rate (item 12); the
# EKM package's environment and verify step (item 8); pkpspeed's -s CU -p
# password, its exponent and the rsa-x509 block (item 10); the k6 summary's
# vus and interrupted iterations (item 4); the SDKMS bench's trust store,
# default endpoint and command forms (item 9).
# asan: yes (a trust store read from SDKMS_SSL_TRUST_STORE: PEM, PKCS#12 turned into PEM in memory, a Java keystore recognised by its bytes)
. "$TOP/tests/e2e/lib.sh"
REST_LIB_SOURCE=1 . "$TOP/tests/e2e/test_rest_lib.sh"

need_mock || exit 0
TRACE="$(dirname "$NULLP11")/libhsmbench-trace.so"

# ---- item 12: --rate alone is an open loop (k6's constant-arrival-rate) -------------------
# The mock serves each digest in 2 ms and stops serving for 400 ms at 0.8 s
# (stall-at): an open loop at 100/s keeps issuing while the module stalls,
# and every request due in the stall waits for it, its latency counted from
# when it was due; the call recorder in front of the mock is the observer of
# the offered rate.
rm -f "$T/rate.trace"
run env HSMBENCH_MOCK='service=fixed:2ms;stall-at=800ms:400ms' HSMBENCH_TRACE_MODULE="$MOCK" \
    HSMBENCH_TRACE_FILE="$T/rate.trace" "$HSMBENCH" run --module "$TRACE" --test sha256-digest \
    --rate 100 --duration 2 --json "$T/rate.json"
check "run --rate 100 without --mode: accepted, run open-loop (nonblocking), exit 0" 0 \
    '^Running sha256-digest .*nonblocking, 2s, 100 ops/s scheduled'
json_check "--rate 100: the schedule kept (about 200 scheduled over 2 s, none dropped)" "$T/rate.json" \
    'runs[0]["mode"] == "nonblocking" and runs[0]["status"] == "ok" and 196 <= runs[0]["schedule"]["scheduled"] <= 204 and runs[0]["schedule"]["dropped"] <= 2'
json_check "--rate 100: latency from each request's due time: the 400 ms stall shows in p90 (>= 50 ms), not in the service time's" "$T/rate.json" \
    'runs[0]["latency_us"]["p90"] >= 50000 and runs[0]["latency_us"]["max"] >= 250000 and runs[0]["service_us"]["p90"] < 50000'
"$HSMBENCH" trace --quiet "$T/rate.trace" --json "$T/rate.tj" 2>"$T/trace.err" ||
    echo "{}" >"$T/rate.tj"
if python3 - "$T/rate.json" "$T/rate.tj" >"$T/werr" 2>&1 <<'PY'
import json, sys
h = json.load(open(sys.argv[1]))["runs"][0]
m = [r for r in json.load(open(sys.argv[2]))["runs"] if r["test"] == "sha256-digest"][0]
# The module's calls over the run's 2 s, and spread over them: the span
# from its first call to its last is no rate (a first call a tenth of a
# second late on a busy machine made 200 calls in 1.89 s "105.7/s").
rate = m["attempts"] / 2.0
print(h["attempts"], m["attempts"], m["duration_s"], rate)
sys.exit(0 if m["attempts"] == h["attempts"] and 95 <= rate <= 105 and 1.6 <= m["duration_s"] <= 2.2 else 1)
PY
then pass "--rate 100: the module saw hsmbench's attempts, 95 to 105 calls a second spread over the 2 s"
else fail "--rate 100: the module saw hsmbench's attempts, 95 to 105 calls a second spread over the 2 s" "$(head -c 300 "$T/werr") $(head -c 200 "$T/trace.err")"; fi
run "$HSMBENCH" run --module "$NULLP11" --test sha256-digest --mode blocking --rate 100 --duration 1
check_one_line_error "--rate with --mode blocking: exit 2, one line saying why" 2 \
    '^hsmbench: error: --rate is an open loop, .*leave out --mode$'

# ---- item 8: the EKM package's environment, and its verify step ---------------------------
# Seed 000: "Above command would generate Google token and EKM endpoint URL
# as below environment variables: G_TOKEN ENDPOINT_URL", then "k6 run ...
# ekm_wrap.js -e G_TOKEN=$G_TOKEN -e ENDPOINT_URL=$ENDPOINT_URL".
if ekm_tls_server; then
    run env ENDPOINT_URL="$URL/ekm/k1" "$HSMBENCH" rest ekm --cacert "$P/ca.pem" --iterations 20 \
        --json "$T/env.json"
    check "rest ekm with G_TOKEN and ENDPOINT_URL set, no --endpoint/--token-env: exit 0" 0 \
        '^ +status\.+: ok$'
    json_check "rest ekm from the package's environment: 20 wraps at ENDPOINT_URL" "$T/env.json" \
        'runs[0]["ops"] == 20 and runs[0]["test"] == "ekm-wrap"'
    no_secret "rest ekm from G_TOKEN: the token appears in no output" "$TOKEN" "$T/out" "$T/err" "$T/env.json"
    run env -u G_TOKEN ENDPOINT_URL="$URL/ekm/k1" "$HSMBENCH" rest ekm --cacert "$P/ca.pem" \
        --iterations 5 </dev/null
    check_one_line_error "rest ekm, neither G_TOKEN nor a flag: exit 2, naming G_TOKEN" 2 \
        'needs a bearer token: .*\(or set G_TOKEN\)'
    run env -u ENDPOINT_URL "$HSMBENCH" rest ekm --cacert "$P/ca.pem" --iterations 5
    check_one_line_error "rest ekm, neither ENDPOINT_URL nor --endpoint: exit 2, naming ENDPOINT_URL" 2 \
        '^hsmbench: error: --endpoint is required .*ENDPOINT_URL'
    # the package's README says "source .env": a variable not exported, which
    # no program sees; the line says how to export it
    check_one_line_error "rest ekm, ENDPOINT_URL not exported: the line says how (set -a)" 2 \
        'ENDPOINT_URL exported .*set -a; \. \./\.env; set \+a'
    # verify_setup.sh's check, against a private CA without --cacert: a run's hint.
    run env ENDPOINT_URL="$URL/ekm/k1" "$HSMBENCH" rest ekm --check
    check "rest ekm --check, a private CA and no --cacert: exit 3, check: FAILED" 3 '^check: FAILED$' \
        ": the TLS handshake failed \(a private CA: --cacert FILE; not verifying at all: --insecure\)$"
    run env ENDPOINT_URL="$URL/ekm/k1" "$HSMBENCH" rest ekm --check --cacert "$P/ca.pem"
    check "rest ekm --check from the environment, with --cacert: the round trip, exit 0" 0 '^round trip: +ok'
    no_secret "rest ekm --check from G_TOKEN: the token is not printed" "$TOKEN" "$T/out" "$T/err"
fi
# The package's script only wraps: --check --op wrap checks the wrap alone,
# against an endpoint that has no :unwrap.
start_hostile http_answers.py wraponly 60
if [ -n "$HOSTILE_PORT" ]; then
    run "$HSMBENCH" rest ekm --endpoint "http://127.0.0.1:$HOSTILE_PORT/ekm/k1" --token-env G_TOKEN --check --op wrap
    check "rest ekm --check --op wrap on a wrap-only endpoint: exit 0, check: ok" 0 '^check: ok$'
    file_has "--check --op wrap: the wrap's status and blob, the unwrap said not checked" "$T/out" \
        '^unwrap: +not checked \(--op wrap'
    file_lacks "--check --op wrap: no unwrap request's status" "$T/out" "HTTP 404"
    run "$HSMBENCH" rest ekm --endpoint "http://127.0.0.1:$HOSTILE_PORT/ekm/k1" --token-env G_TOKEN --check
    check "rest ekm --check (the round trip) on the wrap-only endpoint: exit 3, the unwrap's 404" 3 \
        '^unwrap: +HTTP 404$'
else
    fail "wrap-only endpoint starts" "no port"
fi
stop_hostile

# ---- item 10: pkpspeed -s CU -p password ---------------------------------------------------
# Seed 002: "/opt/cloudhsm/bin/pkpspeed -s CU user name -p password"; AWS
# CloudHSM's PKCS#11 PIN is CU:password.  A SoftHSM token of this script's
# own whose PIN has that shape stands in for it.
run "$HSMBENCH" run --test sha256-digest --iterations 10 --quiet
check "demo token set up (the script's SoftHSM configuration)" 0
softhsm_env
CUPASS="pkp-Secret-$$"
if softhsm2-util --init-token --free --label cloudhsm --so-pin 12345678 --pin "CU:$CUPASS" \
    >"$T/init.out" 2>&1; then
    run "$HSMBENCH" run --module "$SOFTHSM" --token cloudhsm -s CU -p "$CUPASS" --test sha256-digest \
        --iterations 5 --json "$T/cus.json"
    check "run -s CU -p PASSWORD on a token whose PIN is CU:PASSWORD: exit 0" 0 '' \
        "^hsmbench: -s is pkpspeed's spelling of --pin-user"
    no_secret "-s CU -p PASSWORD: the password appears in no output" "$CUPASS" "$T/out" "$T/err" "$T/cus.json"
    # The seed's RSA test, with the whole PIN (which worked before -s did).
    run "$HSMBENCH" run --module "$SOFTHSM" --token cloudhsm -p "CU:$CUPASS" \
        --test rsa-x509-encrypt,rsa-x509-decrypt --iterations 20 --json "$T/cu.json"
    check "-p CU:PASSWORD, the raw RSA tests: exit 0" 0
    file_has "pkpspeed's exponent line, from the key" "$T/out" '^For RSA, Exponent will be 65537$'
    file_has "the closing table: rsa-x509-encrypt's 256-byte block, not 0" "$T/out" \
        '^rsa-x509-encrypt +RSA 2048 +256 +1 '
    file_has "the closing table: rsa-x509-decrypt's 256-byte block, not 0" "$T/out" \
        '^rsa-x509-decrypt +RSA 2048 +256 +1 '
    run "$HSMBENCH" report "$T/cu.json"
    check "report: rsa-x509-encrypt's data is its 256-byte block" 0 '^  rsa-x509-encrypt +RSA 2048 +256 B '
    run "$HSMBENCH" run --module "$SOFTHSM" --token cloudhsm -s CU -p "CU:$CUPASS" --test sha256-digest \
        --iterations 5 --quiet
    check "-s CU -p CU:PASSWORD: the user not put in twice, exit 0" 0
    run env CU_PIN="$CUPASS" "$HSMBENCH" run --module "$SOFTHSM" --token cloudhsm --pin-user CU \
        --pin-env CU_PIN --test sha256-digest --iterations 5 --quiet
    check "--pin-user CU --pin-env VAR: exit 0" 0
    run "$HSMBENCH" run --module "$SOFTHSM" --token cloudhsm -p "$CUPASS" --test sha256-digest --iterations 5
    check "-p PASSWORD alone on the CU:PASSWORD token: CKR_PIN_INCORRECT, exit 3" 3 '' \
        "^hsmbench: error: login to token 'cloudhsm': CKR_PIN_INCORRECT"
    run "$HSMBENCH" run --module "$SOFTHSM" --token cloudhsm --pin-user CU:x -p "$CUPASS" --test sha256-digest
    check_one_line_error "--pin-user with a ':': exit 2, one line" 2 '^hsmbench: error: --pin-user CU:x: '
else
    fail "SoftHSM token with a CU:PASSWORD PIN" "$(head -c 300 "$T/init.out")"
fi

# ---- item 4: k6's vus on a short staged run, and its interrupted iterations ----------------
# Seed 000's summary: "vus....: 3 min=3 max=50", and k6's closing "running
# (...), 0/N VUs, N complete and M interrupted iterations".
export G_TOKEN="mig4-$$" EKM_SERVER_TOKEN="mig4-$$"
if start_serve quick --ekm-token-env EKM_SERVER_TOKEN; then
    run "$HSMBENCH" rest ekm --endpoint "$URL/ekm/k1" --token-env G_TOKEN --stage 0.3s:8,0.3s:8,0.3s:0 --summary k6 \
        --json "$T/short.json"
    check "a staged run of 0.9 s: exit 0" 0 '^ +status\.+: ok$'
    json_check "0.9 s staged to 8: vus max is the 8 the ramp reached, min the 0 it started from" "$T/short.json" \
        'runs[0]["http"]["k6"]["vus"]["max"] == 8 and runs[0]["http"]["k6"]["vus"]["min"] == 0 and runs[0]["http"]["k6"]["vus_max"]["value"] == 8 and runs[0]["ops"] > 0'
    file_has "k6's vus line: max=8" "$T/out" '^ +vus\.+: [0-9]+ +min=0 max=8$'
fi
if start_serve slow --ekm-token-env EKM_SERVER_TOKEN --latency 1s; then
    : >"$T/out"
    "$HSMBENCH" rest ekm --endpoint "$URL/ekm/k1" --token-env G_TOKEN --threads 4 --duration 20 --summary k6 \
        --json "$T/int.json" >"$T/out" 2>"$T/err" </dev/null &
    interrupt_bg $! '^Running ekm-wrap' "rest ekm --summary k6, Ctrl-C with 4 requests in flight"
    json_check "Ctrl-C: the requests cut in flight are k6's interrupted iterations, not failed checks" "$T/int.json" \
        '(lambda k6, n: n >= 1 and k6["state"]["interrupted_iterations"] == n and k6["checks"]["fails"] == 0 and k6["state"]["complete_iterations"] == runs[0]["attempts"] - n)(runs[0]["http"]["k6"], runs[0]["errors_by_code"].get("INTERRUPTED", 0))'
    file_has "Ctrl-C: k6's closing line counts them interrupted" "$T/out" \
        '^running \([0-9.]+s\), 0/4 VUs, [0-9]+ complete and [1-9][0-9]* interrupted iterations$'
fi

# ---- item 9: the SDKMS bench's trust store, default endpoint and command forms ------------
# Seed 001: "[Optional] SDKMS_SSL_TRUST_STORE=", "SDKMS_API_ENDPOINT is optional
# and default to https://apps.sdkms.fortanix.com", "# test-bench.sh run keygen
# --algorithm AES --keysize 128"; seed 000: "k6 run ... ekm_wrap.js".
P9="$T/pki9"
mkdir -p "$T/tmp"
if make_certs "$P9"; then
    export SDKMS_API_KEY SERVER_API_KEY
    SDKMS_API_KEY=$(printf 'mig9-app:mig9-secret-%s' "$$" | base64)
    SERVER_API_KEY=$SDKMS_API_KEY
    if start_serve sdkms9 --tls-cert "$P9/server.pem" --tls-key "$P9/server.key" --api-key-env SERVER_API_KEY; then
        EP9=$URL
        openssl pkcs12 -export -nokeys -in "$P9/ca.pem" -out "$T/store.p12" -passout pass: 2>/dev/null
        openssl pkcs12 -export -nokeys -in "$P9/ca.pem" -out "$T/locked.p12" -passout pass:changeit 2>/dev/null
        printf '\376\355\376\355\000\000\000\002\000\000\000\001' >"$T/store.jks"
        for e in libcurl lean; do
            run env SDKMS_API_ENDPOINT="$EP9" SDKMS_SSL_TRUST_STORE="$P9/ca.pem" "$HSMBENCH" rest sdkms \
                --op keygen --alg AES --iterations 5 --engine $e
            check "SDKMS_SSL_TRUST_STORE, a PEM CA, --engine $e: trusted, exit 0" 0 '^ +status\.+: ok$' \
                "^hsmbench: SDKMS_SSL_TRUST_STORE .*: its CAs are trusted \(a PEM store"
            run env TMPDIR="$T/tmp" SDKMS_API_ENDPOINT="$EP9" SDKMS_SSL_TRUST_STORE="$T/store.p12" \
                "$HSMBENCH" rest sdkms --op keygen --alg AES --iterations 5 --engine $e
            check "SDKMS_SSL_TRUST_STORE, a PKCS#12 store, --engine $e: trusted, exit 0" 0 '^ +status\.+: ok$' \
                "its CAs are trusted \(a PKCS#12 store"
        done
        if [ -z "$(ls -A "$T/tmp")" ]; then pass "the PKCS#12 store's PEM copy is removed at the end"
        else fail "the PKCS#12 store's PEM copy is removed at the end" "left: $(ls "$T/tmp")"; fi
        run env SDKMS_API_ENDPOINT="$EP9" SDKMS_SSL_TRUST_STORE="$T/locked.p12" "$HSMBENCH" rest sdkms \
            --op keygen --iterations 5
        check_one_line_error "a PKCS#12 store with a password: exit 2, one line saying how to convert it" 2 \
            '^hsmbench: error: SDKMS_SSL_TRUST_STORE .*: a PKCS#12 store with a password: openssl pkcs12 -in '
        run env SDKMS_API_ENDPOINT="$EP9" SDKMS_SSL_TRUST_STORE="$T/store.jks" "$HSMBENCH" rest sdkms \
            --op keygen --iterations 5
        check_one_line_error "a Java keystore (JKS) cut short as the trust store: exit 2, keytool's conversion" 2 \
            'a Java keystore \(JKS\).*keytool -importkeystore -srckeystore .*store\.jks -destkeystore store\.p12 -deststoretype PKCS12'
        run env SDKMS_API_ENDPOINT="$EP9" "$HSMBENCH" rest sdkms --cacert "$T/store.jks" --op keygen --iterations 5
        check_one_line_error "--cacert X.jks: exit 2, keytool's conversion, not 'is --cacert the CA'" 2 \
            '^hsmbench: error: --cacert .*store\.jks: a Java keystore \(JKS\).*keytool -importkeystore'
        run env SDKMS_API_ENDPOINT="$EP9" "$HSMBENCH" rest sdkms --op keygen --iterations 5
        check_one_line_error "no trust store, a private CA: the run's hint, exit 3" 3 'a private CA: --cacert FILE'
        no_secret "SDKMS runs: the API key appears in no output" "$SDKMS_API_KEY" "$T/out" "$T/err"
    fi
fi
run env -u SDKMS_API_ENDPOINT -u SDKMS_API_KEY "$HSMBENCH" rest sdkms --op keygen </dev/null
check "no SDKMS_API_ENDPOINT: the bench's default, said (here the missing API key stops it first), exit 2" 2 '' \
    '^hsmbench: neither --endpoint nor SDKMS_API_ENDPOINT: https://apps\.sdkms\.fortanix\.com, the SDKMS bench.s default'
file_has "no SDKMS_API_ENDPOINT: not refused for it" "$T/err" 'needs an API key'
run "$HSMBENCH" rest sdkms run keygen --algorithm AES --keysize 128 --transient=true
check_one_line_error "the bench's positional form 'run keygen': exit 2, naming --op keygen" 2 \
    "^hsmbench: error: run keygen: the SDKMS bench's 'test-bench.sh run keygen' is hsmbench rest sdkms --op keygen"
run "$HSMBENCH" rest ekm ekm_wrap.js --token-env G_TOKEN
check_one_line_error "the k6 script's name as an argument: exit 2, naming rest ekm --op wrap" 2 \
    '^hsmbench: error: ekm_wrap\.js: a k6 script; .*hsmbench rest ekm --op wrap'
run "$HSMBENCH" rest ekm run --stage 5s:70,30s:70,5s:0 ekm_wrap.js --token-env G_TOKEN
check_one_line_error "k6's 'run ... ekm_wrap.js' form: exit 2, the same hint" 2 '^hsmbench: error: ekm_wrap\.js: a k6 script'
rest_stop_all
