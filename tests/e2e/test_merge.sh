#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_merge.sh - hsmbench merge on the results of two load
# generators started together (two null-module runs): counts and histograms
# add exactly, percentiles come from the merged histogram, the result is a
# valid results file; files that differ, or lack a wall-clock start, are
# refused with one line and exit 2.
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
N=300000

# Runs written before hsmbench recorded wall-clock starts get the time this
# script started them (b 250 ms later), as a newer hsmbench would write it.
stamp() {
    python3 - "$@" <<'PY'
import json, sys
path, ms = sys.argv[1], int(sys.argv[2])
doc = json.load(open(path))
if "started_at_epoch_ms" not in doc and not any("measure_start_epoch_ms" in r for r in doc["runs"]):
    doc["started_at_epoch_ms"] = ms
    for i, r in enumerate(doc["runs"]):
        r["measure_start_epoch_ms"] = ms + 500 * i
    json.dump(doc, open(path, "w"), indent=2)
PY
}
now_ms() { python3 -c 'import time; print(int(time.time() * 1000))'; }

# ---- two generators, started together -----------------------------------------------
t0=$(now_ms)
"$HSMBENCH" run --module "$NULLP11" --test "$NT" --threads 1 --iterations $N --quiet --json "$T/a.json" </dev/null >/dev/null 2>&1 &
pa=$!
"$HSMBENCH" run --module "$NULLP11" --test "$NT" --threads 2 --iterations $N --quiet --json "$T/b.json" </dev/null >/dev/null 2>&1
wait $pa
if [ -s "$T/a.json" ] && [ -s "$T/b.json" ]; then pass "two null-module runs started together ($NT, $N operations each)"
else fail "two null-module runs started together" "no results file"; exit 0; fi
stamp "$T/a.json" "$t0"
stamp "$T/b.json" $((t0 + 250))

run "$HSMBENCH" merge "$T/a.json" "$T/b.json" -o "$T/m.json"
check "merge a.json b.json -o m.json: exit 0" 0 '^merged 2 files into '
file_lacks "merge of two files of one token: no target warning" "$T/err" 'target'
if python3 "$TOP/tests/e2e/merge_exact.py" "$T/a.json" "$T/b.json" "$T/m.json" >"$T/py" 2>&1 &&
    python3 - "$T/m.json" >>"$T/py" 2>&1 <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["runs"][0]
assert r["ops"] == 2 * 300000, r["ops"]
assert r["threads"] == 3
assert r["settings"]["iterations"] == 600000
PY
then pass "merge: histograms added slot by slot; percentiles those of one histogram of every sample; counts, threads, rates add"
else fail "merge: histograms added exactly, percentiles recomputed, counts add" "$(tail -n 3 "$T/py" | tr '\n' ' ')"; fi

run "$HSMBENCH" report "$T/m.json" --csv -
check "the merged file is a valid results file (report reads it)" 0 "^$NT,3,"
run "$HSMBENCH" merge "$T/a.json" "$T/b.json" -o - --quiet
check "merge -o - writes the document to stdout" 0 '"schema": "hsmbench.result/3"'

# ---- refused: files that do not describe the same run ----------------------------------------
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d.pop("started_at_epoch_ms", None); [r.pop("measure_start_epoch_ms", None) for r in d["runs"]]; json.dump(d, open(sys.argv[2], "w"))' \
    "$T/a.json" "$T/old.json"
run "$HSMBENCH" merge "$T/old.json" "$T/b.json" -o "$T/x.json"
check_one_line_error "merge a file without a wall-clock start: exit 2" 2 'old\.json: no wall-clock start; re-run with a newer hsmbench'
if [ -e "$T/x.json" ]; then fail "a refused merge writes nothing" "x.json exists"; else pass "a refused merge writes nothing"; fi

t1=$(now_ms)
"$HSMBENCH" run --module "$NULLP11" --test "$NT" --iterations 100000 --quiet --json "$T/c.json" </dev/null >/dev/null 2>&1 &
pc=$!
"$HSMBENCH" run --module "$NULLP11" --test "$NT" --data-size 64 --iterations $N --quiet --json "$T/d.json" </dev/null >/dev/null 2>&1
other=rsa-pkcs-sign
[ "$NT" = rsa-pkcs-sign ] && other=sha256-digest
"$HSMBENCH" run --module "$NULLP11" --test "$NT,$other" --iterations $N --quiet --json "$T/e.json" </dev/null >/dev/null 2>&1
wait $pc
for f in c d e; do stamp "$T/$f.json" "$t1"; done

run "$HSMBENCH" merge "$T/a.json" "$T/c.json" -o "$T/x.json"
check_one_line_error "merge runs of other iterations: exit 2" 2 "c\.json: $NT: iterations 100000 vs $N in .*a\.json"
run "$HSMBENCH" merge "$T/a.json" "$T/d.json" -o "$T/x.json"
check_one_line_error "merge runs of another data size: exit 2" 2 "d\.json: no run of $NT .* differs: data size 64 vs"
run "$HSMBENCH" merge "$T/a.json" "$T/e.json" -o "$T/x.json"
check_one_line_error "merge files with other tests: exit 2" 2 'e\.json: 2 runs, but .*a\.json has 1'
python3 - "$T/b.json" "$T/late.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for o in [d] + d["runs"]:          # an hour earlier, wherever the start is recorded
    for k in ("started_at_epoch_ms", "measure_start_epoch_ms"):
        if k in o:
            o[k] -= 3600000
json.dump(d, open(sys.argv[2], "w"))
PY
run "$HSMBENCH" merge "$T/a.json" "$T/late.json" -o "$T/x.json"
check_one_line_error "merge runs that did not overlap in time: exit 2" 2 'late\.json: .* did not run at the same time'

# ---- usage --------------------------------------------------------------------------------------
run "$HSMBENCH" merge "$T/a.json" "$T/b.json"
check_one_line_error "merge without -o: exit 2" 2 '-o FILE is required'
run "$HSMBENCH" merge "$T/a.json" -o "$T/x.json"
check_one_line_error "merge of one file: exit 2" 2 'at least two results files'
run "$HSMBENCH" merge "$T/a.json" "$T/missing.json" -o "$T/x.json"
check_one_line_error "merge of a missing file: exit 2" 2 'missing\.json: No such file or directory'
run "$HSMBENCH" merge "$T/a.json" "$T/b.json" -o /nonexistent-dir/m.json
check_one_line_error "merge -o into a missing directory: exit 2" 2 '-o /nonexistent-dir/m\.json'
run "$HSMBENCH" merge --help
check "merge --help: exit 0" 0 '^Usage: hsmbench merge A\.json B\.json'

# ---- the manual page ----------------------------------------------------------------------------
page="$TOP/man/hsmbench-merge.1"
if command -v groff >/dev/null 2>&1; then
    w=$(groff -man -ww -z "$page" 2>&1)
    if [ -z "$w" ]; then pass "man/hsmbench-merge.1: groff -man -ww -z clean"
    else fail "man/hsmbench-merge.1: groff -man -ww -z clean" "$(echo "$w" | head -n 3 | tr '\n' ' ')"; fi
else
    skip "man/hsmbench-merge.1: groff -man -ww -z clean" "groff is not installed (Debian package groff-base)"
fi
if command -v man >/dev/null 2>&1; then
    w=$(LC_ALL=C MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null)
    if [ -z "$w" ]; then pass "man/hsmbench-merge.1: man --warnings -l clean"
    else fail "man/hsmbench-merge.1: man --warnings -l clean" "$(echo "$w" | head -n 3 | tr '\n' ' ')"; fi
else
    skip "man/hsmbench-merge.1: man --warnings -l clean" "man is not installed (Debian package man-db)"
fi
