#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_list.sh - "hsmbench list": tests, modules, slots, mechanisms.
# early: no check depends on the cores it gets (what list prints)
. "$TOP/tests/e2e/lib.sh"

run "$HSMBENCH" list tests
check "list tests exits 0 with a header" 0 '^TEST +MECHANISM +KEY'
for t in rsa-pkcs-sign ecdsa-sign hmac-sha256 aes-gcm-encrypt sha256-digest; do
    file_has "list tests names $t" "$T/out" "^$t "
done
file_has "list tests shows rsa-pkcs-sign's mechanism and key sizes" "$T/out" \
    '^rsa-pkcs-sign +CKM_SHA256_RSA_PKCS +RSA 1024/2048/3072/4096/8192'
file_has "list tests shows the EC curves" "$T/out" 'P-256[|]P-384[|]P-521'
file_has "list tests shows the data size range" "$T/out" '1\.\.16200'
n=$(grep -c -- '--hash picks the hash' "$T/out")
if [ "$n" -eq 1 ]; then pass "list tests says '--hash picks the hash' once"
else fail "list tests says '--hash picks the hash' once" "$n times"; fi
file_has "list tests: rsa-pkcs-sign's hashes and default on its line" "$T/out" \
    '^ +RSA PKCS#1 v1\.5 signature, .*; hash SHA1[|]SHA256[|]SHA384[|]SHA512 \(SHA256\)$'
file_has "list tests: OAEP's hashes, default SHA1" "$T/out" '; hash SHA1[|]SHA256 \(SHA1\)$'
file_has "list tests: an EC test's hash follows the curve" "$T/out" '; hash SHA1[|]SHA256[|]SHA384[|]SHA512 \(by curve\)$'

run "$HSMBENCH" list modules
check "list modules exits 0" 0 '^NAME +PATH'
file_has "list modules lists the default demo token" "$T/out" '^\(default\) .*hsmbench-demo'
file_has "list modules lists p11-kit's softhsm2 with its path" "$T/out" '^softhsm2 +/.*libsofthsm2\.so$'
# The modules hsmbench ships, by the names --module takes, marked as its own
# and found where --module would look (HSMBENCH_LIBDIR: this build).
run env HSMBENCH_LIBDIR="$(dirname "$NULLP11")" "$HSMBENCH" list modules
for m in mock null trace; do
    file_has "list modules shows hsmbench-$m, marked as hsmbench's own" "$T/out" \
        "^hsmbench-$m +$(dirname "$NULLP11")/libhsmbench-$m\.so +\[hsmbench's own: [^;]*\]\$"
done
run env HSMBENCH_LIBDIR="$(dirname "$NULLP11")" "$HSMBENCH" run --module hsmbench-null --test sha256-digest \
    --iterations 10 --quiet
check "the name list modules shows is one --module takes (hsmbench-null)" 0
run env HSMBENCH_LIBDIR="$T/nowhere" "$HSMBENCH" list modules
file_has "list modules: an own module whose file is missing is said to be" "$T/out" \
    "^hsmbench-mock +$T/nowhere/libhsmbench-mock\.so +\[hsmbench's own: .*; not installed there\]\$"

# The demo token is made on first use (also by list).
run "$HSMBENCH" list slots
check "list slots (demo) exits 0" 0 '^Module libsofthsm2\.so'
file_has "list slots shows the hsmbench-demo label" "$T/out" '^  label +: hsmbench-demo$'
file_has "list slots shows token flags" "$T/out" '^  flags +: .*LOGIN_REQUIRED.*TOKEN_INITIALIZED'
file_has "list slots shows slot flags" "$T/out" '^Slot [0-9]+: .*\[.*TOKEN_PRESENT.*\]'
file_has "list slots shows the serial" "$T/out" '^  serial +: [0-9a-f]+$'
if [ -s "$T/err" ]; then fail "list slots prints nothing on stderr" "$(head -c 300 "$T/err")"
else pass "list slots prints nothing on stderr"; fi

run "$HSMBENCH" list mechanisms
check "list mechanisms (demo) exits 0 with the token named" 0 "^Token 'hsmbench-demo' \(slot [0-9]+\): [0-9]+ mechanisms"
file_has "list mechanisms shows CKM_SHA256_RSA_PKCS with a key size range" "$T/out" \
    '^CKM_SHA256_RSA_PKCS +[0-9]+\.\.[0-9]+ +.*SIGN'
file_has "list mechanisms shows CKM_SHA256 with DIGEST" "$T/out" '^CKM_SHA256 +[0-9]+\.\.[0-9]+ +DIGEST'
file_has "list mechanisms shows CKM_AES_GCM" "$T/out" '^CKM_AES_GCM '

run "$HSMBENCH" list mechanisms --token hsmbench-demo
check "list mechanisms --token hsmbench-demo exits 0" 0 "^Token 'hsmbench-demo'"
run "$HSMBENCH" list mechanisms --token no-such-token
check_one_line_error "list mechanisms --token unknown: exit 3" 3 '--token no-such-token'
run "$HSMBENCH" list mechanisms --slot 987654
check_one_line_error "list mechanisms --slot unknown: exit 3" 3 '--slot 987654'
run "$HSMBENCH" list slots --module /nonexistent/libnope.so
check_one_line_error "list slots with a missing module: exit 3" 3 '/nonexistent/libnope\.so'

run "$HSMBENCH" list bogus
check_one_line_error "list bogus: exit 2, names it" 2 'list bogus: unknown'
