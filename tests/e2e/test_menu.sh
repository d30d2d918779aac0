#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_menu.sh - hsmbench menu, pkpspeed's dialogue: a piped session
# whose equivalent commands repeat its runs, bad answers, end of input, the
# token list, and on a terminal (tmux) the PIN prompt and Ctrl-C.
# asan: yes (the dialogue's line reader on bad answers and end of input, and the PIN prompt on a terminal)
. "$TOP/tests/e2e/lib.sh"

# menu_run INPUT [ARGS...]: pipe INPUT (printf format) into hsmbench menu;
# sets $rc, $T/out, $T/err.
menu_run() {
    # shellcheck disable=SC2059
    printf "$1" >"$T/in"
    shift
    timeout -s INT 60 "$HSMBENCH" menu "$@" <"$T/in" >"$T/out" 2>"$T/err"
    rc=$?
}

# count_is NAME FILE ERE N: FILE has exactly N lines matching ERE.
count_is() {
    got=$(grep -Ec -- "$3" "$2" 2>/dev/null)
    if [ "$got" -eq "$4" ]; then pass "$1"
    else fail "$1" "$got lines match /$3/, expected $4"; fi
}

# followed_by NAME FILE ERE1 ERE2: the line after the first match of ERE1 matches ERE2.
followed_by() {
    next=$(grep -E -A1 -- "$3" "$2" | sed -n 2p)
    if printf '%s\n' "$next" | grep -Eq -- "$4"; then pass "$1"
    else fail "$1" "after /$3/ came: $next"; fi
}

ncpu=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
[ "$ncpu" -gt 400 ] && ncpu=400

# The sessions that run benchmarks to the end, and their equivalent
# commands, in the plain build alone: under ASan their runs would be what
# test_catalog (every entry on SoftHSM) and test_inflight (non-blocking)
# run there.  The dialogue's own reading (bad answers, end of input, X at
# every prompt, a key file, the token list, the terminal) runs in both.
if all_cases; then
    # ---- a piped session: 2 threads, 2 s, blocking; B (RSA CRT), K (AES GCM), X ----
    menu_run '2\n2\nb\nB\n2048\nn\nn\nK\n256\n\nn\nn\nX\n'
    check "piped session B, K, X: exit 0, per-second lines" 0 '^OPERATIONS/second +[0-9]+/1$'
    cp "$T/out" "$T/session"
    file_has "header: module path" "$T/session" '^ +module path\.+: .*softhsm'
    file_has "header: cryptoki version" "$T/session" '^ +cryptoki version\.+: [0-9]+\.[0-9]+'
    file_has "header: token label" "$T/session" '^ +label\.+: hsmbench-demo$'
    file_has "header: token serial" "$T/session" '^ +serial\.+: '
    file_has "header: available tests" "$T/session" 'Available tests \([0-9]+ of 61\)'
    file_has "threads prompt: pkpspeed's MAX=400, the CPU count as default" "$T/session" \
        "^Enter the number of threads \\[MAX=400\\] \\(default $ncpu\\): 2\$"
    file_has "duration prompt" "$T/session" '^Enter time duration in Secs \[MAX=600\] \(default 10\): 2$'
    file_has "mode prompt" "$T/session" '^Blocking or non-blocking test \[b/n\] \(default b\): b$'
    file_has "menu: pkpspeed's title" "$T/session" '^Please select the test you want to run$'
    file_has "menu: A is RSA non-CRT, with the note" "$T/session" \
        '^RSA non-CRT \(same operation through PKCS#11: the token decides CRT\)-+>A'
    file_has "menu: B is RSA CRT" "$T/session" '^RSA CRT-+>B$'
    file_has "menu: C, D, H, I, K" "$T/session" '^AES GCM-+>K$'
    file_has "menu: the rest of the catalogue has letters" "$T/session" 'sha256-digest-+>[A-WYZ]+'
    file_has "menu: eXit" "$T/session" '^eXit-+>X$'
    # What the token lacks is not in the menu.
    sed -n 's/^ *\([a-z0-9-]*\): .*not offered.*/\1/p' "$T/session" | sort -u >"$T/lacking"
    shown=0
    while IFS= read -r name; do
        grep -Eq -- "(^| )$name-+>" "$T/session" && shown=$((shown + 1))
    done <"$T/lacking"
    if [ "$shown" -eq 0 ]; then pass "menu: tests the token lacks are not listed ($(wc -l <"$T/lacking") left out)"
    else fail "menu: tests the token lacks are not listed" "$shown listed"; fi
    file_has "B asks the modulus length" "$T/session" \
        '^Enter the modulus length \[2048/3072/4096\] \(default 2048\): 2048$'
    file_has "token key prompt" "$T/session" '^Do you want to use Token key \[y/n\] \(default n\): n$'
    file_has "static key prompt" "$T/session" '^Do you want to use static key \[y/n\] \(default n\): n$'
    file_has "K asks the key size" "$T/session" '^Enter the key size \[128/192/256\] \(default 256\): 256$'
    file_has "K asks the data size" "$T/session" '^Enter the data size in bytes \[1-16200\] \(default 1024\): $'
    file_has "B ran rsa-pkcs-sign, RSA 2048, 2 threads, 2 s" "$T/session" \
        '^Running rsa-pkcs-sign \(CKM_SHA256_RSA_PKCS, RSA 2048, data 32 B\): 2 threads, blocking, 2s'
    file_has "K ran aes-gcm-encrypt, AES 256, 1024 B" "$T/session" \
        '^Running aes-gcm-encrypt \(CKM_AES_GCM, AES 256, data 1024 B\): 2 threads, blocking, 2s'
    count_is "two summaries" "$T/session" '^ +status\.+: ok' 2
    count_is "two 'Equivalent command:' lines" "$T/session" '^Equivalent command:$' 2
    softhsm_env
    file_lacks "the demo PIN is not in the output" "$T/session" "$(cat "$PINFILE")"

    # Each equivalent command, as printed, repeats its run in batch mode.
    sed -n '/^Equivalent command:$/{n;s/^ *//;p;}' "$T/session" >"$T/cmds"
    grep '^Running [a-z0-9-]* (' "$T/session" | sed 's/^\(Running [a-z0-9-]* ([A-Z0-9_]*\).*/\1/' >"$T/want"
    i=0
    while IFS= read -r cmd; do
        i=$((i + 1))
        case $cmd in
        "hsmbench run "*) ;;
        *) fail "equivalent command $i starts with 'hsmbench run'" "$cmd"; continue ;;
        esac
        cmd2=$(printf '%s\n' "$cmd" | sed "s|^hsmbench |'$HSMBENCH' |")
        run sh -c "$cmd2" </dev/null
        check "equivalent command $i ($cmd): exit 0" 0 '^OPERATIONS/second +[0-9]+/1$'
        want=$(sed -n "${i}p" "$T/want")
        if [ -n "$want" ] && grep -qF -- "$want" "$T/out"; then
            pass "equivalent command $i runs the same test and mechanism ($want)"
        else
            fail "equivalent command $i runs the same test and mechanism" "wanted '$want': $(grep '^Running' "$T/out")"
        fi
    done <"$T/cmds"
    [ "$i" -eq 2 ] || fail "two equivalent commands extracted" "got $i"
fi

# ---- a number with leading zeros is its value; past 2^64-1, out of range ------
menu_run '00000000000000000000002\n1\n\nsha256-digest\n\nX\n'
check "threads 00000000000000000000002 (23 digits): exit 0" 0
file_has "threads 00000000000000000000002 is 2, not out of range" "$T/out" \
    '^Running sha256-digest \(CKM_SHA256, -, data 1024 B\): 2 threads, blocking, 1s'
menu_run '99999999999999999999999\nX\n'
file_has "threads 99999999999999999999999: out of range, asked again" "$T/out" \
    '^99999999999999999999999 is out of range: enter a number from 1 to 400\.$'

# ---- bad answers: each explained on one line, then the same prompt ----------
menu_run '401\nabc\n\n1\n\nQ9\n\nsha256-digest\n\nX\n'
check "bad answers, then X: exit 0" 0
followed_by "threads out of range (401 > pkpspeed's 400): explained, asked again" "$T/out" \
    '^401 is out of range: enter a number from 1 to 400\.$' '^Enter the number of threads \[MAX=400\]'
followed_by "a word for threads: explained, asked again" "$T/out" \
    "^'abc' is not a number: enter a whole number from 1 to 400\.$" '^Enter the number of threads \[MAX=400\]'
count_is "threads asked three times" "$T/out" '^Enter the number of threads' 3
followed_by "an empty answer takes the default (threads: the CPU count)" "$T/out" \
    "^Enter the number of threads \\[MAX=400\\] \\(default $ncpu\\): \$" '^Enter time duration'
followed_by "unknown letter: explained, asked again" "$T/out" \
    "^'Q9' is not in the menu" '^Enter the letter of the test \['
followed_by "empty letter: explained, asked again" "$T/out" \
    '^Choose a test: ' '^Enter the letter of the test \['
[ "$ncpu" -eq 1 ] && ths="1 thread" || ths="$ncpu threads"
file_has "a test's name works too; defaults: $ths, 1024 B" "$T/out" \
    "^Running sha256-digest \\(CKM_SHA256, -, data 1024 B\\): $ths, blocking, 1s"
file_has "bad answers: Equivalent command of the default run" "$T/out" \
    "^ +hsmbench run --test sha256-digest --threads $ncpu --duration 1s\$"

yes abc | head -n 50 >"$T/in"
timeout -s INT 30 "$HSMBENCH" menu <"$T/in" >"$T/out" 2>"$T/err"
rc=$?
check_one_line_error "20 bad answers in a row: exit 2, one error" 2 'invalid answers in a row'

# ---- end of input: leave cleanly, never hang ----------------------------------
menu_run '2\n3\n'
check "end of input at the mode prompt: exit 0" 0 'end of input'
menu_run '1\n1\n\nB\n'
check "end of input at the modulus prompt: exit 0" 0 '^Enter the modulus length'
file_lacks "end of input before the run: nothing ran" "$T/out" 'Running rsa-pkcs-sign ('
menu_run ''
check "no input at all: exit 0" 0 'end of input'
# An answer file that ends on an invalid answer asked for something it did
# not get (issue 38, item 13): once exit 0 with nothing run.
menu_run '1\nAES_256\n8192\n99999\n'
check_one_line_error "answers ending on an invalid one: exit 2, naming it" 2 "invalid answer \('99999'\)"
file_lacks "answers ending on an invalid one: nothing ran" "$T/out" '^Running '

if all_cases; then
    # ---- non-blocking in hsmbench's order: no rate but the one the user gives ----
    # An empty answer at the rate question once capped the run at 1000 ops/s
    # ("OPERATIONS/second 1000/1" on a token doing tens of thousands).
    menu_run '2\n1\nn\n\nK\n\n\n\n\nX\n'
    check "non-blocking, rate left empty: exit 0" 0 \
        '^Enter the target rate in operations/second \[1-1000000\] \(default none: 32 in flight\): $'
    file_has "rate left empty: 32 requests in flight (16 a thread), no rate" "$T/out" \
        '^Running aes-gcm-encrypt \(CKM_AES_GCM, AES 256, data 1024 B\): 2 threads, nonblocking, 1s, at most 32 in flight'
    file_lacks "rate left empty: nothing scheduled at a rate" "$T/out" 'ops/s scheduled'
    file_has "rate left empty: equivalent command has --inflight, no --rate" "$T/out" \
        '^ +hsmbench run --test aes-gcm-encrypt --threads 2 --duration 1s --mode nonblocking --inflight 32$'
    menu_run '2\n1\nn\n500\nK\n\n\n\n\nX\n'
    check "non-blocking, rate 500 given: exit 0" 0 \
        '^Running aes-gcm-encrypt \(CKM_AES_GCM, AES 256, data 1024 B\): 2 threads, nonblocking, 1s, 500 ops/s scheduled'
    file_has "rate 500 given: equivalent command has --rate 500" "$T/out" \
        '^ +hsmbench run --test aes-gcm-encrypt --threads 2 --duration 1s --mode nonblocking --rate 500$'
fi

if all_cases; then
    # ---- pkpspeed's Linux answer files replay: threads, cipher, its size, duration ----
    # (the Linux tool asks "Enter the cipher:" where pkpspeed_blocking asks the duration)
    menu_run '1\nRSA_CRT\n2048\n1\nn\n'
    check "Linux answer file, RSA_CRT: exit 0, non-blocking" 0 '^Running rsa-pkcs-sign \(CKM_SHA256_RSA_PKCS, RSA 2048, data 32 B\): 1 thread, nonblocking, 1s'
    followed_by "Linux order: the cipher at the duration prompt, then the modulus" "$T/out" \
        '^Enter time duration in Secs \[MAX=600\] \(default 10\): RSA_CRT$' '^Enter the modulus length'
    followed_by "Linux order: the modulus, then the duration" "$T/out" \
        '^Enter the modulus length .*: 2048$' '^Enter time duration in Secs \[MAX=600\] \(default 10\): 1$'
    file_has "Linux order, RSA: the static key question" "$T/out" '^Do you want to use static key \[y/n\] \(default n\): n$'
    file_lacks "Linux order: no mode or Token key question" "$T/out" '^(Blocking or non-blocking|Do you want to use Token key)'
    file_has "Linux answer file RSA_CRT: equivalent command" "$T/out" \
        '^ +hsmbench run --test rsa-pkcs-sign --threads 1 --duration 1s --mode nonblocking --inflight 16$'
    menu_run '1\naes_256\n8192\n1\n'
    check "Linux answer file, aes_256 (any case): exit 0" 0 \
        '^Running aes-cbc-encrypt \(CKM_AES_CBC, AES 256, data 8192 B\): 1 thread, nonblocking, 1s'
    file_lacks "Linux order, AES_256: the key size is the cipher's, not asked" "$T/out" '^Enter the key size'
    menu_run '1\nAES_128\n1024\n1\n'
    check "Linux answer file, AES_128: exit 0" 0 '^Running aes-cbc-encrypt \(CKM_AES_CBC, AES 128, data 1024 B\)'
    file_has "AES_128: equivalent command has --key-size 128" "$T/out" \
        '^ +hsmbench run --test aes-cbc-encrypt --threads 1 --duration 1s --mode nonblocking --inflight 16 --key-size 128$'
    menu_run '1\n3DES\n1024\n1\n'
    check "Linux answer file, 3DES: exit 0" 0 '^Running des3-cbc-encrypt \(CKM_DES3_CBC, DES3 192, data 1024 B\)'
    menu_run '1\nRSA\n2048\n1\nn\n'
    check "Linux answer file, RSA (non-CRT): exit 0" 0 '^Running rsa-pkcs-sign-prehashed \(CKM_RSA_PKCS, RSA 2048'
    # At the test prompt (pkpspeed_blocking's order), the names work as letters do.
    menu_run '1\n1\nb\nrsa_crt\n\nn\nn\nAES_128\n\nn\nn\nX\n'
    check "cipher names at the test prompt: exit 0" 0 '^Running rsa-pkcs-sign \(CKM_SHA256_RSA_PKCS, RSA 2048'
    file_has "AES_128 at the test prompt: aes-cbc-encrypt, AES 128" "$T/out" '^Running aes-cbc-encrypt \(CKM_AES_CBC, AES 128, data 1024 B\)'
    file_lacks "cipher names: no bad answer" "$T/out" "is not (in the menu|a number|one of)"
    # The header says what A runs, and pkpspeed's advice.
    file_has "header: A runs rsa-pkcs-sign-prehashed, CKM_RSA_PKCS" "$T/out" \
        'rsa-pkcs-sign-prehashed \(CKM_RSA_PKCS on a SHA-256 DigestInfo'
    file_has "header: PKCS#11 has no non-CRT signing" "$T/out" 'PKCS#11 has no non-CRT signing'
    file_has "header: pkpspeed's advice (RSA_CRT)" "$T/out" "pkpspeed's advice holds: choose RSA_CRT \\(B\\)"
fi

# ---- 400 threads, pkpspeed's maximum; 1 for a single-threaded module ---------
menu_run '400\n'
check "400 threads accepted (pkpspeed's MAX=400), end of input at the duration: exit 0" 0 \
    '^Enter the number of threads \[MAX=400\] \(default [0-9]+\): 400$'
followed_by "400 threads: the duration comes next" "$T/out" ': 400$' '^Enter time duration'
MOCK="$(dirname "$NULLP11")/libhsmbench-mock.so"
printf '2\n1\n' >"$T/in"
HSMBENCH_MOCK="quirks=cant-lock" timeout -s INT 60 "$HSMBENCH" menu --module "$MOCK" <"$T/in" >"$T/out" 2>"$T/err"
rc=$?
check "a single-threaded module (CKR_CANT_LOCK): exit 0" 0 \
    '^Enter the number of threads \[MAX=1\] \(default 1\): 2$'
followed_by "single-threaded: 2 threads refused" "$T/out" ': 2$' '^2 is out of range: enter a number from 1 to 1\.$'
file_has "single-threaded: 1 thread taken" "$T/out" '^Enter the number of threads \[MAX=1\] \(default 1\): 1$'

# ---- X leaves at every prompt, without a complaint ---------------------------
# x_at NAME INPUT ERE: INPUT ends with X at the prompt matching ERE.
x_at() {
    xname=$1 xin=$2 xere=$3
    shift 3
    menu_run "$xin" "$@"
    check "X at the $xname prompt: exit 0" 0 "$xere"'.*[Xx]$'
    file_lacks "X at the $xname prompt: not refused, nothing ran" "$T/out" "is not (a number|one of|in the menu)|^OPERATIONS/second"
}
x_at threads 'X\n' '^Enter the number of threads'
x_at duration '1\nx\n' '^Enter time duration'
x_at mode '1\n1\nX\n' '^Blocking or non-blocking'
x_at rate '1\n1\nn\nX\n' '^Enter the target rate'
x_at test '1\n1\nb\nX\n' '^Enter the letter of the test'
x_at modulus '1\n1\nb\nB\nX\n' '^Enter the modulus length.*:'
x_at "Linux modulus" '1\nRSA_CRT\nX\n' '^Enter the modulus length.*:'
x_at "Linux duration" '1\nRSA_CRT\n2048\nX\n' '^Enter time duration.*:'
x_at curve '1\n1\nb\necdsa-sign\nX\n' '^Enter the curve'
x_at "key size" '1\n1\nb\nD\nX\n' '^Enter the key size'
x_at "data size" '1\n1\nb\nD\n\nX\n' '^Enter the data size'
x_at "token key" '1\n1\nb\nD\n\n\nX\n' '^Do you want to use Token key'
x_at "static key" '1\n1\nb\nD\n\n\nn\nX\n' '^Do you want to use static key'
x_at "key file" '1\n1\nb\nD\n\n\nn\ny\nX\n' '^Enter the key file:'

# ---- a static key file: checked against the test, asked again when wrong ------
printf 'not a key\n' >"$T/bad.key"
head -c 32 /dev/urandom >"$T/aes.key"
menu_run "1\n1\n\nD\n\n\nn\ny\n$T/no-such.key\n$T/bad.key\n$T/aes.key\nX\n"
check "static AES key: exit 0" 0 '^Running aes-cbc-encrypt \(CKM_AES_CBC, AES 256'
count_is "static key: a missing and a wrong file each asked again" "$T/out" '^Enter the key file: ' 3
file_has "static key: equivalent command has --static-key" "$T/out" \
    "^ +hsmbench run --test aes-cbc-encrypt --threads 1 --duration 1s --static-key $T/aes\\.key\$"

softhsm_env    # (the piped session, in the plain build, set it first)
# ---- a second token: the numbered choice, --pin-file in the equivalent command ----
if softhsm2-util --init-token --free --label other --so-pin 1234 --pin menu-pin-7391 >"$T/init.out" 2>&1; then
    pass "second SoftHSM token 'other' created"
else
    fail "second SoftHSM token 'other' created" "$(head -c 300 "$T/init.out")"
fi
menu_run '' --module "$SOFTHSM" --pin-file "$PINFILE"
check "two tokens, no selector: a numbered list, then end of input: exit 0" 0 '^Select the token \[1-2\]: $'
num=$(sed -n 's/^ *\([0-9]*\)) hsmbench-demo .*/\1/p' "$T/out")
menu_run "y\n$num\n1\n1\n\nsha256-digest\n\nX\n" --module "$SOFTHSM" --pin-file "$PINFILE"
check "token chosen from the list: exit 0" 0 '^Running sha256-digest '
followed_by "token list: a bad answer is explained" "$T/out" "^'y' is not a number" '^Select the token'
cp "$T/out" "$T/chosen"
x_at "token list" 'X\n' '^Select the token \[1-2\]:' --module "$SOFTHSM" --pin-file "$PINFILE"
cp "$T/chosen" "$T/out"
cmd=$(sed -n '/^Equivalent command:$/{n;s/^ *//;p;}' "$T/out")
case $cmd in
*"--module $SOFTHSM --token hsmbench-demo --pin-file $PINFILE --test sha256-digest"*)
    pass "equivalent command names the chosen token and the PIN file" ;;
*) fail "equivalent command names the chosen token and the PIN file" "$cmd" ;;
esac
run sh -c "$(printf '%s\n' "$cmd" | sed "s|^hsmbench |'$HSMBENCH' |")" </dev/null
check "equivalent command with the chosen token: exit 0" 0 '^Running sha256-digest \(CKM_SHA256'

# ---- on a terminal (tmux): PIN without echo, Ctrl-C in a run and at a prompt ----
if command -v tmux >/dev/null 2>&1; then
    # Each terminal gets its own tmux server (socket): a server still
    # shutting down from the previous session must not swallow the next one.
    tty_n=0
    TMUX_SOCK=$T/tmux.0.sock
    trap 'for s in "$T"/tmux.*.sock; do tmux -S "$s" kill-server 2>/dev/null; done; rm -rf "$T"' EXIT
    trap 'exit 130' INT TERM     # through the EXIT trap: the tmux server never outlives us
    tty_start() {
        tmux -S "$TMUX_SOCK" kill-server 2>/dev/null
        tty_n=$((tty_n + 1))
        TMUX_SOCK=$T/tmux.$tty_n.sock
        rm -f "$T/tty.rc"
        tmux -S "$TMUX_SOCK" -f /dev/null new-session -d -x 200 -y 50 \
            "env SOFTHSM2_CONF='$SOFTHSM2_CONF' HSMBENCH_HOME='$HSMBENCH_HOME' '$HSMBENCH' menu $*; echo \$? >'$T/tty.rc'; sleep 60" ||
            fail "terminal: tmux session" "tmux could not start a session"
    }
    pane() { tmux -S "$TMUX_SOCK" capture-pane -p -S - 2>/dev/null; }
    keys() { tmux -S "$TMUX_SOCK" send-keys "$@"; }
    # wait_for ERE [MIN_COUNT [TENTHS]]: until the pane has MIN_COUNT lines matching.
    wait_for() {
        n=0
        while [ "$(pane | grep -Ec -- "$1")" -lt "${2:-1}" ]; do
            n=$((n + 1))
            [ "$n" -ge "${3:-150}" ] && return 1
            sleep 0.1
        done
        return 0
    }
    wait_rc() {
        await_file "$T/tty.rc"
        rc=$(cat "$T/tty.rc" 2>/dev/null || echo 255)
    }
    step() {   # step NAME ERE KEYS...: wait for ERE, then type KEYS
        sname=$1 ere=$2
        shift 2
        if wait_for "$ere"; then keys "$@"
        else fail "terminal: $sname" "no /$ere/: $(pane | tail -n 5 | tr '\n' ' ')"; return 1; fi
    }

    tty_start "--module '$SOFTHSM' --token other"
    ok=1
    step "PIN prompt" "User PIN for token 'other':" menu-pin-7391 Enter || ok=0
    [ $ok = 1 ] && { step "threads prompt" '^Enter the number of threads' 1 Enter || ok=0; }
    [ $ok = 1 ] && { pane >"$T/pane"; file_lacks "terminal: the typed PIN is not echoed" "$T/pane" menu-pin-7391; }
    [ $ok = 1 ] && { step "duration prompt" '^Enter time duration' 20 Enter || ok=0; }
    [ $ok = 1 ] && { step "mode prompt" '^Blocking or non-blocking' Enter || ok=0; }
    [ $ok = 1 ] && { step "menu prompt" '^Enter the letter of the test' D Enter || ok=0; }
    [ $ok = 1 ] && { step "key size prompt" '^Enter the key size' Enter || ok=0; }
    [ $ok = 1 ] && { step "data size prompt" '^Enter the data size' Enter || ok=0; }
    [ $ok = 1 ] && { step "token key prompt" 'use Token key' Enter || ok=0; }
    [ $ok = 1 ] && { step "static key prompt" 'use static key' Enter || ok=0; }
    [ $ok = 1 ] && { step "the 20 s run started" '^OPERATIONS/second +[0-9]+/1' C-c || ok=0; }
    if [ $ok = 1 ]; then
        # Back at the menu within a few seconds: its prompt a second time.
        if wait_for '^Enter the letter of the test' 2 50; then
            pass "terminal: Ctrl-C during a 20 s run returns to the test menu within 5 s"
        else
            fail "terminal: Ctrl-C during a 20 s run returns to the test menu" "$(pane | tail -n 8 | tr '\n' ' ')"
        fi
        pane >"$T/pane"
        file_has "terminal: the interrupted run's summary" "$T/pane" '^ +status\.+: interrupted'
        file_has "terminal: equivalent command names the token" "$T/pane" \
            "^ +hsmbench run --module $SOFTHSM --token other --test aes-cbc-encrypt --threads 1 --duration 20s\$"
        keys X Enter
        wait_rc
        if [ "$rc" = 0 ]; then pass "terminal: X after the interrupted run: exit 0"
        else fail "terminal: X after the interrupted run: exit 0" "exit $rc"; fi
        pane >"$T/pane"
        file_lacks "terminal: the PIN never shows" "$T/pane" menu-pin-7391
    fi

    tty_start ""
    if step "Ctrl-C at a prompt" '^Enter the number of threads' C-c; then
        wait_rc
        if [ "$rc" = 130 ]; then pass "terminal: Ctrl-C at a prompt leaves with exit 130"
        else fail "terminal: Ctrl-C at a prompt leaves with exit 130" "exit $rc"; fi
    fi
    tmux -S "$TMUX_SOCK" kill-server 2>/dev/null
else
    skip "terminal menu on a terminal (tmux)" "tmux is not installed (Debian package tmux; ci/install-deps.sh)"
fi

# ---- the manual page ----------------------------------------------------------
if command -v groff >/dev/null 2>&1; then
    if groff -man -ww -z "$TOP/man/hsmbench-menu.1" >"$T/groff" 2>&1 && [ ! -s "$T/groff" ]; then
        pass "man/hsmbench-menu.1: groff -man -ww clean"
    else
        fail "man/hsmbench-menu.1: groff -man -ww clean" "$(head -c 300 "$T/groff")"
    fi
else
    skip "man/hsmbench-menu.1: groff -man -ww clean" "groff is not installed (Debian package groff-base)"
fi
