# SPDX-License-Identifier: Apache-2.0
# tests/checks.sh - the PASS/FAIL lines and the closing count of a check
# script run outside tests/run.sh ("make check-deb", "make check-fleet").
# Source it after setting CHECK (the check's name) and t0 (its start, date +%s).
passed=0 failed=0
pass() { echo "PASS $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1: $2"; failed=$((failed + 1)); }
# finish: how long it took, "N passed, N failed"; exits non-zero on a failure or no pass.
finish() {
    echo
    echo "$CHECK took $(($(date +%s) - t0)) s"
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
    exit $?
}
