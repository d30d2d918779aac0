#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_stops.sh - how a run ends when it is not asked to (issue 13,
# items 2 and 6): a closed standard output ("| head -1") stops it as Ctrl-C
# does (keys destroyed, files written, exit 130), never kills it; Ctrl-C in a
# long module call says at once what it waits for, and a second one stops
# waiting and lists the token keys for removal; the same for REST set-up.
# asan: yes (a closed standard output and Ctrl-C in long module and REST set-up calls)
. "$TOP/tests/e2e/lib.sh"

MOCK="$(dirname "$NULLP11")/libhsmbench-mock.so"
bg=
srv=
trap 'for p in $bg $srv; do kill -KILL "$p" 2>/dev/null; done; rm -rf "$T"' EXIT


# wait_for FILE ERE TENTHS: poll until FILE has a line matching ERE.
wait_for() {
    n=0
    while [ "$n" -lt "$3" ]; do
        grep -Eq -- "$2" "$1" 2>/dev/null && return 0
        sleep 0.1
        n=$((n + 1))
    done
    return 1
}

# expect_line NAME FILE ERE: FILE gets a line matching ERE within a second.
expect_line() {
    if wait_for "$2" "$3" 10; then pass "$1"; else fail "$1" "stderr: $(cat "$2")"; fi
}

# reap: wait for $bg; $rc is its status.
reap() {
    wait "$bg"
    rc=$?
    bg=
}

# slow_mock OUT ERR SERVICE ARGS...: hsmbench run on the mock HSM in the
# background, every finishing call taking SERVICE; SIGINT after a second.
slow_mock() {
    o=$1 e=$2 svc=$3
    shift 3
    HSMBENCH_MOCK="service=fixed:$svc" "$HSMBENCH" run --module "$MOCK" "$@" >"$o" 2>"$e" </dev/null &
    bg=$!
    sleep 1
    kill -INT "$bg"
}

# ---- | head -1 ------------------------------------------------------------------
run "$HSMBENCH" run --test sha256-digest --iterations 10 --quiet
check "demo token set up" 0
softhsm_env
before=$(demo_objects)
{ "$HSMBENCH" run --token-keys --test rsa-pkcs-sign,ecdsa-sign --duration 20 --json "$T/head.json" \
      2>"$T/head.err" </dev/null; echo $? >"$T/head.rc"; } | head -1 >"$T/head.out"
rc=$(cat "$T/head.rc")
if [ "$rc" = 130 ]; then pass "| head -1: exit 130, as an interruption (not 141, SIGPIPE)"
else fail "| head -1: exit 130, as an interruption (not 141, SIGPIPE)" "exit $rc: $(head -c 300 "$T/head.err")"; fi
after=$(demo_objects)
if [ "$after" = "$before" ]; then pass "| head -1: the token's object count is unchanged ($after)"
else fail "| head -1: the token's object count is unchanged" "$before before, $after after"; fi
json_check "| head -1: results written, the run interrupted by the closed output" "$T/head.json" \
    'runs[0]["status"] == "interrupted" and "standard output closed" in runs[0]["reason"] and len(runs) == 1'

# ---- Ctrl-C in a slow C_GenerateKeyPair ----------------------------------------
slow_mock "$T/slow.out" "$T/slow.err" 5s --test rsa-pkcs-sign --duration 5
expect_line "SIGINT in a slow keygen: the line naming C_GenerateKeyPair within a second" "$T/slow.err" \
    '^hsmbench: stopping: waiting for C_GenerateKeyPair to return; Ctrl-C again to stop waiting, keys will then be listed for removal$'
reap
cp "$T/slow.err" "$T/err"
check "SIGINT in a slow keygen: exit 130 once the call returned" 130 '' 'interrupted'

# A second Ctrl-C stops waiting: the token keys are listed, exit 130 at once.
slow_mock "$T/two.out" "$T/two.err" 20s --token-keys --test ecdsa-sign --duration 5
wait_for "$T/two.err" 'stopping: waiting for C_GenerateKeyPair' 10
kill -INT "$bg"
n=0
while kill -0 "$bg" 2>/dev/null && [ $n -lt 20 ]; do sleep 0.1; n=$((n + 1)); done
if kill -0 "$bg" 2>/dev/null; then
    fail "a second SIGINT ends the wait within 2 s" "still running"
    kill -KILL "$bg"
    wait "$bg"
else
    wait "$bg"
    rc=$?
    cp "$T/two.err" "$T/err"
    check "a second SIGINT: exit 130 at once, the token key listed for removal" 130 '' \
        '^hsmbench: stopped waiting for C_GenerateKeyPair; token keys this run made, which may remain: hsmbench-ecdsa-sign-[0-9]+; remove them with: hsmbench keys destroy --all$'
fi
bg=

# ---- Ctrl-C during REST set-up against an endpoint that never answers ------------
python3 - "$T/port" <<'PY' &
import socket, sys, time
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(16)
open(sys.argv[1] + ".tmp", "w").write(str(s.getsockname()[1]))
import os
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
conns = []
end = time.time() + 60
while time.time() < end:
    c, _ = s.accept()
    conns.append(c)
PY
srv=$!
n=0
while [ ! -s "$T/port" ] && [ $n -lt 50 ]; do sleep 0.1; n=$((n + 1)); done
port=$(cat "$T/port")
HSMBENCH_E2E_KEY=k "$HSMBENCH" rest sdkms --endpoint "http://127.0.0.1:$port" --op encrypt \
    --api-key-env HSMBENCH_E2E_KEY --timeout 30 --duration 1 >"$T/rest.out" 2>"$T/rest.err" </dev/null &
bg=$!
sleep 1
kill -INT "$bg"
expect_line "SIGINT in REST set-up: a line says what it waits for within a second" "$T/rest.err" \
    "^hsmbench: stopping: waiting for the endpoint's answer to the set-up request"
reap
check "SIGINT in REST set-up: exit 130" 130

# A silent endpoint: the set-up waits one --timeout, as its message says.
start=$(date +%s)
run env HSMBENCH_E2E_TOKEN=t "$HSMBENCH" rest ekm --endpoint "http://127.0.0.1:$port/k" \
    --token-env HSMBENCH_E2E_TOKEN --timeout 2 --duration 1 </dev/null
took=$(( $(date +%s) - start ))
check_one_line_error "silent endpoint: one line naming the timeout, exit 3" 3 'TIMEOUT: .*after 2[0-9]{3} milliseconds'
if [ "$took" -le 4 ]; then pass "silent endpoint: the set-up waited one --timeout (${took} s), not three"
else fail "silent endpoint: the set-up waited one --timeout, not three" "${took} s"; fi
