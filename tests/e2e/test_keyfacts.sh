#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_keyfacts.sh - facts from the key, impossible parameters
# refused (issue 22, items 4 and 6), on the mock HSM: keys of another size
# under a label (keys=), a module that accepts a PSS salt that cannot fit
# (the mock checks none), generation that answers CKR_FUNCTION_NOT_SUPPORTED
# (quirks=no-keygen), and --verify's method named exactly.  The mock
# reports the objects left at C_Finalize (objects-file=): a refused run made
# none.  About 10 seconds.
# tsan: no (keys checked before the clock, in one thread; ASan runs it)
# asan: yes (buffers sized by the key a label names (other sizes), PSS salts that cannot fit)
# early: no check depends on the cores it gets (facts from keys and refusals before the clock; the mock's objects counted)
. "$TOP/tests/e2e/lib.sh"

need_mock || exit 0
OBJ="$T/objects"
KEYS='keys=hsmbench-big:rsa:4096,hsmbench-2k:rsa:2048,hsmbench-small:rsa:1024,hsmbench-ec:ec:P-384,hsmbench-aes:aes:128'

mock() {
    cfg=$1
    shift
    rm -f "$OBJ"
    run env HSMBENCH_MOCK="$cfg;objects-file=$OBJ" "$HSMBENCH" "$@"
}
# never_loaded NAME: the module was not even initialised (no objects file).
never_loaded() {
    [ ! -e "$OBJ" ] && pass "$1" || fail "$1" "the mock ran: $(head -c 200 "$OBJ")"
}
# made_nothing NAME N: the mock's token holds only the keys= keys (2 for a pair, 1 a secret).
made_nothing() {
    n=$(sed -n 's/^objects //p' "$OBJ" 2>/dev/null)
    [ "$n" = "$2" ] && pass "$1" || fail "$1" "objects at C_Finalize: '$n', expected $2"
}

# ---- item 4: the key's own size, curve and type ------------------------------------
mock "$KEYS" run --module "$MOCK" --test rsa-pkcs-sign --key-label hsmbench-big --iterations 20 \
    --json "$T/big.json" </dev/null
check "a 4096-bit key under --key-label runs as RSA 4096" 0 '^Running rsa-pkcs-sign \(CKM_SHA256_RSA_PKCS, RSA 4096'
json_check "the JSON key object is the key's: RSA 4096" "$T/big.json" \
    'runs[0]["key"] == {"type": "RSA", "bits": 4096} and runs[0]["status"] == "ok"'
mock "$KEYS" run --module "$MOCK" --test rsa-x509-encrypt --key-label hsmbench-2k --iterations 20 \
    --json "$T/x509.json" </dev/null
check "raw RSA on a 2048-bit key: block 256 B" 0 'RSA 2048, block 256 B'
json_check "block_size is the key's modulus, 256" "$T/x509.json" 'runs[0]["block_size"] == 256'
mock "$KEYS" run --module "$MOCK" --test rsa-x509-encrypt --key-label hsmbench-2k --key-size 3072 \
    --iterations 20 </dev/null
check_one_line_error "--key-size 3072 against a 2048-bit key: exit 2, both named" 2 \
    '^hsmbench: error: --key-size 3072: the key --key-label hsmbench-2k is RSA 2048'
mock "$KEYS" run --module "$MOCK" --test ecdsa-sign --key-label hsmbench-ec --iterations 20 \
    --json "$T/ec.json" </dev/null
check "an EC key on P-384 runs as EC P-384, no BAD_OUTPUT_LENGTH" 0 'EC P-384'
json_check "the JSON key is P-384, no errors" "$T/ec.json" \
    'runs[0]["key"]["curve"] == "P-384" and runs[0]["errors"] == 0'
mock "$KEYS" run --module "$MOCK" --test ecdsa-sign --key-label hsmbench-ec --curve P-256 \
    --iterations 20 </dev/null
check_one_line_error "--curve P-256 against a P-384 key: exit 2, both named" 2 \
    '--curve P-256: the key --key-label hsmbench-ec is on P-384'
mock "$KEYS" run --module "$MOCK" --test ecdsa-sign --key-label hsmbench-big --iterations 20 </dev/null
check_one_line_error "an RSA key for an EC test: exit 2" 2 \
    '--key-label hsmbench-big: an RSA key; ecdsa-sign needs an EC key'
mock "$KEYS" run --module "$MOCK" --test aes-cbc-encrypt --key-label hsmbench-aes --iterations 20 \
    --json "$T/aes.json" </dev/null
check "an AES-128 key under --key-label runs as AES 128" 0 'AES 128'
mock "$KEYS" run --module "$MOCK" --test rsa-pss-sign --key-label hsmbench-nope --iterations 5 </dev/null
check "a missing key still fails at preparation, exit 1" 1 '' 'no private key with that label'
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:3072 -out "$T/rsa.pem" 2>/dev/null
mock "" run --module "$MOCK" --test rsa-pkcs-sign --static-key "$T/rsa.pem" --iterations 5 \
    --json "$T/st.json" </dev/null
check "a 3072-bit --static-key runs as RSA 3072" 0 'RSA 3072'
mock "" run --module "$MOCK" --test rsa-pkcs-sign --static-key "$T/rsa.pem" --key-size 2048 \
    --iterations 5 </dev/null
check_one_line_error "--key-size 2048 against a 3072-bit --static-key: exit 2" 2 'RSA 3072 key.*RSA 2048'

# ---- item 6: impossible parameters, refused before the module is called ---------------
mock "" run --module "$MOCK" --test rsa-pss-sign --key-size 1024 --hash SHA512 --iterations 20 </dev/null
check_one_line_error "PSS with SHA-512 on RSA 1024: exit 2 (the salt cannot fit)" 2 \
    '^hsmbench: error: --key-size 1024 --hash SHA512: rsa-pss-sign on RSA 1024 with SHA512 cannot hold its 64-byte salt.*130'
never_loaded "PSS refused before the module is loaded"
mock "" run --module "$MOCK" --test rsa-pss-sign-prehashed,rsa-pss-verify --key-size 1024 --hash SHA384 \
    --iterations 20 --quiet </dev/null
check "PSS with SHA-384 on RSA 1024 fits (emLen 128 >= 98): exit 0" 0
mock "" run --module "$MOCK" --test rsa-oaep-encrypt --data-size 300 --iterations 20 </dev/null
check_one_line_error "OAEP of 300 bytes on RSA 2048: exit 2, at most 214" 2 \
    '^hsmbench: error: --data-size 300: rsa-oaep-encrypt on RSA 2048 with SHA1 takes at most 214 bytes'
never_loaded "OAEP refused before the module is loaded"
mock "" run --module "$MOCK" --test rsa-oaep-encrypt --data-size 214 --iterations 20 --quiet </dev/null
check "OAEP of 214 bytes on RSA 2048: exit 0" 0
mock "" run --module "$MOCK" --test rsa-oaep-decrypt --hash SHA256 --data-size 16,200 --iterations 20 </dev/null
check_one_line_error "a --data-size sweep: each size is checked (200 > 190 with SHA256)" 2 \
    '--hash SHA256 --data-size 200: rsa-oaep-decrypt on RSA 2048 with SHA256 takes at most 190'
mock "$KEYS" run --module "$MOCK" --test rsa-pss-sign --key-label hsmbench-small --hash SHA512 \
    --iterations 20 </dev/null
check_one_line_error "the limit uses an existing key's real size (RSA 1024)" 2 \
    '--key-label hsmbench-small \(RSA 1024\) --hash SHA512: rsa-pss-sign on RSA 1024'
made_nothing "refused on an existing key: nothing made, only the 9 objects of keys= on the token" 9
mock "" run --module "$MOCK" --test aes-ecb-encrypt --data-size 100 --iterations 20 </dev/null
check_one_line_error "AES-ECB data not whole blocks: exit 2" 2 'multiple of 16 bytes .AES without padding'

# ---- item 6: key generation probed before the clock -----------------------------------
mock "quirks=no-keygen" run --module "$MOCK" --test aes-keygen,rsa-keygen,ec-keygen --duration 1 \
    --json "$T/kg.json" </dev/null
check "no key generation: exit 1, each keygen test failed at preparation" 1 '' \
    'aes-keygen: generating a key before the run: CKR_FUNCTION_NOT_SUPPORTED'
json_check "no key generation: failed, no attempt measured" "$T/kg.json" \
    'all(r["status"] == "failed" and "CKR_FUNCTION_NOT_SUPPORTED" in r["reason"] and not r.get("attempts") for r in runs)'

# ---- item 6: --verify names its method ---------------------------------------------
mock "quirks=no-import" run --module "$MOCK" --test rsa-pkcs-sign,aes-cbc-encrypt,hmac-sha256,aes-keygen \
    --verify --iterations 20 --json "$T/v.json" </dev/null
check "--verify on a token without imports: the summary names each check" 1 \
    'verified\.+: 1 results checked: signature verified with OpenSSL against the public key read from the token'
json_check "verify.method: OpenSSL for the signature, the token for AES and HMAC, read back for keygen" "$T/v.json" \
    '[r["verify"]["method"] for r in runs] == ["openssl", "round-trip in token", "round-trip in token", "read back from the token"]'
json_check "verify.checked_by says exactly how" "$T/v.json" \
    '[r["verify"]["checked_by"] for r in runs] == ["signature verified with OpenSSL against the public key read from the token", "decrypted in the token and compared with the plaintext", "MAC verified in the token (C_Verify)", "the new key'"'"'s length or curve read back from the token"]'

