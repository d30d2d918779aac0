#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/merge_exact.py A.json B.json M.json - what every merge of two
# generators' files must hold, run by run: M's histogram is the slot-by-slot
# sum of A's and B's, its latency_us the percentiles of that one histogram
# (as bench/core/hist.c computes them), and operations, errors, threads and the
# per-second operations add up.  Exits 1 with the first difference.
import json, math, sys

a, b, m = (json.load(open(p)) for p in sys.argv[1:4])


def slot_range(i):
    if i < 2048:
        return i, i
    k = i // 1024 - 1
    low = (i - 1024 * k) << k
    return low, low + (1 << k) - 1


def percentile(h, p):
    if h["total"] == 0:
        return 0
    if p <= 0:
        return h["min"]
    rank = max(1, math.ceil(math.nextafter(min(p, 100.0), 0) * h["total"] / 100))
    seen = 0
    for i, c in h["counts"]:
        seen += c
        if seen >= rank:
            return min(slot_range(i)[1], h["max"])
    return h["max"]


for ra, rb, r in zip(a["runs"], b["runs"], m["runs"]):
    counts = {}
    for h in (ra["histogram"], rb["histogram"]):
        for i, c in h["counts"]:
            counts[i] = counts.get(i, 0) + c
    hm = r["histogram"]
    assert dict((i, c) for i, c in hm["counts"]) == counts, "slot counts are not the sum"
    assert [i for i, _ in hm["counts"]] == sorted(counts), "slots out of order"
    assert hm["total"] == ra["histogram"]["total"] + rb["histogram"]["total"]
    assert hm["min"] == min(ra["histogram"]["min"], rb["histogram"]["min"])
    assert hm["max"] == max(ra["histogram"]["max"], rb["histogram"]["max"])
    for key, p in (("p50", 50), ("p90", 90), ("p95", 95), ("p99", 99), ("p999", 99.9), ("max", 100), ("min", 0)):
        want = math.floor(percentile(hm, p) / 10 + 0.5) / 100    # C's round(): halves away from zero
        assert abs(r["latency_us"][key] - want) < 1e-9, (key, r["latency_us"][key], want)
    assert r["latency_us"]["count"] == hm["total"]
    assert r["ops"] == ra["ops"] + rb["ops"], r["ops"]
    assert r["errors"] == ra["errors"] + rb["errors"]
    # ops are the successes (the histogram's count); attempts add the errors
    assert r["ops"] == hm["total"] and r["attempts"] == r["ops"] + r["errors"], (r["ops"], r["attempts"])
    assert r["per_second_upper_bound"] is True
    assert r["threads"] == ra["threads"] + rb["threads"]
    assert abs(r["ops_per_s"] - round(ra["ops_per_s"] + rb["ops_per_s"], 2)) < 0.011
    assert r["duration_s"] == max(ra["duration_s"], rb["duration_s"])
    assert sum(s["ops"] for s in r["per_second"]) == sum(s["ops"] for s in ra["per_second"] + rb["per_second"])
    assert [s["t"] for s in r["per_second"]] == list(range(1, len(r["per_second"]) + 1))
assert m["schema"] == "hsmbench.result/3" and m["merged_from"] == sys.argv[1:3], m["merged_from"]
assert m["command"][:2] == ["hsmbench", "merge"]
