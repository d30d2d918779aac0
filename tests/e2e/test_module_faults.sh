#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_module_faults.sh - real modules' misbehaviour the mock now
# reproduces (issue 41), each case named after what it proves:
#  - a SIGPIPE a module's client library raises (Caml Crush's, writing to
#    its dead server worker: the mock's sigpipe=) is that call's failure,
#    not a closed standard output: exit 1, not 130, and the next test runs;
#  - a key generation abandoned as stuck (--stuck-after) whose call made its
#    token keys but never answered (the mock's hang=C_GenerateKeyPair) has
#    them listed by label with the command that destroys them;
#  - a digest the token does not list but computes (NSS's key slot: the
#    mock's unlisted=) is tried before it is called absent, and run, with a
#    note and mechanism_unlisted in the JSON; one neither listed nor served
#    is still skipped, naming the call tried;
#  - --verify on a token that accepts imported keys and then refuses to use
#    them (Caml Crush's default filter: the mock's quirks=hide-imported)
#    notices before the clock and falls back to keys generated in the token,
#    saying so, instead of measuring CKR_OBJECT_HANDLE_INVALID.
# asan: yes (modules that raise SIGPIPE, fail mid-call or answer out of turn)
. "$TOP/tests/e2e/lib.sh"

need_mock || exit 0

# ---- a module's SIGPIPE is the module's failure ---------------------------------
# The first call in service is rsa-pkcs-sign's C_GenerateKeyPair, in the
# main thread, where the signal is not blocked: the kernel raises SIGPIPE
# there and the call fails with CKR_DEVICE_ERROR.
HSMBENCH_MOCK="sigpipe=1" run "$HSMBENCH" run --module "$MOCK" --test rsa-pkcs-sign,sha256-digest \
    --iterations 20 --json "$T/pipe.json"
check "module SIGPIPE: exit 1 (a failed test), not 130 (standard output closed)" 1 \
    '^sha256-digest .* ok$' 'generating the RSA 2048 key: CKR_DEVICE_ERROR'
file_lacks "module SIGPIPE: no interruption reported" "$T/err" "interrupted"
json_check "module SIGPIPE: the first test failed, the second ran" "$T/pipe.json" \
    'len(runs) == 2 and runs[0]["status"] == "failed" and "CKR_DEVICE_ERROR" in runs[0]["reason"] and runs[1]["status"] == "ok" and runs[1]["ops"] == 20'

# ---- an abandoned key generation's keys are listed ------------------------------
# From 1 s on every C_GenerateKeyPair makes its token key pair and never
# returns: both workers are abandoned inside it, their 4 objects stay.
HSMBENCH_MOCK="hang=C_GenerateKeyPair@1s;service=fixed:1ms;objects-file=$T/kg.obj" \
    run "$HSMBENCH" run --module "$MOCK" --test ec-keygen --threads 2 --duration 10 --token-keys \
    --stuck-after 1s
check "abandoned keygen: exit 1, stuck in C_GenerateKeyPair" 1 'stuck in C_GenerateKeyPair' \
    '^hsmbench: warning: ec-keygen: 2 C_GenerateKeyPair calls abandoned as stuck may still make their key pairs on the token, labelled hsmbench-ec-keygen-[0-9]+: listed below$'
label=$(sed -n 's/^object token class [0-9]* token 1 label //p' "$T/kg.obj" | sort -u)
left=$(grep -c '^object token' "$T/kg.obj")
file_has "abandoned keygen: the mock's leftover key pairs' label has its destroy command" "$T/err" \
    "^  hsmbench keys destroy --label ${label:-none} --module .* --slot 1\$"
listed=$(grep -c "^  ${label:-none} .* \(private\|public\) key" "$T/err")
[ "$left" = 4 ] && [ "$listed" = "$left" ] && pass "abandoned keygen: every object left is listed ($left)" ||
    fail "abandoned keygen: every object left is listed" "the mock has $left, hsmbench lists $listed"

# The same for a secret key (C_GenerateKey), one worker.
HSMBENCH_MOCK="hang=C_GenerateKey@1s;service=fixed:1ms;objects-file=$T/kg2.obj" \
    run "$HSMBENCH" run --module "$MOCK" --test aes-keygen --threads 1 --duration 10 --token-keys \
    --stuck-after 1s
check "abandoned AES keygen: the secret key listed with its destroy command" 1 '' \
    '^  hsmbench keys destroy --label hsmbench-aes-keygen-[0-9]+ --module .* --slot 1$'
file_has "abandoned AES keygen: one AES secret key listed" "$T/err" \
    '^hsmbench: warning: 1 object hsmbench made could not be destroyed and remains on the token:$'

# ---- a digest missing from the mechanism list is tried, and run ----------------
HSMBENCH_MOCK="unlisted=CKM_SHA256,CKM_SHA_1;mechanisms=CKM_SHA256,CKM_SHA_1,CKM_SHA384" \
    run "$HSMBENCH" run --module "$MOCK" --test sha256-digest,sha1-digest,sha384-digest,sha512-digest \
    --iterations 20 --json "$T/unlisted.json"
check "unlisted digest: run, with the note, not skipped as not offered" 0 \
    "^sha256-digest: CKM_SHA256 is not in the token's mechanism list, but a C_Digest tried before the run worked: run all the same$"
file_has "unlisted digest: the summary says the mechanism is not listed" "$T/out" \
    "^    mechanism listed\.+: no: not in the token's mechanism list, yet it works \(tried before the run\)$"
file_has "unlisted digest: one neither listed nor served is still skipped, naming the call tried" "$T/out" \
    '^sha512-digest: skipped: CKM_SHA512 not offered by this token \(not in its mechanism list; C_DigestInit tried: CKR_MECHANISM_INVALID\)$'
json_check "unlisted digest: mechanism_unlisted in the JSON, only where so" "$T/unlisted.json" \
    '[(r["test"], r["status"], r.get("mechanism_unlisted")) for r in runs] == [("sha256-digest", "ok", True), ("sha1-digest", "ok", True), ("sha384-digest", "ok", None), ("sha512-digest", "skipped", None)] and runs[0]["ops"] == 20'

# ---- --verify on imported keys the token hides ------------------------------------
# The mock does no cryptography, so only the checks made in the token (HMAC,
# a verify of its own signature) come out right; rsa-pkcs-sign is checked
# by OpenSSL with the public key read back, which fails on the mock's
# filler: what counts there is that its operations reach the key.
HSMBENCH_MOCK="quirks=hide-imported" run "$HSMBENCH" run --module "$MOCK" --verify \
    --test hmac-sha256,ecdsa-verify --iterations 20 --json "$T/hide.json"
check "hidden imported keys: --verify falls back to generated keys, exit 0" 0 '' \
    '^hsmbench: warning: hmac-sha256: the token accepts imported keys but refuses to use them \(C_SignInit with the imported key: CKR_OBJECT_HANDLE_INVALID\): --verify uses keys generated in the token, results checked by a round trip in the token$'
file_has "hidden imported keys: the verify test says so too" "$T/err" \
    '^hsmbench: warning: ecdsa-verify: the token accepts imported keys but refuses to use them \(C_VerifyInit with the imported key: CKR_OBJECT_HANDLE_INVALID\)'
json_check "hidden imported keys: no CKR_OBJECT_HANDLE_INVALID, checked by a round trip" "$T/hide.json" \
    'all(r["status"] == "ok" and r["errors"] == 0 and r["ops"] == 20 and r["verify"]["method"] == "round-trip in token" and r["verify"]["checked"] > 0 and r["verify"]["mismatched"] == 0 for r in runs)'
HSMBENCH_MOCK="quirks=hide-imported" run "$HSMBENCH" run --module "$MOCK" --verify \
    --test rsa-pkcs-sign --iterations 20 --json "$T/hide2.json"
json_check "hidden imported keys: an RSA signature test reaches its key, checked with the public key read back" \
    "$T/hide2.json" \
    '"CKR_OBJECT_HANDLE_INVALID" not in runs[0].get("errors_by_code", {}) and runs[0]["verify"]["checked_by"] == "signature verified with OpenSSL against the public key read from the token"'
head -c 32 /dev/urandom >"$T/aes.key"
HSMBENCH_MOCK="quirks=hide-imported" run "$HSMBENCH" run --module "$MOCK" --test hmac-sha256 \
    --static-key "$T/aes.key" --iterations 5 --json "$T/hide3.json"
check "hidden imported keys, --static-key: failed before the clock, the way out named" 1 '' \
    'the token took the --static-key \(C_CreateObject\) but refuses to use it \(C_SignInit: CKR_OBJECT_HANDLE_INVALID\); use --key-label'
