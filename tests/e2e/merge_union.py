#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/merge_union.py DIR N: DIR/all.json, a fleet's merged file, is the
# exact union of DIR/0.json .. DIR/(N-1).json that it merged (a missing
# part's number left out): operations, errors, attempts and threads added,
# errors by code added, the histogram slot by slot with its total, min and
# max, and the per-second operations.  Prints each difference; exits 1 on any.
# (tests/e2e/merge_exact.py holds a merge of two files to every figure.)
import os
import json
import sys

d, n = sys.argv[1], int(sys.argv[2])
parts = [json.load(open(f"{d}/{i}.json")) for i in range(n) if os.path.exists(f"{d}/{i}.json")]
n = len(parts)
m = json.load(open(f"{d}/all.json"))
errs = []
if len(m["merged_from"]) != n: errs.append(f"merged_from {m['merged_from']}")
for j, run in enumerate(m["runs"]):
    ps = [p["runs"][j] for p in parts]
    for k in ("ops", "errors", "attempts", "threads"):
        if run[k] != sum(p[k] for p in ps): errs.append(f"{k}: {run[k]} != {[p[k] for p in ps]}")
    codes = {}
    for p in ps:
        for c, v in p["errors_by_code"].items(): codes[c] = codes.get(c, 0) + v
    if run["errors_by_code"] != codes: errs.append(f"errors_by_code {run['errors_by_code']} != {codes}")
    slots = {}
    for p in ps:
        for i, c in p["histogram"]["counts"]: slots[i] = slots.get(i, 0) + c
    if {i: c for i, c in run["histogram"]["counts"]} != slots: errs.append("histogram is not the slot-by-slot sum")
    if run["histogram"]["total"] != sum(p["histogram"]["total"] for p in ps): errs.append("histogram total")
    if run["histogram"]["min"] != min(p["histogram"]["min"] for p in ps): errs.append("histogram min")
    if run["histogram"]["max"] != max(p["histogram"]["max"] for p in ps): errs.append("histogram max")
    if sum(s["ops"] for s in run["per_second"]) != sum(s["ops"] for p in ps for s in p["per_second"]):
        errs.append("per-second ops do not add up")
print("\n".join(errs))
sys.exit(1 if errs else 0)
