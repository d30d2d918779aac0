#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/big_results.py RUN.json OUT.json SECONDS [SHIFT_MS] - a large,
# valid results file made from a real run (RUN.json, one measured run): its
# run stretched to SECONDS seconds with one per_second element a second, as
# hsmbench writes them (indented by two, members in its order), the
# seconds' operations and errors adding up to the run's, every third second
# with a target and every fifth with in_flight, a string with escapes
# beside them.  SHIFT_MS moves the start (a second generator's file for
# merge: another host, the same run 250 ms later).
import json, sys

src, out, secs = sys.argv[1], sys.argv[2], int(sys.argv[3])
shift = int(sys.argv[4]) if len(sys.argv) > 4 else 0
doc = json.load(open(src))
run = doc["runs"][0]
run["duration_s"] = float(secs)
run["settings"]["duration_s"] = float(secs)
run["note"] = "a \"quoted\" per_second: [ {\\ \u00e9"
ops, errors = run["ops"], run["errors"]
series = []
for t in range(1, secs + 1):
    s = {"t": t, "span_s": 1.0 if t % 7 else 0.999, "ops": ops // secs, "errors": errors // secs,
         "p50_us": round(0.11 + (t % 13) / 100, 2), "p99_us": round(0.2 + (t % 29) / 10, 2)}
    if t % 3 == 0:
        s["target"] = 1000.0 + t % 11
    if t % 5 == 0:
        s["in_flight"] = t % 17
    series.append(s)
run["per_second"] = series
if shift:
    doc["started_at_epoch_ms"] += shift
    run["measure_start_epoch_ms"] += shift
    doc["environment"]["host"]["hostname"] += "-b"
with open(out, "w") as f:
    json.dump(doc, f, indent=2)
