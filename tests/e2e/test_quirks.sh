#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_quirks.sh - hsmbench on tokens that misbehave as real ones do
# (issue 12), through the mock HSM's switches (hsmbench-mock(7)): failures
# that leave operations active, encrypts answered with the buffer's capacity,
# tokens that refuse session keys or imports, destroys that fail, a device
# lost mid-run, and the two meanings of CKM_AES_KEY_WRAP_PAD.  The mock
# reports the objects left at C_Finalize (objects-file=), so each case also
# checks what stayed on the token.  About 15 seconds.
# tsan: yes (a device lost mid-run under two workers: the reopening each does, bounded across both)
# asan: yes (buffers sized by what a misbehaving module answers: lengths, active operations, lost devices)
. "$TOP/tests/e2e/lib.sh"

need_mock || exit 0
OBJ="$T/objects"

# mock CONFIG ARGS...: hsmbench with HSMBENCH_MOCK=CONFIG;objects-file=$OBJ.
mock() {
    cfg=$1
    shift
    rm -f "$OBJ"
    run env HSMBENCH_MOCK="$cfg;objects-file=$OBJ" "$HSMBENCH" "$@"
}

# left NAME N: the mock had exactly N objects left at C_Finalize.
left() {
    got=$(sed -n 's/^objects //p' "$OBJ" 2>/dev/null)
    [ "$got" = "$2" ] && pass "$1" || fail "$1" "objects left: '${got}', expected $2"
}

# ---- item 2: a failure that leaves the operation active does not cascade -------------
# One failure in ten; the module keeps the failed operation active, so
# without recovery every next Init would be CKR_OPERATION_ACTIVE.
mock "quirks=sticky-failure;fail=CKR_DATA_INVALID:0.1;seed=5" run --module "$MOCK" \
    --test aes-cbc-decrypt --iterations 2000 --quiet --json "$T/a.json" </dev/null
check "sticky failures: the run finishes with errors, exit 1" 1
json_check "sticky failures: every error counted once under its own code, no CKR_OPERATION_ACTIVE" "$T/a.json" \
    'list(runs[0]["errors_by_code"]) == ["CKR_DATA_INVALID"] and 100 <= runs[0]["errors"] <= 300'
json_check "sticky failures: cancelled with a NULL-mechanism Init, no session reopened" "$T/a.json" \
    'runs[0]["sessions_reopened"] == 0 and runs[0]["attempts"] == 2000'
# The same with one failure only (fail=...:1 on a single operation run).
mock "quirks=sticky-failure;fail=CKR_DATA_INVALID:1" run --module "$MOCK" \
    --test sha256-digest --iterations 1 --quiet --json "$T/a1.json" </dev/null
json_check "one injected failure: exactly one error counted" "$T/a1.json" \
    'runs[0]["errors_by_code"] == {"CKR_DATA_INVALID": 1}'
# A 2.40 module: no cancellation; the active operation is found by a fresh
# Init and ended on a new session, counted.
mock "quirks=sticky-failure,no-cancel;fail=CKR_DATA_INVALID:0.1;seed=5" run --module "$MOCK" \
    --test aes-cbc-decrypt --iterations 2000 --quiet --json "$T/b.json" </dev/null
json_check "sticky failures, no cancel: no cascade, each recovery a reopened session" "$T/b.json" \
    'list(runs[0]["errors_by_code"]) == ["CKR_DATA_INVALID"] and runs[0]["sessions_reopened"] == runs[0]["errors"]'
left "sticky failures: nothing left on the token" 0

# ---- item 2: the device lost mid-run; reopening is bounded ---------------------------
mock "lost-at=1s;service=fixed:100us" run --module "$MOCK" --test sha256-digest --threads 2 \
    --duration 3 --quiet --json "$T/c.json" </dev/null
check "device lost at 1 s: the run ends (exit 1), each worker gives up reopening" 1 '' \
    'the session is gone \(CKR_DEVICE_ERROR\) and C_OpenSession: CKR_DEVICE_ERROR 3 times'
json_check "device lost: errors are CKR_DEVICE_ERROR only, at a bounded pace (no hot loop)" "$T/c.json" \
    'list(runs[0]["errors_by_code"]) == ["CKR_DEVICE_ERROR"] and runs[0]["errors"] < 2000'

# ---- item 3: an input the module made wrong fails the test at preparation --------------
mock "quirks=capacity-length" run --module "$MOCK" --test rsa-oaep-decrypt --iterations 20 \
    --quiet --json "$T/d.json" </dev/null
check_one_line_error "capacity-length: one line naming the module's answer" 1 \
    "rsa-oaep-decrypt: preparing input: the module's C_Encrypt returned 2080 bytes for a 2048-bit key \(expected 256\)$"
json_check "capacity-length: status failed with that reason, nothing measured" "$T/d.json" \
    'runs[0]["status"] == "failed" and runs[0]["reason"] == "preparing input: the module'"'"'s C_Encrypt returned 2080 bytes for a 2048-bit key (expected 256)"'
left "capacity-length: the key destroyed" 0
# The encrypt test itself catches the bug in every operation.
mock "quirks=capacity-length" run --module "$MOCK" --test rsa-oaep-encrypt --iterations 20 \
    --quiet --json "$T/d2.json" </dev/null
json_check "capacity-length: rsa-oaep-encrypt counts BAD_OUTPUT_LENGTH" "$T/d2.json" \
    'runs[0]["errors_by_code"] == {"BAD_OUTPUT_LENGTH": 20}'

# ---- item 4: a token that makes token objects only ---------------------------------------
mock "quirks=token-objects-only" run --module "$MOCK" --test aes-keygen,aes-cbc-encrypt \
    --iterations 20 --quiet --json "$T/e.json" </dev/null
check "token objects only, session keys: both tests fail, exit 1" 1 '' \
    'the token refuses session keys .*; use --token-keys'
json_check "token objects only: the reasons name --token-keys and --key-label" "$T/e.json" \
    'all(r["status"] == "failed" and "--token-keys" in r["reason"] and "--key-label" in r["reason"] for r in runs)'
mock "quirks=token-objects-only" run --module "$MOCK" \
    --test aes-keygen,rsa-keygen,ec-keygen,aes-key-unwrap,ecdh-derive,aes-cbc-encrypt \
    --token-keys --iterations 20 --quiet --json "$T/f.json" </dev/null
check "token objects only, --token-keys: every test runs, exit 0" 0
json_check "--token-keys: keygen, unwrap and derive make token objects, no errors" "$T/f.json" \
    'all(r["status"] == "ok" and r["errors"] == 0 and r["key_source"] == "token" for r in runs)'
left "--token-keys: every generated token key destroyed" 0

# ---- item 4: --verify on a token that refuses imports --------------------------------------
mock "quirks=no-import" run --module "$MOCK" \
    --test hmac-sha256,hmac-sha256-verify,aes-key-wrap,aes-key-unwrap,aes-cbc-encrypt \
    --verify=sample:5 --iterations 20 --json "$T/g.json" </dev/null
check "no import, --verify: keys generated in the token instead" 1 \
    'verified\.+: 5 results checked: MAC verified in the token \(C_Verify\)' \
    'the token refuses imported keys \(C_CreateObject: CKR_FUNCTION_NOT_SUPPORTED\)'
json_check "no import: verify.method is the round trip, MACs and wraps check out" "$T/g.json" \
    'all(r["verify"]["method"] == "round-trip in token" and r["verify"]["checked"] == 5 for r in runs) and all(r["verify"]["mismatched"] == 0 for r in runs[:4])'
# The mock does no cryptography: its "ciphertext" does not decrypt back,
# and the round trip says so (the check is real).
json_check "no import: the round trip catches a ciphertext that does not decrypt back" "$T/g.json" \
    'runs[4]["errors_by_code"] == {"VERIFY_MISMATCH": 5}'
# A token like NSS softokn's: token objects only and no imports.
mock "quirks=token-objects-only,no-import;wrap-pad=pkcs7" run --module "$MOCK" --token-keys --verify \
    --test aes-keygen,aes-key-wrap-pad,hmac-sha256 --iterations 50 --quiet --json "$T/g2.json" </dev/null
check "token objects only, no import, --token-keys --verify: exit 0" 0
json_check "token objects only, no import: checked in the token, nothing wrong" "$T/g2.json" \
    'all(r["status"] == "ok" and r["errors"] == 0 and r["verify"]["checked"] > 0 for r in runs)'
left "token objects only, no import: nothing left on the token" 0
head -c 32 /dev/urandom >"$T/aes.key"
mock "quirks=no-import" run --module "$MOCK" --test aes-cbc-encrypt --static-key "$T/aes.key" \
    --iterations 5 --quiet --json "$T/h.json" </dev/null
check_one_line_error "no import, --static-key: one line naming the way out" 1 \
    'the token refuses key import; use --key-label'

# ---- item 5: CKM_AES_KEY_WRAP_PAD's two meanings, and CKM_AES_KEY_WRAP_KWP ---------------------
for v in rfc5649 pkcs7; do
    mock "wrap-pad=$v" run --module "$MOCK" \
        --test aes-key-wrap-pad,aes-key-unwrap-pad,aes-key-wrap-kwp,aes-key-unwrap-kwp \
        --iterations 20 --json "$T/w.json" </dev/null
    check "wrap-pad=$v: every wrap test ok, exit 0" 0 "mechanism variant\.+: CKM_AES_KEY_WRAP_PAD is RFC"
    json_check "wrap-pad=$v: the variant detected and written, no BAD_OUTPUT_LENGTH" "$T/w.json" \
        "all(r['errors'] == 0 and r['status'] == 'ok' for r in runs) and [r.get('mechanism_variant') for r in runs] == ['$v', '$v', None, None]"
done
file_has "wrap-pad=pkcs7: the summary names NSS's variant and its 48 bytes" "$T/out" \
    'RFC 3394 after PKCS#7 padding, as NSS \(48 bytes'
mock "mechanisms=CKM_AES_KEY_GEN,CKM_AES_KEY_WRAP_PAD" run --module "$MOCK" --test aes-key-wrap-kwp \
    --iterations 5 --json "$T/k.json" </dev/null
json_check "no CKM_AES_KEY_WRAP_KWP: aes-key-wrap-kwp skipped, named by its 3.0 name" "$T/k.json" \
    'runs[0]["status"] == "skipped" and "CKM_AES_KEY_WRAP_KWP" in runs[0]["reason"]'

# PKCS#11 3.0 and 3.1 names (p11/names.c): mechanisms and return values.
mock "" list mechanisms --module "$MOCK" </dev/null
check "list mechanisms: CKM_AES_KEY_WRAP_KWP by its name, not CKM_0x0000210b" 0 '^ *CKM_AES_KEY_WRAP_KWP '
mock "fail=0x202:0.5,0x201:0.5" run --module "$MOCK" --test sha256-digest --iterations 200 --quiet \
    --json "$T/names.json" </dev/null
json_check "3.0 return values by name: CKR_OPERATION_CANCEL_FAILED, CKR_TOKEN_RESOURCE_EXCEEDED" "$T/names.json" \
    'sorted(runs[0]["errors_by_code"]) == ["CKR_OPERATION_CANCEL_FAILED", "CKR_TOKEN_RESOURCE_EXCEEDED"]'

# A return value of 2^48 or more is the module's, kept whole in every view:
# (CK_RV)-1, as Caml Crush answers, was counted as OTHER, and 2^48 + 1 as
# VERIFY_MISMATCH, a check that never ran (the core's own classes sat there).
mock "fail=0xffffffffffffffff:0.5,0x1000000000001:0.5" run --module "$MOCK" --test sha256-digest \
    --iterations 200 --json "$T/wide.json" </dev/null
check "wide return values: the closing table names (CK_RV)-1 as the module's" 1 \
    '^ +CKR_VENDOR_0xffffffffffffffff\.*: [0-9]+$'
file_has "wide return values: 2^48 + 1 in the closing table, not VERIFY_MISMATCH" "$T/out" \
    '^ +CKR_0x1000000000001\.*: [0-9]+$'
file_lacks "wide return values: no OTHER in the closing table" "$T/out" "OTHER"
file_lacks "wide return values: no VERIFY_MISMATCH in the closing table" "$T/out" "VERIFY_MISMATCH"
json_check "wide return values: errors_by_code keeps both whole, 200 in all" "$T/wide.json" \
    'sorted(runs[0]["errors_by_code"]) == ["CKR_0x1000000000001", "CKR_VENDOR_0xffffffffffffffff"] and sum(runs[0]["errors_by_code"].values()) == 200'
"$HSMBENCH" report "$T/wide.json" --html - >"$T/out" 2>"$T/err"
rc=$?
check "wide return values: report's page names them as the run did" 0 '>CKR_VENDOR_0xffffffffffffffff<'

# ---- item 6: destroys retried; what stays is listed with the command that removes it ---------
mock "quirks=destroy-fails-once" run --module "$MOCK" --test aes-keygen,rsa-keygen,aes-cbc-encrypt \
    --token-keys --iterations 20 --quiet --json "$T/m.json" </dev/null
check "a destroy that fails once: retried, exit 0, no warning" 0
file_lacks "destroy-fails-once: nothing listed as left behind" "$T/err" "could not be destroyed"
left "destroy-fails-once: nothing left on the token" 0
mock "quirks=destroy-fails" run --module "$MOCK" --test aes-keygen,aes-cbc-encrypt --token-keys \
    --iterations 2 --quiet --json "$T/n.json" </dev/null
check "destroy always failing: the tests ran, but objects stayed: exit 1" 1
left "destroy always failing: the mock keeps 4 objects (a keygen probe, 2 keygens, 1 key)" 4
file_has "left behind: the count, on stderr" "$T/err" \
    '^hsmbench: warning: 4 objects hsmbench made could not be destroyed and remain on the token:$'
file_has "left behind: each with label and type" "$T/err" \
    '^  hsmbench-aes-cbc-encrypt-[0-9]+ +AES secret key +id -$'
file_has "left behind: the command that removes them, with the module and slot" "$T/err" \
    "^  hsmbench keys destroy --label hsmbench-aes-keygen-[0-9]+ --module $MOCK --slot 1\$"
n=$(grep -c '^  hsmbench keys destroy' "$T/err")
[ "$n" = 2 ] && pass "left behind: one command per label" || fail "left behind: one command per label" "$n commands"
