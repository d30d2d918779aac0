#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_demo.sh - hsmbench's own SoftHSM token: made once on first
# use under $HSMBENCH_HOME (or $XDG_STATE_HOME), reused afterwards, and made
# exactly once even when several hsmbench processes start together.
. "$TOP/tests/e2e/lib.sh"

FAST="--test sha256-digest --iterations 10 --quiet"
D=$HSMBENCH_HOME/softhsm

run "$HSMBENCH" run $FAST --json "$T/first.json"
check "first use: the demo token is created and the run exits 0" 0
for f in softhsm2.conf user.pin so.pin tokens; do
    if [ -e "$D/$f" ]; then pass "first use creates \$HSMBENCH_HOME/softhsm/$f"
    else fail "first use creates \$HSMBENCH_HOME/softhsm/$f" "missing"; fi
done
file_has "the private SoftHSM config keeps tokens under \$HSMBENCH_HOME" "$D/softhsm2.conf" \
    "^directories\\.tokendir = $D/tokens\$"
mode=$(stat -c %a "$D/so.pin" 2>/dev/null)
if [ "$mode" = 600 ]; then pass "demo SO PIN file is mode 0600"
else fail "demo SO PIN file is mode 0600" "mode $mode"; fi

run "$HSMBENCH" run $FAST --json "$T/second.json"
check "second use: exit 0" 0
s1=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["environment"]["token"]["serial"])' "$T/first.json" 2>/dev/null)
s2=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["environment"]["token"]["serial"])' "$T/second.json" 2>/dev/null)
if [ -n "$s1" ] && [ "$s1" = "$s2" ]; then pass "second use reuses the same demo token (same serial)"
else fail "second use reuses the same demo token (same serial)" "serials '$s1' and '$s2'"; fi
run "$HSMBENCH" list slots
n=$(grep -c '^  label *: hsmbench-demo$' "$T/out")
if [ "$n" -eq 1 ]; then pass "after two runs there is one hsmbench-demo token"
else fail "after two runs there is one hsmbench-demo token" "$n tokens"; fi

# ---- XDG_STATE_HOME when HSMBENCH_HOME is unset ------------------------------
(
    unset HSMBENCH_HOME
    XDG_STATE_HOME=$T/xdg
    export XDG_STATE_HOME
    run "$HSMBENCH" list slots
    check "no HSMBENCH_HOME: list slots uses \$XDG_STATE_HOME" 0 '^  label +: hsmbench-demo$'
    if [ -f "$T/xdg/hsmbench/softhsm/softhsm2.conf" ]; then pass "demo token made under \$XDG_STATE_HOME/hsmbench"
    else fail "demo token made under \$XDG_STATE_HOME/hsmbench" "no $T/xdg/hsmbench/softhsm/softhsm2.conf"; fi
)

# ---- a missing SoftHSM ---------------------------------------------------------
run env HSMBENCH_HOME=$T/nosofthsm HSMBENCH_SOFTHSM_MODULE=$T/no-libsofthsm2.so "$HSMBENCH" run --duration 1
check_one_line_error "HSMBENCH_SOFTHSM_MODULE missing: exit 3, the module named" 3 'SoftHSM module .*no-libsofthsm2\.so'

# ---- several first uses at once ------------------------------------------------
HSMBENCH_HOME=$T/race
export HSMBENCH_HOME
pids=
for i in 1 2 3 4 5 6 7 8; do
    "$HSMBENCH" run $FAST >"$T/race$i.out" 2>"$T/race$i.err" </dev/null &
    pids="$pids $!"
done
bad=0
for p in $pids; do
    wait "$p" || bad=$((bad + 1))
done
if [ "$bad" -eq 0 ]; then pass "eight concurrent first uses all exit 0"
else fail "eight concurrent first uses all exit 0" "$bad failed: $(cat "$T"/race*.err | head -c 300 | tr '\n' ' ')"; fi
run "$HSMBENCH" list slots
n=$(grep -c '^  label *: hsmbench-demo$' "$T/out")
if [ "$n" -eq 1 ]; then pass "eight concurrent first uses create exactly one hsmbench-demo token"
else fail "eight concurrent first uses create exactly one hsmbench-demo token" "$n tokens labelled hsmbench-demo"; fi
run "$HSMBENCH" run $FAST
check "after concurrent first uses, the demo token still works" 0
