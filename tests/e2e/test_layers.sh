#!/bin/sh
# tests/e2e/test_layers.sh - the floors of the house hold (tests/layers.py):
# no file includes a higher floor's header, no two folders include each
# other, and no floor's library calls into one above it.
. "$(dirname "$0")/lib.sh"

build=$(dirname "$HSMBENCH")
if python3 "$TOP/tests/layers.py" "$build" >"$T/layers" 2>&1; then
    pass "layers: includes and links keep to the floors"
else
    fail "layers: includes and links keep to the floors" "$(head -c 600 "$T/layers" | tr '\n' ';')"
fi

# The mock HSM is shipped (make install): it lives outside tests/.
if [ -f "$TOP/mock/mockhsm.c" ] && [ ! -e "$TOP/tests/mock/mockhsm.c" ]; then
    pass "layers: the shipped mock HSM lives in mock/"
else
    fail "layers: the shipped mock HSM lives in mock/" "mock/mockhsm.c missing or tests/mock/ still has it"
fi
