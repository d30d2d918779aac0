# SPDX-License-Identifier: Apache-2.0
# tests/e2e/lib.sh - helpers every end-to-end script sources.
#
# Environment from tests/run.sh: HSMBENCH (the binary under test), NULLP11
# (the do-nothing module), VARIANT (plain, asan, tsan), TOP (the repo).
# Each script gets a private HSMBENCH_HOME, so its SoftHSM token is its own.
set -u
: "${HSMBENCH:?}" "${NULLP11:?}" "${TOP:?}"
VARIANT=${VARIANT:-plain}
T=$(mktemp -d "${TMPDIR:-/tmp}/hsmbench-e2e.XXXXXX")
trap 'rm -rf "$T"' EXIT
export HSMBENCH_HOME="$T/home"
unset HSM_PIN SOFTHSM2_CONF || true

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }
# skip NAME WHY: NAME could not be checked here, for want of WHY (a tool, a
# privilege, an address).  Never a PASS: tests/run.sh counts skips apart,
# and under CI (CI=true) a skip fails the run.  A check that does not apply
# to this build variant is not a skip: it is simply not run.
skip() { echo "SKIP $1: $2"; }
# all_cases: true in the plain build, where a script runs every case.  A
# sanitizer build runs three to ten times slower, so there a heavy script
# (one that measures the mock's own delays, or loads both cores) runs only
# the cases that reach code no other case reaches, for the sanitizer to see;
# the measurements are the plain build's.  A case that does not run prints
# nothing (it is not a skip).
all_cases() { [ "$VARIANT" = plain ]; }

# run CMD...: runs with a time limit, sets $rc, $T/out, $T/err.
run() {
    timeout -s INT 120 "$@" >"$T/out" 2>"$T/err"
    rc=$?
}

# gist FILE: FILE on one line for a failure's message, its first 300 bytes
# and, when it is longer than 600, its last 300 too: a table ends with the
# line a check looks for (compare's rule results come last).
gist() {
    if [ "$({ wc -c <"$1"; } 2>/dev/null || echo 0)" -gt 600 ]; then
        { head -c 300 "$1"; printf ' ... '; tail -c 300 "$1"; } | tr '\n' ' '
    else { tr '\n' ' ' <"$1"; } 2>/dev/null; fi
}

# check NAME EXPECTED_RC [GREP_PATTERN_IN_STDOUT [GREP_PATTERN_IN_STDERR]]
check() {
    name=$1 want=$2 out_pat=${3:-} err_pat=${4:-}
    if [ "$rc" -ne "$want" ]; then
        fail "$name" "exit $rc, expected $want; stderr: $(head -c 300 "$T/err" | tr '\n' ' ')"
        return 1
    fi
    if [ -n "$out_pat" ] && ! grep -Eq -- "$out_pat" "$T/out"; then
        fail "$name" "stdout lacks /$out_pat/: $(gist "$T/out")"
        return 1
    fi
    if [ -n "$err_pat" ] && ! grep -Eq -- "$err_pat" "$T/err"; then
        fail "$name" "stderr lacks /$err_pat/: $(gist "$T/err")"
        return 1
    fi
    pass "$name"
}

# An error must be exactly one line on stderr, naming what was wrong.
check_one_line_error() {
    name=$1 want=$2 pat=$3
    lines=$(grep -vc '^hsmbench: warning:' "$T/err")
    if [ "$rc" -ne "$want" ]; then
        fail "$name" "exit $rc, expected $want; stderr: $(head -c 300 "$T/err" | tr '\n' ' ')"
    elif [ "$lines" -ne 1 ]; then
        fail "$name" "expected one error line, got $lines: $(head -c 300 "$T/err" | tr '\n' ' ')"
    elif ! grep -Eq -- "$pat" "$T/err"; then
        fail "$name" "stderr lacks /$pat/: $(cat "$T/err")"
    else
        pass "$name"
    fi
}

# json_check NAME FILE EXPR: the Python expression EXPR is true of FILE's
# JSON (doc, and runs: doc["runs"]).  jq-free: python3 is on every Debian
# machine we target.  One interpreter a script (tests/e2e/jsoncheck.py,
# started at the first check, over two FIFOs in $T), not one a check: the
# suite made some 750 checks, each a start of 35 to 70 ms of CPU.  -S: no
# site module (the standard library is all it needs).
json_check() {
    name=$1 file=$2 expr=$3
    if [ -z "${jc_pid:-}" ] && [ -s "$T/jc.pid" ]; then read -r jc_pid <"$T/jc.pid"; fi
    if [ -z "${jc_pid:-}" ] || ! kill -0 "$jc_pid" 2>/dev/null; then
        { [ -p "$T/jc.req" ] || mkfifo "$T/jc.req"; } && { [ -p "$T/jc.ans" ] || mkfifo "$T/jc.ans"; } || {
            fail "$name" "JSON check not run: no FIFO in $T"
            return 1
        }
        # Detached (started by a subshell that ends at once): a script's
        # bare "wait" waits for its own servers, not for this.
        (python3 -S "$TOP/tests/e2e/jsoncheck.py" "$T/jc.req" "$T/jc.ans" $$ </dev/null >"$T/jc.log" 2>&1 &
            echo $! >"$T/jc.pid")
        read -r jc_pid <"$T/jc.pid"
    fi
    printf '%s\0%s\0%s\0' "$PWD" "$file" "$expr" >"$T/jc.req"
    # A whole line, or the answer FIFO opened before the last answer's
    # writer had closed it (an end of file, no line): open it again.
    until IFS= read -r jc_line <"$T/jc.ans"; do :; done
    if [ "$jc_line" = PASS ]; then pass "$name"
    else fail "$name" "JSON check failed: $3 ${jc_line#FAIL}"; fi
}

# file_has NAME FILE ERE: FILE (e.g. "$T/out") has a line matching ERE.
file_has() {
    if grep -Eq -- "$3" "$2" 2>/dev/null; then pass "$1"
    else fail "$1" "$(basename "$2") lacks /$3/: $(gist "$2")"; fi
}

# file_lacks NAME FILE STRING: FILE does not contain STRING (fixed text).
file_lacks() {
    if [ -e "$2" ] && grep -Fq -- "$3" "$2"; then fail "$1" "$(basename "$2") contains '$3'"
    else pass "$1"; fi
}

# softhsm_env: point SoftHSM tools at this script's private demo token
# configuration (the tool creates it on first use), and set $PINFILE.
softhsm_env() {
    SOFTHSM2_CONF="$HSMBENCH_HOME/softhsm/softhsm2.conf"
    PINFILE="$HSMBENCH_HOME/softhsm/user.pin"
    export SOFTHSM2_CONF
}
SOFTHSM=${SOFTHSM:-/usr/lib/softhsm/libsofthsm2.so}

# need_mock: set $MOCK to the mock HSM beside the null module; when it was
# not built, fail "mock HSM built" and return 1 (the script then exits 0).
need_mock() {
    MOCK="$(dirname "$NULLP11")/libhsmbench-mock.so"
    [ -f "$MOCK" ] && return 0
    fail "mock HSM built" "$MOCK is missing (make all)"
    return 1
}

# await_file FILE: wait (at most 10 s, in tenths) until FILE is not empty, as
# the exit status a command run in tmux writes there.
await_file() {
    n=0
    until [ -s "$1" ] || [ "$n" -ge 100 ]; do
        sleep 0.1
        n=$((n + 1))
    done
}

# demo_objects: how many objects the demo token holds (token objects, logged
# in with its PIN file); SOFTHSM2_CONF must name its configuration
# (softhsm_env).
demo_objects() {
    pkcs11-tool --module "$SOFTHSM" --token-label hsmbench-demo --login \
        --pin "$(cat "$HSMBENCH_HOME/softhsm/user.pin")" -O 2>/dev/null | grep -c 'Object;'
}

# demo_with_user_key: set up the demo token (a short run), put an object of
# the user's own on it (an AES key labelled e2e-user-key, which hsmbench
# must never touch), check that demo_objects counts it, and leave that
# count in $before.
demo_with_user_key() {
    run "$HSMBENCH" run --test sha256-digest --iterations 10 --quiet
    check "demo token set up" 0
    softhsm_env
    pkcs11-tool --module "$SOFTHSM" --token-label hsmbench-demo --login --pin "$(cat "$PINFILE")" \
        --keygen --key-type AES:16 --label e2e-user-key >"$T/keygen.out" 2>&1
    before=$(demo_objects)
    if [ "$before" = 1 ]; then pass "object count works (one user key on the token)"
    else fail "object count works (one user key on the token)" "count '$before': $(head -c 300 "$T/keygen.out")"; fi
}

# prom_count FILE ROUTE [STATUS]: what serve's metrics FILE counted on ROUTE
# (every status, or STATUS alone).
prom_count() {
    awk -v r="$2" -v s="${3:-}" '
        $1 ~ /^hsmbench_serve_requests_total\{/ {
            if (index($1, "route=\"" r "\"") == 0) next
            if (s != "" && index($1, "status=\"" s "\"") == 0) next
            n += $2 }
        END { print n + 0 }' "$1"
}

# metrics_url FILE: the URL hsmbench printed on stderr for --metrics-listen
# (waits for it, at most 30 s).
metrics_url() {
    i=0
    while [ $i -lt 300 ]; do
        u=$(sed -n 's/^hsmbench: metrics on \(http[^ ]*\)$/\1/p' "$1" 2>/dev/null)
        [ -n "$u" ] && { echo "$u"; return 0; }
        sleep 0.1
        i=$((i + 1))
    done
    return 1
}

# prom_start CONFIG DIR: a Prometheus (Debian's) with CONFIG, its data in
# DIR/tsdb and its log in DIR/prom.log, on a free loopback port; sets
# $PROM (its URL) and $PROM_PID (the caller kills it; the timeout is only a
# net, long enough for a sanitizer build on a busy machine).  Exit 1 when it
# did not listen within 20 s.
prom_start() {
    timeout 1800 prometheus --config.file="$1" --storage.tsdb.path="$2/tsdb" \
        --web.listen-address=127.0.0.1:0 --storage.tsdb.retention.time=1h >"$2/prom.log" 2>&1 &
    PROM_PID=$!
    PROM=
    ps_i=0
    while [ -z "$PROM" ] && [ $ps_i -lt 200 ]; do
        PROM=$(sed -n 's/.*msg="Listening on" address=\(127\.0\.0\.1:[0-9]*\).*/http:\/\/\1/p' "$2/prom.log")
        sleep 0.1
        ps_i=$((ps_i + 1))
    done
    [ -n "$PROM" ]
}

# prom_query EXPR: the value of an instant query at Prometheus ($PROM), or
# "error: ..." / "empty"; a vector's values joined by spaces.
prom_query() {
    python3 -S - "$PROM" "$1" <<'PY'
import json, sys, urllib.parse, urllib.request
url = sys.argv[1] + "/api/v1/query?" + urllib.parse.urlencode({"query": sys.argv[2]})
try:
    d = json.load(urllib.request.urlopen(url, timeout=10))
except Exception as e:
    body = getattr(e, "read", lambda: b"")().decode(errors="replace")
    print("error:", e, body[:200])
    sys.exit(0)
if d.get("status") != "success":
    print("error:", d.get("error"))
elif not d["data"]["result"]:
    print("empty")
elif d["data"]["resultType"] == "scalar":
    print(d["data"]["result"][1])
else:
    print(" ".join(r["value"][1] for r in d["data"]["result"]))
PY
}

