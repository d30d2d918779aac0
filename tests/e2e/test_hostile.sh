#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_hostile.sh - hostile modules and results files (issue 13,
# items 3 and 4): a function list with NULL entries, or none at all, is one
# line and exit 3, never a crash; results files with absurd numbers,
# overflowing sums, control characters or a size past the limit are
# refused (exit 2, naming the field) or printed escaped.
# tsan: no (one thread reads a hostile module or results file; ASan runs it)
# asan: yes (modules with NULL or missing function lists and hostile results files, end to end)
. "$TOP/tests/e2e/lib.sh"

HOSTILE="$(dirname "$NULLP11")/libhsmbench-hostile.so"

# ---- hostile function lists ---------------------------------------------------------
hostile() {
    how=$1
    shift
    run env HSMBENCH_HOSTILE="$how" "$HSMBENCH" "$@" --module "$HOSTILE" </dev/null
}
hostile null-list run --test sha256-digest --iterations 5
check_one_line_error "C_GetFunctionList: CKR_OK and no list: one line, exit 3" 3 \
    'C_GetFunctionList returned CKR_OK and no function list'
hostile fail list slots
check_one_line_error "C_GetFunctionList failing: one line naming its code, exit 3" 3 \
    'C_GetFunctionList: CKR_GENERAL_ERROR'
hostile missing=C_GetSlotList list slots
check_one_line_error "C_GetSlotList NULL in the list: one line naming it, exit 3" 3 \
    'C_GetSlotList is missing from its function list'
hostile missing=C_Sign,C_SignInit run --test rsa-pkcs-sign --iterations 5
check_one_line_error "C_SignInit NULL: refused before any call, exit 3" 3 \
    'C_SignInit is missing from its function list'
hostile missing=C_Finalize keys list
check_one_line_error "C_Finalize NULL: refused, exit 3" 3 'C_Finalize is missing from its function list'
hostile "" run --test sha256-digest --iterations 5 --quiet
check "the same module with a whole list works" 0
# A module that leaks (as OpenSC's spy does its function list): under ASan
# the leak is reported with the module's name, which the suppression below
# matches; were the module unloaded first, the frame would read
# "<unknown module>" and the run exit 86 for the module's leak.
echo "leak:libhsmbench-hostile.so" >"$T/lsan.supp"
run env HSMBENCH_HOSTILE=leak LSAN_OPTIONS="suppressions=$T/lsan.supp:print_suppressions=0" \
    "$HSMBENCH" run --module "$HOSTILE" --test sha256-digest --iterations 5 --quiet </dev/null
check "a module that leaks: the leak is the module's (LeakSanitizer names it), exit 0" 0

# ---- results files: numbers, sums, text, size ---------------------------------------
run "$HSMBENCH" run --module "$NULLP11" --test sha256-digest --iterations 50 --quiet --json "$T/base.json" </dev/null
check "a results file to tamper with" 0
# tamper OUT PYTHON: OUT is base.json with doc changed by the Python statement.
tamper() {
    python3 - "$T/base.json" "$T/$1" "$2" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
r = doc["runs"][0]
exec(sys.argv[3])
open(sys.argv[2], "w").write(json.dumps(doc))
PY
}
tamper big-ops.json 'r["ops"] = 2**63 - 1'
run "$HSMBENCH" merge "$T/big-ops.json" "$T/base.json" -o "$T/m.json"
check_one_line_error "merge: ops = 2^63-1 refused naming runs[0].ops, exit 2" 2 'big-ops.json: runs\[0\]\.ops: 9223372036854775807 is out of range'
run "$HSMBENCH" report "$T/big-ops.json"
check_one_line_error "report: ops = 2^63-1 refused, exit 2" 2 'runs\[0\]\.ops: .* out of range'
tamper near-ops.json 'r["ops"] = 2**53 - 1 - r["errors"]; r["attempts"] = 2**53 - 1'
tamper near-ops2.json 'r["ops"] = 2**53 - 1 - r["errors"]; r["attempts"] = 2**53 - 1; doc["fleet"]["generator"] = "2"'
run "$HSMBENCH" merge "$T/near-ops.json" "$T/near-ops2.json" -o "$T/m.json"
check_one_line_error "merge: two ops of 2^53-1 overflow the sum: exit 2 naming the field" 2 'runs\[0\]\.ops: the merged sum passes 2\^53'
if [ -e "$T/m.json" ]; then fail "merge: nothing written on an overflow" "m.json exists"
else pass "merge: nothing written on an overflow"; fi
tamper wrap.json 'r["histogram"]["counts"] = [[0, 2**62], [1, 2**62], [2, 2**62], [3, 2**62], [4, r["histogram"]["total"]]]'
run "$HSMBENCH" compare "$T/wrap.json" "$T/base.json"
check_one_line_error "histogram counts wrapping 2^64 are refused, exit 2" 2 'runs\[0\]\.histogram\.counts\[0\]\[1\]: .* out of range'
tamper sum53.json 'r["histogram"]["counts"] = [[0, 2**53], [1, 2**53]]; r["histogram"]["total"] = 0'
run "$HSMBENCH" report "$T/sum53.json"
check_one_line_error "histogram counts summing past 2^53 are refused, exit 2" 2 'runs\[0\]\.histogram\.counts: the counts add up past 2\^53'
tamper huge.json 'r["latency_us"]["p99"] = 1e308'
run "$HSMBENCH" report "$T/huge.json" --html "$T/h.html"
check_one_line_error "1e308 is refused naming the field, exit 2" 2 'runs\[0\]\.latency_us\.p99: 1e\+308 is out of range'
tamper dur.json 'r["duration_s"] = 1e300'
run "$HSMBENCH" merge "$T/dur.json" "$T/base.json" -o "$T/m.json"
check_one_line_error "merge: duration 1e300 refused, not out of memory" 2 'runs\[0\]\.duration_s: 1e\+300 is out of range'
tamper neg.json 'r["errors_by_code"] = {"CKR_DEVICE_ERROR": -3}'
run "$HSMBENCH" report "$T/neg.json"
check_one_line_error "a negative count is refused naming the field" 2 'runs\[0\]\.errors_by_code\.CKR_DEVICE_ERROR: is not a non-negative integer'
tamper frac.json 'r["histogram"]["counts"][0][1] = 1.5'
run "$HSMBENCH" report "$T/frac.json"
check_one_line_error "a non-integer histogram count is refused naming it" 2 'runs\[0\]\.histogram\.counts\[0\]: is not an \[index, count\] pair'
tamper esc.json 'r["test"] = "sha256-digest\x1b[2J\rEVIL"; r["errors_by_code"] = {"CKR_\x1b]0;x\x07": 0}; doc["environment"]["token"]["label"] = "tok\x1b[31m"'
run "$HSMBENCH" report "$T/esc.json"
check "report of a file with ESC and CR in its text: exit 0" 0 'sha256-digest\\x1b\[2J\\x0dEVIL'
if grep -q "$(printf '\033')" "$T/out" "$T/err" || grep -q "$(printf '\r')" "$T/out" "$T/err"; then
    fail "report prints no raw ESC or CR from a file" "$(od -c "$T/out" | head -5)"
else pass "report prints no raw ESC or CR from a file"; fi
run "$HSMBENCH" compare "$T/esc.json" "$T/base.json"
if grep -q "$(printf '\033')" "$T/out" "$T/err"; then fail "compare prints no raw ESC from a file" "$(od -c "$T/out" | head -5)"
else pass "compare prints no raw ESC from a file"; fi
cp "$T/esc.json" "$T/esc2.json"
run "$HSMBENCH" merge "$T/esc.json" "$T/esc2.json" -o "$T/esc-m.json"
if grep -q "$(printf '\033')" "$T/out" "$T/err"; then fail "merge prints no raw ESC from a file" "$(od -c "$T/err" | head -5)"
else pass "merge prints no raw ESC from a file"; fi
truncate -s 65M "$T/big.json"
start=$(date +%s)
run "$HSMBENCH" report "$T/big.json"
check_one_line_error "a 65 MiB file is refused at once (64 MiB limit), exit 2" 2 'larger than the 64 MiB a results file may be'
if [ $(( $(date +%s) - start )) -le 2 ]; then pass "the size limit is checked before parsing"
else fail "the size limit is checked before parsing" "took $(( $(date +%s) - start )) s"; fi

# ---- merge: one run twice; sections checked as strictly as histograms (issue 23, item 2) ----
mkdir -p "$T/dup"
cp "$T/base.json" "$T/dup/a.json"
run "$HSMBENCH" merge "$T/base.json" "$T/base.json" -o "$T/m2.json"
check_one_line_error "merge of a file with itself is refused, exit 2" 2 'holds the same run as .*base.json.*count every operation twice'
run "$HSMBENCH" merge "$T/dup/a.json" "$T/dup/../dup/a.json" -o "$T/m2.json"
check_one_line_error "merge of one file spelt two ways is refused" 2 'dup/\.\./dup/a.json holds the same run as .*dup/a.json'
run "$HSMBENCH" merge "$T/base.json" "$T/dup/a.json" -o "$T/m2.json"
check_one_line_error "merge of a file and its copy is refused" 2 'a.json holds the same run as .*base.json'
[ ! -e "$T/m2.json" ] && pass "merge: nothing written for a run given twice" ||
    fail "merge: nothing written for a run given twice" "m2.json exists"
tamper gen2.json 'doc["fleet"]["generator"] = "2"'
run "$HSMBENCH" merge "$T/base.json" "$T/gen2.json" -o "$T/m3.json"
check "two generators' files (another generator name) still merge" 0
tamper future.json 'r["per_second"].append({"t": 99999, "span_s": 1, "ops": 10**9, "errors": 0, "p50_us": 1, "p99_us": 1})'
run "$HSMBENCH" merge "$T/future.json" "$T/gen2.json" -o "$T/m4.json"
check_one_line_error "merge: a second past the run's end is refused, naming the file and field" 2 \
    'future.json: runs\[0\]\.per_second\[[0-9]*\]\.t: second 99999 is past the run.s end'
tamper inflated.json 'r["per_second"][0]["ops"] += 10**9'
run "$HSMBENCH" merge "$T/gen2.json" "$T/inflated.json" -o "$T/m4.json"
check_one_line_error "merge: a series with more operations than its run is refused, naming the bad file" 2 \
    'inflated.json: runs\[0\]\.per_second: the series counts more operations than the run'
run "$HSMBENCH" report "$T/inflated.json"
check_one_line_error "report refuses the same series" 2 'the series counts more operations than the run'
tamper cap-threads.json 'doc["capacity"] = {"objectives": ["p99<20ms"], "precision": 0.02, "step_s": 1, "threads": -3, "ops_per_s": 10.0, "bounds": [10.0, 20.0], "steps": [{"rate": 10.0, "pass": True}]}'
run "$HSMBENCH" report "$T/cap-threads.json"
check_one_line_error "report: a capacity of -3 threads is refused" 2 'capacity\.threads: the value is not'
tamper cap-prec.json 'doc["capacity"] = {"objectives": ["p99<20ms"], "precision": -1.0, "step_s": 1, "threads": 2, "ops_per_s": 10.0, "bounds": [10.0, 20.0], "steps": []}'
run "$HSMBENCH" report "$T/cap-prec.json"
check_one_line_error "report: a capacity precision of -100 % is refused" 2 'capacity\.precision: the value is not'
tamper cap-bounds.json 'doc["capacity"] = {"threads": 2, "bounds": [20.0, 10.0], "steps": []}'
run "$HSMBENCH" report "$T/cap-bounds.json"
check_one_line_error "report: capacity bounds out of order are refused" 2 'capacity\.bounds: is not \[low, high\]'
# A search's bounds hold null where it has none, as the driver writes them:
# no rate passed (low), or the step cap came while every step passed (high).
tamper cap-none.json 'doc["capacity"] = {"objectives": ["p99<1ms"], "precision": 0.02, "threads": 2, "result": "none", "ops_per_s": None, "bounds": [None, 10.0], "steps": [{"rate": 10.0, "pass": False, "why": "slow"}]}'
run "$HSMBENCH" report "$T/cap-none.json"
check "report: a search where no rate passed (bounds [null, 10]) is read: its answer" 0 \
    '^no rate met the objectives: even 10/s failed p99 < 1 ms \(slow\)$'
# An objective of 400 comparison signs (a file's objectives are texts, kept
# as they are): its text is cut to fit, not written past its buffer (ASan
# saw a store past it).
tamper cap-ops.json 'doc["capacity"] = {"objectives": ["p99" + "<" * 400 + "1ms"], "precision": 0.02, "threads": 2, "result": "none", "ops_per_s": None, "bounds": [None, 10.0], "steps": [{"rate": 10.0, "pass": False, "why": "slow"}]}'
run "$HSMBENCH" report "$T/cap-ops.json"
check "report: an objective of 400 comparison signs is shown cut, nothing written past its end" 0 \
    '^no rate met the objectives: even 10/s failed p99 <<<<'
tamper cap-steps.json 'doc["capacity"] = {"objectives": ["p99<1ms"], "precision": 0.02, "threads": 2, "result": "steps", "ops_per_s": 40.0, "bounds": [40.0, None], "steps": [{"rate": 40.0, "pass": True}]}'
run "$HSMBENCH" report "$T/cap-steps.json"
check "report: a search whose steps all passed (bounds [40, null]) is read: its answer" 0 \
    '^capacity at least 40 ops/s at p99 < 1 ms, 2 threads \(the step cap came while every step passed\)$'
tamper cap-nulls.json 'doc["capacity"] = {"threads": 2, "bounds": [None, "x"], "steps": []}'
run "$HSMBENCH" report "$T/cap-nulls.json"
check_one_line_error "report: a capacity bound that is no rate nor null is refused" 2 'capacity\.bounds: is not \[low, high\]'
