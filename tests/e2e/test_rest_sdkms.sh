#!/bin/sh
# tests/e2e/test_rest_sdkms.sh - hsmbench rest sdkms against hsmbench serve:
# every operation with its algorithms, keys deleted and sessions ended after
# the run, re-authentication when a session expires, Profiling-Data, and the
# API key kept out of every output.  Short, bounded runs (--iterations).
# tsan: yes
. "$TOP/tests/e2e/lib.sh"
REST_LIB_SOURCE=1 . "$TOP/tests/e2e/test_rest_lib.sh"

KEY=$(printf 'app-%s:secret-%s' "$$" "$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')" | base64 | tr -d '\n')
export SDKMS_API_KEY="$KEY" SERVER_API_KEY="$KEY"

start_serve sdkms --api-key-env SERVER_API_KEY --profiling -v || exit 0
EP=$URL
file_has "serve announces the SDKMS endpoint" "$T/sdkms.out" '^  SDKMS  http://127.0.0.1:'

n=0
# sdkms NAME ARGS...: 20 operations on 2 workers must all succeed.
sdkms_ok() {
    name=$1
    shift
    n=$((n + 1))
    run "$HSMBENCH" rest sdkms --endpoint "$EP" --api-key-env SDKMS_API_KEY --threads 2 \
        --iterations 20 --json "$T/s$n.json" "$@"
    check "sdkms $name: exit 0" 0 || return 0
    json_check "sdkms $name: 20 ops, no errors, every request 2xx" "$T/s$n.json" \
        'runs[0]["ops"] == 20 and runs[0]["errors"] == 0 and runs[0]["http"]["failed"] == 0 and runs[0]["http"]["requests"] == 20'
    cat "$T/out" "$T/err" >>"$T/all-output"
}

sdkms_ok "keygen AES 256" --op keygen --alg AES --key-size 256
json_check "keygen: key in the JSON is AES 256, status 201" "$T/s$n.json" \
    'runs[0]["key"] == {"type": "AES", "bits": 256} and runs[0]["http"]["status_counts"] == {"201": 20}'
sdkms_ok "keygen AES transient" --op keygen --alg AES --transient
json_check "keygen --transient: recorded in rest settings" "$T/s$n.json" 'runs[0]["rest"]["transient"] is True'
sdkms_ok "keygen EC NistP256" --op keygen --alg EC --curve NistP256
sdkms_ok "keygen HMAC" --op keygen --alg HMAC
sdkms_ok "keygen RSA 1024" --op keygen --alg RSA --key-size 1024
sdkms_ok "encrypt AES-GCM" --op encrypt --alg AES --key-size 256 --mode GCM
json_check "encrypt: mechanism AES-GCM, bytes/s counted" "$T/s$n.json" \
    'runs[0]["mechanism"] == "AES-GCM" and runs[0]["bytes_per_s"] > 0'
json_check "--profiling: server_profile_us has operate and total" "$T/s$n.json" \
    '{"operate", "total", "parse_request"} <= set(runs[0]["http"]["server_profile_us"]) and runs[0]["http"]["server_profile_us"]["total"]["p50"] > 0'
file_has "--profiling: server_operate line in the summary" "$T/out" '^ +server_operate\.+: avg='
sdkms_ok "encrypt AES-CBC 128" --op encrypt --alg AES --key-size 128 --mode CBC
sdkms_ok "decrypt AES-GCM (round trip checked)" --op decrypt --alg AES --mode GCM --data-size 100
sdkms_ok "decrypt AES-CBC" --op decrypt --alg AES --mode CBC
sdkms_ok "encrypt RSA-OAEP" --op encrypt --alg RSA --key-size 2048
sdkms_ok "decrypt RSA-OAEP" --op decrypt --alg RSA
sdkms_ok "decrypt RSA PKCS1_V15" --op decrypt --alg RSA --mode PKCS1_V15
sdkms_ok "sign RSA PKCS1_V15" --op sign --alg RSA --key-size 2048
sdkms_ok "sign RSA-PSS SHA384" --op sign --alg RSA --mode PSS --hash-alg SHA384
sdkms_ok "verify RSA PKCS1_V15" --op verify --alg RSA
sdkms_ok "verify RSA-PSS" --op verify --alg RSA --mode PSS
sdkms_ok "sign EC NistP256" --op sign --alg EC
sdkms_ok "sign EC NistP384 SHA384" --op sign --alg EC --curve NistP384 --hash-alg SHA384
sdkms_ok "verify EC NistP521" --op verify --alg EC --curve NistP521 --hash-alg SHA512
sdkms_ok "mac HMAC SHA256" --op mac
sdkms_ok "mac HMAC SHA512" --op mac --hash-alg SHA512
sdkms_ok "encrypt with a transient key" --op encrypt --alg AES --transient
sdkms_ok "verify with a transient EC key" --op verify --alg EC --transient

# Every non-transient key made was deleted, every session ended.
made=$(grep -c 'POST /crypto/v1/keys -> 201' "$T/sdkms.err")
deleted=$(grep -c 'DELETE /crypto/v1/keys/[0-9a-f-]* -> 204' "$T/sdkms.err")
# keygen: 20 AES + 20 EC + 20 HMAC + 20 RSA = 80 (the 20 transient ones have
# no kid); the 18 other runs make one key per worker (2 workers), 2 of them
# transient: 80 + 2 * 16 to delete.
want=$((80 + 2 * 16))
if [ "$deleted" -eq "$want" ]; then pass "every key the runs made was deleted ($deleted)"
else fail "every key the runs made was deleted" "made $made, deleted $deleted, expected $want"; fi
auths=$(grep -c 'POST /sys/v1/session/auth -> 200' "$T/sdkms.err")
ends=$(grep -c 'POST /sys/v1/session/terminate -> 204' "$T/sdkms.err")
if [ "$auths" -eq "$ends" ]; then pass "every session was terminated ($ends)"
else fail "every session was terminated" "auth $auths, terminate $ends"; fi

# ---- bad settings, bad credentials ------------------------------------------
run "$HSMBENCH" rest sdkms --endpoint "$EP" --api-key-env SDKMS_API_KEY --op sign --alg AES
check_one_line_error "sign with AES: exit 2" 2 'RSA or EC'
run "$HSMBENCH" rest sdkms --endpoint "$EP" --api-key-env SDKMS_API_KEY --op encrypt --alg RSA --data-size 300
check_one_line_error "RSA-OAEP data too long: exit 2" 2 'at most 214 bytes'
run "$HSMBENCH" rest sdkms --endpoint "$EP" --api-key-env SDKMS_API_KEY
check_one_line_error "no --op: exit 2" 2 '--op is required'
SDKMS_API_KEY=d3Jvbmc6a2V5 run "$HSMBENCH" rest sdkms --endpoint "$EP" --api-key-env SDKMS_API_KEY \
    --op encrypt --iterations 5
check_one_line_error "wrong API key: exit 3, one line" 3 'SDKMS authentication: HTTP 401.*API key'

# ---- sessions that expire: re-authenticate once and go on ---------------------
start_serve ttl --api-key-env SERVER_API_KEY --session-ttl 300ms || exit 0
run "$HSMBENCH" rest sdkms --endpoint "$URL" --api-key-env SDKMS_API_KEY --op mac --threads 2 \
    --duration 1 --json "$T/ttl.json"
check "expiring sessions: the run goes on, exit 0" 0 '^ +sdkms_reauth\.+: [1-9]'
json_check "expiring sessions: re-authentications counted, no errors" "$T/ttl.json" \
    'runs[0]["http"]["reauth"] > 0 and runs[0]["errors"] == 0 and runs[0]["http"]["status_counts"].get("401", 0) == runs[0]["http"]["reauth"]'
cat "$T/out" "$T/err" >>"$T/all-output"

# ---- the API key and the session tokens never show ---------------------------
no_secret "the API key is in no output or results file" "$KEY" "$T/all-output" "$T"/s*.json \
    "$T/ttl.json" "$T/sdkms.out" "$T/sdkms.err"
if grep -Eq '"access_token"|Bearer [A-Za-z0-9]' "$T/all-output" "$T/sdkms.err"; then
    fail "no session token in any output" "$(grep -E 'access_token|Bearer [A-Za-z0-9]' "$T/all-output" | head -c 200)"
else
    pass "no session token in any output"
fi
