#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_layers.sh - the floors of the house hold (tests/layers.py):
# no file includes a higher floor's header, no two folders include each
# other, no two files of a floor include each other (directly or in a
# circle), and no floor's library calls into one above it.
# early: no check depends on the cores it gets (the includes and symbols of the build)
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

# The results floor, the run driver, the core and the utilities know no
# workload's side metrics by name: k6's HTTP metrics, the "http" section of a
# REST run, are the REST floor's (rest/views/views.c, bench/results/section.h).
floors="bench/results bench/core bench/util bench/driver"
hits=$(cd "$TOP" && grep -rn 'http_req_' $floors)
if [ -z "$hits" ]; then
    pass "layers: no http_req_ name below the workloads"
else
    fail "layers: no http_req_ name below the workloads" "$(printf '%s' "$hits" | head -c 400 | tr '\n' ';')"
fi
# (a URL's scheme is named "http" in bench/util/url.c and the run model's TLS
# facts: a fact of the target, not the section's key.)
hits=$(cd "$TOP" && grep -rnE 'json_(object_[a-z_]+|pack)\([^;]*"http"' $floors)
if [ -z "$hits" ]; then
    pass "layers: no \"http\" JSON key below the workloads"
else
    fail "layers: no \"http\" JSON key below the workloads" "$(printf '%s' "$hits" | head -c 400 | tr '\n' ';')"
fi
