#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_metrics.sh - --metrics-listen: /metrics scraped while a real
# run goes (the mock HSM with a service time, so it lasts), accepted by
# promtool, counters that only grow, final counters equal to the results
# file; the phase gauge; a second listener on the same port refused before
# anything runs; rest http's statuses and serve's routes.
# tsan: yes (the metrics endpoint thread reads the counters the workers write)
# asan: yes (the metrics endpoint answering scrapes while a run's workers update what it reads)
. "$TOP/tests/e2e/lib.sh"
REST_LIB_SOURCE=1 . "$TOP/tests/e2e/test_rest_lib.sh"
MOCK="$(dirname "$NULLP11")/libhsmbench-mock.so"

# scrape_all URL DIR: scrape every 0.4 s until the server goes away (at
# most 2 minutes); each answer in DIR/N.txt, its Content-Type in DIR/N.type.
scrape_all() {
    python3 - "$1" "$2" <<'PY'
import sys, time, urllib.request
url, d = sys.argv[1], sys.argv[2]
n, misses = 0, 0
end = time.time() + 120     # bounded, even when no scrape ever succeeds
while misses < 10 and n < 400 and time.time() < end:
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            body = r.read().decode()
            open(f"{d}/{n:03d}.type", "w").write(r.headers.get("Content-Type", ""))
        open(f"{d}/{n:03d}.txt", "w").write(body)
        n += 1
        misses = 0
    except Exception:
        if n:
            misses += 1
    time.sleep(0.4)
PY
}

# A Python reader of the exposition text, shared by the checks below.
cat >"$T/prom.py" <<'PY'
import glob, re, sys
LINE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)",?')
# The labels every series of a run carries (the fleet's); a key leaves them
# out, labels(path) returns them by series.
FLEET = ("run_id", "generator", "target_kind", "target_id", "threads", "mode")
def split(text):
    pairs, pos = [], 0
    while pos < len(text):
        m = LABEL.match(text, pos)
        if not m:
            raise SystemExit(f"bad labels {text!r}")
        pairs.append((m.group(1), m.group(2)))
        pos = m.end()
    return pairs
def parse(path, fleet=None):
    out = {}
    for line in open(path):
        line = line.rstrip("\n")
        if not line or line.startswith("#"):
            continue
        m = LINE.match(line)
        if not m:
            raise SystemExit(f"{path}: bad line {line!r}")
        pairs = split(m.group(3) or "")
        if fleet is not None:
            fleet.append((m.group(1), dict(pairs)))
        key = ",".join(f'{k}="{v}"' for k, v in pairs if k not in FLEET)
        out[(m.group(1), key)] = float(m.group(4))
    return out
def scrapes(d):
    return [parse(p) for p in sorted(glob.glob(f"{d}/*.txt"))]
def is_counter(name):
    return name.endswith("_total") or name.endswith("_bucket") or name.endswith("_count") \
        or name.endswith("_sum")
def report(errs):
    print("\n".join(errs))
    sys.exit(1 if errs else 0)
PY

# py_check NAME ARGS... <<'PY': a Python check (prom.py importable) that
# calls report() with the list of what is wrong; PASS when it is empty.
py_check() {
    name=$1
    shift
    if PYTHONPATH="$T" python3 - "$@" >"$T/py.out" 2>&1; then pass "$name"
    else fail "$name" "$(head -c 600 "$T/py.out" | tr '\n' ' ')"; fi
}

# ---- a run, scraped from start to end -------------------------------------
D="$T/scrapes"
mkdir -p "$D"
HSMBENCH_MOCK='service=fixed:2ms;cores=2;fail=CKR_DEVICE_ERROR:0.05' \
    "$HSMBENCH" run --module "$MOCK" --test sha256-digest --threads 2 --warmup 3 --duration 3 \
    --metrics-listen 127.0.0.1:0 --metrics-linger 2 --json "$T/r.json" \
    >"$T/run.out" 2>"$T/run.err" &
pid=$!
if URL=$(metrics_url "$T/run.err"); then
    pass "run --metrics-listen 127.0.0.1:0 prints its URL"
else
    fail "run --metrics-listen 127.0.0.1:0 prints its URL" "$(head -c 300 "$T/run.err")"
fi
case $URL in http://127.0.0.1:*/metrics) pass "the listener is on loopback, at /metrics" ;;
*) fail "the listener is on loopback, at /metrics" "$URL" ;; esac
# Scraping starts at once, before the check below: on a loaded machine that
# check (another hsmbench) took longer than a one-second warm-up, and no
# scrape saw it; and the warm-up is three seconds, since on a machine
# running the whole suite (make check, beside this script) the scraper's
# own start took more than one second and its first scrape came after it.
scrape_all "$URL" "$D" &
spid=$!

# A second listener on the same port: one line, exit 2, nothing run.
PORT=$(echo "$URL" | sed 's|^http://127.0.0.1:\([0-9]*\)/.*|\1|')
run "$HSMBENCH" run --module "$NULLP11" --test sha256-digest --duration 1 --metrics-listen "$PORT"
check_one_line_error "a second listener on the same port: one line, exit 2" 2 \
    "^hsmbench: error: --metrics-listen $PORT: cannot listen there: Address already in use"
if grep -q 'Running' "$T/out"; then fail "nothing runs when the port is taken" "$(head -c 200 "$T/out")"
else pass "nothing runs when the port is taken"; fi

wait $spid
wait $pid
rc=$?
cp "$T/run.out" "$T/out"
cp "$T/run.err" "$T/err"
check "the scraped run ends with exit 1 (injected errors)" 1 'OPERATIONS/second'
n=$(ls "$D"/*.txt 2>/dev/null | wc -l)
if [ "$n" -ge 5 ]; then pass "scraped the run $n times"; else fail "scraped the run 5 times or more" "$n"; fi

if grep -q 'text/plain; version=0.0.4' "$D/000.type" 2>/dev/null; then
    pass "Content-Type: text/plain; version=0.0.4"
else
    fail "Content-Type: text/plain; version=0.0.4" "$(cat "$D/000.type" 2>/dev/null)"
fi

if command -v promtool >/dev/null 2>&1; then
    bad=
    for f in "$D"/*.txt; do
        promtool check metrics <"$f" >"$T/promtool.out" 2>&1 || bad="$bad $(basename "$f"): $(head -c 200 "$T/promtool.out")"
    done
    if [ -z "$bad" ]; then pass "promtool check metrics accepts every scrape"
    else fail "promtool check metrics accepts every scrape" "$bad"; fi
else
    fail "promtool check metrics accepts every scrape" "promtool is missing (Debian package prometheus; ci/install-deps.sh)"
fi

py_check "counters only grow; phases warmup, measured, done; final counters equal the results file" \
    "$D" "$T/r.json" <<'PY'
import json, sys
from prom import scrapes, is_counter, report
ss = scrapes(sys.argv[1])
res = json.load(open(sys.argv[2]))["runs"][0]
t = 'test="sha256-digest"'
def ph(s, p): return s.get(("hsmbench_phase", f'{t},phase="{p}"'))
errs = []
phases = [next((p for p in ("warmup", "measured", "done") if ph(s, p) == 1), None) for s in ss]
if "warmup" not in phases: errs.append(f"no scrape in the warm-up: {phases}")
if "measured" not in phases: errs.append(f"no scrape while measuring: {phases}")
if phases[-1] != "done": errs.append(f"the last scrape is not 'done': {phases}")
# counters only grow
for a, b in zip(ss, ss[1:]):
    for k, v in a.items():
        if is_counter(k[0]) and b.get(k, -1) < v:
            errs.append(f"{k} went from {v} to {b.get(k)}")
# the histogram is cumulative and its count is its +Inf bucket
for s in ss:
    bs = sorted(((float("inf") if l.split('le="')[1][:-1] == "+Inf" else float(l.split('le="')[1][:-1])), v)
                for (n, l), v in s.items() if n == "hsmbench_latency_seconds_bucket")
    if any(y[1] < x[1] for x, y in zip(bs, bs[1:])): errs.append("buckets not cumulative")
    if bs and bs[-1][1] != s.get(("hsmbench_latency_seconds_count", t)):
        errs.append("+Inf bucket != _count")
mid = [s for s, p in zip(ss, phases) if p == "measured"]
if mid and not mid[-1].get(("hsmbench_operations_total", t)): errs.append("no operations counted while measuring")
last = ss[-1]
ops = last.get(("hsmbench_operations_total", t))
if ops != res["ops"]: errs.append(f"operations_total {ops} != results ops {res['ops']}")
e = {k[1]: v for k, v in last.items() if k[0] == "hsmbench_errors_total"}
want = {f'{t},code="{c}"': float(n) for c, n in res["errors_by_code"].items()}
if e != want: errs.append(f"errors_total {e} != results {want}")
if sum(e.values()) != res["errors"]: errs.append("errors do not add up")
cnt = last.get(("hsmbench_latency_seconds_count", t))
if cnt != res["ops"]: errs.append(f"latency _count {cnt} != ops (the successes)")
att = last.get(("hsmbench_attempts_total", t))
if att != res["attempts"] or att != res["ops"] + res["errors"]: errs.append(f"attempts_total {att} != results attempts {res['attempts']}")
mean = last.get(("hsmbench_latency_seconds_sum", t), 0) / cnt if cnt else 0
if not 0.0015 < mean < 0.05: errs.append(f"mean latency {mean} s is not about the 2 ms service time")
if max((s.get(("hsmbench_threads", t), 0) for s in mid), default=0) != 2: errs.append("threads gauge was not 2 while measuring")
if last.get(("hsmbench_threads", t)) != 0: errs.append(f"threads gauge is {last.get(('hsmbench_threads', t))} after the run, not 0")
# every series of the run carries the fleet's labels, the target's id without secrets
import glob as g
from prom import parse as p2
series = []
p2(sorted(g.glob(f"{sys.argv[1]}/*.txt"))[-1], series)
for name, lab in series:
    if not name.startswith("hsmbench_") or name in ("hsmbench_build_info",):
        continue
    if name == "hsmbench_run_info":
        want = ("run_id", "generator", "target_kind", "target_id")
    else:
        want = ("run_id", "generator", "target_kind", "target_id", "test", "threads", "mode")
    miss = [k for k in want if k not in lab]
    if miss: errs.append(f"{name} lacks {miss}")
    if lab.get("target_kind") not in (None, "pkcs11"): errs.append(f"target_kind {lab.get('target_kind')}")
    if "threads" in lab and lab["threads"] != "2": errs.append(f"threads label {lab['threads']}")
    if "mode" in lab and lab["mode"] != "blocking": errs.append(f"mode label {lab['mode']}")
    if "target_id" in lab and not lab["target_id"].startswith("libhsmbench-mock.so serial="):
        errs.append(f"target_id {lab['target_id']}")
report(errs)
PY

# ---- option checks ----------------------------------------------------------
run "$HSMBENCH" run --module "$NULLP11" --test sha256-digest --metrics-listen localhost:9464
check_one_line_error "--metrics-listen takes a numeric address" 2 '--metrics-listen localhost:9464: expected'
run "$HSMBENCH" run --module "$NULLP11" --test sha256-digest --metrics-listen 9464 --metrics-linger soon
check_one_line_error "--metrics-linger takes a time" 2 '--metrics-linger'
run "$HSMBENCH" run --module "$NULLP11" --test sha256-digest --duration 0.3 --quiet \
    --metrics-listen '[::1]:0' --metrics-linger 0
if [ "$rc" -eq 0 ] && grep -Eq '^hsmbench: metrics on http://\[::1\]:[0-9]+/metrics$' "$T/err"; then
    pass "--metrics-listen [::1]:PORT"
elif ! python3 -c 'import socket; socket.socket(socket.AF_INET6).bind(("::1", 0))' 2>/dev/null; then
    skip "--metrics-listen [::1]:PORT" "no IPv6 loopback here (::1 cannot be bound; as root: sysctl -w net.ipv6.conf.lo.disable_ipv6=0)"
else
    fail "--metrics-listen [::1]:PORT" "exit $rc: $(head -c 300 "$T/err")"
fi
for cmd in run "rest ekm" "rest http" serve; do
    # shellcheck disable=SC2086
    "$HSMBENCH" $cmd --help >"$T/help" 2>&1
    if grep -q -- '--metrics-listen' "$T/help" && grep -q -- '--metrics-linger' "$T/help"; then
        pass "$cmd --help lists --metrics-listen and --metrics-linger"
    else
        fail "$cmd --help lists --metrics-listen and --metrics-linger" "missing"
    fi
done

# ---- rest http against serve: statuses and routes ---------------------------
start_serve plain --metrics-listen 127.0.0.1:0 --metrics-linger 0 || exit 0
SURL=$(metrics_url "$T/plain.err") || fail "serve prints its metrics URL" "$(head -c 300 "$T/plain.err")"
"$HSMBENCH" rest http --url "$URL/status/503" --duration 0.3s --quiet --json "$T/h.json" \
    --metrics-listen 127.0.0.1:0 --metrics-linger 3 >"$T/h.out" 2>"$T/h.err" &
hpid=$!
HURL=$(metrics_url "$T/h.err") || fail "rest http prints its metrics URL" "$(head -c 300 "$T/h.err")"
i=0
while [ ! -s "$T/h.json" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
python3 -c 'import sys,urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1]).read().decode())' \
    "$HURL" >"$T/h.prom" 2>"$T/h.perr"
# an EKM wrap (whatever serve answers): its route label has no space
python3 -c '
import sys, urllib.request
try: urllib.request.urlopen(urllib.request.Request(sys.argv[1], data=b"{}", method="POST"), timeout=5)
except Exception: pass' "$URL/ekm/k1:wrap" 2>/dev/null
python3 -c 'import sys,urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1]).read().decode())' \
    "$SURL" >"$T/s.prom" 2>"$T/s.perr"
wait $hpid
rc=$?
cp "$T/h.out" "$T/out"
cp "$T/h.err" "$T/err"
check "rest http --metrics-listen: exit 1 (every answer a 503)" 1
if grep -Eq 'Sanitizer|runtime error' "$T/run.err" "$T/h.err"; then
    fail "no sanitizer report" "$(grep -Eh 'Sanitizer|runtime error' "$T/run.err" "$T/h.err" | head -n 2 | tr '\n' ' ')"
else
    pass "no sanitizer report"
fi
py_check "rest http: errors by code (HTTP_503, no status beside it); serve: requests by route (/KEY:wrap) and status; no label value with a space" \
    "$T/h.prom" "$T/s.prom" "$T/h.json" <<'PY'
import json, sys
from prom import parse, report
h, s = parse(sys.argv[1]), parse(sys.argv[2])
res = json.load(open(sys.argv[3]))["runs"][0]
errs = []
k = ("hsmbench_errors_total", 'test="http-get",code="HTTP_503"')
if h.get(k) != res["errors"] or not res["errors"]: errs.append(f"{k}: {h.get(k)} != {res['errors']}")
if h.get(("hsmbench_operations_total", 'test="http-get"')) != res["ops"]: errs.append("ops differ")
served = s.get(("hsmbench_serve_requests_total", 'route="/status/NNN",status="503"'), 0)
if h.get(("hsmbench_attempts_total", 'test="http-get"')) != res["attempts"]: errs.append("attempts differ")
if served < res["attempts"]: errs.append(f"serve counted {served} of {res['attempts']} requests")
wraps = [k for k in s if k[0] == "hsmbench_serve_requests_total" and 'route="/KEY:wrap"' in k[1]]
if not wraps: errs.append(f"no route=\"/KEY:wrap\" series: {sorted(k[1] for k in s)}")
for d in (h, s):
    for name, lab in d:
        if " " in lab: errs.append(f"a label value with a space: {name}{{{lab}}}")
report(errs)
PY
if command -v promtool >/dev/null 2>&1 && promtool check metrics <"$T/s.prom" >"$T/promtool.out" 2>&1 &&
    promtool check metrics <"$T/h.prom" >>"$T/promtool.out" 2>&1; then
    pass "promtool accepts rest http's and serve's metrics"
else
    fail "promtool accepts rest http's and serve's metrics" "$(head -c 300 "$T/promtool.out" 2>/dev/null)"
fi
rest_stop_all
