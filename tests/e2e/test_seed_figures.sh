#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_seed_figures.sh - issue 39's misleading figures, each
# replayed from its seed's own text against hsmbench serve on loopback, with
# the server's own counters (--metrics-listen), not hsmbench's figures, as
# the observer:
#   item 1: the EKM package's command as docs/migrating.md writes it (seed
#     000: k6 run --stage 5s:70,30s:70,5s:0 ekm_wrap.js, whose iteration
#     sleeps 0.5 s), stages shortened to 5 VUs: the server sees about
#     VU-seconds / 0.5 s requests (0.5x to 1.5x: a rate set by the pause,
#     not by the machine);
#   item 2: the SDKMS bench's CSV columns (seed 001's "total operations",
#     "Error %", "Throughput per sec") and JMeter's summary line (seed 004's
#     "summary = 12000 in ... Err: 0 (0.00%)") of one run against
#     serve --fault 500:0.2 agree with each other and with the server:
#     total = the requests it answered, errors = its 500s;
#   item 5: JMeter's summariser prints its final "summary =" once, no
#     "summary +" for a run shorter than its interval, and the same rate for
#     the same samples;
#   item 13: report --csv-layout tidy: one row a run, a column each, plain
#     numbers, bytes_per_s in bytes a second.
# Counts only; the one rate (item 1) is a pause's, with wide margins.
# tsan: no (seeds replayed through the engines test_rest and test_rest_faults run under TSan)
. "$TOP/tests/e2e/lib.sh"
REST_LIB_SOURCE=1 . "$TOP/tests/e2e/test_rest_lib.sh"

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

# ---- item 1: seed 000's command, as docs/migrating.md translates it ---------------
TOKEN="ekm-token-$$-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
export G_TOKEN="$TOKEN" EKM_SERVER_TOKEN="$TOKEN"
cmd=$(grep -m1 '^ *hsmbench rest ekm --endpoint "\$ENDPOINT_URL"' "$TOP/docs/migrating.md" | sed 's/^ *//')
case $cmd in
*"--stage 5s:70,30s:70,5s:0"*) pass "item 1: docs/migrating.md translates the package's k6 command" ;;
*) fail "item 1: docs/migrating.md translates the package's k6 command" "$cmd" ;;
esac
if start_serve ekm --ekm-token-env EKM_SERVER_TOKEN --metrics-listen 0; then
    murl=$(metrics_url "$T/ekm.err") || fail "item 1: the server's metrics URL" "none"
    export ENDPOINT_URL="$URL/ekm/k1"
    # Shortened: 0.5 s up to 5 VUs, 4 s at 5, 0.5 s down: 22.5 VU-seconds.
    short=$(printf '%s' "$cmd" | sed 's/--stage 5s:70,30s:70,5s:0/--stage 0.5s:5,4s:5,0.5s:0/')
    eval "\"\$HSMBENCH\" ${short#hsmbench } --quiet" >"$T/out" 2>"$T/err" </dev/null
    rc=$?
    if [ $rc -eq 0 ] && curl -sf --max-time 5 "$murl" >"$T/ekm.prom"; then
        # The set-up's one wrap (the check) is not the load's.
        n=$(($(prom_count "$T/ekm.prom" "/KEY:wrap") - 1))
        # 22.5 VU-seconds over an iteration of 0.5 s and a request: ~45.
        if [ "$n" -ge 22 ] && [ "$n" -le 68 ]; then
            pass "item 1: the server answered $n requests (the package's load: ~45, 22 to 68)"
        else fail "item 1: the server answered about 45 requests (22 to 68)" "$n, from: $short"; fi
    else
        fail "item 1: the translated command runs" "exit $rc: $(head -c 300 "$T/err")"
    fi
    stop_serve ekm
fi

# The k6 command pasted whole: the script's name carries its pause as a hint.
run "$HSMBENCH" rest ekm --endpoint "http://127.0.0.1:1/ekm/k1" --token-env G_TOKEN --stages 1s:5 ekm_wrap.js
check_one_line_error "item 1: ekm_wrap.js pasted from k6's command: exit 2, naming --think 500ms" 2 \
    "ekm_wrap.js: a k6 script; hsmbench runs none: .* --op wrap with --think 500ms"

# ---- item 2: the SDKMS bench's CSV and JMeter's line, against 20 % of 500s ----------
KEY=$(printf 'app-%s:secret-%s' "$$" "$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')" | base64 | tr -d '\n')
export SDKMS_API_KEY="$KEY" SERVER_API_KEY="$KEY"
if start_serve sdkms --api-key-env SERVER_API_KEY --metrics-listen 0 --fault 500:0.2 --fault-after 10; then
    murl=$(metrics_url "$T/sdkms.err") || fail "item 2: the server's metrics URL" "none"
    run "$HSMBENCH" rest sdkms --endpoint "$URL" --api-key-env SDKMS_API_KEY --op sign --alg RSA \
        --threads 2 --duration 1 --summary jmeter --quiet --json "$T/sdkms.json"
    check "item 2: rest sdkms against --fault 500:0.2: exit 1 (errors)" 1
    cp "$T/out" "$T/jmeter.out"
    curl -sf --max-time 5 "$murl" >"$T/sdkms.prom" || fail "item 2: the server's metrics" "cannot read $murl"
    stop_serve sdkms
    run "$HSMBENCH" report "$T/sdkms.json" --csv "$T/sdkms.csv"
    check "item 2: report --csv: exit 0" 0
    served=$(prom_count "$T/sdkms.prom" "/crypto/v1/sign")
    s500=$(prom_count "$T/sdkms.prom" "/crypto/v1/sign" 500)
    if out=$(python3 - "$T/sdkms.csv" "$T/jmeter.out" "$served" "$s500" 2>&1 <<'PY'
import csv, re, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
served, s500 = int(sys.argv[3]), int(sys.argv[4])
line = [l for l in open(sys.argv[2]) if l.startswith("summary = ")][-1]
m = re.match(r"summary = +(\d+) in [0-9:]+ = +([0-9.]+)/s Avg: +(\d+) Min: +(\d+) Max: +(\d+) Err: +(\d+) \(([0-9.]+)%\)", line)
jn, jrate, javg, jmin, jmax, jerr, jpct = int(m[1]), float(m[2]), int(m[3]), int(m[4]), int(m[5]), int(m[6]), float(m[7])
r = rows[0]
total = int(r["total operations"])
pct = float(r["Error %"].rstrip("%"))
bad = []
def need(what, ok):
    if not ok:
        bad.append(what)
need("the server saw 500s (%d of %d)" % (s500, served), 0 < s500 < served)
need("total operations %d == the server's requests %d" % (total, served), total == served)
need("JMeter's count %d == the server's requests %d" % (jn, served), jn == served)
need("JMeter's Err %d == the server's 500s %d" % (jerr, s500), jerr == s500)
need("Error %% %.2f == the server's 500s of its requests" % pct, abs(pct - 100.0 * s500 / served) < 0.006)
need("Error %% %.2f == JMeter's %.2f" % (pct, jpct), abs(pct - jpct) < 0.006)
need("Throughput per sec %s == JMeter's %.1f/s" % (r["Throughput per sec"], jrate),
     abs(float(r["Throughput per sec"]) - jrate) <= 0.051)
need("Throughput per sec == total / duration", abs(float(r["Throughput per sec"]) - total / float(r["duration(sec)"])) < 0.02 * total)
need("average latency %s ms == JMeter's Avg %d" % (r["average latency(ms)"], javg), abs(float(r["average latency(ms)"]) - javg) <= 0.5 + 1e-9)
need("min latency %s ms == JMeter's Min %d" % (r["min latency (ms)"], jmin), abs(float(r["min latency (ms)"]) - jmin) <= 0.5 + 1e-9)
need("max latency %s ms == JMeter's Max %d" % (r["max latency (ms)"], jmax), abs(float(r["max latency (ms)"]) - jmax) <= 0.5 + 1e-9)
need("successes %s == the server's 200s %d" % (r.get("successes"), served - s500), r.get("successes", "") == str(served - s500))
need("successes per sec below the attempts'", float(r.get("successes per sec", "inf")) < float(r["Throughput per sec"]))
print("server %d requests, %d 500s; CSV %d, %s; JMeter %d, Err %d" % (served, s500, total, r["Error %"], jn, jerr))
if bad:
    print("; ".join(bad))
    sys.exit(1)
PY
    ); then pass "item 2: the CSV's columns, JMeter's line and the server agree ($out)"
    else fail "item 2: the CSV's columns, JMeter's line and the server agree" "$(echo "$out" | tr '\n' ' ' | head -c 600)"; fi

    # ---- item 13: the same run as a tidy CSV ------------------------------------------
    run "$HSMBENCH" report "$T/sdkms.json" --csv "$T/tidy.csv" --csv-layout tidy
    check "item 13: report --csv-layout tidy: exit 0" 0
    if out=$(python3 - "$T/tidy.csv" "$T/sdkms.json" "$served" "$s500" 2>&1 <<'PY'
import csv, json, sys
raw = open(sys.argv[1], newline="").read()
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
run = json.load(open(sys.argv[2]))["runs"][0]
served, s500 = int(sys.argv[3]), int(sys.argv[4])
want = ["test", "variant", "key", "data_size_bytes", "threads", "mode", "status", "reason", "duration_s", "attempts",
        "successes", "errors", "error_pct", "attempts_per_s", "successes_per_s", "bytes_per_s",
        "latency_mean_ms", "latency_min_ms", "latency_p50_ms", "latency_p90_ms", "latency_p95_ms",
        "latency_p99_ms", "latency_max_ms", "success_latency_mean_ms", "success_latency_p99_ms"]
bad = []
def need(what, ok):
    if not ok:
        bad.append(what)
need("header %s" % list(rows[0].keys()), list(rows[0].keys()) == want)
need("one row a run", len(rows) == 1)
r = rows[0]
need("test, key, size, threads, mode, status each its own column: %s" % r,
     r["test"] == "sdkms-sign" and r["key"] == "RSA 2048" and r["threads"] == "2" and r["mode"] == "blocking"
     and r["status"] == "errors" and int(r["data_size_bytes"]) == run["data_size"])
need("the reason in its own column: %r" % r["reason"], "HTTP 500" in r["reason"])
for k in want[8:]:
    if r[k] != "":
        try:
            float(r[k])
        except ValueError:
            bad.append("%s is not a number: %r" % (k, r[k]))
need("no percent sign anywhere", "%" not in raw.split("\r\n", 1)[1].replace(r["reason"], ""))
need("attempts %s == the server's requests %d" % (r["attempts"], served), int(r["attempts"]) == served)
need("errors %s == the server's 500s %d" % (r["errors"], s500), int(r["errors"]) == s500)
need("error_pct %s == 100 * 500s / requests" % r["error_pct"], abs(float(r["error_pct"]) - 100.0 * s500 / served) < 1e-3)
need("bytes_per_s empty for a signature (no data processed): %r" % r["bytes_per_s"], r["bytes_per_s"] == "")
print("%s %s errors %s (%s %%)" % (r["test"], r["attempts"], r["errors"], r["error_pct"]))
if bad:
    print("; ".join(bad))
    sys.exit(1)
PY
    ); then pass "item 13: the tidy CSV: one row a run, a column each, plain numbers ($out)"
    else fail "item 13: the tidy CSV: one row a run, a column each, plain numbers" "$(echo "$out" | tr '\n' ' ' | head -c 600)"; fi
fi

# ---- item 13: capacity in the unit its header names ------------------------------------
run "$HSMBENCH" run --module "$NULLP11" --test sha256-digest --data-size 1024 --threads 1 --iterations 2000 \
    --quiet --json "$T/digest.json" </dev/null
check "item 13: a digest of 1 KiB on the do-nothing module: exit 0" 0
run "$HSMBENCH" report "$T/digest.json" --csv - --csv-layout tidy
check "item 13: --csv - --csv-layout tidy: exit 0" 0
if python3 - "$T/out" "$T/digest.json" <<'PY'
import csv, json, sys
r = list(csv.DictReader(open(sys.argv[1], newline="")))[0]
run = json.load(open(sys.argv[2]))["runs"][0]
# bytes_per_s: successes x bytes / duration, in bytes (not KiB) a second
want = run["ops"] * 1024 / run["duration_s"]
sys.exit(0 if r["key"] == "" and abs(float(r["bytes_per_s"]) - want) <= 0.01 * want + 1 else 1)
PY
then pass "item 13: bytes_per_s is bytes a second (successes x 1024 B / duration); no key: an empty cell"
else fail "item 13: bytes_per_s is bytes a second" "$(head -c 400 "$T/out")"; fi
run "$HSMBENCH" report "$T/digest.json" --csv-layout tidy
check_one_line_error "item 13: --csv-layout without --csv: exit 2" 2 '--csv-layout needs --csv'
run "$HSMBENCH" report "$T/digest.json" --csv - --csv-layout wide
check_one_line_error "item 13: --csv-layout wide: exit 2" 2 "--csv-layout wide: the layouts are 'sdkms' and 'tidy'"

# ---- item 5: JMeter's summariser (seed 004's non-GUI output) ------------------------------
start_serve hello || exit 0
# A run of 2 s with a 1 s interval: "+" at 1 s and at 2 s, one running total
# at most, and the final "=" once.
run "$HSMBENCH" rest http --url "$URL/hello" --threads 2 --duration 2s --summary jmeter --summary-interval 1s --quiet
check "item 5: a 2 s run, interval 1 s: exit 0" 0
if python3 - "$T/out" <<'PY'
import re, sys
lines = [l.rstrip("\n") for l in open(sys.argv[1]) if l.startswith("summary ")]
eq = [l for l in lines if l.startswith("summary = ")]
plus = [l for l in lines if l.startswith("summary + ")]
cnt = lambda l: int(l.split()[2])
rate = lambda l: re.search(r"= +([0-9.]+)/s", l)[1]
ok = lines and lines[-1].startswith("summary = ") and len(plus) == 2
ok = ok and [cnt(l) for l in eq].count(cnt(eq[-1])) == 1          # the final total once
ok = ok and sum(cnt(l) for l in plus) == cnt(eq[-1])
by = {}
for l in lines:
    by.setdefault(cnt(l), set()).add(rate(l))
ok = ok and all(len(v) == 1 for v in by.values())                 # same samples, same rate
sys.exit(0 if ok else 1)
PY
then pass "item 5: the final summary = once, the + lines add up to it, one rate for the same samples"
else fail "item 5: the final summary = once" "$(cat "$T/out" | head -c 600)"; fi
# A run shorter than the interval: JMeter prints the total alone.
run "$HSMBENCH" rest http --url "$URL/hello" --threads 2 --duration 1.6s --summary jmeter --summary-interval 2s --quiet
check "item 5: a 1.6 s run, interval 2 s: exit 0, the total" 0 '^summary = +[0-9]+ in 00:00:02 = '
if [ "$(grep -c '^summary' "$T/out")" -eq 1 ]; then pass "item 5: a run shorter than the interval: summary = alone"
else fail "item 5: a run shorter than the interval: summary = alone" "$(cat "$T/out")"; fi
# 2 000 samples in one interval (seed 004's shape, shorter): the line's rate is the model's.
run "$HSMBENCH" rest http --url "$URL/hello" --threads 2 --iterations 2000 --summary jmeter --quiet --json "$T/2000.json"
check "item 5: 2 000 samples: exit 0, one line" 0 '^summary = +2000 in '
if python3 - "$T/out" "$T/2000.json" <<'PY'
import json, re, sys
lines = [l for l in open(sys.argv[1]) if l.startswith("summary")]
r = json.load(open(sys.argv[2]))["runs"][0]
rate = float(re.search(r"= +([0-9.]+)/s", lines[0])[1])
sys.exit(0 if len(lines) == 1 and abs(rate - r["attempts_per_s"]) <= 0.051 else 1)
PY
then pass "item 5: 2 000 samples: one line, the results file's attempts_per_s"
else fail "item 5: 2 000 samples: one line, the results file's attempts_per_s" "$(cat "$T/out")"; fi
stop_serve hello
