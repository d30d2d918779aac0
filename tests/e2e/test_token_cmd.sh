#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_token_cmd.sh - bearer tokens that expire (issue 39, item 7):
# the Thales EKM k6 package's Google token lasts an hour and its set-up is
# re-run to renew it; hsmbench rest ekm --token-cmd runs a command for a
# fresh one before expiry and on a 401.  Simulated with hsmbench serve
# --ekm-token-ttl issuing tokens of 2-3 s (POST /token, a JWT with exp;
# /token/opaque, one without), a run three times as long:
#   every operation authenticated, counted by serve's own issuer (valid
#     tokens == the set-up request + operations; tokens issued == 1 + the
#     refreshes hsmbench reports, plus at most the refreshes it cut off at
#     the run's end; 401s == the requests it sent again);
#   the refreshes are what the lifetimes imply (within 1), both engines,
#     blocking and non-blocking;
#   an opaque token with a long --token-ttl is renewed on its 401 instead;
#   a command that fails at start: one line, exit 3, its stderr redacted;
#     that fails later: the run goes on with the old token, then fails
#     (exit 1) with a line naming the command's exit status;
#   a refresh still running when the run ends (a slow command) is cut off,
#     not waited for, and counted (cancelled): serve's count is then within
#     1 + refreshes .. 1 + refreshes + cancelled, rest ekm and rest http;
#   no token reaches any output.
# Every run bounded (--duration, --rate or --think); serve on port 0.
# tsan: yes (a bearer token shared by the workers, replaced mid-run by the command, blocking and non-blocking; the refresher halted mid-refresh at the run's end)
. "$TOP/tests/e2e/lib.sh"
REST_LIB_SOURCE=1 . "$TOP/tests/e2e/test_rest_lib.sh"

command -v curl >/dev/null || { skip "token command" "no curl"; exit 0; }

# witness NAME: serve NAME's own counts, from its closing line, in $issued,
# $valid, $expired, $unknown (after stop_serve).
witness() {
    line=$(grep '^hsmbench serve: EKM tokens:' "$T/$1.out")
    issued=$(printf '%s\n' "$line" | sed -n 's/.*tokens: \([0-9]*\) issued.*/\1/p')
    valid=$(printf '%s\n' "$line" | sed -n 's/.*valid token \([0-9]*\),.*/\1/p')
    expired=$(printf '%s\n' "$line" | sed -n 's/.*refused: \([0-9]*\) expired.*/\1/p')
    unknown=$(printf '%s\n' "$line" | sed -n 's/.*expired, \([0-9]*\) unknown.*/\1/p')
    [ -n "$issued" ] && [ -n "$valid" ] && [ -n "$expired" ] && [ -n "$unknown" ]
}

# jget FILE EXPR: a value of the results file (runs[0] as r).
jget() {
    python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["runs"][0]; print(eval(sys.argv[2]))' "$1" "$2"
}

# issued_check NAME FILE: serve's $issued tokens are the first, the refreshes
# in FILE, and at most the refreshes it cut off when the run ended (each may
# or may not have had its token from serve before it was killed); sets
# $refreshes and $cancelled.
issued_check() {
    refreshes=$(jget "$2" 'r["rest"]["token_refreshes"]["refreshes"]')
    cancelled=$(jget "$2" 'r["rest"]["token_refreshes"].get("cancelled", 0)')
    if [ "$issued" -ge $((refreshes + 1)) ] && [ "$issued" -le $((refreshes + 1 + cancelled)) ]; then
        pass "$1: serve issued $issued tokens = 1 + $refreshes refreshes (+ up to $cancelled cut off)"
    else
        fail "$1: tokens issued = 1 + refreshes (+ up to those cut off)" "serve issued $issued, hsmbench says $refreshes refreshes, $cancelled cut off"
    fi
}

# token_run NAME TOKEN-CMD CLIENT-ARGS...: against serve NAME (started), a
# run with --token-cmd TOKEN-CMD, its results in $T/NAME.json, its wall
# time from $t0 to $t1; then serve stopped and its counts read (witness).
# The client is rest ekm, or rest http POSTing an EKM wrap when $VIA is http.
# 1 (a FAIL said) when the run failed (exit 0 expected) or serve's counts lack.
VIA=ekm
token_run() {
    tn=$1 tcmd=$2
    shift 2
    if [ "$VIA" = http ]; then
        set -- http --url "$URL/ekm/k1:wrap" --body '{"plaintext":"AAECAwQFBgc="}' "$@"
    else
        set -- ekm --endpoint "$URL/ekm/k1" "$@"
    fi
    t0=$(date +%s.%N)
    "$HSMBENCH" rest "$@" --token-cmd "$tcmd" \
        --json "$T/$tn.json" >"$T/$tn.cout" 2>"$T/$tn.cerr" </dev/null
    crc=$?
    t1=$(date +%s.%N)
    stop_serve "$tn"
    if [ $crc -ne 0 ]; then
        fail "$tn: the run completes" "exit $crc: $(head -c 300 "$T/$tn.cerr" | tr '\n' ' ')"
        return 1
    fi
    witness "$tn" || { fail "$tn: serve's token counts" "$(cat "$T/$tn.out")"; return 1; }
}

# expiring NAME TTL_S RUN_S CLIENT-ARGS...: serve issuing TTL_S tokens, a
# run of RUN_S seconds taking them from --token-cmd; then every count.
expiring() {
    name=$1 ttl=$2 secs=$3
    shift 3
    start_serve "$name" --ekm-token-ttl "${ttl}s" || return 0
    token_run "$name" "curl -sf -X POST $URL/token" --duration "$secs" "$@" || return 0
    ops=$(jget "$T/$name.json" 'r["ops"]')
    errors=$(jget "$T/$name.json" 'r["errors"]')
    retried=$(jget "$T/$name.json" 'r["rest"]["token_refreshes"]["retried_requests"]')
    # Every operation authenticated, as serve counted: the set-up's wrap
    # and each operation's request; a 401 (a refresh slower than the last
    # tenth of a lifetime, on a busy machine) only where hsmbench sent the
    # request again with the new token.
    if [ "$errors" -eq 0 ] && [ "$ops" -gt 0 ] && [ "$valid" -eq $((ops + 1)) ] &&
        [ "$expired" -eq "$retried" ] && [ "$unknown" -eq 0 ]; then
        pass "$name: all $ops operations authenticated (serve: $valid valid, $expired expired and sent again)"
    else
        fail "$name: all operations authenticated" "ops $ops errors $errors retried $retried; serve: valid $valid expired $expired unknown $unknown"
    fi
    issued_check "$name" "$T/$name.json"
    # A token lives ttl s and is renewed at 90 % of it: the run's wall time
    # (set-up and tear-down included) implies this many refreshes.
    implied=$(python3 -c "import sys; print(int((float(sys.argv[2]) - float(sys.argv[1])) / (0.9 * $ttl)))" "$t0" "$t1")
    if [ $((refreshes - implied)) -le 1 ] && [ $((implied - refreshes)) -le 1 ]; then
        pass "$name: $refreshes refreshes, $implied implied by the lifetimes"
    else
        fail "$name: refreshes as the lifetimes imply (within 1)" "$refreshes, implied $implied"
    fi
    file_has "$name: the summary shows the refreshes" "$T/$name.cout" "token refreshes: +$refreshes "
    file_lacks "$name: no token in the summary" "$T/$name.cout" "eyJ"
    file_lacks "$name: no token on stderr" "$T/$name.cerr" "eyJ"
    file_lacks "$name: no token in the results" "$T/$name.json" "eyJ"
}

# The 2-hour-token scenario in small: tokens of 3 s, a run of 9 s.
expiring lean_nb 3 9 --mode nonblocking --rate 10
# The libcurl engine and blocking workers take the new token too.
if all_cases; then
    expiring libcurl_blocking 2 6 --engine libcurl --threads 2 --think 100ms
    expiring libcurl_nb 2 6 --engine libcurl --mode nonblocking --rate 10
fi
# rest http takes it too, where a bearer token is sent (an EKM wrap here).
VIA=http
expiring http_nb 2 6 --mode nonblocking --rate 10
all_cases && expiring http_libcurl_blocking 2 6 --engine libcurl --threads 2 --think 100ms
VIA=ekm

# An opaque token (no exp) with a --token-ttl longer than its life: hsmbench
# cannot know it expires; the 401 renews it and the request goes again
# (rest http, and rest ekm in the plain build).
opaque() {
    start_serve opaque --ekm-token-ttl 2s || return 0
    if [ "$1" = http ]; then
        set -- http --url "$URL/ekm/k1:wrap" --body '{"plaintext":"AAECAwQFBgc="}'
    else
        set -- ekm --endpoint "$URL/ekm/k1"
    fi
    "$HSMBENCH" rest "$@" --token-cmd "curl -sf -X POST $URL/token/opaque" \
        --token-ttl 1h --duration 5 --mode nonblocking --rate 10 --json "$T/opaque.json" \
        >"$T/opaque.cout" 2>"$T/opaque.cerr" </dev/null
    crc=$?
    stop_serve opaque
    if [ $crc -eq 0 ] && witness opaque; then
        ops=$(jget "$T/opaque.json" 'r["ops"]')
        after=$(jget "$T/opaque.json" 'r["rest"]["token_refreshes"]["after_401"]')
        refreshes=$(jget "$T/opaque.json" 'r["rest"]["token_refreshes"]["refreshes"]')
        retried=$(jget "$T/opaque.json" 'r["rest"]["token_refreshes"]["retried_requests"]')
        errors=$(jget "$T/opaque.json" 'r["errors"]')
        if [ "$errors" -eq 0 ] && [ "$after" -ge 1 ] && [ "$after" -le 3 ] && [ "$after" -eq "$refreshes" ] &&
            [ "$expired" -eq "$retried" ] && [ "$valid" -eq $((ops + 1)) ]; then
            pass "opaque token ($1): renewed on its 401 ($after times), every request sent again succeeded"
        else
            fail "opaque token ($1): renewed on its 401" "errors $errors after_401 $after refreshes $refreshes retried $retried; serve: valid $valid expired $expired ops $ops"
        fi
        issued_check "opaque token ($1)" "$T/opaque.json"
        json_check "opaque token ($1): the results count the 401s in http" "$T/opaque.json" \
            'runs[0]["http"]["status_counts"].get("401", 0) == runs[0]["rest"]["token_refreshes"]["retried_requests"]'
    else
        fail "opaque token ($1): the run completes" "exit $crc: $(head -c 300 "$T/opaque.cerr" | tr '\n' ' ')"
    fi
}
opaque http
all_cases && opaque ekm

# A refresh still running when the run ends: the command gets its token from
# serve at once and then takes 10 s more (a slow gcloud), the first run
# excepted; --token-ttl 1s renews at 0.9 s, so a refresh has its token from
# serve and is still running when --duration 2 ends.  It is cut off, not
# waited for (the run ends within 4 s of its duration, not after the 10 s),
# and counted: the run is a success (exit 0), its results and summary say
# one refresh cut off, and serve issued 1 + refreshes + (0..cut off) tokens
# (before, the refresh was killed unseen at exit: serve issued 2, hsmbench
# said 1 + 0).  Serve's tokens last a minute: no 401.
cutoff() {
    cn=cutoff_$1 VIA=$1
    start_serve "$cn" --ekm-token-ttl 60s || return 0
    flag="$T/$cn.flag"
    token_run "$cn" "curl -sf -X POST $URL/token/opaque && { test -e $flag && sleep 10; touch $flag; }" \
        --duration 2 --mode nonblocking --rate 10 --token-ttl 1s || return 0
    issued_check "$cn: a refresh running at the end" "$T/$cn.json"
    secs=$(python3 -c "import sys; print('%.1f' % (float(sys.argv[2]) - float(sys.argv[1])))" "$t0" "$t1")
    if [ "${secs%.*}" -lt 6 ]; then
        pass "$cn: the refresh is cut off, not waited for (the run took $secs s)"
    else
        fail "$cn: the refresh is cut off, not waited for" "the run took $secs s (its --duration 2, the command 10 s)"
    fi
    json_check "$cn: the results count the refresh cut off" "$T/$cn.json" \
        'runs[0]["rest"]["token_refreshes"].get("cancelled") == 1 and runs[0]["rest"]["token_refreshes"]["failed"] == 0'
    file_has "$cn: the summary says it was cut off" "$T/$cn.cout" \
        "token refreshes: +$refreshes .*; 1 cut off when a run ended"
}
cutoff ekm
cutoff http
VIA=ekm

# A command that fails at start: one line, exit 3 (a set-up failure), its
# exit status and the first line of its stderr, the token-like word cut out.
run "$HSMBENCH" rest ekm --endpoint http://127.0.0.1:9/ekm/k1 --duration 1 \
    --token-cmd "echo 'ERROR: (gcloud.auth) expired ya29.a0AfB_byC4secretsecretsecret' >&2; echo second >&2; exit 1"
check_one_line_error "failing --token-cmd: one line, exit 3" 3 "--token-cmd: the command exited with status 1: ERROR: \(gcloud.auth\) expired \*\*\*$"
file_lacks "failing --token-cmd: the token-like word is cut out" "$T/err" "ya29"
file_lacks "failing --token-cmd: only the first line of its stderr" "$T/err" "second"
run "$HSMBENCH" rest ekm --endpoint http://127.0.0.1:9/ekm/k1 --duration 1 --token-cmd "printf ''"
check_one_line_error "--token-cmd printing nothing: one line, exit 3" 3 "printed no token"
run "$HSMBENCH" rest http --url http://127.0.0.1:9/ekm/k1:wrap --duration 1 --token-cmd "exit 2"
check_one_line_error "rest http, failing --token-cmd: one line, exit 3" 3 "--token-cmd: the command exited with status 2$"
run "$HSMBENCH" rest http --url http://127.0.0.1:9/ekm/k1:wrap --token-cmd "echo x" --bearer-env G_TOKEN
check_one_line_error "rest http, --token-cmd with --bearer-env: exit 2" 2 "give only one"
run "$HSMBENCH" rest ekm --endpoint http://127.0.0.1:9/ekm/k1 --token-ttl 10m --token-env G_TOKEN
check_one_line_error "--token-ttl without --token-cmd: exit 2" 2 "needs --token-cmd"
run "$HSMBENCH" rest ekm --endpoint http://127.0.0.1:9/ekm/k1 --token-cmd "echo x" --token-env G_TOKEN
check_one_line_error "--token-cmd with --token-env: exit 2" 2 "give only one"
run "$HSMBENCH" rest ekm --endpoint http://127.0.0.1:9/ekm/k1 --token-cmd "echo x" --token-ttl 0.5s
check_one_line_error "--token-ttl under a second: exit 2" 2 "--token-ttl"

# A command that works once, then fails: the run keeps the last token until
# it expires, then its operations fail (401) and the run says why (exit 1).
if all_cases; then
    start_serve later --ekm-token-ttl 2s && {
        flag="$T/later.flag"
        "$HSMBENCH" rest ekm --endpoint "$URL/ekm/k1" --duration 4 --mode nonblocking --rate 10 \
            --token-cmd "if test -e $flag; then echo 'refused: account disabled' >&2; exit 7; fi; touch $flag; curl -sf -X POST $URL/token" \
            --json "$T/later.json" >"$T/later.cout" 2>"$T/later.cerr" </dev/null
        crc=$?
        stop_serve later
        if [ $crc -eq 1 ] && grep -q 'run.* of --token-cmd gave no token (the last: --token-cmd: the command exited with status 7: refused: account disabled)' "$T/later.cerr"; then
            pass "a refresh that fails: the run goes on, then exit 1 with the command's status"
        else
            fail "a refresh that fails: exit 1 and why" "exit $crc: $(head -c 400 "$T/later.cerr" | tr '\n' ' ')"
        fi
        json_check "a refresh that fails: operations before the expiry succeeded, after it 401" "$T/later.json" \
            'runs[0]["ops"] > 0 and runs[0]["errors"] > 0 and runs[0]["rest"]["token_refreshes"]["failed"] >= 1'
    }
fi
