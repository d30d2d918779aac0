#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""tests/e2e/witness_steps.py RECORDING RESULTS FUNCTION - each run of a
results file against the calls the module saw in that run's window.

A reader of the call recorder's file (p11/traceformat.h) of its own, apart
from hsmbench's: for every run of RESULTS (a capacity search's steps, a
sweep's points) it counts the calls of FUNCTION ("C_Sign") that returned
CKR_OK inside the run's measured window (measure_start_epoch_ms to
+duration_s, turned into the recording's monotonic clock through the
header's two start times), and prints one JSON line per run:

    {"step": k, "status": s, "target": offered/s or null, "hs_ops": n,
     "module_ops": m, "duration_s": d}

Exits 2 when the file is not a recording.
"""
import json
import struct
import sys

HEADER = 4096
CHUNK = 65536
CHUNK_HEADER = 64
RECORD = 80
REC = struct.Struct("<QQQQQQQQQIHH")


def function_number(name):
    """FUNCTION's place in the recorder's list, read from its header."""
    import os
    import re
    top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    text = open(os.path.join(top, "p11", "traceformat.h"), encoding="utf-8").read()
    body = re.search(r"#define HSMBENCH_TRACE_FUNCTIONS\(X\) \\(.*?)\n\n", text, re.S).group(1)
    names = ["C_" + n for n in re.findall(r"X\((\w+)\)", body)]
    return names.index(name)


def ok_exits(path, fn):
    """The exit times of FUNCTION's successful calls."""
    data = open(path, "rb").read()
    if len(data) < HEADER or data[:8] != b"HSMBTRC1":
        sys.exit(2)
    mono_start, real_start = struct.unpack_from("<QQ", data, 8 + 6 * 4 + 16)
    out = []
    for k in range((len(data) - HEADER) // CHUNK):
        base = HEADER + k * CHUNK
        if struct.unpack_from("<I", data, base)[0] == 0:
            continue
        for i in range((CHUNK - CHUNK_HEADER) // RECORD):
            r = REC.unpack_from(data, base + CHUNK_HEADER + i * RECORD)
            if r[0] == 0:
                break
            if r[10] == fn and r[1] and r[6] == 0:
                out.append(r[1])
    out.sort()
    return mono_start, real_start, out


def main():
    path, results, name = sys.argv[1:4]
    mono_start, real_start, exits = ok_exits(path, function_number(name))
    import bisect
    for run in json.load(open(results))["runs"]:
        if "measure_start_epoch_ms" not in run:
            continue
        start = run["measure_start_epoch_ms"] * 1000000 - real_start + mono_start
        end = start + int(run["duration_s"] * 1e9)
        n = bisect.bisect_right(exits, end) - bisect.bisect_left(exits, start)
        print(json.dumps({"step": run.get("capacity_step"), "status": run["status"],
                          "target": run.get("schedule", {}).get("target_ops_per_s"),
                          "hs_ops": run.get("ops"), "module_ops": n,
                          "duration_s": run["duration_s"]}))


if __name__ == "__main__":
    main()
