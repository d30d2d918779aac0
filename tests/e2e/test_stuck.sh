#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_stuck.sh - every run ends (issue 22, item 3): a worker inside
# a module call that never returns (the mock's hang=, a p11-kit server
# stopped or killed mid-run) ends the run within --stuck-after, as failed,
# naming the worker and the call, with its summary and results file written
# and its token keys destroyed, or listed with the command that removes them.
# timed: asserts that runs end within bounds (seconds) the mock's hang sets
# tsan: yes (calls abandoned in a module that never returns: the watchdog against the stuck workers)
# asan: yes (calls abandoned inside a module that never returns, and a p11-kit server killed mid-call)
. "$TOP/tests/e2e/lib.sh"

need_mock || exit 0
CLIENT=/usr/lib/x86_64-linux-gnu/pkcs11/p11-kit-client.so

# timed LIMIT CMD...: run CMD under `timeout -k 5 LIMIT` (a hang is a
# failure, not a stuck test), $rc, $T/out, $T/err and $took (whole seconds).
timed() {
    lim=$1
    shift
    t0=$(date +%s)
    timeout -k 5 "$lim" "$@" >"$T/out" 2>"$T/err" </dev/null
    rc=$?
    took=$(($(date +%s) - t0))
}
# within NAME LIMIT: the last timed command took at most LIMIT seconds.
within() {
    if [ "$took" -le "$2" ]; then pass "$1 (took ${took} s)"
    else fail "$1" "took ${took} s"; fi
}
# token_objects FILE: the token objects the mock's objects file lists.
token_objects() { grep -c '^object token' "$1" 2>/dev/null; }

# ---- a C_Sign that never returns: the run ends as failed ---------------------
HSMBENCH_MOCK="hang=C_Sign@1s;service=fixed:1ms;objects-file=$T/obj1" \
    timed 50 "$HSMBENCH" run --module "$MOCK" --test ecdsa-sign --threads 2 --duration 30 \
    --token-keys --stuck-after 2s --json "$T/s1.json"
check "hung C_Sign: exit 1, the summary names the stuck worker" 1 \
    '^ +status\.+: failed: worker [12] stuck in C_Sign for [0-9]+ s$'
within "hung C_Sign: the run ends within 1 s + --stuck-after 2s, not its 30 s" 8
json_check "hung C_Sign: results written, failed, the reason names worker and call" "$T/s1.json" \
    "runs[0]['status'] == 'failed' and __import__('re').fullmatch(r'worker [12] stuck in C_Sign for [0-9]+ s', runs[0]['reason']) and runs[0]['ops'] > 0 and runs[0]['duration_s'] < 10"
json_check "hung C_Sign: the figures up to the last completed operations add up" "$T/s1.json" \
    "sum(c for _, c in runs[0]['histogram']['counts']) == runs[0]['ops'] - runs[0]['errors']"
got=$(token_objects "$T/obj1")
[ "$got" = 0 ] && pass "hung C_Sign: the token keys destroyed on the control session" ||
    fail "hung C_Sign: the token keys destroyed on the control session" "token objects left: '$got'"
file_lacks "hung C_Sign: no key listed as left" "$T/err" "hsmbench keys destroy"

# the same with a list of tests: nothing runs after the stuck one
HSMBENCH_MOCK="hang=C_Sign@1s;service=fixed:1ms" \
    timed 50 "$HSMBENCH" run --module "$MOCK" --test ecdsa-sign,sha256-digest --duration 30 \
    --stuck-after 1s --json "$T/s2.json"
check "hung C_Sign in a list of tests: exit 1" 1
within "hung C_Sign in a list of tests: ends within the bound" 7
json_check "hung C_Sign in a list of tests: no further test run" "$T/s2.json" \
    "len(runs) == 1 and runs[0]['status'] == 'failed' and 'stuck in C_Sign' in runs[0]['reason']"

# non-blocking: the worker inside the call is abandoned alike
HSMBENCH_MOCK="hang=C_Sign@1s;service=fixed:1ms" \
    timed 50 "$HSMBENCH" run --module "$MOCK" --test ecdsa-sign --mode nonblocking --rate 200 \
    --threads 2 --duration 30 --stuck-after 1s --json "$T/s3.json"
check "hung C_Sign, non-blocking: exit 1" 1
within "hung C_Sign, non-blocking: ends within the bound" 7
json_check "hung C_Sign, non-blocking: failed, stuck named" "$T/s3.json" \
    "runs[0]['status'] == 'failed' and 'stuck in C_Sign' in runs[0]['reason']"

# ---- the destroy hangs too: the keys are listed with the command ----------------
HSMBENCH_MOCK="hang=C_Sign,C_DestroyObject@1s;service=fixed:1ms" \
    timed 50 "$HSMBENCH" run --module "$MOCK" --test ecdsa-sign --threads 2 --duration 30 \
    --token-keys --stuck-after 2s --json "$T/s4.json"
check "hung C_Sign and C_DestroyObject: exit 1, the keys listed with the command" 1 \
    'stuck in C_Sign' '^  hsmbench keys destroy --label hsmbench-ecdsa-sign-[0-9]+ --module .* --slot 1$'
file_has "hung C_Sign and C_DestroyObject: says the destroy was given up" "$T/err" \
    "destroying the run's keys did not end within --stuck-after: given up"
within "hung C_Sign and C_DestroyObject: ends within two bounds" 10
json_check "hung C_Sign and C_DestroyObject: results written" "$T/s4.json" \
    "runs[0]['status'] == 'failed' and 'stuck in C_Sign' in runs[0]['reason']"

# signalled MOCKCONF "SIG PAUSE SIG..." ARGS...: "hsmbench run ARGS" on the mock
# configured so, in the background; after 2 s each word of the list in turn,
# a signal to send or a pause in seconds; then at most 10 s for it to end:
# $rc, $T/out, $T/err, $took (from the first signal).
signalled() {
    conf=$1 plan=$2
    shift 2
    HSMBENCH_MOCK="$conf" "$HSMBENCH" run --module "$MOCK" "$@" </dev/null >"$T/out" 2>"$T/err" &
    bg=$!
    sleep 2
    t0=$(date +%s)
    for w in $plan; do
        case $w in
        [0-9]*) sleep "$w" ;;
        *) kill -"$w" "$bg" ;;
        esac
    done
    n=0
    while kill -0 "$bg" 2>/dev/null && [ "$n" -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
    if kill -0 "$bg" 2>/dev/null; then kill -KILL "$bg"; fi
    wait "$bg"
    rc=$?
    took=$(($(date +%s) - t0))
}

# ---- a signal while a worker is stuck: interrupted, results, keys destroyed -------
signalled "hang=C_Sign@1s;service=fixed:1ms;objects-file=$T/obj5" TERM --test ecdsa-sign \
    --threads 2 --duration 30 --token-keys --stuck-after 60s --json "$T/s5.json"
check "SIGTERM with a worker stuck: exit 130" 130 '^ +status\.+: interrupted'
within "SIGTERM with a worker stuck: ends within the 5 s grace" 8
json_check "SIGTERM with a worker stuck: interrupted, the stuck worker named" "$T/s5.json" \
    "runs[0]['status'] == 'interrupted' and runs[0]['reason'].startswith('interrupted (SIGTERM); worker ') and 'stuck in C_Sign' in runs[0]['reason']"
got=$(token_objects "$T/obj5")
[ "$got" = 0 ] && pass "SIGTERM with a worker stuck: the token keys destroyed" ||
    fail "SIGTERM with a worker stuck: the token keys destroyed" "token objects left: '$got'"

# ---- a second signal while the clean-up hangs: results written, keys listed ------
# (the second gives up the stuck workers and the hung destroy at once)
signalled "hang=C_Sign,C_DestroyObject@1s;service=fixed:1ms" "TERM 1 TERM" --test ecdsa-sign \
    --threads 2 --duration 30 --token-keys --stuck-after 60s --json "$T/s6.json"
check "signals while the destroy hangs: exit 130, the keys listed with the command" 130 \
    '^ +status\.+: interrupted' '^  hsmbench keys destroy --label hsmbench-ecdsa-sign-[0-9]+ --module .* --slot 1$'
within "signals while the destroy hangs: ends at the second signal" 3
json_check "signals while the destroy hangs: the results file written" "$T/s6.json" \
    "runs[0]['status'] == 'interrupted' and 'stuck in C_Sign' in runs[0]['reason']"

# ---- --stuck-after's bad values ------------------------------------------------
run "$HSMBENCH" run --module "$MOCK" --test ecdsa-sign --stuck-after soon
check_one_line_error "--stuck-after soon: one line, exit 2" 2 '--stuck-after'
run "$HSMBENCH" run --module "$MOCK" --test ecdsa-sign --stuck-after 1ms
check_one_line_error "--stuck-after 1ms (under 100ms): one line, exit 2" 2 '--stuck-after'
HSMBENCH_MOCK="service=fixed:1ms" run "$HSMBENCH" run --module "$MOCK" --test ecdsa-sign \
    --duration 1 --stuck-after off --quiet
check "--stuck-after off: a healthy run is ok" 0

# ---- p11-kit-client with its server stopped or killed mid-run -------------------
# (the plain build only: p11-kit-remote cannot load a sanitizer build's mock)
[ "$VARIANT" = plain ] || exit 0
if ! command -v p11-kit >/dev/null 2>&1 || [ ! -f "$CLIENT" ]; then
    skip "p11-kit server killed mid-run" "p11-kit or $CLIENT not installed (packages p11-kit, p11-kit-modules)"
    exit 0
fi
export XDG_RUNTIME_DIR="$T/run"
mkdir -m 700 "$XDG_RUNTIME_DIR"
srv=
trap 'if [ -n "$srv" ]; then kill -KILL $srv $(pgrep -P "$srv" 2>/dev/null) 2>/dev/null; fi; rm -rf "$T"' EXIT
for how in STOP KILL; do
    HSMBENCH_MOCK="service=fixed:1ms" p11-kit server --provider "$MOCK" "pkcs11:token=mock" \
        >"$T/srv.env" 2>"$T/srv.err"
    srv=$(sed -n 's/^P11_KIT_SERVER_PID=\([0-9]*\);.*/\1/p' "$T/srv.env")
    addr=$(sed -n 's/^P11_KIT_SERVER_ADDRESS=\([^;]*\);.*/\1/p' "$T/srv.env")
    if [ -z "$srv" ] || [ -z "$addr" ]; then
        skip "p11-kit server $how mid-run" "p11-kit server did not start: $(head -c 200 "$T/srv.err")"
        continue
    fi
    # the server forks a p11-kit-remote per client: both stopped (or killed)
    (sleep 3; kill -"$how" $(pgrep -P "$srv") "$srv" 2>/dev/null) &
    P11_KIT_SERVER_ADDRESS=$addr timed 50 "$HSMBENCH" run --module "$CLIENT" --test ecdsa-sign \
        --threads 2 --duration 30 --token-keys --stuck-after 3s --json "$T/pk.$how.json"
    wait
    check "p11-kit server SIG$how mid-run: exit 1" 1 '^ +status\.+: failed: '
    within "p11-kit server SIG$how mid-run: the run ends within the bound" 16
    json_check "p11-kit server SIG$how mid-run: results written, failed" "$T/pk.$how.json" \
        "runs[0]['status'] == 'failed' and runs[0]['ops'] > 0"
    file_has "p11-kit server SIG$how mid-run: the keys left listed with the command" "$T/err" \
        '^  hsmbench keys destroy --label hsmbench-ecdsa-sign-[0-9]+ --module '
    kill -KILL $(pgrep -P "$srv" 2>/dev/null) "$srv" 2>/dev/null
    srv=
done
