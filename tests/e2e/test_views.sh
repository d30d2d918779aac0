#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_views.sh - the cross-view test (issue 21, item 2): a corpus
# of runs whose true figures are known by construction, every view of each
# (terminal summary and closing table, JSON, CSV, HTML, report, compare, the
# final Prometheus scrape, the k6 and JMeter summaries), and the check that
# they agree with each other and with the truth.  tests/e2e/views.py holds
# the extractors (one table maps each view's labels to the run model's
# figures) and prints the PASS/FAIL lines; this script makes the corpus.
#
# The corpus: the mock HSM with injected errors, a fixed service time and
# --iterations (attempts exact); two of its tokens; a thread sweep; a mix; a
# capacity search of short steps; three generators merged; hsmbench serve
# over http and https with injected faults (rest ekm) and a route that
# always fails (rest http, JMeter's line).  Every run is bounded; servers
# listen on 127.0.0.1 port 0.  About 40 seconds.
# asan: yes (every view of a corpus of real runs: terminal, CSV, HTML, report, compare, Prometheus, k6, JMeter)
. "$TOP/tests/e2e/lib.sh"
REST_LIB_SOURCE=1 . "$TOP/tests/e2e/test_rest_lib.sh"

need_mock || exit 0
VIEWS="$TOP/tests/e2e/views.py"
C="$T/corpus"
mkdir -p "$C"

# truth NAME KEY=VALUE...: what the corpus run NAME is known to be, by
# construction (views.py reads C/NAME/truth).
truth() {
    d="$C/$1"
    shift
    mkdir -p "$d"
    for kv in "$@"; do echo "$kv"; done >>"$d/truth"
}

# measure NAME ENV -- ARGS...: hsmbench ARGS with the environment setting
# ENV (or "-" for none), writing every view of the run into C/NAME: stdout,
# stderr, exit status, --json, --csv, --html, and the last Prometheus scrape
# (--metrics-listen on port 0, scraped once the results file is written,
# while the listener lingers: 4 s, as 2 s were too few on a loaded
# machine).  Then report, and compare of the file with itself (each side
# is the run).
measure() {
    name=$1 envset=$2
    shift 3
    d="$C/$name"
    mkdir -p "$d"
    [ "$envset" = - ] && envset=HSMBENCH_VIEWS_CORPUS=1
    env "$envset" timeout -s INT 60 "$HSMBENCH" "$@" --json "$d/r.json" --csv "$d/r.csv" \
        --html "$d/r.html" --metrics-listen 127.0.0.1:0 --metrics-linger 4 \
        >"$d/out" 2>"$d/err" </dev/null &
    mpid=$!
    python3 "$VIEWS" scrape "$d/err" "$d/r.json" "$d/prom" >"$d/scrape.log" 2>&1
    wait $mpid
    echo $? >"$d/rc"
    offline "$name"
}

# offline NAME: report and compare of C/NAME/r.json (a file some other step wrote).
offline() {
    d="$C/$1"
    "$HSMBENCH" report "$d/r.json" >"$d/report.out" 2>"$d/report.err"
    "$HSMBENCH" compare "$d/r.json" "$d/r.json" >"$d/compare.out" 2>"$d/compare.err"
}

MOCKSVC=1ms
export G_TOKEN="views-token-$$" EKM_SERVER_TOKEN="views-token-$$"

# ---- the mock HSM: errors at a known rate, a fixed service time, several slots ----
truth mock attempts=600 codes=CKR_DEVICE_ERROR error_rate=0.1 min_latency_us=1000 tls=none
measure mock "HSMBENCH_MOCK=service=fixed:$MOCKSVC;cores=4;slots=3;fail=CKR_DEVICE_ERROR:0.1;seed=7" -- \
    run --module "$MOCK" --slot 2 --test sha256-digest --threads 2 --iterations 600

# ---- two tokens ---------------------------------------------------------------------
truth tokens attempts=400 codes=CKR_DEVICE_ERROR error_rate=0.1 min_latency_us=1000 tokens=mock-1,mock-2
measure tokens "HSMBENCH_MOCK=service=fixed:$MOCKSVC;cores=4;slots=2;fail=CKR_DEVICE_ERROR:0.1;seed=3" -- \
    run --module "$MOCK" --token mock-1,mock-2 --test sha256-digest --threads 2 --iterations 400

# ---- a thread sweep -------------------------------------------------------------------
truth sweep attempts=200 codes=CKR_DEVICE_ERROR error_rate=0.1 min_latency_us=1000 runs=2
measure sweep "HSMBENCH_MOCK=service=fixed:$MOCKSVC;cores=4;fail=CKR_DEVICE_ERROR:0.1;seed=5" -- \
    run --module "$MOCK" --test sha256-digest --threads 1,2 --iterations 200

# ---- a mix with aes-gcm-encrypt -------------------------------------------------------
truth mix attempts=400 codes=CKR_DEVICE_ERROR error_rate=0.1 min_latency_us=200 mix=aes-gcm-encrypt
measure mix "HSMBENCH_MOCK=service=fixed:200us;cores=4;fail=CKR_DEVICE_ERROR:0.1;seed=9" -- \
    run --module "$MOCK" --mix sha256-digest:50,aes-gcm-encrypt:50 --threads 2 --iterations 400

# ---- a capacity search: 1 s steps, a few of them, some failing their objective --------
# Two 2 ms cores carry 1000/s: the probe finds about that, the steps at
# 500/s and 1000/s pass, the one at 2000/s cannot (its requests wait in
# line for a quarter of a second); ±50 % ends the search after four steps.
# Which steps pass on a loaded machine does not matter here (rc=any).
truth capacity capacity=1 min_latency_us=2000 rc=any
measure capacity "HSMBENCH_MOCK=service=fixed:2ms;cores=2" -- \
    run --module "$MOCK" --test sha256-digest --find-capacity 'p99<50ms' --threads 4 \
    --step 1s --precision 50%

# ---- three generators, merged ---------------------------------------------------------
start=$(( $(date +%s) + 4 ))   # a generator not ready by then joins late
for g in 1 2 3; do
    mkdir -p "$C/gen$g"
    HSMBENCH_MOCK="service=fixed:$MOCKSVC;cores=2;fail=CKR_DEVICE_ERROR:0.1;seed=$g" \
        timeout -s INT 60 "$HSMBENCH" run --module "$MOCK" --test sha256-digest --threads 1 \
        --duration 3 --start-at "$start" --quiet --json "$C/gen$g/r.json" \
        >"$C/gen$g/out" 2>"$C/gen$g/err" </dev/null &
done
wait
mkdir -p "$C/merged"
"$HSMBENCH" merge "$C/gen1/r.json" "$C/gen2/r.json" "$C/gen3/r.json" -o "$C/merged/r.json" \
    >"$C/merged/merge.out" 2>"$C/merged/merge.err"
"$HSMBENCH" report "$C/merged/r.json" --html "$C/merged/r.html" --csv "$C/merged/r.csv" \
    >/dev/null 2>"$C/merged/html.err"
offline merged
truth merged merged_from=gen1,gen2,gen3 codes=CKR_DEVICE_ERROR min_latency_us=1000

# ---- hsmbench serve over http, faults injected; rest ekm ------------------------------
# Every answer comes 3 ms after its request (--latency): JMeter's milliseconds
# are then not 0 by rounding.
if start_serve plain --ekm-token-env EKM_SERVER_TOKEN --fault-after 5 --fault 503:0.1 --latency 3ms; then
    truth ekm-http attempts=200 codes='HTTP 503' error_rate=0.1 tls=none k6=1 min_latency_us=3000
    measure ekm-http - -- rest ekm --endpoint "$URL/ekm/k1" --token-env G_TOKEN --threads 2 --iterations 200
    # rest http on a route that always fails: JMeter's line.
    truth http-fail attempts=20 codes='HTTP 503' error_rate=1 tls=none jmeter=1 k6=1 latency_ms=3
    measure http-fail - -- rest http --url "$URL/status/503" --iterations 20 --summary k6 --summary jmeter
    # rest http on a route that answers: JMeter's line beside the others.
    truth http-ok attempts=30 error_rate=0 tls=none jmeter=1 latency_ms=3 min_latency_us=3000
    measure http-ok - -- rest http --url "$URL/hello" --iterations 30 --summary jmeter
fi

# ---- the same over https (verified), faults injected ----------------------------------
if ekm_tls_server --fault-after 5 --fault 503:0.1 --latency 3ms; then
    truth ekm-https attempts=150 codes='HTTP 503' error_rate=0.1 tls=verified k6=1 min_latency_us=3000
    measure ekm-https - -- rest ekm --endpoint "$URL/ekm/k1" --token-env G_TOKEN --cacert "$P/ca.pem" \
        --threads 2 --iterations 150
fi
rest_stop_all

# ---- --json -: the document on standard output ------------------------------------------
mkdir -p "$C/json-stdout"
(cd "$C/json-stdout" && "$HSMBENCH" run --module "$NULLP11" --test sha256-digest --iterations 10 \
    --quiet --json - >stdout 2>stderr </dev/null; echo $? >rc)

python3 "$VIEWS" check "$C" "$TOP"
# VIEWS_KEEP=DIR keeps a copy of the corpus there, to look at by hand.
[ -z "${VIEWS_KEEP:-}" ] || cp -r "$C" "$VIEWS_KEEP"
