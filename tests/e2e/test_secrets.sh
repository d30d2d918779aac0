#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_secrets.sh - no secret in the process list, a core dump, a
# URL written out or a header (issue 23, item 7).  Each secret is a random
# string, looked for as fixed text:
#   (a) /proc/PID/cmdline, read while the run runs (the mock's service time,
#       serve's --latency keep it running): --pin, --pin=, --uri's pin-value,
#       keys create --pin, rest ekm --token, rest sdkms --api-key, rest http's
#       secret headers (the list and --secret-header) and its URL's query;
#   (b) core dumps: SIGABRT mid-run with ulimit -c unlimited leaves no core
#       for a run that holds a secret (the process is not dumpable), where a
#       run without one leaves a core (else SKIP: no cores here);
#   (c) every output of rest http (the JSON's command, endpoint.url,
#       mechanism and headers, CSV, HTML, the summary, -v, report's HTML)
#       holds neither the URL's query nor a secret header's value, and
#       --header-env / --header-file send a header whose value is redacted.
. "$(dirname "$0")/lib.sh"
REST_LIB_SOURCE=1
. "$(dirname "$0")/test_rest_lib.sh"
need_mock || exit 0

rnd() { echo "$1$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n')"; }
PIN=$(rnd pin)
TOKEN=$(rnd tok)
APIKEY=$(rnd key)
Q=$(rnd query)
HKEY=$(rnd xapikey)
HTOK=$(rnd xauth)
HAUTH=$(rnd bearer)
HCUST=$(rnd custom)
HENV=$(rnd fromenv)
HFILE=$(rnd fromfile)

# cmdline_while NAME SECRETS -- CMD...: start CMD, read its /proc/PID/cmdline
# until it shows the '*'s that replace a secret (at most 10 s, while CMD
# runs), wait for it; every secret must be absent from what was read then.
# (It polled once, a second in: a busy machine could end a short run first
# or not have reached the options yet, so the script had to run alone.)
cmdline_while() {
    name=$1 secrets=$2
    shift 3
    "$@" >"$T/cl.out" 2>"$T/cl.err" &
    pid=$!
    running=1 i=0
    while [ $i -lt 100 ]; do
        tr '\0' ' ' <"/proc/$pid/cmdline" >"$T/cmdline" 2>/dev/null || break
        running=0
        grep -q '\*\*\*' "$T/cmdline" && break
        sleep 0.1
        i=$((i + 1))
    done
    wait "$pid"
    crc=$?
    if [ "$running" -ne 0 ] || [ ! -s "$T/cmdline" ]; then
        fail "$name" "it ended before its cmdline was read (exit $crc): $(head -c 300 "$T/cl.err")"
        return
    fi
    for s in $secrets; do
        if grep -Fq -- "$s" "$T/cmdline"; then
            fail "$name" "/proc/PID/cmdline holds '$s': $(cat "$T/cmdline")"
            return
        fi
    done
    if ! grep -q '\*\*\*' "$T/cmdline"; then
        fail "$name" "no '*'s where the secret was: $(cat "$T/cmdline")"
    elif [ "$crc" -ne 0 ]; then
        fail "$name" "exit $crc: $(head -c 300 "$T/cl.err")"
    else
        pass "$name"
    fi
}

# ---- (a) the process list ------------------------------------------------------------
export HSMBENCH_MOCK="service=fixed:5ms;cores=1;pin=$PIN"
cmdline_while "run --pin: the PIN is not in /proc/PID/cmdline while it runs" "$PIN" -- \
    "$HSMBENCH" run --module "$MOCK" --test sha256-digest --pin "$PIN" --duration 2 --quiet --json "$T/pin.json"
json_check "run --pin: the results file's command shows ***" "$T/pin.json" \
    "'***' in doc['command'] and not any('$PIN' in w for w in doc['command'])"
cmdline_while "run --pin=PIN: not in /proc/PID/cmdline" "$PIN" -- \
    "$HSMBENCH" run --module "$MOCK" --test sha256-digest "--pin=$PIN" --duration 2 --quiet
cmdline_while "run --uri ...;pin-value=PIN: not in /proc/PID/cmdline" "$PIN" -- \
    "$HSMBENCH" run --module "$MOCK" --test sha256-digest --uri "pkcs11:token=mock;pin-value=$PIN" \
    --duration 2 --quiet --json "$T/uri.json"
file_lacks "run --uri: the PIN is not in the results file" "$T/uri.json" "$PIN"
HSMBENCH_MOCK="service=fixed:1500ms;pin=$PIN" cmdline_while \
    "keys create --pin: not in /proc/PID/cmdline" "$PIN" -- \
    "$HSMBENCH" keys create --module "$MOCK" --pin "$PIN" --type ec --label hsmbench-secrets
unset HSMBENCH_MOCK

export EKM_SERVER_TOKEN="$TOKEN" SDKMS_KEY="$APIKEY"
if start_serve plain --ekm-token-env EKM_SERVER_TOKEN --api-key-env SDKMS_KEY --latency 5ms; then
    cmdline_while "rest ekm --token: not in /proc/PID/cmdline" "$TOKEN" -- \
        "$HSMBENCH" rest ekm --endpoint "$URL/ekm/k1" --token "$TOKEN" --duration 2 --quiet
    cmdline_while "rest sdkms --api-key: not in /proc/PID/cmdline" "$APIKEY" -- \
        "$HSMBENCH" rest sdkms --endpoint "$URL" --api-key "$APIKEY" --op encrypt --duration 2 --quiet
    cmdline_while "rest http: X-Api-Key, X-Auth-Token and the URL's query not in /proc/PID/cmdline" \
        "$Q $HKEY $HTOK" -- \
        "$HSMBENCH" rest http --url "$URL/hello?api_key=$Q" --header "X-Api-Key: $HKEY" \
        --header "X-Auth-Token: $HTOK" --duration 2 --quiet
    cmdline_while "rest http: --secret-header's header and Authorization not in /proc/PID/cmdline" \
        "$HAUTH $HCUST" -- \
        "$HSMBENCH" rest http --url "$URL/hello" --header "Authorization: Bearer $HAUTH" \
        --header "X-Custom: $HCUST" --secret-header X-Custom --duration 2 --quiet

    # ---- (c) every output of rest http -------------------------------------------------
    # leak_check WHAT SECRETS: none of the secrets in any output of the run just made.
    leak_check() {
        "$HSMBENCH" report "$T/h.json" --html "$T/report.html" >"$T/report.out" 2>&1
        for f in out err h.json h.csv h.html report.html report.out; do
            leaked=""
            for s in $2; do
                grep -Fq -- "$s" "$T/$f" && leaked="$leaked $s($(grep -cF -- "$s" "$T/$f") lines)"
            done
            if [ -z "$leaked" ]; then pass "$1: none in $f"
            else fail "$1: none in $f" "it holds$leaked"; fi
        done
    }
    # The listed headers and a query, with the flags there have always been.
    run "$HSMBENCH" rest http --url "$URL/hello?api_key=$Q" --header "X-Api-Key: $HKEY" \
        --header "X-Auth-Token: $HTOK" --header "Authorization: Bearer $HAUTH" --iterations 20 \
        --threads 1 -v --json "$T/h.json" --csv "$T/h.csv" --html "$T/h.html"
    check "rest http with X-Api-Key, X-Auth-Token, Authorization and a query: exit 0" 0
    leak_check "rest http: the query, X-Api-Key, X-Auth-Token, Authorization" "$Q $HKEY $HTOK $HAUTH"
    file_has "-v: the request line with its query cut" "$T/err" '^\[w[0-9]+\] > GET /hello\?\*\*\* HTTP/1\.1$'
    json_check "rest http: endpoint.url, mechanism and the command without the query" "$T/h.json" \
        "doc['environment']['endpoint']['url'] == '$URL/hello' and runs[0]['mechanism'] == 'GET $URL/hello' and '$URL/hello' in doc['command']"
    # --secret-header, --header-env, --header-file.
    export HDR_VAR="$HENV"
    printf '%s\n' "$HFILE" >"$T/hdr.txt"
    chmod 600 "$T/hdr.txt"
    run "$HSMBENCH" rest http --url "$URL/hello?api_key=$Q" --header "X-Api-Key: $HKEY" \
        --header "X-Auth-Token: $HTOK" --header "Authorization: Bearer $HAUTH" \
        --header "X-Custom: $HCUST" --secret-header X-Custom --header-env "X-From-Env=HDR_VAR" \
        --header-file "X-From-File=$T/hdr.txt" --iterations 20 --threads 1 -v \
        --json "$T/h.json" --csv "$T/h.csv" --html "$T/h.html"
    check "rest http with --secret-header, --header-env and --header-file: exit 0" 0
    leak_check "rest http: --secret-header's, --header-env's, --header-file's values" \
        "$Q $HKEY $HTOK $HAUTH $HCUST $HENV $HFILE"
    file_has "-v: --header-env's header is sent, its value redacted" "$T/err" '^\[w[0-9]+\] > X-From-Env: \*\*\*$'
    file_has "-v: --header-file's header is sent, its value redacted" "$T/err" '^\[w[0-9]+\] > X-From-File: \*\*\*$'
    file_has "-v: X-Api-Key redacted" "$T/err" '^\[w[0-9]+\] > X-Api-Key: \*\*\*$'
    file_has "-v: --secret-header's header redacted" "$T/err" '^\[w[0-9]+\] > X-Custom: \*\*\*$'
    json_check "rest http: every secret header listed as Name: ***" "$T/h.json" \
        "all(h in runs[0]['rest']['headers'] for h in ['X-Api-Key: ***', 'X-Auth-Token: ***', 'Authorization: ***', 'X-Custom: ***', 'X-From-Env: ***', 'X-From-File: ***'])"
    # The live metrics' labels (target_id) while a run with a query runs.
    "$HSMBENCH" rest http --url "$URL/hello?api_key=$Q" --header "X-Api-Key: $HKEY" --duration 2 \
        --quiet --metrics-listen 127.0.0.1:0 --metrics-linger 1 >/dev/null 2>"$T/m.err" &
    mpid=$!
    if MURL=$(metrics_url "$T/m.err") && curl -fsS "$MURL" >"$T/metrics.txt" 2>&1 &&
        grep -q 'target_id=' "$T/metrics.txt"; then
        if grep -Fq -- "$Q" "$T/metrics.txt" || grep -Fq -- "$HKEY" "$T/metrics.txt"; then
            fail "the live metrics' labels hold no query" "$(grep -F -- "$Q" "$T/metrics.txt" | head -c 300)"
        else pass "the live metrics' labels hold no query"; fi
    else
        fail "the live metrics' labels hold no query" "no metrics: $(head -c 300 "$T/m.err") $(head -c 200 "$T/metrics.txt" 2>/dev/null)"
    fi
    wait "$mpid"
    run "$HSMBENCH" rest http --url "$URL/hello" --header-env "X-From-Env=NO_SUCH_VAR_$$" --iterations 1
    check_one_line_error "--header-env NAME=VAR with VAR unset: one line, exit 2" 2 '--header-env NO_SUCH_VAR'
    run "$HSMBENCH" rest http --url "$URL/hello" --header-file "X-From-File" --iterations 1
    check_one_line_error "--header-file without NAME=: one line, exit 2" 2 '--header-file X-From-File: expected NAME=FILE'
    run "$HSMBENCH" rest http --url "$URL/hello" --secret-header 'X: y' --iterations 1
    check_one_line_error "--secret-header with a ':': one line, exit 2" 2 '--secret-header X: y: expected a header name'
fi

# ---- (b) core dumps ------------------------------------------------------------------------
# abort_run DIR CMD...: CMD in DIR with core dumps on, SIGABRT after a second;
# sets $cores (the number of core files DIR holds after it), and $alive (1 when
# the signal found it running).
abort_run() {
    d=$1
    shift
    mkdir -p "$d"
    (cd "$d" && ulimit -c unlimited && exec "$@") >/dev/null 2>&1 &
    apid=$!
    sleep 1
    alive=0
    # Running (not a zombie waiting to be reaped) when the signal goes.
    grep -Eq '^State:[[:space:]]+[RSD]' "/proc/$apid/status" 2>/dev/null && kill -ABRT "$apid" 2>/dev/null &&
        alive=1
    wait "$apid"
    cores=$(find "$d" -maxdepth 1 -type f -name 'core*' | wc -l)
}

# core_secrets DIR SECRETS: how many times the secrets appear in DIR's cores.
core_secrets() {
    n=0
    for s in $2; do
        for c in "$1"/core*; do
            [ -f "$c" ] && n=$((n + $(grep -aoF -- "$s" "$c" | wc -l)))
        done
    done
    echo "$n"
}

# judge_core NAME DIR SECRET: the run abort_run just aborted left no core.
judge_core() {
    if [ "$alive" -eq 0 ]; then fail "$1" "it ended before the signal"
    elif [ "$cores" -eq 0 ]; then pass "$1"
    else fail "$1" "$cores core(s), holding the secret $(core_secrets "$2" "$3") times"; fi
}

pattern=$(cat /proc/sys/kernel/core_pattern 2>/dev/null)
if [ "$VARIANT" != plain ]; then
    :   # the sanitizers handle SIGABRT themselves: core dumps are the plain build's
elif ! (ulimit -c unlimited) 2>/dev/null; then
    skip "core dumps" "ulimit -c unlimited is refused here"
elif [ "${pattern#|}" != "$pattern" ] || [ "${pattern#/}" != "$pattern" ]; then
    skip "core dumps" "core_pattern '$pattern' sends cores elsewhere than the working directory"
elif [ -z "${URL:-}" ]; then
    skip "core dumps" "hsmbench serve did not start"
else
    abort_run "$T/core-none" "$HSMBENCH" rest http --url "$URL/hello" --duration 5 --quiet
    if [ "$cores" -eq 0 ]; then
        skip "core dumps" "a run without secrets aborted with SIGABRT leaves no core here"
    else
        pass "core dumps work here: a run without a secret aborted leaves a core"
        HSMBENCH_MOCK="service=fixed:5ms;cores=1;pin=$PIN" PIN_VAR="$PIN" abort_run "$T/core-pin" \
            "$HSMBENCH" run --module "$MOCK" --test sha256-digest --pin-env PIN_VAR --duration 5 --quiet
        judge_core "run with a PIN aborted mid-run: no core (not dumpable)" "$T/core-pin" "$PIN"
        G_TOKEN="$TOKEN" abort_run "$T/core-ekm" "$HSMBENCH" rest ekm --endpoint "$URL/ekm/k1" \
            --token-env G_TOKEN --duration 5 --quiet
        judge_core "rest ekm with a bearer token aborted mid-run: no core" "$T/core-ekm" "$TOKEN"
        abort_run "$T/core-sdkms" "$HSMBENCH" rest sdkms --endpoint "$URL" --api-key "$APIKEY" \
            --op encrypt --duration 5 --quiet
        judge_core "rest sdkms with an API key aborted mid-run: no core" "$T/core-sdkms" "$APIKEY"
        HDR_VAR="$HENV" abort_run "$T/core-http" "$HSMBENCH" rest http --url "$URL/hello" \
            --header-env "X-From-Env=HDR_VAR" --duration 5 --quiet
        judge_core "rest http with --header-env aborted mid-run: no core" "$T/core-http" "$HENV"
    fi
fi
stop_serve plain
