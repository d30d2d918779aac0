#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_html.sh - the HTML report of real runs (a threads sweep, a
# target series, a hostile test name), opened in a real headless Chromium:
# it must render without console errors, hold its SVG charts, and produce a
# non-empty screenshot.
. "$TOP/tests/e2e/lib.sh"

# A test the null module completes without errors (fall back to any).
null_test() {
    for t in sha256-digest rsa-pkcs-sign hmac-sha256 aes-gcm-encrypt; do
        "$HSMBENCH" run --module "$NULLP11" --test "$t" --iterations 200 --quiet --json "$T/probe.json" \
            </dev/null >/dev/null 2>&1
        if python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["runs"][0]; sys.exit(r["status"] != "ok" or r["errors"] > 0)' \
            "$T/probe.json" 2>/dev/null; then
            echo "$t"
            return
        fi
    done
    echo sha256-digest
}
NT=$(null_test)

# chart_check NAME PAGE EXPR: EXPR (python) holds of PAGE's charts, each a
# dict: title, ylabel (the rotated axis label), yticks (their labels),
# legend (the series' names, in order), lines ({name: [(x, h)]}: each
# point's height h in the plot area, 0 on the x axis, 1 at its top), read
# as report_html.c draws them (a series' polyline has its legend's colour).
chart_check() {
    name=$1 page=$2 expr=$3
    if python3 - "$page" "$expr" >"$T/cerr" 2>&1 <<'PY'
import re, sys
html = open(sys.argv[1], encoding="utf-8").read()
charts = []
for svg in re.findall(r"<svg .*?</svg>", html, re.S):
    title = re.search(r"<title>(.*?)</title>", svg, re.S).group(1)
    axis_y = re.search(r'<line class="axis" x1="(\d+)" y1="(\d+)" x2="\1" y2="(\d+)"/>', svg)
    top, bottom = (float(axis_y.group(2)) + 6, float(axis_y.group(3))) if axis_y else (0.0, 1.0)
    yl = re.search(r'<text class="al" transform="[^"]*rotate\(-90\)">(.*?)</text>', svg)
    legend = re.findall(r'<line x1="[^"]*" y1="32" x2="[^"]*" y2="32" stroke="([^"]*)"[^>]*/>'
                        r'<text class="lg"[^>]*>(.*?)</text>', svg)
    lines = {}
    for color, pts in re.findall(r'<polyline class="ln" stroke="([^"]*)"[^>]*points="([^"]*)"', svg):
        nm = next((n for c, n in legend if c == color and n not in lines), color)
        lines[nm] = [(float(x), (bottom - float(y)) / (bottom - top))
                     for x, y in (p.split(",") for p in pts.split())]
    charts.append({"title": title, "ylabel": yl.group(1) if yl else "",
                   "yticks": re.findall(r'<text class="yl"[^>]*>(.*?)</text>', svg),
                   "legend": [n for _, n in legend], "lines": lines})
def chart(title):
    return next(c for c in charts if c["title"] == title)
ok = eval(sys.argv[2], {"charts": charts, "chart": chart, "html": html, "re": re})
if not ok:
    print([(c["title"], c["ylabel"], c["legend"]) for c in charts])
sys.exit(0 if ok else 1)
PY
    then pass "$name"; else fail "$name" "$(head -c 600 "$T/cerr" | tr '\n' ' ')"; fi
}

# ---- real runs: 1 and 2 threads, together make a sweep (3 s: per-second charts) ---------
"$HSMBENCH" run --module "$NULLP11" --test "$NT" --threads 1 --duration 3 --quiet --json "$T/t1.json" </dev/null >/dev/null 2>&1 &
p1=$!
"$HSMBENCH" run --module "$NULLP11" --test "$NT" --threads 2 --duration 3 --quiet --json "$T/t2.json" </dev/null >/dev/null 2>&1
wait $p1
if [ -s "$T/t1.json" ] && [ -s "$T/t2.json" ]; then pass "two null-module runs ($NT, 1 and 2 threads)"
else fail "two null-module runs ($NT, 1 and 2 threads)" "no results file"; fi

# One document: both runs (a sweep), and a third run whose name and error code
# try to inject markup, made a non-blocking run with a target (the requests
# its schedule asked for each second, drawn beside its operations per second).
python3 - "$T/t1.json" "$T/t2.json" "$T/all.json" <<'PY'
import copy, json, sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
r2 = b["runs"][0]
evil = copy.deepcopy(a["runs"][0])
evil["test"] = '<script>alert("x")</script><img src=x onerror=alert(1)>'
evil["errors_by_code"] = {'<b>CKR_"EVIL"</b>': 1}
evil["mode"] = "nonblocking"
for s in evil["per_second"]:
    s["target"] = 1000.0 * s["span_s"]
a["runs"] += [r2, evil]
json.dump(a, open(sys.argv[3], "w"))
PY

run "$HSMBENCH" report "$T/all.json" --html "$T/r.html"
check "report --html: exit 0" 0
file_has "HTML: a complete document" "$T/r.html" '^<!DOCTYPE html>'
file_has "HTML: a Content-Security-Policy forbids fetching anything" "$T/r.html" "Content-Security-Policy\" content=\"default-src 'none'"
file_lacks "HTML: no script element (the hostile name is escaped)" "$T/r.html" '<script'
file_lacks "HTML: no element from the hostile name" "$T/r.html" '<img'
file_has "HTML: the hostile name shown as text" "$T/r.html" '&lt;script&gt;alert\(&quot;x&quot;\)&lt;/script&gt;'
file_lacks "HTML: no external resource" "$T/r.html" 'src="http'
file_has "HTML: sweep charts (by threads)" "$T/r.html" 'Throughput by threads'
file_has "HTML: the target series is drawn" "$T/r.html" '>target</text>'
file_has "HTML: latency percentile curve" "$T/r.html" 'Latency by percentile'
nsvg=$(grep -o '<svg ' "$T/r.html" | wc -l)
if [ "$nsvg" -eq 14 ]; then pass "HTML: 14 charts (4 per run, 2 for the sweep)"
else fail "HTML: 14 charts (4 per run, 2 for the sweep)" "$nsvg"; fi

run "$HSMBENCH" report "$T/all.json" --html -
if [ "$rc" -eq 0 ] && cmp -s "$T/out" "$T/r.html"; then pass "report --html - writes the same page to stdout"
else fail "report --html - writes the same page to stdout" "exit $rc"; fi

# ---- the percentile chart on HDR's axis, a log latency axis, thresholds' units ----
# The mock's 20 µs service with one 30 ms stall: p50 near 20 µs, max 30 ms,
# more than two decades apart (a linear axis would flatten all but the tail).
MOCK="$(dirname "$NULLP11")/libhsmbench-mock.so"
env HSMBENCH_MOCK="service=fixed:20us;stall-at=300ms:30ms" "$HSMBENCH" run --module "$MOCK" \
    --test aes-gcm-encrypt --duration 1 --threshold 'p(99)<10ms' --threshold 'rate>1' \
    --quiet --json "$T/wide.json" </dev/null >/dev/null 2>&1
run "$HSMBENCH" report "$T/wide.json" --html "$T/wide.html"
check "report --html of a run from 20 µs to 30 ms: exit 0" 0
tr '>' '\n' <"$T/wide.html" >"$T/wide.txt"
for tick in '90%' '99%' '99.9%' '99.99%'; do
    file_has "HTML: the percentile axis has the $tick tick" "$T/wide.txt" "^$(printf '%s' "$tick" | sed 's/\./\\./g')</text\$"
done
file_has "HTML: the percentile axis is HdrHistogram's 1/(1-p) on a log scale" "$T/wide.html" \
    'percentile \(HdrHistogram: 1/\(1.{1,3}p\) on a log scale\)'
file_has "HTML: more than two decades: a log latency axis" "$T/wide.html" '>latency \(log scale\)</text>'
file_has "HTML: the log axis has a tick per decade" "$T/wide.txt" '^10ms</text$'
file_has "HTML: a latency threshold in the terminal's units" "$T/wide.html" \
    'p\(99\)&lt;10ms</code> observed [0-9.]+(ns|µs|ms|s)</li>'
file_has "HTML: a rate threshold in the terminal's units" "$T/wide.html" 'rate&gt;1</code> observed [0-9.]+/s</li>'
file_lacks "HTML: no threshold in raw 'us'" "$T/wide.html" 'observed [0-9.]+ us'
# A narrow run (the null module's sha256-digest, or a single value) keeps a linear axis.
python3 - "$T/t1.json" "$T/narrow.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
h = d["runs"][0]["histogram"]
top = max(h["counts"], key=lambda c: c[1])
h["counts"] = [top]
h["min"] = h["max"] = 1000
h["total"] = top[1]
json.dump(d, open(sys.argv[2], "w"))
PY
run "$HSMBENCH" report "$T/narrow.json" --html "$T/narrow.html"
check "report --html of a narrow run: exit 0" 0

# ---- one quantity an axis, one rule for latency (issue 41) ------------------------
# The latency axis does not switch with the range: a run of one value has
# the same log axis, labelled, as the run from 20 µs to 30 ms.
file_has "HTML: a narrow range: still the log latency axis, labelled (one rule)" "$T/narrow.html" \
    '>latency \(log scale\)</text>'
chart_check "HTML: every latency axis of the pages is logarithmic and says so" "$T/r.html" \
    'all("log scale" in c["ylabel"] for c in charts if c["ylabel"].startswith("latency")) and sum(c["ylabel"].startswith("latency") for c in charts) >= 7'
file_has "HTML: the page states its axes' rule" "$T/narrow.html" 'Every latency axis is logarithmic \(labelled log scale\)'
chart_check "HTML: a non-blocking run's target rate beside its operations per second (one quantity)" "$T/r.html" \
    'any(c["title"] == "Operations per second" and c["legend"] == ["operations/s", "target"] for c in charts)'

# A blocking --stages run on the mock with 2 % of errors: its target is a
# thread count (up to 4), its errors some 2 % of its operations; each gets
# its own axis, where its peak reaches at least half the chart's height
# (on the operations' axis they lay on the x axis: 4 threads beside some
# 3000/s).  Heights only: the mock's speed does not matter.
env HSMBENCH_MOCK="service=fixed:1ms;cores=8;fail=CKR_DEVICE_ERROR:0.02;seed=3" "$HSMBENCH" run --module "$MOCK" \
    --test sha256-digest --data-size 8192 --stages 1s:4,1s:4,1s:0 --quiet --json "$T/stages.json" \
    --html "$T/stages.html" </dev/null >/dev/null 2>&1
chart_check "HTML: a blocking --stages run's threads on their own axis (4 threads at least half the chart high)" \
    "$T/stages.html" \
    'chart("Threads (--stages)")["ylabel"] == "threads" and max(h for _, h in list(chart("Threads (--stages)")["lines"].values())[0]) > 0.5'
chart_check "HTML: no thread count on the operations per second axis" "$T/stages.html" \
    'chart("Operations per second")["legend"] == ["operations/s"]'
chart_check "HTML: errors per second on their own axis (2 % of errors at least half the chart high)" \
    "$T/stages.html" \
    'chart("Errors per second")["ylabel"] == "errors per second" and max(h for _, h in chart("Errors per second")["lines"]["errors/s"]) > 0.5 and "errors/s" not in chart("Operations per second")["legend"]'
# Sizes and byte rates in binary units: 8192 bytes is 8 KiB, not 8.2 kB.
file_has "HTML: the data processed and its rate in binary units" "$T/stages.html" \
    '<th>data</th><td class="n">[0-9.]+ (KiB|MiB|GiB)</td><th>data rate</th><td class="n">[0-9.]+ (KiB|MiB|GiB)/s</td>'
chart_check "HTML: no decimal kB or MB on the page" "$T/stages.html" 'not re.search(r"[0-9] (kB|MB|GB)\b", html)'

# A datasheet of RSA sign and verify (and a digest for bytes/s by data
# size), on the null module; its figures then set as a token's (verify 30
# times as fast as sign), deterministically.  Both lines must read: on one
# linear axis sign's rise from 1 to 2 threads (1000/s to 2000/s, beside
# 30000/s to 60000/s) was a sixtieth of the chart's height.
run "$HSMBENCH" datasheet --module "$NULLP11" --test rsa-pkcs-sign,rsa-pkcs-verify,sha256-digest \
    --data-size 16,8192 --step-time 0.2s --max-threads 2 --json "$T/ds.json" </dev/null
python3 - "$T/ds.json" "$T/ds2.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["runs"]:
    k = {"rsa-pkcs-sign": 1000, "rsa-pkcs-verify": 30000}.get(r["test"])
    if k and r.get("status") == "ok":
        r["ops_per_s"] = float(k * r["threads"])
json.dump(d, open(sys.argv[2], "w"))
PY
run "$HSMBENCH" report "$T/ds2.json" --html "$T/ds.html"
check "report --html of a datasheet of sign and verify: exit 0" 0
chart_check "HTML: datasheet: sign and verify each readable (a log axis, labelled; sign's doubling a tenth of the height)" \
    "$T/ds.html" \
    '[c["ylabel"] for c in charts if c["title"].endswith("throughput by threads")] and all(c["ylabel"] == "operations per second (log scale)" for c in charts if c["title"].endswith("throughput by threads")) and [abs(l[-1][1] - l[0][1]) > 0.1 for c in charts for n, l in c["lines"].items() if n.startswith("rsa-pkcs-sign")] == [True]'
file_has "HTML: datasheet: the data sizes in binary units (8 KiB, not 8.2 kB)" "$T/ds.html" \
    '<th class="n">bytes/s 8 KiB</th>'
chart_check "HTML: datasheet: bytes/s by data size, categories 16 B and 8 KiB, a log axis of bytes" "$T/ds.html" \
    'any(c["title"].endswith("bytes/s by data size (1 thread)") and c["ylabel"] == "bytes per second (log scale)" for c in charts) and ">8 KiB</text>" in html'

# ---- in a real browser ------------------------------------------------------------
# Once, in the plain build: the page does not depend on the build variant.
[ "$VARIANT" = plain ] || exit 0
CHROME=""
for c in chromium chromium-browser google-chrome; do
    if command -v "$c" >/dev/null 2>&1; then CHROME=$(command -v "$c"); break; fi
done
if [ -z "$CHROME" ]; then
    skip "HTML in a browser (chromium --headless)" "no chromium, chromium-browser or google-chrome (Debian package chromium; ci/install-deps.sh)"
    exit 0
fi
chrome() {
    timeout 90 "$CHROME" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --user-data-dir="$(mktemp -d "$T/chrome.XXXXXX")" "$@"
}
chrome --enable-logging=stderr --v=0 --dump-dom "file://$T/r.html" >"$T/dom" 2>"$T/chrome.err"
rc=$?
if [ "$rc" -eq 0 ] && grep -q '</html>' "$T/dom"; then pass "chromium loads the page (--dump-dom)"
else fail "chromium loads the page (--dump-dom)" "exit $rc: $(grep -v dbus "$T/chrome.err" | tail -n 3 | tr '\n' ' ')"; fi
if grep -Eq ':CONSOLE|Uncaught' "$T/chrome.err"; then
    fail "chromium: no console errors" "$(grep -E ':CONSOLE|Uncaught' "$T/chrome.err" | head -n 3 | tr '\n' ' ')"
else
    pass "chromium: no console errors"
fi
ndom=$(grep -o '<svg ' "$T/dom" | wc -l)
if [ "$ndom" -eq 14 ]; then pass "chromium: the DOM holds the 14 SVG charts"
else fail "chromium: the DOM holds the 14 SVG charts" "$ndom"; fi
if grep -q '<polyline' "$T/dom" && grep -q '<circle' "$T/dom"; then pass "chromium: the charts hold lines and points"
else fail "chromium: the charts hold lines and points" "none in the DOM"; fi
file_lacks "chromium: no script element in the DOM" "$T/dom" '<script'

chrome --screenshot="$T/page.png" --window-size=1200,2000 "file://$T/r.html" >/dev/null 2>"$T/chrome.err"
rc=$?
size=$(wc -c <"$T/page.png" 2>/dev/null || echo 0)
if [ "$rc" -eq 0 ] && [ "$(head -c 8 "$T/page.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] &&
    [ "$size" -gt 30000 ]; then
    pass "chromium: a non-empty PNG screenshot ($size bytes)"
else
    fail "chromium: a non-empty PNG screenshot" "exit $rc, $size bytes: $(grep -v dbus "$T/chrome.err" | tail -n 2 | tr '\n' ' ')"
fi
chrome --screenshot="$T/wide.png" --window-size=1200,1400 "file://$T/wide.html" >/dev/null 2>"$T/chrome.err"
rc=$?
size=$(wc -c <"$T/wide.png" 2>/dev/null || echo 0)
if [ "$rc" -eq 0 ] && [ "$size" -gt 30000 ]; then
    pass "chromium: a screenshot of the log-axis percentile chart ($size bytes)"
else
    fail "chromium: a screenshot of the log-axis percentile chart" "exit $rc, $size bytes"
fi
