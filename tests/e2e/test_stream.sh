#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_stream.sh - --out jsonl=FILE (a JSON line per second: the
# warm-up's and the measured seconds', each the results file's per-second
# figures, with the run and generator; to standard output alone with
# jsonl=-; a target and what is in flight for a schedule); --run-id and
# --generator; the start gate's window: a generator later than
# --start-window records skipped runs and exit 0, merge leaves its file out,
# says so and exits 1; bad values are one line and exit 2.
. "$TOP/tests/e2e/lib.sh"
need_mock || exit 0
export HSMBENCH_MOCK='service=fixed:2ms;cores=4'

# ---- the stream --------------------------------------------------------------
run "$HSMBENCH" run --module "$MOCK" --test sha256-digest --threads 2 --warmup 1 --duration 3 \
    --run-id r-1 --generator g2 --quiet --json "$T/r.json" --out "jsonl=$T/s.jsonl"
check "run --out jsonl=FILE: exit 0" 0
if python3 - "$T/r.json" "$T/s.jsonl" >"$T/py.out" 2>&1 <<'PY'; then
import json, sys
doc = json.load(open(sys.argv[1]))
res = doc["runs"][0]
lines = [json.loads(l) for l in open(sys.argv[2])]
keys = ("t", "span_s", "ops", "errors", "p50_us", "p99_us")
assert all(l["type"] == "second" and l["run_id"] == "r-1" and l["generator"] == "g2" and
           l["test"] == "sha256-digest" and l["threads"] == 2 and l["mode"] == "blocking" for l in lines), lines[0]
warm = [l for l in lines if l["phase"] == "warmup"]
meas = [l for l in lines if l["phase"] == "measured"]
assert len(warm) >= 1 and all(l["t"] == 0 for l in warm), warm
assert len(meas) == len(res["per_second"]) >= 3, (len(meas), len(res["per_second"]))
assert [{k: l[k] for k in keys} for l in meas] == [{k: s[k] for k in keys} for s in res["per_second"]]
assert sum(l["ops"] for l in meas) == res["ops"], "the seconds' successes add up to the run's"
ep = [l["epoch_ms"] for l in lines]
assert ep == sorted(ep) and len(set(ep)) == len(ep), ep
assert doc["fleet"] == {"run_id": "r-1", "generator": "g2"}, doc["fleet"]
PY
    pass "the stream: a line per second (warm-up and measured), the results file's per_second figures, run and generator"
else
    fail "the stream: a line per second, the results file's per_second figures" "$(tail -c 400 "$T/py.out")"
fi

# to standard output: the stream alone there, the run's own lines on stderr
run "$HSMBENCH" run --module "$MOCK" --test sha256-digest --duration 2 --out jsonl=-
if [ "$rc" -eq 0 ] && python3 -c '
import json, sys
ls = [json.loads(l) for l in open(sys.argv[1])]
sys.exit(0 if len(ls) >= 2 and all(l["type"] == "second" for l in ls) else 1)' "$T/out" 2>/dev/null &&
    grep -q 'OPERATIONS/second' "$T/err"; then
    pass "--out jsonl=-: only the stream on standard output, the per-second lines on standard error"
else
    fail "--out jsonl=-: only the stream on standard output" "exit $rc: $(head -c 200 "$T/out")"
fi
run "$HSMBENCH" run --module "$MOCK" --test sha256-digest --duration 1 --out jsonl=- --json -
check_one_line_error "--out jsonl=- with --json -: one line, exit 2" 2 'only one document can go to standard output'

# a schedule: every line has the target and what was in flight
run "$HSMBENCH" run --module "$MOCK" --test sha256-digest --mode nonblocking --rate 200 --inflight 8 \
    --duration 2 --quiet --json "$T/nb.json" --out "jsonl=$T/nb.jsonl"
if [ "$rc" -eq 0 ] && python3 - "$T/nb.json" "$T/nb.jsonl" <<'PY'; then
import json, sys
res = json.load(open(sys.argv[1]))["runs"][0]
ls = [json.loads(l) for l in open(sys.argv[2]) if json.loads(l)["phase"] == "measured"]
ok = ls and all("target" in l and "in_flight" in l and l["mode"] == "nonblocking" for l in ls)
ok = ok and [(l["target"], l["in_flight"]) for l in ls] == [(s["target"], s["in_flight"]) for s in res["per_second"]]
sys.exit(0 if ok else 1)
PY
    pass "the stream of a schedule: target and in_flight each second, as the results file"
else
    fail "the stream of a schedule: target and in_flight each second" "exit $rc"
fi

# ---- bad values -----------------------------------------------------------------
run "$HSMBENCH" run --module "$MOCK" --test sha256-digest --out json=x.json
check_one_line_error "--out json=FILE: one line naming jsonl=FILE, exit 2" 2 '--out json=x.json: expected jsonl=FILE'
run "$HSMBENCH" run --module "$MOCK" --test sha256-digest --out "jsonl=$T/nodir/s.jsonl"
check_one_line_error "--out jsonl= into a missing directory: one line, exit 2" 2 '--out jsonl='
run "$HSMBENCH" run --module "$MOCK" --test sha256-digest --run-id 'a b'
check_one_line_error "--run-id with a space: one line, exit 2" 2 "--run-id a b: expected 1 to 63 letters"
run "$HSMBENCH" run --module "$MOCK" --test sha256-digest --generator 'x"y'
check_one_line_error "--generator with a quote: one line, exit 2" 2 '--generator x"y: expected'
run "$HSMBENCH" run --module "$MOCK" --test sha256-digest --start-window 30
check_one_line_error "--start-window without --start-at: one line, exit 2" 2 '--start-window: only with --start-at'
run "$HSMBENCH" run --module "$MOCK" --test sha256-digest --start-at 12
check_one_line_error "--start-at more than a day in the past: one line, exit 2" 2 '--start-at 12: more than 24 hours in the past'

# ---- the start window ---------------------------------------------------------------
START=$(( $(date +%s) - 5 ))
run "$HSMBENCH" run --module "$MOCK" --test sha256-digest,sha1-digest --duration 1 --start-at "$START" \
    --start-window 2 --generator 1 --json "$T/missed.json"
check "a generator 5 s late with --start-window 2: every run skipped, exit 0" 0 'missed the start window: ready [5-9]\.[0-9] s after --start-at, --start-window 2 s'
json_check "its results file: fleet.joined false, late_s, every run skipped as having missed the window" "$T/missed.json" \
    "doc['fleet']['joined'] is False and doc['fleet']['late_s'] >= 5 and doc['fleet']['start_window_s'] == 2 and \
     doc['fleet']['run_id'] == str($START) and len(runs) == 2 and \
     all(r['status'] == 'skipped' and r['reason'].startswith('missed the start window') for r in runs)"
S2=$(( $(date +%s) + 2 ))
"$HSMBENCH" run --module "$MOCK" --test sha256-digest,sha1-digest --duration 1 --start-at "$S2" --generator 0 \
    --quiet --json "$T/on.json" >"$T/on.out" 2>&1
run "$HSMBENCH" merge "$T/on.json" "$T/missed.json" -o "$T/m.json"
check "merge with a generator that missed its window: merged without it, exit 1" 1 \
    'merged 1 files into .*: 1 of 2 generators joined' 'missed.json: missed the start window'
json_check "the merged file says 1 joined, 2 expected, missed.json left out and why" "$T/m.json" \
    "doc['generators']['joined'] == 1 and doc['generators']['expected'] == 2 and \
     doc['generators']['left_out'][0]['file'].endswith('missed.json') and \
     'missed the start window' in doc['generators']['left_out'][0]['reason'] and doc['merged_from'][0].endswith('on.json')"
# ready within the window but joined after the others' one-second runs
# ended (a busy machine, generators started 2 s ahead): merge said "missed
# the start window (0.1 s late, --start-window 10 s)"
python3 - "$T/missed.json" "$T/ended.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["fleet"].update(late_s=0.1, start_window_s=10)
json.dump(d, open(sys.argv[2], "w"))
PY
run "$HSMBENCH" merge "$T/on.json" "$T/ended.json" -o "$T/me.json"
check "merge, a generator in its window that joined after the runs ended: said so, not a missed window" 1 \
    'merged 1 files into .*: 1 of 2 generators joined' "ended.json: joined after the others' runs ended \\(0\\.1 s late, within --start-window 10 s"
run "$HSMBENCH" merge --expect 1 "$T/on.json" -o "$T/m1.json"
check "merge --expect 1 of one file: exit 0" 0 '1 of 1 generators joined'
run "$HSMBENCH" merge --expect 3 "$T/on.json" -o "$T/m3.json"
check "merge --expect 3 of one file: written, exit 1" 1 '1 of 3 generators joined'
# a fleet's generator that failed sends no file: merge names it by its index
check "merge --expect 3 of generator 0's file: names generators 1 and 2 as sending no file" 1 \
    '1 of 3 generators joined' 'generator 1: no results file \(it failed, or never started\)'
grep -q 'generator 2: no results file' "$T/err" || fail "merge names generator 2 as sending no file" "$(cat "$T/err")"
json_check "the merged file lists them in generators.missing" "$T/m3.json" \
    "doc['generators']['missing'] == ['1', '2'] and doc['generators']['joined'] == 1"
run "$HSMBENCH" merge --expect 3 "$T/on.json" "$T/missed.json" -o "$T/m4.json"
check "merge --expect 3 of generators 0 and 1 (1 missed its window): generator 2 named, 1 left out" 1 \
    '1 of 3 generators joined' 'generator 2: no results file'
json_check "generators.missing holds only the generator with no file" "$T/m4.json" "doc['generators']['missing'] == ['2']"
run "$HSMBENCH" merge "$T/missed.json" "$T/missed.json" -o "$T/m0.json"
check_one_line_error "merge of files that all missed the window: one line, exit 2" 2 'no generator joined'
run "$HSMBENCH" merge --expect 0 "$T/on.json" -o "$T/mx.json"
check_one_line_error "merge --expect 0: one line, exit 2" 2 '--expect 0: a number of generators'
