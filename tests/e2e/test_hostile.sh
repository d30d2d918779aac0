#!/bin/sh
# tests/e2e/test_hostile.sh - hostile modules and results files (issue 13,
# items 3 and 4): a function list with NULL entries, or none at all, is one
# line and exit 3, never a crash; results files with absurd numbers,
# overflowing sums, control characters or a size past the limit are
# refused (exit 2, naming the field) or printed escaped.
# tsan: yes
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
