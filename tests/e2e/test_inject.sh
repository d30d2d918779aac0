#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_inject.sh - values a server sends that hsmbench sends back
# (issue 23, item 3): an SDKMS access_token or kid with CR LF in it is
# refused (BAD_VALUE), never a header of a later request; a kid that would
# leave /crypto/v1/keys/ (/, ?, #) is percent-encoded in the DELETE's path;
# an iv going back into a body is checked as the base64 it must be.  The
# server is tests/hostile/sdkms_server.py, which logs every request's
# headers as received.
# asan: yes (values a hostile server sends that go back into requests)
. "$TOP/tests/e2e/lib.sh"

HOSTILE_SDKMS="$TOP/tests/hostile/sdkms_server.py"
export SDKMS_KEY="api-key-$$"
N=0

# hostile MODE: the hostile server in MODE on $PORT, its log in $LOG.
hostile() {
    N=$((N + 1))
    LOG="$T/$1.$N.log"
    : >"$LOG"
    rm -f "$T/port"
    python3 "$HOSTILE_SDKMS" "$T/port" "$LOG" "$1" 60 &
    HPID=$!
    i=0
    while [ ! -s "$T/port" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
    PORT=$(cat "$T/port" 2>/dev/null)
    [ -n "$PORT" ] || { fail "hostile SDKMS server ($1) starts" "no port"; return 1; }
}
done_hostile() {
    kill "$HPID" 2>/dev/null
    wait "$HPID" 2>/dev/null
    return 0
}
sdkms() {
    run "$HSMBENCH" rest sdkms --endpoint "http://127.0.0.1:$PORT" --api-key-env SDKMS_KEY "$@"
}
# no_injected NAME: no request in $LOG carried X-Injected, nor a header
# value or path with CR or LF in it.
no_injected() {
    if python3 - "$LOG" <<'PY'
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
bad = [r for r in reqs if any(k.lower() == "x-injected" or "\r" in v or "\n" in v for k, v in r["headers"])
       or "\r" in r["path"] or "\n" in r["path"]]
sys.exit(1 if bad or not reqs else 0)
PY
    then pass "$1"; else fail "$1" "$(grep -i -m1 'x-injected' "$LOG" | head -c 300)"; fi
}
# requests NAME PYTHON-EXPR: EXPR over reqs (the log's requests) is true.
requests() {
    if python3 - "$LOG" "$2" <<'PY'
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
sys.exit(0 if eval(sys.argv[2]) else 1)
PY
    then pass "$1"; else fail "$1" "$2: $(cut -c1-120 "$LOG" | tr '\n' ' ' | head -c 600)"; fi
}

# ---- the access_token ------------------------------------------------------------
hostile token-crlf || exit 0
sdkms --op sign --alg EC --iterations 5
check_one_line_error "access_token with CR LF: refused at set-up, exit 3, BAD_VALUE named" 3 \
    'SDKMS authentication: .*access_token.*BAD_VALUE'
no_injected "access_token with CR LF: no request carries the injected header"
requests "access_token with CR LF: nothing sent with it (only the logins)" \
    'all(r["path"] == "/sys/v1/session/auth" for r in reqs)'
done_hostile

# counted MODE WHAT EXPR OPTIONS...: a run against MODE finishes with exit 1,
# EXPR over its errors_by_code (codes) holds, no request was injected.
counted() {
    hostile "$1" || return 0
    what=$2 expr=$3
    shift 3
    sdkms --alg EC "$@" --json "$T/counted.json"
    check "$what: the run finishes, exit 1" 1
    json_check "$what: $expr" "$T/counted.json" "(lambda codes: $expr)(runs[0]['errors_by_code'])"
    no_injected "$what: no request carries the injected header"
    done_hostile
}
counted reauth-crlf "a re-login answered with CR LF" 'codes.get("BAD_VALUE", 0) >= 1' \
    --op sign --iterations 20

# ---- the kid ---------------------------------------------------------------------
hostile kid-crlf || exit 0
sdkms --op sign --alg EC --iterations 5
check_one_line_error "kid with CR LF: refused at the worker's set-up, exit 1, BAD_VALUE named" 1 \
    'SDKMS key creation: .*kid.*BAD_VALUE'
no_injected "kid with CR LF: no request carries it"
done_hostile

counted kid-crlf "keygen answered kids with CR LF (each an error, none kept to delete)" \
    'codes.get("BAD_VALUE", 0) == 5' --op keygen --iterations 5

hostile kid-path || exit 0
sdkms --op sign --alg EC --iterations 5
check "kid with / ? #: the run works, exit 0" 0
requests "kid with / ? #: DELETE /crypto/v1/keys/ONE-SEGMENT, percent-encoded" \
    '[r["path"] for r in reqs if r["method"] == "DELETE"] == ["/crypto/v1/keys/..%2F..%2Fsys%2Fv1%2Fsession%2Fterminate%3Fx%3D1%23f"]'
requests "kid with / ? #: no request leaves the paths hsmbench chose" \
    'not any("?" in r["path"] or "#" in r["path"] or "/../" in r["path"] for r in reqs) and [r["path"] for r in reqs if r["method"] == "POST" and r["path"].endswith("/terminate")] == ["/sys/v1/session/terminate"] * 2'
done_hostile

hostile kid-path || exit 0
sdkms --op keygen --alg EC --iterations 3
check "keygen's kids with / ? #: exit 0" 0
requests "keygen's kids with / ? #: each DELETE percent-encoded, one segment" \
    'sum(r["path"] == "/crypto/v1/keys/..%2F..%2Fsys%2Fv1%2Fsession%2Fterminate%3Fx%3D1%23f" for r in reqs if r["method"] == "DELETE") == 3'
done_hostile

# ---- a body value: the iv decrypt sends back ---------------------------------------
hostile iv-crlf || exit 0
sdkms --op decrypt --alg AES --iterations 5
check_one_line_error "an iv with CR LF for decrypt's body: refused at the worker's set-up, exit 1" 1 \
    "SDKMS encrypt \\(set-up\\): the answer's iv is not base64"

requests "an iv with CR LF: no decrypt sent with it" \
    'not any(r["path"] == "/crypto/v1/decrypt" for r in reqs)'
done_hostile

# ---- well-formed values still work -------------------------------------------------
hostile good || exit 0
sdkms --op sign --alg EC --iterations 5
check "well-formed token and kid: exit 0" 0
requests "well-formed: the bearer token sent as given, the kid's DELETE as given" \
    'any(dict(r["headers"]).get("Authorization") == "Bearer good-token" for r in reqs) and [r["path"] for r in reqs if r["method"] == "DELETE"] == ["/crypto/v1/keys/k1"]'
done_hostile
