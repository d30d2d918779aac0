#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_pkpspeed.sh - pkpspeed's own answer files and names, from its
# documentation (seed 002): the Windows pkpspeed_blocking's order (no blocking
# question), the Linux pkpspeed's (non-blocking, said), AES data sizes that are
# not whole blocks, "run --test RSA_CRT", and the per-second lines of a
# stalled process, each "N/1".
. "$TOP/tests/e2e/lib.sh"

# menu_run INPUT: pipe INPUT (printf format) into hsmbench menu; sets $rc,
# $T/out, $T/err.
menu_run() {
    # shellcheck disable=SC2059
    printf "$1" >"$T/in"
    timeout -s INT 60 "$HSMBENCH" menu <"$T/in" >"$T/out" 2>"$T/err"
    rc=$?
}

# ---- pkpspeed_blocking.exe, AES: threads 1, 20 s (here 1), D, 256, 8192 ----
# then, at its menu, D again with pkpspeed's largest size, 16200 bytes
menu_run '1\n1\nD\n256\n8192\nD\n256\n16200\n'
check "Windows AES answer file (1, 1, D, 256, 8192): exit 0" 0 \
    '^Running aes-cbc-encrypt \(CKM_AES_CBC, AES 256, data 8192 B\): 1 thread, blocking, 1s'
check "Windows order: said once on stderr" 0 '' "^hsmbench: 'D' at the blocking question is pkpspeed_blocking's test D \(aes-cbc-encrypt\)"
n=$(grep -c "pkpspeed_blocking's test" "$T/err")
if [ "$n" -eq 1 ]; then pass "Windows order: one note"; else fail "Windows order: one note" "$n lines"; fi
file_has "Windows order: pkpspeed_blocking's Running line before the key size" "$T/out" \
    '^Running 1 thread for 1 sec: aes-cbc-encrypt$'
file_lacks "Windows order, AES: no rate prompt, no key questions, nothing refused" "$T/out" \
    '^(Enter the target rate|Do you want to use)|is not (one of|in the menu|a number)'
file_has "Windows order: per-second lines" "$T/out" '^OPERATIONS/second +[0-9]+/1$'
file_has "Windows order at its menu: D, 16200 bytes (past the last whole block): 16192 run" "$T/out" \
    '^Running aes-cbc-encrypt \(CKM_AES_CBC, AES 256, data 16192 B\)'
file_has "16200 bytes: the largest whole blocks, said" "$T/out" \
    '^16200 bytes is not whole 16-byte blocks \(aes-cbc-encrypt\): 16192 bytes are used, the largest whole blocks\.$'

# ---- pkpspeed_blocking.exe, RSA: B (which is also 'b'), 2048, Token key n, static n ----
menu_run '1\n1\nB\n2048\nn\nn\n'
check "Windows RSA answer file (1, 1, B, 2048, n, n): exit 0" 0 \
    '^Running rsa-pkcs-sign \(CKM_SHA256_RSA_PKCS, RSA 2048, data 32 B\): 1 thread, blocking, 1s'
check "B followed by a modulus length is the test B" 0 '' "^hsmbench: 'B' at the blocking question is pkpspeed_blocking's test B \(rsa-pkcs-sign\)"
file_has "Windows order, RSA: the Token key question" "$T/out" '^Do you want to use Token key \[y/n\] \(default n\): n$'
file_has "Windows order, RSA: the static key question" "$T/out" '^Do you want to use static key \[y/n\] \(default n\): n$'
# (hsmbench's own answer files, b then a test's letter, are test_menu's.)

# ---- Linux pkpspeed, RSA: 3 threads (here 1), RSA_CRT, 2048, 60 s (here 1), static n ----
menu_run '1\nRSA_CRT\n2048\n1\nn\n'
check "Linux RSA answer file: exit 0, non-blocking as the Linux tool" 0 \
    '^Running rsa-pkcs-sign \(CKM_SHA256_RSA_PKCS, RSA 2048, data 32 B\): 1 thread, nonblocking, 1s, at most 16 in flight'
file_has "Linux order: pkpspeed's Starting line" "$T/out" \
    '^Starting non-blocking speed test using data length of 32 bytes\.\.\.$'
file_has "Linux order: pkpspeed's duration line" "$T/out" '^\[Test duration is 1 seconds\]$'
file_has "Linux order: what hsmbench runs for it" "$T/out" \
    '^\(non-blocking as the Linux pkpspeed runs: 16 requests in flight, 16 a thread'
file_has "Linux order: the equivalent command is non-blocking" "$T/out" \
    '^ +hsmbench run --test rsa-pkcs-sign --threads 1 --duration 1s --mode nonblocking --inflight 16$'

# ---- Linux pkpspeed, AES: a data size that is not whole blocks ----
menu_run '1\nAES_256\n100\n1\n'
check "Linux AES answer file, 100 bytes: exit 0, 112 bytes run" 0 \
    '^Running aes-cbc-encrypt \(CKM_AES_CBC, AES 256, data 112 B\): 1 thread, nonblocking'
file_has "100 bytes: rounded up, said" "$T/out" \
    '^100 bytes is not whole 16-byte blocks \(aes-cbc-encrypt\): 112 bytes are used, rounded up as padding would\.$'
file_has "the duration after the size was not eaten" "$T/out" '^\[Test duration is 1 seconds\]$'

# ---- run --test takes every name the menu does ----
run "$HSMBENCH" run --test RSA_CRT --iterations 100
check "run --test RSA_CRT: exit 0, rsa-pkcs-sign" 0 '^Running rsa-pkcs-sign \(CKM_SHA256_RSA_PKCS' \
    "^hsmbench: --test RSA_CRT is pkpspeed's name: hsmbench's spelling is --test rsa-pkcs-sign$"
run "$HSMBENCH" run --test AES_128,B --iterations 100
check "run --test AES_128,B: exit 0, AES 128" 0 '^Running aes-cbc-encrypt \(CKM_AES_CBC, AES 128' \
    "^hsmbench: --test AES_128 is pkpspeed's name: hsmbench's spelling is --test aes-cbc-encrypt --key-size 128$"
check "run --test B: pkpspeed_blocking's letter, said" 0 '^Running rsa-pkcs-sign \(' \
    "^hsmbench: --test B is pkpspeed_blocking's menu letter \(RSA CRT\): hsmbench's spelling is --test rsa-pkcs-sign$"
run "$HSMBENCH" run --test AES_256 --key-size 128 --duration 1
check_one_line_error "run --test AES_256 --key-size 128: exit 2" 2 '--test AES_256 fixes aes-cbc-encrypt.s key at 256 bits'

# ---- a stalled process: one N/1 line a second, the stalled ones their own ----
if need_mock; then
    "$HSMBENCH" run --module "$MOCK" --test sha256-digest --threads 1 --duration 4 >"$T/stall" 2>"$T/stall.err" &
    pid=$!
    i=0
    until grep -q '^OPERATIONS/second' "$T/stall" 2>/dev/null || [ $i -ge 100 ]; do sleep 0.1; i=$((i + 1)); done
    kill -STOP "$pid" 2>/dev/null
    sleep 2.2
    kill -CONT "$pid" 2>/dev/null
    i=0
    while kill -0 "$pid" 2>/dev/null && [ $i -lt 150 ]; do sleep 0.1; i=$((i + 1)); done
    kill -TERM "$pid" 2>/dev/null
    wait "$pid"
    rc=$?
    lines=$(grep -c '^OPERATIONS/second' "$T/stall")
    whole=$(grep -Ec '^OPERATIONS/second {16}[0-9]+/1$' "$T/stall")
    if [ "$rc" -eq 0 ] && [ "$lines" -eq 4 ] && [ "$whole" -eq 4 ]; then
        pass "stopped 2.2 s in a 4 s run: four lines, each pkpspeed's N/1"
    else
        fail "stopped 2.2 s in a 4 s run: four lines, each pkpspeed's N/1" \
            "exit $rc, $lines lines, $whole N/1: $(grep '^OPERATIONS' "$T/stall" | tr '\n' ' ')"
    fi
    # 0, or 1: a SIGSTOP landing between an operation's end and its count
    # leaves that one (ended before the stop) to the second after the one the
    # sampler had already read (seen once in CI on a loaded machine: 1/1).
    file_has "a second the process was stopped in shows its own count: 0/1" "$T/stall" \
        '^OPERATIONS/second {16}[01]/1$'
fi
