#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_keys_long.sh - hsmbench keys with labels of any length
# (issue 13, item 5): a 300-byte hsmbench- label is listed and destroyed by
# --all; keys create takes run's key sizes and refuses a label the token
# already holds unless --force.
# asan: yes (labels longer than any fixed buffer, listed and destroyed)
# early: no check depends on the cores it gets (labels listed and destroyed)
. "$TOP/tests/e2e/lib.sh"


run "$HSMBENCH" run --test sha256-digest --iterations 5 --quiet </dev/null
check "demo token set up" 0
softhsm_env
long="hsmbench-$(printf '%0291d' 0)"
pkcs11-tool --module "$SOFTHSM" --token-label hsmbench-demo --login --pin "$(cat "$PINFILE")" \
    --keygen --key-type AES:16 --label "$long" >"$T/keygen.out" 2>&1
if [ "$(demo_objects)" = 1 ]; then pass "a key with a 300-byte label made with pkcs11-tool"
else fail "a key with a 300-byte label made with pkcs11-tool" "$(head -c 300 "$T/keygen.out")"; fi
run "$HSMBENCH" keys list </dev/null
check "keys list shows the 300-byte label" 0 "^$long "
run "$HSMBENCH" keys destroy --all </dev/null
check "keys destroy --all destroys the 300-byte label" 0 '^destroyed 1 object '
n=$(demo_objects)
if [ "$n" = 0 ]; then pass "no object left on the token"; else fail "no object left on the token" "$n objects"; fi

# keys create: run's sizes, checked before the token is opened.
run "$HSMBENCH" keys create --type rsa --key-size 1000 --label hsmbench-k --module /nonexistent.so </dev/null
check_one_line_error "keys create --key-size 1000 (RSA): refused before loading, as run does" 2 \
    '--key-size 1000: keys create --type rsa takes 1024/2048/3072/4096/8192'
run "$HSMBENCH" keys create --type hmac --key-size 100 --label hsmbench-k </dev/null
check_one_line_error "keys create --type hmac --key-size 100: refused" 2 'keys create --type hmac takes 128/'
run "$HSMBENCH" keys create --type ec --key-size 384 --curve P-256 --label hsmbench-k </dev/null
check_one_line_error "keys create: --key-size and --curve that disagree are refused" 2 'disagree'
run "$HSMBENCH" keys create --type ed25519 --key-size 256 --label hsmbench-k </dev/null
check_one_line_error "keys create --type ed25519 takes no key size" 2 'takes no key size'
run "$HSMBENCH" keys create --type aes --label "$long" </dev/null
check "keys create with a 300-byte label" 0 '^created aes key'
run "$HSMBENCH" keys create --type aes --label "$long" </dev/null
check_one_line_error "keys create refuses a label the token already holds" 2 'already holds an object with that label; add --force'
run "$HSMBENCH" keys create --type aes --label "$long" --force </dev/null
check "keys create --force makes another with the same label" 0 '^created aes key'
run "$HSMBENCH" keys destroy --label "$long" </dev/null
check "keys destroy --label with the 300-byte label destroys both" 0 '^destroyed 2 objects '
