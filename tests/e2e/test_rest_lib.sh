#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_rest_lib.sh - helpers the test_rest*.sh scripts source after
# lib.sh: throwaway certificates, and hsmbench serve in the background.
#
# tests/run.sh runs every tests/e2e/test_*.sh, this file included; run on its
# own it does nothing (no REST_LIB_SOURCE), so it prints no result lines.
[ -n "${REST_LIB_SOURCE:-}" ] || exit 0

SERVERS=""
trap 'rest_stop_all; rm -rf "$T"' EXIT

# make_certs DIR: a CA, a server certificate for 127.0.0.1/localhost, a
# client certificate from the same CA, and a client certificate from
# another CA (which a --client-ca server must refuse).
make_certs() {
    d=$1
    mkdir -p "$d"
    (
        cd "$d" || exit 1
        ec="-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes"
        # shellcheck disable=SC2086
        openssl req -x509 $ec -keyout ca.key -out ca.pem -days 2 -subj "/CN=hsmbench test CA" &&
        openssl req -x509 $ec -keyout rogue-ca.key -out rogue-ca.pem -days 2 -subj "/CN=rogue CA" &&
        openssl req $ec -keyout server.key -out server.csr -subj "/CN=127.0.0.1" &&
        printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n' >server.ext &&
        openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out server.pem \
            -days 2 -extfile server.ext &&
        printf 'extendedKeyUsage=clientAuth\n' >client.ext &&
        openssl req $ec -keyout client.key -out client.csr -subj "/CN=hsmbench client" &&
        openssl x509 -req -in client.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out client.pem \
            -days 2 -extfile client.ext &&
        openssl req $ec -keyout rogue.key -out rogue.csr -subj "/CN=rogue client" &&
        openssl x509 -req -in rogue.csr -CA rogue-ca.pem -CAkey rogue-ca.key -CAcreateserial \
            -out rogue.pem -days 2 -extfile client.ext
    ) >"$T/openssl.log" 2>&1
}

# ekm_tls_server [ARGS...]: a random EKM bearer token in $TOKEN (exported as
# G_TOKEN for the client and EKM_SERVER_TOKEN for the server), the test
# certificates in $P, and "hsmbench serve" over TLS that takes the token, on
# $URL (start_serve tls ARGS...).  Returns 1 with a FAIL line when any of it fails.
ekm_tls_server() {
    TOKEN="ekm-token-$$-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
    export G_TOKEN="$TOKEN" EKM_SERVER_TOKEN="$TOKEN"
    P="$T/pki"
    if ! make_certs "$P"; then
        fail "test certificates" "$(tail -c 300 "$T/openssl.log")"
        return 1
    fi
    pass "test certificates (openssl)"
    start_serve tls --tls-cert "$P/server.pem" --tls-key "$P/server.key" --ekm-token-env EKM_SERVER_TOKEN "$@"
}

# start_serve NAME ARGS...: hsmbench serve on a free loopback port (it picks
# port 0 and prints the URL); sets $URL.  Its lifetime is the script's: the
# script stops it (stop_serve, rest_stop_all at exit), and a watcher stops it
# within a second of the script ending any other way (killed outright).  A
# fixed lifetime was wrong both ways: 120 s ended servers while a sanitizer
# build's script still needed them on a busy machine.  --max-seconds 1800
# stays as a net unless ARGS give their own.  Returns 1 (with a FAIL line)
# when it does not come up.
#
# The server a sanitizer run starts is the plain build's: the scripts run
# under ASan or TSan for the client's code (their "# asan: yes" and
# "# tsan: yes" lines say which), and an instrumented server was most of
# their CPU (the SDKMS script's server alone took 18 of its 50 s under
# TSan).  A script whose server is what it tests there (test_rest: serve's
# EKM routes; test_rest_sdkms: the sessions it renews) sets
# SERVE_BIN="$HSMBENCH" before start_serve.
SERVE_BIN=$HSMBENCH
if [ "${VARIANT:-plain}" != plain ] && [ -x "$TOP/build/hsmbench" ]; then
    SERVE_BIN="$TOP/build/hsmbench"
fi
start_serve() {
    name=$1
    shift
    bound="--max-seconds 1800"
    case " $* " in *" --max-seconds "*) bound="" ;; esac   # (serve refuses it twice)
    # Emptied here, not by the redirection below: that happens in the child,
    # and a loop that starts NAME again could read the last server's port.
    : >"$T/$name.out"
    # shellcheck disable=SC2086
    "$SERVE_BIN" serve --listen 127.0.0.1:0 $bound "$@" >"$T/$name.out" 2>"$T/$name.err" &
    echo $! >"$T/$name.pid"
    follow_script $!
    SERVERS="$SERVERS $name"
    i=0
    while [ $i -lt 300 ]; do
        URL=$(sed -n 's/^hsmbench serve: listening on \([^ ]*\).*/\1/p' "$T/$name.out" 2>/dev/null)
        [ -n "$URL" ] && return 0
        kill -0 "$(cat "$T/$name.pid")" 2>/dev/null || break
        sleep 0.1
        i=$((i + 1))
    done
    fail "serve $name starts" "$(head -c 300 "$T/$name.err" | tr '\n' ' ')"
    return 1
}

# follow_script PID: PID ends (SIGTERM) within a second of this script's
# shell ending, however it ends.  GNU tail waits on the shell in one process
# (it looks four times a second): a loop of "sleep 1" started a process a
# second for every server, 3 000 of them in one plain run.  The watcher is
# not the shell's child (a subshell starts it and ends), so a script's bare
# "wait" does not wait for it, and holds none of the script's output, so
# the runner does not either; it signals PID only if PID is still the
# process it was (the same start time: a pid is reused).
follow_script() {
    st=$(cut -d' ' -f22 "/proc/$1/stat" 2>/dev/null)
    ( (tail -s 0.25 --pid="$$" -f /dev/null
       [ -n "$st" ] && [ "$(cut -d' ' -f22 "/proc/$1/stat" 2>/dev/null)" = "$st" ] && kill -TERM "$1"
      ) </dev/null >/dev/null 2>&1 & )
}

# stop_serve NAME: SIGTERM, then wait for it to end (it must within
# seconds) and check it ended well: exit 0, no sanitizer report.
stop_serve() {
    pid=$(cat "$T/$1.pid" 2>/dev/null) || return 0
    rm -f "$T/$1.pid"
    kill -TERM "$pid" 2>/dev/null
    i=0
    while kill -0 "$pid" 2>/dev/null && [ $i -lt 100 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    kill -KILL "$pid" 2>/dev/null
    wait "$pid"
    src=$?
    if [ $src -ne 0 ] || grep -Eq 'ERROR: (Address|Leak|Thread)Sanitizer|runtime error' "$T/$1.err"; then
        fail "serve $1 ends cleanly" "exit $src: $(grep -Em3 'Sanitizer|runtime error|error' "$T/$1.err" | tr '\n' ' ' | head -c 300)"
    fi
}

# start_hostile SCRIPT ARGS...: python3 tests/hostile/SCRIPT with a port
# file first and ARGS after, in the background; $HOSTILE_PID, and its port
# in $HOSTILE_PORT once it listens (at most 10 s; empty if it never does).
# The caller ends it: stop_hostile.
start_hostile() {
    hs_script=$1
    shift
    rm -f "$T/hostile.port"
    python3 "$TOP/tests/hostile/$hs_script" "$T/hostile.port" "$@" &
    HOSTILE_PID=$!
    i=0
    while [ ! -s "$T/hostile.port" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
    HOSTILE_PORT=$(cat "$T/hostile.port" 2>/dev/null)
}

stop_hostile() {
    kill "$HOSTILE_PID" 2>/dev/null
    wait "$HOSTILE_PID" 2>/dev/null
}

# interrupt_bg PID PATTERN NAME: once $T/out has a line matching PATTERN
# (the run started; at most 10 s) and half a second more, SIGINT to PID;
# the caller empties $T/out before it starts PID (a last run's line would
# match at once);
# PASS NAME when it ends with exit 130 within 5 s (then KILLed).  Sets $rc.
interrupt_bg() {
    ib_pid=$1 ib_pat=$2 ib_name=$3
    i=0
    until grep -q "$ib_pat" "$T/out" 2>/dev/null || [ $i -ge 100 ]; do sleep 0.1; i=$((i + 1)); done
    sleep 0.5
    kill -INT "$ib_pid" 2>/dev/null
    ib_start=$(date +%s)
    i=0
    while kill -0 "$ib_pid" 2>/dev/null && [ $i -lt 150 ]; do sleep 0.1; i=$((i + 1)); done
    ib_took=$(($(date +%s) - ib_start))
    kill -KILL "$ib_pid" 2>/dev/null
    wait "$ib_pid"
    rc=$?
    if [ $rc -eq 130 ] && [ "$ib_took" -le 5 ]; then pass "$ib_name: exit 130 in ${ib_took}s"
    else fail "$ib_name: exit 130 within 5 s" "exit $rc after ${ib_took}s: $(tail -c 200 "$T/err")"; fi
}

rest_stop_all() {
    for s in $SERVERS; do stop_serve "$s"; done
}

# no_secret NAME SECRET FILE...: SECRET appears in none of the files.
no_secret() {
    name=$1 secret=$2
    shift 2
    for f in "$@"; do
        if [ -e "$f" ] && grep -Fq -- "$secret" "$f"; then
            fail "$name" "the secret appears in $(basename "$f")"
            return 0
        fi
    done
    pass "$name"
}
