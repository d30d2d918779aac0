#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_frictions.sh - small things an operator trips on (issue 40):
# every real of a results file, a JSON Lines stream, a merged file and a
# compare document is written in the fewest digits that read back to the same
# double (2854.91, not 2854.9099999999999); the target's id is no look-alike
# of a PKCS#11 URI, and files written with the old id still compare as the
# same target; "list modules" shows hsmbench's own modules.
. "$TOP/tests/e2e/lib.sh"
need_mock || exit 0

# shortest FILE...: every real of each JSON (or JSON Lines) file has no more
# significant digits than Python's repr, the shortest text that reads back.
shortest() {
    python3 - "$@" <<'EOF'
import json, re, sys
bad = []
def sig(t):
    m = t.lstrip("-").split("e")[0].split("E")[0].replace(".", "").lstrip("0").rstrip("0")
    return len(m)
def real(t):
    if sig(t) > sig(repr(float(t))):
        bad.append(t)
    return float(t)
n = 0
for path in sys.argv[1:]:
    text = open(path).read()
    docs = [l for l in text.split("\n") if l.strip()] if path.endswith(".jsonl") else [text]
    for d in docs:
        json.loads(d, parse_float=real)
        n += 1
if bad:
    print(f"{len(bad)} reals longer than they need, e.g. {bad[:3]}")
    sys.exit(1)
print(f"{n} documents")
EOF
}

# ---- reals in their shortest text ------------------------------------------------
# Two generators at the same time (merge adds concurrent runs), delays drawn
# from a range so the figures are not round.
HSMBENCH_MOCK='service=uniform:0.5ms:1.1ms' timeout -s INT 60 "$HSMBENCH" run --module "$MOCK" \
    --test rsa-pkcs-sign,sha256-digest --threads 2 --duration 1 --quiet --json "$T/b.json" \
    >"$T/b.out" 2>&1 &
bpid=$!
run env HSMBENCH_MOCK='service=uniform:0.4ms:1.3ms' "$HSMBENCH" run --module "$MOCK" \
    --test rsa-pkcs-sign,sha256-digest --threads 2 --duration 1 --quiet \
    --json "$T/a.json" --out "jsonl=$T/a.jsonl"
check "a run on the mock with --json and --out jsonl: exit 0" 0
wait "$bpid"
brc=$?
if [ "$brc" -eq 0 ]; then pass "a second generator at the same time: exit 0"
else fail "a second generator at the same time: exit 0" "exit $brc: $(tail -c 300 "$T/b.out" | tr '\n' ' ')"; fi
run "$HSMBENCH" merge "$T/a.json" "$T/b.json" -o "$T/m.json" --quiet
check "merge: exit 0" 0
run "$HSMBENCH" compare "$T/a.json" "$T/b.json" --json "$T/c.json"
for f in a.json a.jsonl m.json c.json; do
    if out=$(shortest "$T/$f" 2>&1); then pass "$f: every real in its shortest text ($out)"
    else fail "$f: every real in its shortest text" "$out"; fi
done
# A real stays a real: 1.0, never 1 (readers that tell them apart).
json_check "a.json: a whole-valued real is written as a real" "$T/a.json" \
    'all(isinstance(r["latency_us"]["p50"], float) for r in doc["runs"])'

# ---- the target's id is not a PKCS#11 URI look-alike --------------------------------
# "pkcs11:libhsmbench-mock.so:serial=..." looked like a URI that --uri then
# refused; it is "libhsmbench-mock.so serial=..." now, and a file with the
# old id is the same target as one with the new.
json_check "target id: the module's file and the token's serial, no URI" "$T/a.json" \
    'doc["environment"]["target"]["id"] == "libhsmbench-mock.so serial=" + doc["environment"]["token"]["serial"]'
python3 - "$T/b.json" "$T/old.json" <<'EOF2'
import json, sys
doc = json.load(open(sys.argv[1]))
t = doc["environment"]["target"]
t["id"] = "pkcs11:" + t["id"].replace(" ", ":", 1)
json.dump(doc, open(sys.argv[2], "w"))
EOF2
run "$HSMBENCH" compare "$T/a.json" "$T/old.json"
check "compare: a file with the old id (pkcs11:MODULE:serial=) is the same target" 0
file_lacks "compare: no 'different target' between the old id and the new" "$T/out" "different target"
run "$HSMBENCH" merge "$T/a.json" "$T/old.json" -o "$T/m2.json" --quiet
check "merge: a file with the old id merges without a target warning" 0
file_lacks "merge: no target warning between the old id and the new" "$T/err" "target"

# ---- bash completion: module names, and the module's slots and tokens -------------------
comp="$TOP/completion/hsmbench.bash"
# complete WORD...: what the completion offers for the last word, one a line.
complete_line() {
    bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _hsmbench; printf "%s\n" "${COMPREPLY[@]}"' \
        complete "$comp" "$@"
}
complete_line "$HSMBENCH" run --module hsmbench- >"$T/c1" 2>&1
if grep -qx hsmbench-mock "$T/c1" && grep -qx hsmbench-null "$T/c1" && grep -qx hsmbench-trace "$T/c1"; then
    pass "completion: --module hsmbench-<TAB> offers the shipped modules"
else fail "completion: --module hsmbench-<TAB> offers the shipped modules" "$(tr '\n' ' ' <"$T/c1")"; fi
reg=$("$HSMBENCH" list modules 2>/dev/null | awk 'NR > 1 && $1 !~ /^\(/ && $1 !~ /^hsmbench-/ { print $1; exit }')
if [ -n "$reg" ]; then
    complete_line "$HSMBENCH" list slots --module "$(printf '%s' "$reg" | cut -c1-3)" >"$T/c2" 2>&1
    if grep -qx "$reg" "$T/c2"; then pass "completion: --module offers p11-kit's registered name ($reg)"
    else fail "completion: --module offers p11-kit's registered name ($reg)" "$(tr '\n' ' ' <"$T/c2")"; fi
fi
complete_line "$HSMBENCH" run --module "$T/a.js" >"$T/c3" 2>&1
if grep -qx "$T/a.json" "$T/c3"; then pass "completion: --module still offers file names"
else fail "completion: --module still offers file names" "$(tr '\n' ' ' <"$T/c3")"; fi
"$HSMBENCH" list slots --module "$MOCK" >"$T/slots" 2>&1
slot=$(sed -n 's/^Slot \([0-9]*\):.*/\1/p' "$T/slots" | head -n 1)
label=$(sed -n 's/^  label  *: //p' "$T/slots" | head -n 1)
complete_line "$HSMBENCH" run --module "$MOCK" --test sha256-digest --slot '' >"$T/c4" 2>&1
if [ -n "$slot" ] && grep -qx "$slot" "$T/c4"; then pass "completion: --slot offers the slots of the module on the line ($slot)"
else fail "completion: --slot offers the slots of the module on the line" "'$(tr '\n' ' ' <"$T/c4")', list slots: $slot"; fi
complete_line "$HSMBENCH" run --module = "$MOCK" --token "$(printf '%s' "$label" | cut -c1-2)" >"$T/c5" 2>&1
if [ -n "$label" ] && grep -qxF "$label" "$T/c5"; then pass "completion: --token offers the token labels of --module=MODULE ($label)"
else fail "completion: --token offers the token labels of --module=MODULE" "'$(tr '\n' ' ' <"$T/c5")', list slots: $label"; fi
complete_line "$HSMBENCH" run --module "$MOCK" --slot "$slot," >"$T/c6" 2>&1
if grep -qx "$slot,$slot" "$T/c6"; then pass "completion: --slot A,<TAB> completes the list's next slot"
else fail "completion: --slot A,<TAB> completes the list's next slot" "$(tr '\n' ' ' <"$T/c6")"; fi
complete_line "$HSMBENCH" run --slot '' >"$T/c7" 2>&1
if [ ! -s "$T/c7" ] || ! grep -q . "$T/c7"; then pass "completion: --slot without a --module offers nothing (no demo token made)"
else fail "completion: --slot without a --module offers nothing" "$(tr '\n' ' ' <"$T/c7")"; fi
