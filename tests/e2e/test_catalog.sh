#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The whole test catalogue on SoftHSM with results checked by OpenSSL; keys
# users control (static, existing, token); nothing left behind on any path.
# asan: yes (every catalogue entry's input and output buffers on SoftHSM, checked by OpenSSL)
# early: no check depends on the cores it gets (operations counted, results checked by OpenSSL, keys counted; a SIGINT sent once the run prints)
. "$TOP/tests/e2e/lib.sh"
SOFTHSM=${SOFTHSM:-/usr/lib/softhsm/libsofthsm2.so}

# --- every catalogue entry, verified --------------------------------------
# 14 operations a test: two of them checked by OpenSSL at sample:7 (40 made
# this the suite's costliest command, 13 s of CPU, mostly SoftHSM's RSA key
# generation).
run "$HSMBENCH" run --test all --verify=sample:7 --iterations 14 --threads 2 --json "$T/all.json" </dev/null
check "--test all --verify on SoftHSM: exit 0, closing table" 0 '^TEST +KEY +DATA +THREADS +OPS/S'
json_check "--test all: one run per catalogue entry" "$T/all.json" \
    "len(runs) == $("$HSMBENCH" list tests | grep -c '^[a-z]')"
json_check "--test all: every run ok or skipped with a reason" "$T/all.json" \
    'all(r["status"] == "ok" or (r["status"] == "skipped" and "not offered" in r["reason"]) for r in runs)'
json_check "--test all: no errors in any run" "$T/all.json" \
    'all(r.get("errors", 0) == 0 for r in runs)'
json_check "--test all: every ok run but random had results checked by OpenSSL" "$T/all.json" \
    'all(r["verify"]["checked"] > 0 for r in runs if r["status"] == "ok" and r["test"] != "random")'
json_check "--test all: SoftHSM lacks only ECDSA-with-hash, SHA-3 and CKM_AES_KEY_WRAP_KWP" "$T/all.json" \
    'sorted(r["test"] for r in runs if r["status"] == "skipped") == sorted(["ecdsa-sha2-sign", "ecdsa-sha2-verify", "sha3-256-digest", "sha3-384-digest", "sha3-512-digest", "aes-key-wrap-kwp", "aes-key-unwrap-kwp"])'
json_check "--test all: every check was OpenSSL's (SoftHSM imports keys), keygen and find read back" "$T/all.json" \
    'all(r["verify"]["method"] == ("read back from the token" if r["test"].endswith("keygen") or r["test"] == "find-objects" else "none" if r["test"] == "random" else "openssl") for r in runs if r["status"] == "ok")'
json_check "--test all: SoftHSM's CKM_AES_KEY_WRAP_PAD is detected as RFC 5649" "$T/all.json" \
    'all(r.get("mechanism_variant") == "rfc5649" for r in runs if r["test"] in ("aes-key-wrap-pad", "aes-key-unwrap-pad"))'
json_check "--test all: 3DES runs are flagged deprecated" "$T/all.json" \
    'all(r.get("deprecated") is True for r in runs if r["test"].startswith("des3-"))'
json_check "--test all: verify tests count ops, keygen destroys untimed" "$T/all.json" \
    'all(r["ops"] == 14 for r in runs if r["status"] == "ok")'

# --- a module whose answers are wrong is caught ---------------------------
run "$HSMBENCH" run --module "$NULLP11" --test sha256-digest --verify --iterations 20 --json "$T/mm.json" </dev/null
check "--verify on a module that returns garbage: exit 1, VERIFY_MISMATCH named" 1 '' 'VERIFY_MISMATCH'
json_check "--verify mismatch counted under VERIFY_MISMATCH" "$T/mm.json" \
    'runs[0]["errors_by_code"].get("VERIFY_MISMATCH", 0) >= 1'

# --- static keys ------------------------------------------------------------
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$T/rsa.pem" 2>/dev/null
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-384 -out "$T/ec.pem" 2>/dev/null
openssl pkey -in "$T/ec.pem" -outform DER -out "$T/ec.der" 2>/dev/null
head -c 32 /dev/urandom >"$T/aes.key"
run "$HSMBENCH" run --test rsa-pkcs-sign,rsa-oaep-decrypt --static-key "$T/rsa.pem" --verify --iterations 20 --quiet
check "--static-key RSA PEM: sign and OAEP decrypt verified" 0
run "$HSMBENCH" run --test ecdsa-sign --curve P-384 --static-key "$T/ec.der" --verify --iterations 20 --quiet
check "--static-key EC DER on P-384: verified" 0
run "$HSMBENCH" run --test aes-gcm-decrypt,hmac-sha256 --static-key "$T/aes.key" --verify --iterations 20 --quiet
check "--static-key raw AES/HMAC key: verified" 0
run "$HSMBENCH" run --test ecdsa-sign --curve P-256 --static-key "$T/ec.pem" --iterations 5 --quiet
check_one_line_error "--static-key on another curve than --curve: exit 2 naming both" 2 'secp384r1.*P-256'
run "$HSMBENCH" run --test ecdsa-sign --static-key "$T/ec.pem" --iterations 5 --quiet --json "$T/ec.json"
check "--static-key without --curve: the key's curve" 0
json_check "--static-key without --curve: runs on P-384" "$T/ec.json" 'runs[0]["key"]["curve"] == "P-384"'
run "$HSMBENCH" run --test aes-gcm-encrypt --key-size 128 --static-key "$T/aes.key" --iterations 5 --quiet
check_one_line_error "--static-key of the wrong length: exit 2" 2 '32 bytes; a 128-bit key is 16'
printf 'not a key\n' >"$T/junk.pem"
run "$HSMBENCH" run --test rsa-pkcs-sign --static-key "$T/junk.pem" --iterations 5 --quiet
check_one_line_error "--static-key that is not a key: exit 2" 2 'not a PEM or DER private key'
run "$HSMBENCH" run --test rsa-pkcs-sign --static-key "$T/rsa.pem" --token-keys --iterations 5 --quiet
check_one_line_error "--static-key with --token-keys: exit 2" 2 'give only one'

# --- bad values of the catalogue's flags --------------------------------------
run "$HSMBENCH" run --test sha256-digest --hash SHA384 --iterations 5 --quiet
check_one_line_error "--hash on a test without one: exit 2" 2 'takes no hash'
run "$HSMBENCH" run --test rsa-pss-sign --hash MD5 --iterations 5 --quiet
check_one_line_error "--hash MD5: exit 2" 2 'unknown'
run "$HSMBENCH" run --test aes-cbc-encrypt --data-size 100 --iterations 5 --quiet
check_one_line_error "--data-size not a multiple of the block: exit 2" 2 'multiple of 16'
run "$HSMBENCH" run --test rsa-pkcs-sign --verify=all --iterations 5 --quiet
check_one_line_error "--verify=all: exit 2" 2 'sample:N'
run "$HSMBENCH" run --test rsa-pkcs-sign --key-id 0g --iterations 5 --quiet
check_one_line_error "--key-id not hex: exit 2" 2 'hex'

# --- keys kept on the token ----------------------------------------------------
export SOFTHSM2_CONF="$HSMBENCH_HOME/softhsm/softhsm2.conf"
run "$HSMBENCH" keys create --type rsa --label hsmbench-e2e-rsa
check "keys create rsa" 0 "created rsa key 'hsmbench-e2e-rsa'"
run "$HSMBENCH" keys create --type aes --key-size 128 --label hsmbench-e2e-aes
check "keys create aes 128" 0
run "$HSMBENCH" keys create --type aes --label mykey
check_one_line_error "keys create outside the prefix: exit 2" 2 'start with "hsmbench-"'
before=$(demo_objects)
run "$HSMBENCH" keys list
check "keys list shows our keys" 0 'hsmbench-e2e-rsa +private +RSA'
run "$HSMBENCH" run --test rsa-pss-sign,rsa-pkcs-verify --key-label hsmbench-e2e-rsa --iterations 20 --quiet --json "$T/ex.json"
check "--key-label: run on an existing key pair" 0
json_check "--key-label: key source recorded as existing" "$T/ex.json" 'all(r["key_source"] == "existing" for r in runs)'
run "$HSMBENCH" run --test aes-ctr-encrypt --key-label hsmbench-e2e-aes --key-size 128 --iterations 20 --quiet
check "--key-label: run on an existing AES key" 0
after=$(demo_objects)
if [ "$before" = "$after" ]; then pass "--key-label: existing keys are not destroyed ($before objects)"
else fail "--key-label: existing keys are not destroyed" "$before before, $after after"; fi
run "$HSMBENCH" run --test rsa-pss-sign --key-label hsmbench-nope --iterations 5 --quiet
check "--key-label of a missing key: the test fails, exit 1" 1 '' 'no private key with that label'

# --- nothing left behind: token keys on success, error, failure and SIGINT ---------
base=$(demo_objects)
run "$HSMBENCH" run --test rsa-pkcs-sign,aes-gcm-encrypt --token-keys --iterations 20 --quiet
check "--token-keys run: exit 0" 0
n=$(demo_objects)
[ "$n" = "$base" ] && pass "--token-keys success: object count unchanged" || fail "--token-keys success: object count unchanged" "$base -> $n"
# Three keys a test: each made on the token and destroyed is what is checked
# (SoftHSM's RSA key generation was most of this command's CPU: 2.7 s for 10).
run "$HSMBENCH" run --test aes-keygen,rsa-keygen,ec-keygen --token-keys --iterations 3 --quiet --json "$T/kg.json"
check "--token-keys keygen: exit 0" 0
json_check "--token-keys keygen: key source token, no errors" "$T/kg.json" \
    'all(r["key_source"] == "token" and r["status"] == "ok" and r["errors"] == 0 for r in runs)'
n=$(demo_objects)
[ "$n" = "$base" ] && pass "--token-keys keygen: the generated token keys destroyed" || fail "--token-keys keygen: the generated token keys destroyed" "$base -> $n"
run "$HSMBENCH" run --test rsa-pkcs-sign,aes-gcm-encrypt --token-keys --threads 1,2 --iterations 20 --verify --quiet --json "$T/sweep.json"
check "--token-keys thread sweep (keys shared across the sweep), verified: exit 0" 0
json_check "thread sweep: four runs, each verified" "$T/sweep.json" \
    '[r["threads"] for r in runs] == [1, 2, 1, 2] and all(r["verify"]["checked"] > 0 for r in runs)'
n=$(demo_objects)
[ "$n" = "$base" ] && pass "--token-keys sweep: object count unchanged" || fail "--token-keys sweep: object count unchanged" "$base -> $n"
# SoftHSM rejects SHA-256 OAEP: every operation fails mid-run.
run "$HSMBENCH" run --test rsa-oaep-encrypt --hash SHA256 --token-keys --iterations 20 --quiet --json "$T/err.json"
check "--token-keys, every operation failing: exit 1" 1
json_check "failing operations named by CKR code" "$T/err.json" 'runs[0]["errors_by_code"] == {"CKR_ARGUMENTS_BAD": 20}'
n=$(demo_objects)
[ "$n" = "$base" ] && pass "--token-keys module errors: object count unchanged" || fail "--token-keys module errors: object count unchanged" "$base -> $n"
# ...and it fails while preparing the decrypt test's input, after the key exists.
run "$HSMBENCH" run --test rsa-oaep-decrypt --hash SHA256 --token-keys --iterations 20 --quiet
check "--token-keys, preparation failing: exit 1" 1
n=$(demo_objects)
[ "$n" = "$base" ] && pass "--token-keys preparation failure: object count unchanged" || fail "--token-keys preparation failure: object count unchanged" "$base -> $n"
"$HSMBENCH" run --test rsa-pkcs-sign --token-keys --duration 30 >"$T/int.out" 2>&1 </dev/null &
pid=$!
i=0
while [ $i -lt 150 ] && ! grep -q '^OPERATIONS/second' "$T/int.out"; do sleep 0.1; i=$((i + 1)); done
kill -INT $pid
wait $pid
rc=$?
check "--token-keys SIGINT: exit 130" 130
n=$(demo_objects)
[ "$n" = "$base" ] && pass "--token-keys SIGINT: object count unchanged" || fail "--token-keys SIGINT: object count unchanged" "$base -> $n"

run "$HSMBENCH" keys destroy --label "$(pkcs11-tool --module "$SOFTHSM" --token-label hsmbench-demo -O 2>/dev/null | sed -n 's/^ *label: *//p' | grep -v '^hsmbench-' | head -n 1)x"
check_one_line_error "keys destroy outside the prefix without --force: exit 2" 2 'add --force'
run "$HSMBENCH" keys destroy --all
check "keys destroy --all" 0 'destroyed 3 objects'
n=$(demo_objects)
[ "$n" = "$((base - 3))" ] && pass "keys destroy --all removed exactly our three objects" || fail "keys destroy --all removed exactly our three objects" "$base -> $n"
