#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_rest_sdkms.sh - hsmbench rest sdkms against hsmbench serve:
# every operation with its algorithms, keys deleted and sessions ended after
# the run, re-authentication when a session expires, Profiling-Data, and the
# API key kept out of every output.  Short, bounded runs (--iterations).
# tsan: yes (an SDKMS session shared by the workers, renewed mid-run by whichever meets the 401)
# asan: yes (SDKMS answers (tokens, key ids, IVs) copied into later requests; sessions renewed mid-run)
. "$TOP/tests/e2e/lib.sh"
REST_LIB_SOURCE=1 . "$TOP/tests/e2e/test_rest_lib.sh"

KEY=$(printf 'app-%s:secret-%s' "$$" "$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')" | base64 | tr -d '\n')
export SDKMS_API_KEY="$KEY" SERVER_API_KEY="$KEY"

# (This server serves the whole script, which takes two minutes under a
# loaded sanitizer build: start_serve's 120 s are too few.)
start_serve sdkms --api-key-env SERVER_API_KEY --profiling -v --max-seconds 400 || exit 0
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

# The catalogue: every operation with its algorithms, in the plain and ASan
# builds.  Under TSan it would add nothing: each operation's bodies, IVs and
# answers are its request's own, and what the workers share (the session,
# renewed mid-run; the keys torn down at a stop) is what the sections below
# run there.
if [ "$VARIANT" != tsan ]; then
    sdkms_ok "keygen AES 256" --op keygen --alg AES --key-size 256
    json_check "keygen: key in the JSON is AES 256, status 201" "$T/s$n.json" \
        'runs[0]["key"] == {"type": "AES", "bits": 256} and runs[0]["http"]["status_counts"] == {"201": 20}'
    sdkms_ok "keygen AES transient" --op keygen --alg AES --transient
    json_check "keygen --transient: recorded in rest settings" "$T/s$n.json" 'runs[0]["rest"]["transient"] is True'
    sdkms_ok "keygen EC NistP256" --op keygen --alg EC --curve NistP256
    sdkms_ok "keygen HMAC" --op keygen --alg HMAC
    sdkms_ok "keygen RSA 1024" --op keygen --alg RSA --key-size 1024
    sdkms_ok "encrypt AES-GCM" --op encrypt --alg AES --key-size 256 --cipher-mode GCM
    json_check "encrypt: mechanism AES-GCM, bytes/s counted" "$T/s$n.json" \
        'runs[0]["mechanism"] == "AES-GCM" and runs[0]["bytes_per_s"] > 0'
    json_check "--profiling: server_profile_us has operate and total" "$T/s$n.json" \
        '{"operate", "total", "parse_request"} <= set(runs[0]["http"]["server_profile_us"]) and runs[0]["http"]["server_profile_us"]["total"]["p50"] > 0'
    file_has "--profiling: server_operate line in the summary" "$T/out" '^ +server_operate\.+: avg='
    sdkms_ok "encrypt AES-CBC 128" --op encrypt --alg AES --key-size 128 --cipher-mode CBC
    sdkms_ok "decrypt AES-GCM (round trip checked)" --op decrypt --alg AES --cipher-mode GCM --data-size 100
    sdkms_ok "decrypt AES-CBC" --op decrypt --alg AES --cipher-mode CBC
    sdkms_ok "encrypt RSA-OAEP" --op encrypt --alg RSA --key-size 2048
    sdkms_ok "decrypt RSA-OAEP" --op decrypt --alg RSA
    sdkms_ok "decrypt RSA PKCS1_V15" --op decrypt --alg RSA --cipher-mode PKCS1_V15
    sdkms_ok "sign RSA PKCS1_V15" --op sign --alg RSA --key-size 2048
    sdkms_ok "sign RSA-PSS SHA384" --op sign --alg RSA --cipher-mode PSS --hash-alg SHA384
    sdkms_ok "verify RSA PKCS1_V15" --op verify --alg RSA
    sdkms_ok "verify RSA-PSS" --op verify --alg RSA --cipher-mode PSS
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
fi

# ---- non-blocking, both engines: a session and a key per slot ---------------
for eng in lean libcurl; do
    ename=$([ $eng = lean ] && echo "lean epoll" || echo "curl multi")
    made0=$(grep -c 'POST /crypto/v1/keys -> 201' "$T/sdkms.err")
    del0=$(grep -c 'DELETE /crypto/v1/keys/[0-9a-f-]* -> 204' "$T/sdkms.err")
    run "$HSMBENCH" rest sdkms --endpoint "$EP" --api-key-env SDKMS_API_KEY --op encrypt --alg AES \
        --mode nonblocking --inflight 6 --threads 2 --duration 0.3s --engine $eng --json "$T/nb-$eng.json"
    check "sdkms encrypt --mode nonblocking --inflight 6 --engine $eng: exit 0" 0 "\\[$ename, 6 slots\\]"
    json_check "sdkms non-blocking: engine $ename with 6 slots, no errors" "$T/nb-$eng.json" \
        "runs[0]['settings']['engine'] == '$ename' and runs[0]['settings']['slots'] == 6 and runs[0]['ops'] > 0 and runs[0]['errors'] == 0"
    made=$(grep -c 'POST /crypto/v1/keys -> 201' "$T/sdkms.err")
    deleted=$(grep -c 'DELETE /crypto/v1/keys/[0-9a-f-]* -> 204' "$T/sdkms.err")
    if [ $((made - made0)) -eq 6 ] && [ $((deleted - del0)) -eq 6 ]; then
        pass "sdkms non-blocking ($eng): one key per slot made and deleted (6)"
    else
        fail "sdkms non-blocking ($eng): one key per slot made and deleted" "made $((made - made0)), deleted $((deleted - del0))"
    fi
    cat "$T/out" "$T/err" >>"$T/all-output"
done

# ---- Ctrl-C: out within seconds, every key made deleted, every session ended --
# interrupt_run WHEN TENTHS ARGS...: run "hsmbench rest sdkms ARGS" in the
# background, send SIGINT (or $SIG) once WHEN ("running": the first per-second line;
# "keys:LOG:N": the server's LOG shows N keys made; "signs:LOG:N": LOG shows N
# more signatures made than before the run), let it end within TENTHS
# tenths of a second; $rc.
interrupt_run() {
    when=$1 limit=$2
    shift 2
    # Emptied here, not by the background command's redirection: waiting for
    # a line must not find the previous run's (its SIGINT would then arrive
    # before this run's handler is installed, while the shell ignores it).
    : >"$T/out"
    : >"$T/err"
    case $when in
    signs:*)
        log=${when#signs:} n=${log##*:}
        log=${log%:*}
        signs0=$(grep -c 'POST /crypto/v1/sign -> 200' "$log") ;;
    esac
    "$HSMBENCH" rest sdkms --api-key-env SDKMS_API_KEY "$@" >>"$T/out" 2>>"$T/err" </dev/null &
    bg=$!
    i=0
    case $when in
    running)
        until grep -q '^OPERATIONS/second' "$T/out" 2>/dev/null || [ $i -ge 150 ]; do
            sleep 0.1
            i=$((i + 1))
        done ;;
    signs:*)
        until [ $(($(grep -c 'POST /crypto/v1/sign -> 200' "$log") - $signs0)) -ge "$n" ] || [ $i -ge 300 ]; do
            sleep 0.05
            i=$((i + 1))
        done ;;
    keys:*)
        log=${when#keys:} n=${log##*:}
        log=${log%:*}
        until [ "$(grep -c 'POST /crypto/v1/keys -> 201' "$log")" -ge "$n" ] || [ $i -ge 150 ]; do
            sleep 0.05
            i=$((i + 1))
        done ;;
    esac
    kill -"${SIG:-INT}" "$bg" 2>/dev/null
    i=0
    while kill -0 "$bg" 2>/dev/null && [ $i -lt "$limit" ]; do sleep 0.1; i=$((i + 1)); done
    if kill -0 "$bg" 2>/dev/null; then kill -KILL "$bg"; fi
    wait "$bg"
    rc=$?
    cat "$T/out" "$T/err" >>"$T/all-output"
}
# count_log LOG: keys made, deleted, sessions begun and ended by the server so far.
count_log() {
    made=$(grep -c 'POST /crypto/v1/keys -> 201' "$1")
    deleted=$(grep -c 'DELETE /crypto/v1/keys/[0-9a-f-]* -> 204' "$1")
    auths=$(grep -c 'POST /sys/v1/session/auth -> 200' "$1")
    ends=$(grep -c 'POST /sys/v1/session/terminate -> 204' "$1")
}
# keys_gone NAME LOG: since the last count_log of LOG, as many keys deleted as
# made (at least MIN), and as many sessions ended as begun.
keys_gone() {
    kname=$1 min=$3
    m0=$made d0=$deleted a0=$auths e0=$ends
    count_log "$2"
    if [ $((made - m0)) -ge "$min" ] && [ $((deleted - d0)) -eq $((made - m0)) ] &&
        [ $((ends - e0)) -eq $((auths - a0)) ]; then
        pass "$kname ($((made - m0)) keys)"
    else
        fail "$kname" "keys made $((made - m0)), deleted $((deleted - d0)); sessions $((auths - a0)), ended $((ends - e0))"
    fi
}

# The signal goes once the server has made 20 of the run's signatures: no
# worker or slot signs before every one has its session and key (the pool's
# start gate), so the measured run is underway, and the keys all made.
# (Waiting for the first per-second line held the server at full speed for
# a second in each of these eight runs: half the script's CPU.)
for mode in blocking non-blocking; do
    if [ $mode = blocking ]; then load="--threads 3"; else load="--mode nonblocking --inflight 8 --threads 2"; fi
    count_log "$T/sdkms.err"
    # shellcheck disable=SC2086
    interrupt_run "signs:$T/sdkms.err:20" 100 --endpoint "$EP" --op sign --alg EC --duration 60 \
        --json "$T/int-$mode.json" $load
    check "sdkms $mode, SIGINT: exit 130 within 10 s" 130 '^ +status\.+: interrupted$'
    json_check "sdkms $mode, SIGINT: results written, status interrupted" "$T/int-$mode.json" \
        'runs[0]["status"] == "interrupted"'
    keys_gone "sdkms $mode, SIGINT: a key per worker, all deleted, every session ended" \
        "$T/sdkms.err" $([ $mode = blocking ] && echo 3 || echo 8)
done

# SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM end a run as SIGINT does:
# results written, every key made on the server deleted (issue 22: they lost both)
for SIG in TERM HUP QUIT USR1 USR2 ALRM; do
    count_log "$T/sdkms.err"
    interrupt_run "signs:$T/sdkms.err:20" 100 --endpoint "$EP" --op sign --alg EC --duration 60 --threads 2 \
        --json "$T/sig-$SIG.json"
    check "sdkms SIG$SIG: exit 130 within 10 s" 130 '^ +status\.+: interrupted$'
    json_check "sdkms SIG$SIG: results written, interrupted (SIG$SIG)" "$T/sig-$SIG.json" \
        "runs[0]['status'] == 'interrupted' and runs[0]['reason'] == 'interrupted (SIG$SIG)'"
    keys_gone "sdkms SIG$SIG: the keys made on the server deleted, every session ended" "$T/sdkms.err" 2
done
SIG=INT

# On a server that takes 200 ms a request: Ctrl-C while the slots are still
# being set up (a session and a key each: 16 slots take 6 s) ends the set-up
# at once; keygen with 4 keys being made lets them finish, and deletes them.
start_serve slowsd --api-key-env SERVER_API_KEY --latency 200ms -v || exit 0
count_log "$T/slowsd.err"
interrupt_run "keys:$T/slowsd.err:$((made + 2))" 80 --endpoint "$URL" --op mac --mode nonblocking --rate 50 --threads 1 --duration 30
check "SIGINT during the slots' set-up: exit 130 within 8 s" 130
keys_gone "SIGINT during set-up: the keys made so far deleted" "$T/slowsd.err" 1
if [ "$made" -lt 16 ]; then pass "SIGINT during set-up: the other slots not set up ($made keys of 16)"
else fail "SIGINT during set-up: the other slots not set up" "$made keys made"; fi
interrupt_run running 200 --endpoint "$URL" --op keygen --alg AES --mode nonblocking --inflight 4 \
    --threads 2 --duration 30
check "keygen, SIGINT with keys in flight: exit 130" 130
keys_gone "keygen, SIGINT: every key made, in flight or not, deleted" "$T/slowsd.err" 4
# The non-blocking engine times each request from its own start: 4 slots
# set up one after another (a session and a key each, 1.6 s in all) with
# --timeout 1 time nothing out (once, a slot's first request was timed
# from the engine's opening, and ended TIMEOUT at once).
run "$HSMBENCH" rest sdkms --api-key-env SDKMS_API_KEY --endpoint "$URL" --op mac --mode nonblocking \
    --inflight 4 --threads 1 --timeout 1 --duration 1 --json "$T/slowsetup.json"
check "4 slow slot set-ups, --timeout 1: exit 0" 0
json_check "4 slow slot set-ups: no request timed out" "$T/slowsetup.json" \
    'runs[0]["errors"] == 0 and runs[0]["ops"] >= 4'

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
# The session lives 1 s, over twice the slowest operation seen under
# ThreadSanitizer beside a busy loop (450 ms): at 300 ms a re-authenticated
# operation's retry could take longer than its new session lived, and its
# 401 was, truly, an error of the run.  2.5 s of run see every slot's first
# session expire.  (This server is the build's own: its session store,
# renewed by two workers at once, is under test too.)
SERVE_BIN=$HSMBENCH
start_serve ttl --api-key-env SERVER_API_KEY --session-ttl 1s || exit 0
run "$HSMBENCH" rest sdkms --endpoint "$URL" --api-key-env SDKMS_API_KEY --op mac --threads 2 \
    --duration 2.5 --json "$T/ttl.json"
check "expiring sessions: the run goes on, exit 0" 0 '^ +sdkms_reauth\.+: [1-9]'
json_check "expiring sessions: re-authentications counted, no errors" "$T/ttl.json" \
    'runs[0]["http"]["reauth"] > 0 and runs[0]["errors"] == 0 and runs[0]["http"]["status_counts"].get("401", 0) == runs[0]["http"]["reauth"]'
cat "$T/out" "$T/err" >>"$T/all-output"
# The same from both non-blocking engines: the re-authentication is the
# operation's second and third request on the slot's handle.
for eng in lean libcurl; do
    ename=$([ $eng = lean ] && echo "lean epoll" || echo "curl multi")
    run "$HSMBENCH" rest sdkms --endpoint "$URL" --api-key-env SDKMS_API_KEY --op mac \
        --mode nonblocking --rate 200 --threads 1 --duration 2.5 --engine $eng --json "$T/ttlnb-$eng.json"
    check "expiring sessions, non-blocking ($eng): the run goes on, exit 0" 0 '^ +sdkms_reauth\.+: [1-9]'
    json_check "expiring sessions, non-blocking ($eng): re-authentications counted, no errors" "$T/ttlnb-$eng.json" \
        "runs[0]['http']['reauth'] > 0 and runs[0]['errors'] == 0 and runs[0]['settings']['engine'] == '$ename'"
    cat "$T/out" "$T/err" >>"$T/all-output"
done

# A tear-down that outlasts its session more than once: 12 keys deleted at
# 100 ms a request, in sessions of 600 ms.  Each key's DELETE renews the
# session when it meets its end (renewing once for the whole tear-down left
# the keys after the second expiry on the server).
start_serve slowttl --api-key-env SERVER_API_KEY --latency 100ms --session-ttl 600ms -v || exit 0
run "$HSMBENCH" rest sdkms --endpoint "$URL" --api-key-env SDKMS_API_KEY --op keygen --alg AES \
    --threads 1 --iterations 12 --json "$T/slowttl.json"
check "keygen, sessions ending mid-tear-down: exit 0" 0
stop_serve slowttl
count_log "$T/slowttl.err"
if [ "$made" = 12 ] && [ "$deleted" = 12 ] && [ "$auths" -ge 3 ]; then
    pass "keygen, sessions ending mid-tear-down: the 12 keys made, each deleted ($auths sessions)"
else fail "keygen, sessions ending mid-tear-down: the 12 keys made, each deleted" "made $made, deleted $deleted, $auths sessions"; fi
cat "$T/out" "$T/err" >>"$T/all-output"

# ---- the API key and the session tokens never show ---------------------------
no_secret "the API key is in no output or results file" "$KEY" "$T/all-output" "$T"/s*.json \
    "$T/ttl.json" "$T"/ttlnb-*.json "$T"/nb-*.json "$T"/int-*.json "$T/sdkms.out" "$T/sdkms.err"
if grep -Eq '"access_token"|Bearer [A-Za-z0-9]' "$T/all-output" "$T/sdkms.err"; then
    fail "no session token in any output" "$(grep -E 'access_token|Bearer [A-Za-z0-9]' "$T/all-output" | head -c 200)"
else
    pass "no session token in any output"
fi
