#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_signal.sh - Ctrl-C (SIGINT) mid-run: exit 130 promptly, the
# partial results are written, and no benchmark key is left on the token.
# tsan: yes (SIGINT tears workers down while calls are in flight)
# asan: yes (SIGINT mid-run: workers, files and token keys torn down while calls are in flight)
. "$TOP/tests/e2e/lib.sh"

bg=
trap 'if [ -n "$bg" ]; then kill -KILL "$bg" 2>/dev/null; fi; rm -rf "$T"' EXIT

# start_bg OUT ERR ARGS...: hsmbench in the background, its pid in $bg.
start_bg() {
    out=$1 err=$2
    shift 2
    : >"$out"      # emptied before, so a wait never reads an earlier run's lines
    : >"$err"
    "$HSMBENCH" "$@" >>"$out" 2>>"$err" </dev/null &
    bg=$!
}

# wait_line FILE ERE SECONDS: poll until FILE has a line matching ERE.
wait_line() {
    n=0
    while [ "$n" -lt $(($3 * 10)) ]; do
        grep -Eq -- "$2" "$1" 2>/dev/null && return 0
        kill -0 "$bg" 2>/dev/null || { grep -Eq -- "$2" "$1" 2>/dev/null; return; }
        sleep 0.1
        n=$((n + 1))
    done
    return 1
}

# wait_exit SECONDS: wait for $bg to end; $rc is its status, 255 on timeout.
wait_exit() {
    n=0
    while kill -0 "$bg" 2>/dev/null && [ "$n" -lt $(($1 * 10)) ]; do
        sleep 0.1
        n=$((n + 1))
    done
    if kill -0 "$bg" 2>/dev/null; then
        kill -KILL "$bg" 2>/dev/null
        wait "$bg" 2>/dev/null
        rc=255
    else
        wait "$bg"
        rc=$?
    fi
    bg=
}


# ---- set up the demo token, and a user object on it --------------------------
demo_with_user_key

# ---- a normal run leaves the token as it was ---------------------------------
run "$HSMBENCH" run --test rsa-pkcs-sign,ecdsa-sign,aes-gcm-encrypt,hmac-sha256 --iterations 20 --quiet
check "normal run with four keyed tests: exit 0" 0
after=$(demo_objects)
if [ "$after" = "$before" ]; then pass "normal run: no benchmark key left, user key kept ($after objects)"
else fail "normal run: no benchmark key left, user key kept" "$before objects before, $after after"; fi

# ---- SIGINT during a measured rsa-pkcs-sign run --------------------------------
start_bg "$T/int.out" "$T/int.err" run --duration 30 --json "$T/int.json" --test rsa-pkcs-sign
if wait_line "$T/int.out" '^OPERATIONS/second' 15; then
    pass "SIGINT: the run got going (first per-second line within 15 s)"
else
    fail "SIGINT: the run got going (first per-second line within 15 s)" \
        "stdout: $(head -c 300 "$T/int.out" | tr '\n' ' ') stderr: $(head -c 300 "$T/int.err")"
fi
kill -INT "$bg" 2>/dev/null
wait_exit 5
cp "$T/int.out" "$T/out"
cp "$T/int.err" "$T/err"
check "SIGINT: exit 130 within 5 s" 130 '^ +status\.+: interrupted$' '^hsmbench: interrupted; partial results written$'
json_check "SIGINT: JSON written with status interrupted and ops > 0" "$T/int.json" \
    'runs[0]["status"] == "interrupted" and runs[0]["ops"] > 0 and runs[0]["duration_s"] < 29'
json_check "SIGINT: JSON reason says SIGINT" "$T/int.json" '"SIGINT" in runs[0].get("reason", "")'
json_check "SIGINT: partial histogram still consistent" "$T/int.json" \
    'sum(c for _, c in runs[0]["histogram"]["counts"]) == runs[0]["ops"]'
after=$(demo_objects)
if [ "$after" = "$before" ]; then pass "SIGINT: no benchmark key left on the token ($after objects)"
else fail "SIGINT: no benchmark key left on the token" "$before objects before, $after after"; fi

# The token is still usable afterwards (no stale lock, session or login).
run "$HSMBENCH" run --test sha256-digest --iterations 10 --quiet
check "after SIGINT: the demo token still works" 0

# ---- SIGINT on the null module, several threads, several tests ----------------
start_bg "$T/null.out" "$T/null.err" run --module "$NULLP11" --test sha256-digest,hmac-sha256 \
    --threads 4 --duration 30 --json "$T/null.json"
if wait_line "$T/null.out" '^OPERATIONS/second' 10; then
    pass "SIGINT null module: the run got going"
else
    fail "SIGINT null module: the run got going" "stderr: $(head -c 300 "$T/null.err")"
fi
kill -INT "$bg" 2>/dev/null
wait_exit 5
cp "$T/null.out" "$T/out"
cp "$T/null.err" "$T/err"
check "SIGINT null module, 4 threads: exit 130 within 5 s" 130
json_check "SIGINT null module: the first test interrupted, the second never started" "$T/null.json" \
    'len(runs) == 1 and runs[0]["test"] == "sha256-digest" and runs[0]["status"] == "interrupted" and runs[0]["ops"] > 0'

# ---- --quiet: interrupted silently, but still 130 --------------------------------
start_bg "$T/q.out" "$T/q.err" run --module "$NULLP11" --test sha256-digest --duration 30 --quiet
sleep 1
kill -INT "$bg" 2>/dev/null
wait_exit 5
cp "$T/q.out" "$T/out"
cp "$T/q.err" "$T/err"
check "SIGINT with --quiet: exit 130" 130
if [ -s "$T/out" ]; then fail "SIGINT with --quiet: nothing on stdout" "$(head -c 200 "$T/out")"
else pass "SIGINT with --quiet: nothing on stdout"; fi

# ---- SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM stop a run as SIGINT does
# (issue 22: they used to kill hsmbench, losing the results and the keys).
# The mock signs in 1 ms, asleep: each run still waits for its first
# per-second line and is stopped with a call in flight, but it idles where
# at full speed it held a core (these six runs were half the script's CPU).
if need_mock; then
    for sig in TERM HUP QUIT USR1 USR2 ALRM; do
        rm -f "$T/obj.$sig"
        : >"$T/s.out"
        HSMBENCH_MOCK="service=fixed:1ms;objects-file=$T/obj.$sig" "$HSMBENCH" run --module "$MOCK" \
            --test ecdsa-sign --token-keys --duration 20 --json "$T/s.$sig.json" </dev/null >"$T/s.out" 2>"$T/s.err" &
        bg=$!
        wait_line "$T/s.out" '^OPERATIONS/second' 10 >/dev/null
        kill -"$sig" "$bg" 2>/dev/null
        wait_exit 10
        cp "$T/s.out" "$T/out"
        cp "$T/s.err" "$T/err"
        check "SIG$sig: exit 130 within 10 s" 130
        json_check "SIG$sig: results written, interrupted (SIG$sig)" "$T/s.$sig.json" \
            "runs[0]['status'] == 'interrupted' and runs[0]['reason'] == 'interrupted (SIG$sig)' and runs[0]['ops'] > 0"
        got=$(sed -n 's/^objects //p' "$T/obj.$sig" 2>/dev/null)
        [ "$got" = 0 ] && pass "SIG$sig: the token keys destroyed" || fail "SIG$sig: the token keys destroyed" "objects left: '$got'"
    done
fi
