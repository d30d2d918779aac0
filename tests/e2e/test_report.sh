#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_report.sh - hsmbench report: the CSV report and the table from
# real results files, thresholds on saved results, and bad input (one-line
# errors, exit 2).
. "$TOP/tests/e2e/lib.sh"

# ---- a real results file: SoftHSM, a signature test and a data test -------------
run "$HSMBENCH" run --test rsa-pkcs-sign,sha256-digest --duration 1 --quiet --json "$T/r.json"
if [ -s "$T/r.json" ]; then pass "results file from a SoftHSM run"
else fail "results file from a SoftHSM run" "exit $rc: $(head -c 300 "$T/err")"; fi

# ---- CSV ----------------------------------------------------------------------
run "$HSMBENCH" report "$T/r.json" --csv "$T/r.csv"
check "report --csv: exit 0" 0
if python3 - "$T/r.json" "$T/r.csv" >"$T/py" 2>&1 <<'PY'
import csv, json, sys
doc = json.load(open(sys.argv[1]))
raw = open(sys.argv[2], newline="").read()
assert raw.endswith("\r\n") and "\n" not in raw.replace("\r\n", ""), "lines must end in CRLF"
rows = list(csv.reader(open(sys.argv[2], newline="")))
header = ["operation", "threads", "duration(sec)", "total operations", "average latency(ms)",
          "p90 latency(ms)", "p99 latency(ms)", "min latency (ms)", "max latency (ms)", "Error %",
          "Throughput per sec", "capacity (kb/s)", "p50 latency(ms)", "p95 latency(ms)", "attempts",
          "successes", "successes per sec", "success average latency(ms)", "success p99 latency(ms)"]
assert rows[0] == header, rows[0]
assert len(rows) == 1 + len(doc["runs"]), len(rows)
for row, run in zip(rows[1:], doc["runs"]):
    assert len(row) == 19, row
    assert row[0] == run["test"] and int(row[1]) == run["threads"], row
    # total operations are the attempts, as in JMeter; successes the ops
    assert int(row[3]) == int(row[14]) == run["attempts"] == run["ops"] + run["errors"], row
    assert int(row[15]) == run["ops"], row
    lat = run.get("attempts_latency_us", run["latency_us"])
    for col, key in ((4, "mean"), (5, "p90"), (6, "p99"), (7, "min"), (8, "max"), (12, "p50"), (13, "p95")):
        assert abs(float(row[col]) - lat[key] / 1000) < 1e-5, (col, row[col], lat[key])
    for col, key in ((17, "mean"), (18, "p99")):
        assert abs(float(row[col]) - run["latency_us"][key] / 1000) < 1e-5, (col, row[col])
    assert row[9] == "%.2f%%" % run["error_pct"], row[9]
    assert abs(float(row[10]) - run["attempts_per_s"]) < 0.006, row[10]
    assert abs(float(row[16]) - run["ops_per_s"]) < 0.006, row[16]
    if run["bytes_per_s"] > 0:
        assert abs(float(row[11]) - run["bytes_per_s"] / 1024) < 0.006, row[11]
    else:
        assert row[11] == "NA", row[11]
caps = {row[0]: row[11] for row in rows[1:]}
assert caps["rsa-pkcs-sign"] == "NA", caps
PY
then pass "CSV: exact header, one row per run, values match the JSON, CRLF"
else fail "CSV: exact header, one row per run, values match the JSON, CRLF" "$(tail -n 3 "$T/py" | tr '\n' ' ')"; fi
file_has "CSV: the data test's capacity is a number (kB/s)" "$T/r.csv" '^sha256-digest,([^,]*,){10}[0-9]+\.[0-9]{2},'
file_has "CSV: the signature test's capacity is NA" "$T/r.csv" '^rsa-pkcs-sign,.*,NA,[0-9.]+,[0-9.]+'

run "$HSMBENCH" report "$T/r.json" --csv -
if [ "$rc" -eq 0 ] && cmp -s "$T/out" "$T/r.csv"; then pass "report --csv - writes the same CSV to stdout"
else fail "report --csv - writes the same CSV to stdout" "exit $rc"; fi

# RFC 4180 quoting: a name with a comma and quotes survives a CSV reader.
python3 - "$T/r.json" "$T/q.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
doc["runs"][0]["test"] = 'say "hi", then sign'
json.dump(doc, open(sys.argv[2], "w"))
PY
run "$HSMBENCH" report "$T/q.json" --csv "$T/q.csv"
check "report --csv on a file with a comma and quotes in a name: exit 0" 0
if python3 -c 'import csv,sys; rows=list(csv.reader(open(sys.argv[1], newline=""))); sys.exit(0 if rows[1][0] == "say \"hi\", then sign" and len(rows[1]) == 19 else 1)' "$T/q.csv"
then pass "CSV: RFC 4180 quoting round-trips a comma and quotes"
else fail "CSV: RFC 4180 quoting round-trips a comma and quotes" "$(sed -n 2p "$T/q.csv")"; fi
file_has "CSV: quotes doubled inside a quoted field" "$T/q.csv" '^"say ""hi"", then sign",'

# ---- the table -------------------------------------------------------------------
run "$HSMBENCH" report "$T/r.json"
check "report FILE: a table of the runs" 0 '^  rsa-pkcs-sign +RSA 2048 +32 B +1 ok'
file_has "report FILE: the data test's row" "$T/out" '^  sha256-digest +- +1024 B +1 ok'
# Long test and key names (a REST variant, a long key description) widen
# their columns: every row's DATA and STATUS start where the header's do.
python3 - "$T/r.json" "$T/long.json" <<'PY'
import copy, json, sys
d = json.load(open(sys.argv[1]))
r = copy.deepcopy(d["runs"][0])
r["test"] = "rsa-pkcs-sign-with-a-much-longer-name-than-26"
r["key"] = {"type": "RSA", "bits": 2048, "curve": "a-long-curve-name-for-the-key"}
d["runs"].append(r)
json.dump(d, open(sys.argv[2], "w"))
PY
run "$HSMBENCH" report "$T/long.json"
check "report FILE with long names: exit 0" 0 '^  rsa-pkcs-sign-with-a-much-longer-name-than-26 '
if python3 - "$T/out" >"$T/py" 2>&1 <<'PY'
import sys
lines = [l for l in open(sys.argv[1], encoding="utf-8").read().split("\n") if l.startswith("  ")]
head = lines[0]
# right-aligned DATA and THREADS end where their headers end; KEY and STATUS start where theirs start
for word, right in (("KEY", 0), ("DATA", 1), ("THREADS", 1), ("STATUS", 0)):
    col = head.index(word) + (len(word) if right else 0)
    for l in lines[1:]:
        if right:
            assert l[col - 1] != " " and l[col] == " ", (word, l)
        else:
            assert l[col - 1] == " " and l[col] != " ", (word, l)
PY
then pass "report FILE: long test and key names keep the columns aligned"
else fail "report FILE: long test and key names keep the columns aligned" "$(tail -n 3 "$T/py")"; fi

# ---- thresholds on a saved file ------------------------------------------------------
run "$HSMBENCH" report "$T/r.json" --threshold 'rate>0' --threshold 'p99<100s' --threshold 'rsa-pkcs-sign:errors<=100%'
check "report --threshold, all passing: exit 0" 0 "✓ 'rate>0' rate="
file_has "report --threshold: k6-style block" "$T/out" '█ THRESHOLDS'
file_has "report --threshold: TEST: form evaluated on its test" "$T/out" "✓ 'rsa-pkcs-sign:errors<=100%' errors="
run "$HSMBENCH" report "$T/r.json" --threshold 'rate>1e15' --threshold 'p99<100s'
check "report --threshold, one failing: exit 99 (k6's)" 99 "✗ 'rate>1e15' rate=" 'threshold checks? failed'
run "$HSMBENCH" report "$T/r.json" --threshold 'p99<5xs'
check_one_line_error "report --threshold with a bad unit: exit 2, expression named" 2 "--threshold 'p99<5xs': unknown unit 'xs'"
run "$HSMBENCH" report "$T/r.json" --threshold 'p99<1s' --csv "$T/t.csv" --quiet
check "report --threshold --quiet: nothing on stdout" 0
if [ -s "$T/out" ]; then fail "report --quiet prints nothing" "$(head -c 200 "$T/out")"; else pass "report --quiet prints nothing"; fi

# ---- bad input: one line, exit 2 ------------------------------------------------------
run "$HSMBENCH" report "$T/missing.json" --csv "$T/x.csv"
check_one_line_error "report of a missing file: exit 2" 2 "missing\.json: No such file or directory"
if [ -e "$T/x.csv" ]; then fail "report of a missing file writes no CSV" "x.csv exists"; else pass "report of a missing file writes no CSV"; fi
printf '{"schema": "hsmbench.result/1", "runs": [' >"$T/bad.json"
run "$HSMBENCH" report "$T/bad.json"
check_one_line_error "report of bad JSON: exit 2, line and column" 2 'bad\.json: bad JSON at line 1, column [0-9]+'
printf '{"schema": "hsmbench.result/4", "runs": []}\n' >"$T/v4.json"
run "$HSMBENCH" report "$T/v4.json"
check_one_line_error "report of schema /4: exit 2, refused by name" 2 'schema hsmbench.result/4 is not supported'
printf '{"schema": "something-else", "runs": []}\n' >"$T/other.json"
run "$HSMBENCH" report "$T/other.json"
check_one_line_error "report of another schema: exit 2" 2 'not an hsmbench results file'
printf '{"schema": "hsmbench.result/1", "runs": []}\n' >"$T/none.json"
run "$HSMBENCH" report "$T/none.json"
check_one_line_error "report of a file with no runs: exit 2" 2 'none\.json: no runs'
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); del d["runs"][0]["histogram"]; json.dump(d, open(sys.argv[2], "w"))' "$T/r.json" "$T/nohist.json"
run "$HSMBENCH" report "$T/nohist.json"
check_one_line_error "report of a run without its histogram: exit 2, field named" 2 'runs\[0\]\.histogram: missing'
run "$HSMBENCH" report
check_one_line_error "report without a file: exit 2" 2 'a results file is required'
run "$HSMBENCH" report "$T/r.json" "$T/r.json"
check_one_line_error "report with two files: exit 2" 2 'unexpected argument'
run "$HSMBENCH" report "$T/r.json" --bogus
check_one_line_error "report --bogus: exit 2" 2 '--bogus: unknown option'
run "$HSMBENCH" report "$T/r.json" --csv /nonexistent-dir/r.csv
check_one_line_error "report --csv into a missing directory: exit 2" 2 '--csv /nonexistent-dir/r\.csv'
run "$HSMBENCH" report --help
check "report --help: usage, exit 0" 0 '^Usage: hsmbench report RESULT\.json'

# ---- the manual page ----------------------------------------------------------------------------
page="$TOP/man/hsmbench-report.1"
if command -v groff >/dev/null 2>&1; then
    w=$(groff -man -ww -z "$page" 2>&1)
    if [ -z "$w" ]; then pass "man/hsmbench-report.1: groff -man -ww -z clean"
    else fail "man/hsmbench-report.1: groff -man -ww -z clean" "$(echo "$w" | head -n 3 | tr '\n' ' ')"; fi
else
    skip "man/hsmbench-report.1: groff -man -ww -z clean" "groff is not installed (Debian package groff-base)"
fi
if command -v man >/dev/null 2>&1; then
    w=$(LC_ALL=C MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null)
    if [ -z "$w" ]; then pass "man/hsmbench-report.1: man --warnings -l clean"
    else fail "man/hsmbench-report.1: man --warnings -l clean" "$(echo "$w" | head -n 3 | tr '\n' ' ')"; fi
else
    skip "man/hsmbench-report.1: man --warnings -l clean" "man is not installed (Debian package man-db)"
fi
