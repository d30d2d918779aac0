#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_grafana.sh - the Grafana dashboard (grafana/hsmbench-fleet.json):
# its JSON structure (panels with unique ids, a place on the grid and a
# Prometheus query each; the run, generator and test variables), what it
# shows (throughput, errors by code, latency quantiles from the histogram
# per test, never pooled, per generator and summed over them; one quantity
# a panel; saturation and generator CPU), the check refusing broken ones, every query parsed by promtool (as a
# rule of a rules file, the variables filled in), and only series and labels
# the live metrics have.  test_fleet runs each query on a real Prometheus.
. "$TOP/tests/e2e/lib.sh"
[ "$VARIANT" = plain ] || exit 0
D="$TOP/grafana/hsmbench-fleet.json"

cat >"$T/struct.py" <<'PY'

import json, re, sys
d = json.load(open(sys.argv[1]))
src = open(sys.argv[2]).read()
errs = []
for k in ("uid", "title", "panels", "templating", "schemaVersion"):
    if k not in d: errs.append(f"no {k}")
ids = [p.get("id") for p in d["panels"]]
if len(set(ids)) != len(ids) or None in ids: errs.append(f"panel ids {ids}")
var = {v["name"]: v for v in d["templating"]["list"]}
for name in ("datasource", "run_id", "generator", "test"):
    if name not in var: errs.append(f"no variable {name}")
if var.get("run_id", {}).get("includeAll") or var.get("run_id", {}).get("multi"):
    errs.append("run_id must pick one run")
exprs = []
for p in d["panels"]:
    g = p.get("gridPos", {})
    if not all(isinstance(g.get(k), int) for k in ("x", "y", "w", "h")) or g["x"] + g["w"] > 24:
        errs.append(f"{p.get('title')}: gridPos {g}")
    if p.get("type") not in ("timeseries", "stat"): errs.append(f"{p.get('title')}: type {p.get('type')}")
    if p.get("datasource", {}).get("type") != "prometheus": errs.append(f"{p.get('title')}: datasource")
    if not p.get("targets"): errs.append(f"{p.get('title')}: no query")
    for t in p.get("targets", []):
        e = t.get("expr", "")
        exprs.append((p["title"], e))
        if "hsmbench_run_info" not in e and 'run_id=~"$run_id"' not in e:
            errs.append(f"{p['title']}: a query not limited to the run: {e}")
        for m in re.findall(r"hsmbench_[a-z_]+", e):
            base = re.sub(r"_(bucket|sum|count)$", "", m) if m.startswith("hsmbench_latency_seconds") else m
            if f'"{base}"' not in src: errs.append(f"{p['title']}: {m} is no series of the live metrics")
        for lab in re.findall(r"by \(([^)]*)\)", e):
            for l in (x.strip() for x in lab.split(",")):
                if l not in ("le", "test", "threads", "mode", "generator", "code", "phase", "run_id"):
                    errs.append(f"{p['title']}: by {l}: no such label")
titles = " | ".join(p["title"] for p in d["panels"]).lower()
for want in ("throughput", "errors by code", "latency quantiles", "by generator", "all generators"):
    if want not in titles: errs.append(f"no panel for {want}")
allq = " ".join(e for _, e in exprs)
if "histogram_quantile(" not in allq or "hsmbench_latency_seconds_bucket" not in allq: errs.append("no quantile from the histogram")
if "by (generator" not in allq: errs.append("nothing per generator")
if "sum by (test, code)" not in allq: errs.append("no errors by code")
# p99 (every quantile) per test: a quantile of pooled tests means nothing
for title, e in exprs:
    for by in re.findall(r"histogram_quantile\([0-9.]+, sum by \(([^)]*)\)", e):
        if "test" not in [x.strip() for x in by.split(",")]: errs.append(f"{title}: a quantile pooling tests: {e}")
    if "_sum" in e and "_count" in e and not re.search(r"sum by \([^)]*test", e):
        errs.append(f"{title}: a mean pooling tests: {e}")
# one quantity per axis: every query of a panel measures the same kind of thing
KIND = {"hsmbench_operations_total": "rate", "hsmbench_errors_total": "rate", "hsmbench_attempts_total": "rate",
        "hsmbench_target_operations_per_second": "rate", "hsmbench_threads": "count", "hsmbench_in_flight": "count",
        "hsmbench_latency_seconds": "seconds", "hsmbench_client_cpu": "cpus", "hsmbench_phase": "phase",
        "hsmbench_unstarted_requests_total": "share", "hsmbench_run_info": "count"}
for p in d["panels"]:
    kinds = set()
    for t in p.get("targets", []):
        e = t.get("expr", "")
        names = [re.sub(r"_(bucket|sum|count)$", "", m) if m.startswith("hsmbench_latency_seconds") else m
                 for m in re.findall(r"hsmbench_[a-z_]+", e)]
        k = "share" if "hsmbench_unstarted_requests_total" in names else \
            "share" if "hsmbench_errors_total" in names and "hsmbench_attempts_total" in names else \
            KIND.get(names[0], names[0]) if names else "?"
        kinds.add(k)
    if len(kinds) > 1: errs.append(f"{p['title']}: one axis for {sorted(kinds)}")
if "hsmbench_unstarted_requests_total" not in allq or "saturation" not in titles:
    errs.append("no saturation panel (unstarted requests)")
if "hsmbench_client_cpu" not in allq or "generator cpu" not in titles:
    errs.append("no generator-CPU panel")
print("\n".join(errs))
sys.exit(1 if errs else 0)
PY
if python3 - "$D" "$TOP/bench/results/metrics.c" <"$T/struct.py" >"$T/struct.out" 2>&1; then
    pass "the dashboard's JSON: panels placed, each a Prometheus query of series the live metrics have; run, generator and test variables; throughput, errors by code, quantiles per test (never pooled) per generator and summed; one quantity a panel; saturation and generator-CPU panels"
else
    fail "the dashboard's JSON structure" "$(head -c 600 "$T/struct.out" | tr '\n' ' ')"
fi

# The structural check can fail: a p99 pooling the tests, a panel mixing
# threads with ops/s, a series the metrics lack are each refused.
for bad in 's/sum by (test, le)/sum by (le)/' 's/hsmbench_in_flight{/hsmbench_operations_total{/' \
    's/hsmbench_client_cpu{/hsmbench_client_cpu_seconds{/'; do
    sed "$bad" "$D" >"$T/bad.json"
    if python3 - "$T/bad.json" "$TOP/bench/results/metrics.c" <"$T/struct.py" >/dev/null 2>&1; then
        fail "the dashboard check refuses a broken dashboard ($bad)" "accepted"
    else
        pass "the dashboard check refuses a broken dashboard ($bad)"
    fi
done

# Every query as a recording rule: promtool parses each one.
python3 - "$D" >"$T/rules.yml" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print("groups:\n  - name: hsmbench-dashboard\n    rules:")
n = 0
for p in d["panels"]:
    for t in p["targets"]:
        e = t["expr"].replace("$run_id", "r1").replace("$generator", ".*").replace("$test", ".*")
        e = e.replace("$__rate_interval", "1m")
        n += 1
        print(f"      - record: hsmbench:dashboard_query_{n}")
        print("        expr: " + json.dumps(e))
PY
if ! command -v promtool >/dev/null 2>&1; then
    fail "promtool parses every query of the dashboard" "promtool is missing (Debian package prometheus; ci/install-deps.sh)"
elif promtool check rules "$T/rules.yml" >"$T/promtool.out" 2>&1; then
    pass "promtool parses every query of the dashboard ($(grep -c 'record:' "$T/rules.yml") queries)"
else
    fail "promtool parses every query of the dashboard" "$(head -c 400 "$T/promtool.out" | tr '\n' ' ')"
fi
# ... and it refuses a broken one: the check can fail.
sed 's/histogram_quantile(0.5, sum by (test, le)/histogram_quantile(0.5, sum by (test, le/' "$T/rules.yml" >"$T/bad.yml"
if promtool check rules "$T/bad.yml" >/dev/null 2>&1; then
    fail "promtool refuses a query with an unbalanced parenthesis" "accepted"
else
    pass "promtool refuses a query with an unbalanced parenthesis"
fi
