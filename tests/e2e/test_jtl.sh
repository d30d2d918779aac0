#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_jtl.sh - --out jtl=FILE, per-request results (issue 39,
# item 6): JMeter's -l results.jtl, the SDKMS bench's results/ CSV (its
# JMeter's), k6's --out csv.  A line a measured request in JMeter's CSV
# results format, each held to an observer that is not hsmbench:
#   - PKCS#11: the call recorder (libhsmbench-trace.so) in front of the mock
#     failing 10 %: lines == the module's C_Sign calls, success=false lines
#     == its failed calls, in the blocking closed loop, the non-blocking
#     blocked threads and the asynchronous slots;
#   - REST: hsmbench serve --fault 500:0.2 and its own counters: lines ==
#     the requests it answered on the route, success=false == its 500s;
#   - the seeds' commands as docs/migrating.md translates them;
#   - the file: JMeter's header exactly, whole CSV lines, time stamps in
#     order per thread, the run's JSON counts and latency sum;
#   - constant memory (peak RSS of 300 000 requests ~ that of 10 000), an
#     interrupted run's whole lines, a failed write said once, refusals.
# asan: yes (every worker formats into its own buffer and writes under one lock; the REST describe)
# tsan: yes (the workers' buffers and the file's lock, in three engines)
. "$TOP/tests/e2e/lib.sh"
REST_LIB_SOURCE=1 . "$TOP/tests/e2e/test_rest_lib.sh"

need_mock || exit 0
TRACE="$(dirname "$NULLP11")/libhsmbench-trace.so"
[ -f "$TRACE" ] || { fail "recorder built" "$TRACE is missing (make all)"; exit 0; }

# jtl_check NAME JTL JSON [TRACE_JSON | SERVED S500] : the file against the
# run's JSON, and the observer's counts (the recorder's C_Sign calls and
# errors, or the server's requests and 500s).
jtl_check() {
    if out=$(python3 - "$@" 2>&1 <<'PY'
import csv, json, sys
name, jtl, res = sys.argv[1:4]
HEADER = ("timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,"
          "failureMessage,bytes,sentBytes,grpThreads,allThreads,URL,Latency,IdleTime,Connect")
text = open(jtl, newline="").read()
bad = []
def need(what, ok):
    if not ok:
        bad.append(what)
need("JMeter's header, exactly", text.split("\n", 1)[0] == HEADER)
need("the file ends with a whole line", text.endswith("\n"))
rows = list(csv.DictReader(text.splitlines(True)))
need("every line has JMeter's 17 fields", all(len(r) == 17 and None not in r and None not in r.values() for r in rows))
last = {}
for r in rows:
    t, e, lat = int(r["timeStamp"]), int(r["elapsed"]), int(r["Latency"])
    if t < last.get(r["threadName"], 0):
        need("time stamps in order in thread %s" % r["threadName"], False)
        break
    last[r["threadName"]] = t
    need("elapsed >= Latency >= Connect >= 0", e >= lat >= int(r["Connect"]) >= 0)
    need("success is true or false, and says the code", r["success"] in ("true", "false")
         and (r["success"] == "true") == (r["responseCode"] in ("CKR_OK", "200")))
    need("a failure says why", r["success"] == "true" or r["failureMessage"])
    if bad:
        break
run = json.load(open(res))["runs"][0]
fails = sum(r["success"] == "false" for r in rows)
need("lines %d == the run's attempts %s" % (len(rows), run["attempts"]), len(rows) == run["attempts"])
need("success=false lines %d == the run's errors %s" % (fails, run["errors"]), fails == run["errors"])
# Every line rounds its elapsed to a millisecond: the sum within half of one a line.
total_ms = sum(int(r["elapsed"]) for r in rows if r["success"] == "true")
lat = run.get("latency_us") or {}
if lat.get("count"):
    mean_sum = lat["mean"] * lat["count"] / 1000.0
    need("the successes' elapsed sum %d ms ~ the run's mean x count %.1f ms" % (total_ms, mean_sum),
         abs(total_ms - mean_sum) <= 0.5 * lat["count"] + 0.02 * mean_sum + 1)
if len(sys.argv) == 5:
    f = json.load(open(sys.argv[4]))["trace"]["functions"]["C_Sign"]
    need("lines %d == the module's C_Sign calls %d" % (len(rows), f["calls"]), len(rows) == f["calls"])
    need("CKR_OK lines %d == the module's good calls %d" % (len(rows) - fails, f["calls"] - f["errors"]),
         len(rows) - fails == f["calls"] - f["errors"])
    need("the mock failed some (%d)" % fails, fails > 0)
elif len(sys.argv) == 6:
    served, s500 = int(sys.argv[4]), int(sys.argv[5])
    need("lines %d == the server's requests %d" % (len(rows), served), len(rows) == served)
    need("success=false lines %d == the server's 500s %d" % (fails, s500), fails == s500)
    need("the server sent 500s (%d)" % s500, s500 > 0)
    need("each line names the URL", all(r["URL"].startswith("http://127.0.0.1:") for r in rows))
    need("a 500's message is HTTP's", all(r["responseMessage"] == "Internal Server Error"
                                          for r in rows if r["responseCode"] == "500"))
print("%d lines, %d failed, %d threads" % (len(rows), fails, len(last)))
if bad:
    print("; ".join(bad[:4]))
    sys.exit(1)
PY
    ); then pass "$1 ($out)"; else fail "$1" "$(echo "$out" | tr '\n' ' ' | head -c 600)"; fi
}

# traced_jtl NAME ARGS...: ecdsa-sign on the mock failing 10 %, through the
# recorder, with --out jtl; then the file against the recording.
traced_jtl() {
    tn=$1
    shift
    rm -f "$T/$tn.trace"
    run env HSMBENCH_TRACE_MODULE="$MOCK" HSMBENCH_TRACE_FILE="$T/$tn.trace" \
        HSMBENCH_MOCK='fail=CKR_DEVICE_ERROR:0.1' "$HSMBENCH" run --module "$TRACE" --test ecdsa-sign \
        --warmup 0 --quiet --json "$T/$tn.json" --out "jtl=$T/$tn.jtl" "$@"
    check "run $* --out jtl on the failing mock: exit 1 (errors)" 1 || return
    "$HSMBENCH" trace --quiet "$T/$tn.trace" --json "$T/$tn.tj" 2>"$T/trace.err" ||
        { fail "hsmbench trace $tn" "$(head -c 300 "$T/trace.err")"; return; }
    jtl_check "PKCS#11 $*: the lines are the module's C_Sign calls, CKR_OK lines its good ones" \
        "$T/$tn.jtl" "$T/$tn.json" "$T/$tn.tj"
}

# ---- PKCS#11, every engine, against the recorder ------------------------------------
traced_jtl blocking --threads 3 --iterations 600
traced_jtl open --threads 3 --mode nonblocking --rate 1500 --duration 1
traced_jtl slots --threads 2 --mode nonblocking --inflight 8 --duration 0.3s

# ---- REST, against the server's own counters ---------------------------------------
KEY=$(printf 'app-%s:secret-%s' "$$" "$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')" | base64 | tr -d '\n')
export SDKMS_API_KEY="$KEY" SERVER_API_KEY="$KEY"
# rest_jtl NAME ARGS...: one rest sdkms sign run against a fresh server failing 20 %.
rest_jtl() {
    sn=$1
    shift
    # --fault-after: the keys' creation (a /crypto/v1 request too) is spared,
    # or one run in five or so fails at set-up and writes no line at all
    start_serve "$sn" --api-key-env SERVER_API_KEY --metrics-listen 0 --fault 500:0.2 --fault-after 4 || return
    murl=$(metrics_url "$T/$sn.err") || { fail "$sn: the server's metrics URL" "none"; stop_serve "$sn"; return; }
    run "$HSMBENCH" rest sdkms --endpoint "$URL" --api-key-env SDKMS_API_KEY --op sign --alg RSA \
        --quiet --json "$T/$sn.json" --out "jtl=$T/$sn.jtl" "$@"
    check "rest sdkms $* --out jtl against --fault 500:0.2: exit 1 (errors)" 1
    curl -sf --max-time 5 "$murl" >"$T/$sn.prom" || fail "$sn: the server's metrics" "cannot read $murl"
    stop_serve "$sn"
    jtl_check "REST $*: the lines are the server's requests, success=false its 500s" \
        "$T/$sn.jtl" "$T/$sn.json" "$(prom_count "$T/$sn.prom" /crypto/v1/sign)" \
        "$(prom_count "$T/$sn.prom" /crypto/v1/sign 500)"
    if grep -Fq "$KEY" "$T/$sn.jtl"; then fail "REST $*: the API key is in no line" "it is"
    else pass "REST $*: the API key is in no line"; fi
}
rest_jtl sd-block --threads 2 --iterations 400
rest_jtl sd-slots --threads 1 --mode nonblocking --inflight 4 --duration 0.3s

# ---- the seeds' commands, as docs/migrating.md translates them ----------------------
# JMeter's "jmeter -n -t plan.jmx -l results.jtl" (the SDKMS bench runs it and
# keeps its results/ CSV): the translation writes the same file, JMeter's CSV.
cmd=$(sed -e ':a' -e '/\\$/N; s/\\\n *//; ta' "$TOP/docs/migrating.md" |
    grep -m1 '^ *hsmbench rest http -n --url .* --out jtl=results.jtl' | sed 's/^ *//')
if [ -z "$cmd" ]; then
    fail "seed: docs/migrating.md translates JMeter's -l results.jtl to --out jtl=results.jtl" "no such line"
elif start_serve seed-http; then
    # its URL, load and file made local: the server's, 200 requests, $T
    eval "set -- $(printf '%s\n' "$cmd" | sed -e 's/^hsmbench //' -e "s#--url [^ ]*#--url $URL/hello#" \
        -e 's/--iterations [0-9]*/--iterations 200/' -e "s#results\\.#$T/results.#g")"
    run "$HSMBENCH" "$@" --quiet --json "$T/seed.json"
    check "seed: JMeter's -l results.jtl, translated: exit 0" 0
    stop_serve seed-http
    jtl_check "seed: the translation's results.jtl is JMeter's CSV of the run's requests" \
        "$T/results.jtl" "$T/seed.json"
fi
# JMeter's own spelling says what to use instead.
run "$HSMBENCH" rest http --url http://127.0.0.1:1/ -l results.jtl
check_one_line_error "seed: JMeter's -l FILE names --out jtl=FILE" 2 'did you mean --out jtl=FILE'

# ---- constant memory: 300 000 requests in the peak RSS of 10 000 ----------------------
peak_kb() {
    python3 - "$@" <<'PY'
import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120, check=True)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
PY
}
if all_cases; then
    small=$(peak_kb "$HSMBENCH" run --module "$NULLP11" --test sha256-digest --threads 4 --iterations 10000 \
        --warmup 0 --quiet --out "jtl=$T/small.jtl")
    large=$(peak_kb "$HSMBENCH" run --module "$NULLP11" --test sha256-digest --threads 4 --iterations 300000 \
        --warmup 0 --quiet --out "jtl=$T/large.jtl")
    lines=$(($(wc -l <"$T/large.jtl") - 1))
    if [ -n "$small" ] && [ -n "$large" ] && [ "$lines" -eq 300000 ] && [ "$large" -le $((small + 2048)) ]; then
        pass "constant memory: 300000 lines in a peak RSS of $large KB, 10000 in $small KB"
    else fail "constant memory: 300000 lines in about the peak RSS of 10000" "$lines lines, $large KB vs $small KB"; fi
fi

# ---- an interrupted run's file ends with whole lines ---------------------------------
# (at a fixed rate: unpaced, the null module's 1.5 s wrote millions of
# lines, which the check then read for most of the script's CPU)
"$HSMBENCH" run --module "$NULLP11" --test sha256-digest --threads 3 --rate 3000 --duration 60 --warmup 0 --quiet \
    --json "$T/int.json" --out "jtl=$T/int.jtl" >"$T/out" 2>"$T/err" &
pid=$!
sleep 1.5
kill -INT $pid
wait $pid
rc=$?
check "SIGINT during a run with --out jtl: exit 130" 130
jtl_check "SIGINT: the file ends with whole lines, one a request the results count" "$T/int.jtl" "$T/int.json"

# ---- a failed write: one line, exit 1 ------------------------------------------------
if [ -w /dev/full ]; then
    run "$HSMBENCH" run --module "$NULLP11" --test sha256-digest --iterations 100000 --quiet --out jtl=/dev/full
    check_one_line_error "--out jtl=/dev/full: said once, exit 1" 1 '--out jtl=/dev/full: cannot write: No space left'
fi

# ---- refusals -----------------------------------------------------------------------
run "$HSMBENCH" run --module "$NULLP11" --test sha256-digest --iterations 10 --out jtl=
check_one_line_error "--out jtl= (no file): exit 2" 2 '--out jtl=: expected jsonl=FILE .* or jtl=FILE'
echo 1234 >"$T/pin"
run "$HSMBENCH" run --module "$NULLP11" --test sha256-digest --iterations 10 --pin-file "$T/pin" --out "jtl=$T/pin"
check_one_line_error "--out jtl=FILE naming the PIN file: exit 2" 2 'the same file as --pin-file'
[ "$(cat "$T/pin")" = 1234 ] && pass "--out jtl= on the PIN file left it whole" || fail "--out jtl= on the PIN file left it whole" "changed"
run "$HSMBENCH" run --module "$NULLP11" --test sha256-digest --iterations 10 --json "$T/o.json" --out "jtl=$T/o.json"
check_one_line_error "--out jtl=FILE naming another output: exit 2" 2 'the same file as .*refusing to write one file twice'
run "$HSMBENCH" run --module "$NULLP11" --test sha256-digest --iterations 10 --out "jtl=$T/no/such/dir/r.jtl"
check_one_line_error "--out jtl= in a directory that does not exist: exit 2" 2 'No such file or directory'
run "$HSMBENCH" run --module "$NULLP11" --test sha256-digest --iterations 10 --out "jtl=$T/a" --out "jtl=$T/b"
check_one_line_error "--out jtl= twice: exit 2" 2 'given twice'
run "$HSMBENCH" run --module "$NULLP11" --test sha256-digest --iterations 20 --warmup 0 --quiet \
    --out "jtl=$T/both.jtl" --out "jsonl=$T/both.jsonl"
check "--out jtl=A --out jsonl=B: each kind once, exit 0" 0
[ "$(wc -l <"$T/both.jtl")" -eq 21 ] && pass "--out jtl beside --out jsonl: a line a request" ||
    fail "--out jtl beside --out jsonl: a line a request" "$(wc -l <"$T/both.jtl") lines"
