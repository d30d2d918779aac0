#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# What a non-blocking run claims in flight is what reached the module: the
# PKCS#11 call recorder (libhsmbench-trace.so) in front of the mock counts
# the calls inside it at once.  A module without asynchronous sessions gets
# emulated slots (a session and a thread each); one with them keeps its own.
# timed: asserts rates against the mock's service time (wide margins)
# serial-variants: plain
# asan: yes (emulated asynchronous slots (a session and a thread each) and the module's own)
. "$TOP/tests/e2e/lib.sh"
need_mock || exit 0
TRACE="$(dirname "$NULLP11")/libhsmbench-trace.so"
[ -f "$TRACE" ] || { fail "recorder built" "$TRACE is missing (make all)"; exit 0; }

# traced CFG RECORDING ARGS...: "hsmbench run ARGS" on the mock configured
# so, through the recorder, which writes RECORDING (a fresh name each time).
traced() {
    cfg=$1 rec=$2
    shift 2
    run env HSMBENCH_MOCK="$cfg" HSMBENCH_TRACE_MODULE="$MOCK" HSMBENCH_TRACE_FILE="$rec" \
        "$HSMBENCH" run --module "$TRACE" "$@"
}

# inside RECORDING TEST: the most calls of TEST's operation inside the
# module at once, as the recording says (hsmbench trace --json).
inside() {
    "$HSMBENCH" trace "$1" --json "$1.json" >/dev/null 2>&1 &&
        python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(max(r["trace"]["max_inside"] for r in d["runs"] if r["test"] == sys.argv[2]))' "$1.json" "$2"
}

# at_least NAME GOT WANT: GOT (a number, or empty) >= WANT.
at_least() {
    if [ -n "$2" ] && [ "$2" -ge "$3" ]; then pass "$1"; else fail "$1" "got '${2:-nothing}', want >= $3"; fi
}

# ---- no asynchronous sessions: emulated slots -------------------------------
# 2 ms a signature on 8 mock cores: 4000/s at most, 500/s a blocked thread.
# 16 in flight over 2 threads: 16 calls inside the module (at least 12),
# and at least 2500/s, 2.5 times what the 2 threads alone could do (1000/s).
SVC='service=fixed:2ms;cores=8'
traced "$SVC" "$T/em.trace" --test ecdsa-sign --mode nonblocking --threads 2 --inflight 16 \
    --duration 3 --json "$T/em.json"
check "no async sessions, --inflight 16: exit 0, the emulated engine named" 0 \
    '^Running ecdsa-sign .*2 threads, nonblocking, 3s, at most 16 in flight \[emulated: a session and a thread a slot, 16 slots\]$'
file_has "no async sessions: says why and what it costs" "$T/out" \
    '^\(non-blocking emulated: the token does not set CKF_ASYNC_SESSION_SUPPORTED; 16 sessions, each with a thread of its own\)$'
json_check "emulated: settings.engine and slots say how it ran" "$T/em.json" \
    'runs[0]["settings"]["engine"] == "emulated: a session and a thread a slot" and runs[0]["settings"]["slots"] == 16'
at_least "emulated: at least 12 of the 16 in flight inside the module at once (the recorder)" \
    "$(inside "$T/em.trace" ecdsa-sign)" 12
if all_cases; then
    json_check "emulated: at least 2500/s, 2.5x what 2 blocked threads do at 2 ms" "$T/em.json" \
        'runs[0]["ops_per_s"] >= 2500 and runs[0]["errors"] == 0'
    json_check "emulated: latency from the due time, about the mock's queue of 16 on 8 cores" "$T/em.json" \
        '2000 <= runs[0]["latency_us"]["p50"] <= 20000'
fi

# A rate with the window: the dispatcher hands the requests to the slots.
traced "$SVC" "$T/rate.trace" --test ecdsa-sign --mode nonblocking --threads 1 --rate 2000 \
    --inflight 16 --duration 2 --json "$T/rate.json"
check "emulated, --rate 2000 --inflight 16 on 1 thread: exit 0" 0
at_least "emulated, a rate: more than one call inside the module at once" \
    "$(inside "$T/rate.trace" ecdsa-sign)" 2
all_cases && json_check "emulated, a rate: 2000/s kept by one thread (a blocked one does 500/s)" \
    "$T/rate.json" '1800 <= runs[0]["ops_per_s"] <= 2100 and runs[0]["schedule"]["dropped"] <= 20'

# A window no wider than the threads: the worker pool already keeps it.
traced "$SVC" "$T/wp.trace" --test ecdsa-sign --mode nonblocking --threads 2 --inflight 2 \
    --duration 1 --json "$T/wp.json"
check "no async sessions, --inflight 2 on 2 threads: exit 0, the worker pool" 0 '\[worker pool\]$'

# ---- asynchronous sessions: the module's own -----------------------------------
traced "$SVC;async=1" "$T/as.trace" --test ecdsa-sign --mode nonblocking --threads 2 --inflight 16 \
    --duration 3 --json "$T/as.json"
check "async sessions, --inflight 16: exit 0, the module's own engine" 0 \
    '\[PKCS#11 async sessions, 16 slots\]$'
json_check "async sessions: settings.engine" "$T/as.json" \
    'runs[0]["settings"]["engine"] == "PKCS#11 async sessions"'
# The recorder counts calls inside the module: an asynchronous C_Sign
# returns CKR_PENDING at once and the operation ends at C_AsyncComplete.
"$HSMBENCH" trace "$T/as.trace" --json "$T/as.trace.json" >/dev/null 2>&1
json_check "async sessions: the operations completed through C_AsyncComplete (the recorder)" \
    "$T/as.trace.json" 'doc["trace"]["functions"]["C_AsyncComplete"]["calls"] >= runs[0]["ops"] > 0'
all_cases && json_check "async sessions: at least 2500/s" "$T/as.json" 'runs[0]["ops_per_s"] >= 2500'

# ---- pkpspeed's answers: 3 threads, RSA_CRT 2048, 1 s, no static key ---------
# The Linux pkpspeed runs non-blocking, 16 in flight a thread: 48 sessions.
# Blocked, 3 threads do 1500/s at most; the mock's 8 cores, 4000/s.
if all_cases; then
    printf '3\nRSA_CRT\n2048\n1\nn\n' >"$T/answers"
    run env HSMBENCH_MOCK="$SVC" "$HSMBENCH" menu --module "$MOCK" <"$T/answers"
    check "menu, pkpspeed's RSA_CRT answers: exit 0, 48 in flight emulated" 0 \
        'at most 48 in flight \[emulated: a session and a thread a slot, 48 slots\]$'
    rate=$(sed -n 's/^ *operations\.*: *[0-9]* *\([0-9]*\)\.[0-9]*\/s$/\1/p' "$T/out" | head -n 1)
    at_least "menu: at least 3000/s, twice what 3 blocked threads can do" "$rate" 3000
fi
