#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_pin.sh - where the user PIN comes from, what happens when it
# is wrong or missing, and that it is never echoed or recorded.
# asan: yes (the PIN readers at their buffers' edges: empty files, a lone newline, a directory, the terminal prompt)
. "$TOP/tests/e2e/lib.sh"

FAST="--test sha256-digest --iterations 20"

run "$HSMBENCH" run $FAST --quiet
check "demo token set up (the demo PIN file is used with no PIN flag)" 0
softhsm_env
PIN=$(cat "$PINFILE")
mode=$(stat -c %a "$PINFILE" 2>/dev/null)
if [ "$mode" = 600 ]; then pass "demo user PIN file is mode 0600"
else fail "demo user PIN file is mode 0600" "mode $mode"; fi

# ---- wrong, missing, empty -------------------------------------------------
run env WRONG_PIN=000000 "$HSMBENCH" run --pin-env WRONG_PIN --duration 1
check_one_line_error "wrong PIN via --pin-env: exit 3, CKR_PIN_INCORRECT" 3 'CKR_PIN_INCORRECT'
file_has "wrong PIN error names the token" "$T/err" "token 'hsmbench-demo'"
file_lacks "wrong PIN is not echoed" "$T/err" 000000

printf '999999\n' >"$T/wrong.pin"
chmod 600 "$T/wrong.pin"
run "$HSMBENCH" run --pin-file "$T/wrong.pin" --duration 1
check_one_line_error "wrong PIN via --pin-file: exit 3, CKR_PIN_INCORRECT" 3 'CKR_PIN_INCORRECT'

unset HSMBENCH_E2E_UNSET_VAR || true
run "$HSMBENCH" run --pin-env HSMBENCH_E2E_UNSET_VAR --duration 1
check_one_line_error "--pin-env of an unset variable: exit 2, variable named" 2 \
    '--pin-env HSMBENCH_E2E_UNSET_VAR: .*not set'
run env EMPTY_PIN= "$HSMBENCH" run --pin-env EMPTY_PIN --duration 1
check_one_line_error "--pin-env of an empty variable: exit 2" 2 '--pin-env EMPTY_PIN: .*empty'
run "$HSMBENCH" run --pin-file "$T/no-such.pin" --duration 1
check_one_line_error "--pin-file of a missing file: exit 2, file named" 2 "--pin-file $T/no-such\\.pin: "
: >"$T/empty.pin"
chmod 600 "$T/empty.pin"
run "$HSMBENCH" run --pin-file "$T/empty.pin" --duration 1
check_one_line_error "--pin-file of an empty file: exit 2" 2 'empty\.pin: the file is empty'
printf '\n' >"$T/newline.pin"
chmod 600 "$T/newline.pin"
run "$HSMBENCH" run --pin-file "$T/newline.pin" --duration 1
check_one_line_error "--pin-file holding only a newline: exit 2" 2 'newline\.pin: the file is empty'
run "$HSMBENCH" run --pin-file "$T" --duration 1
check_one_line_error "--pin-file of a directory: exit 2" 2 "--pin-file $T: "
run "$HSMBENCH" run --pin '' --duration 1
check_one_line_error "--pin with an empty value: exit 2" 2 '--pin: .*empty'

# ---- the right PIN, from each source --------------------------------------
run env HSMBENCH_E2E_PIN=$PIN "$HSMBENCH" run --pin-env HSMBENCH_E2E_PIN $FAST --json "$T/env.json"
check "--pin-env with the right PIN: exit 0" 0
file_lacks "--pin-env: PIN not in stdout" "$T/out" "$PIN"
file_lacks "--pin-env: PIN not in stderr" "$T/err" "$PIN"
file_lacks "--pin-env: PIN not in the JSON" "$T/env.json" "$PIN"

run "$HSMBENCH" run --pin-file "$PINFILE" $FAST
check "--pin-file with the right PIN: exit 0" 0
cp "$PINFILE" "$T/public.pin"
chmod 644 "$T/public.pin"
run "$HSMBENCH" run --pin-file "$T/public.pin" $FAST
check "--pin-file readable by others: works, with a warning" 0 '' '^hsmbench: warning: .*readable by other users'

run "$HSMBENCH" run --pin "$PIN" $FAST --json "$T/pin.json"
check "--pin with the right PIN: exit 0" 0
check "--pin prints a warning that recommends --pin-env" 0 '' '^hsmbench: warning: .*--pin-env'
file_lacks "--pin: PIN not in stdout" "$T/out" "$PIN"
file_lacks "--pin: PIN not in stderr" "$T/err" "$PIN"
file_lacks "--pin: PIN not in the JSON" "$T/pin.json" "$PIN"
json_check "--pin: the JSON command line shows *** for the PIN" "$T/pin.json" \
    '"--pin" in doc["command"] and doc["command"][doc["command"].index("--pin") + 1] == "***"'

run "$HSMBENCH" run "--pin=$PIN" $FAST --json "$T/pin2.json"
check "--pin=PIN with the right PIN: exit 0" 0
file_lacks "--pin=PIN: PIN not in stderr" "$T/err" "$PIN"
file_lacks "--pin=PIN: PIN not in the JSON" "$T/pin2.json" "$PIN"
json_check "--pin=PIN: the JSON command line shows --pin=***" "$T/pin2.json" '"--pin=***" in doc["command"]'

run "$HSMBENCH" run --uri "pkcs11:token=hsmbench-demo?pin-value=$PIN" $FAST --json "$T/uri.json"
check "--uri with pin-value: exit 0, with a warning" 0 '' '^hsmbench: warning: .*pin-value'
file_lacks "--uri pin-value: PIN not in stdout" "$T/out" "$PIN"
file_lacks "--uri pin-value: PIN not in stderr" "$T/err" "$PIN"
file_lacks "--uri pin-value: PIN not in the JSON" "$T/uri.json" "$PIN"
run "$HSMBENCH" run --uri "pkcs11:token=no-such-token?pin-value=$PIN" --duration 1
check_one_line_error "--uri with pin-value matching no token: exit 3" 3 '--uri .*no token matches'
file_lacks "--uri pin-value: PIN not echoed in the 'no token matches' error" "$T/err" "$PIN"
run "$HSMBENCH" run --uri "pkcs11:token=%zz?pin-value=$PIN" --duration 1
check_one_line_error "--uri malformed with pin-value: exit 2" 2 '--uri '
file_lacks "--uri pin-value: PIN not echoed in the malformed-URI error" "$T/err" "$PIN"

# ---- a token that needs a PIN, and no PIN given ----------------------------
if softhsm2-util --init-token --free --label other --so-pin 1234 --pin 5678 >"$T/init.out" 2>&1; then
    pass "second SoftHSM token 'other' created"
else
    fail "second SoftHSM token 'other' created" "$(head -c 300 "$T/init.out")"
fi
run "$HSMBENCH" run --module "$SOFTHSM" --token other --duration 1 </dev/null
check_one_line_error "token needing a PIN, none given, stdin not a terminal: exit 2" 2 \
    "token 'other' needs a PIN"
file_lacks "no PIN: no prompt written when stdin is not a terminal" "$T/err" 'User PIN for'
run env OTHER_PIN=5678 "$HSMBENCH" run --module "$SOFTHSM" --token other --pin-env OTHER_PIN $FAST --quiet </dev/null
check "token 'other' with --pin-env and the right PIN: exit 0" 0
run env OTHER_PIN=1111 "$HSMBENCH" run --module "$SOFTHSM" --token other --pin-env OTHER_PIN --duration 1 </dev/null
check_one_line_error "token 'other' with a wrong PIN: exit 3" 3 "login to token 'other': CKR_PIN_INCORRECT"
# The demo PIN file belongs to the demo token only.
run "$HSMBENCH" run --token other --duration 1 </dev/null
check_one_line_error "demo module, --token other, no PIN: exit 2 (demo PIN not reused)" 2 \
    "token 'other' needs a PIN"

# ---- on a terminal, the PIN is asked for, without echo (tmux gives the tty) ----
if command -v tmux >/dev/null 2>&1; then
    # Each terminal gets its own tmux server (socket): a server still
    # shutting down from the previous run must not swallow the next one.
    tty_n=0
    trap 'for s in "$T"/tmux.*.sock; do tmux -S "$s" kill-server 2>/dev/null; done; rm -rf "$T"' EXIT
    # tty_run NAME KEYS...: run hsmbench on a tmux terminal, answer the
    # prompt with KEYS; sets $rc (255: no exit in time), $T/out, $T/err.
    tty_run() {
        tname=$1
        shift
        tty_n=$((tty_n + 1))
        TMUX_SOCK=$T/tmux.$tty_n.sock
        rm -f "$T/tty.rc" "$T/out" "$T/err"
        if ! tmux -S "$TMUX_SOCK" -f /dev/null new-session -d -x 120 -y 20 \
            "'$HSMBENCH' run --module '$SOFTHSM' --token other --test sha256-digest --iterations 10 --quiet >'$T/out' 2>'$T/err'; echo \$? >'$T/tty.rc'; sleep 30"; then
            fail "$tname: prompt shown" "tmux could not start a session"
            rc=255
            return
        fi
        n=0
        until grep -q "User PIN for token 'other': " "$T/err" 2>/dev/null || [ "$n" -ge 300 ]; do
            sleep 0.1
            n=$((n + 1))
        done
        if [ "$n" -ge 300 ]; then
            fail "$tname: prompt shown" "no prompt: $(head -c 300 "$T/err" 2>/dev/null)"
        else
            pass "$tname: prompt shown on the terminal"
        fi
        sleep 0.2
        tmux -S "$TMUX_SOCK" send-keys "$@"
        await_file "$T/tty.rc"
        rc=$(cat "$T/tty.rc" 2>/dev/null || echo 255)
        tmux -S "$TMUX_SOCK" capture-pane -p >"$T/pane" 2>/dev/null
        tmux -S "$TMUX_SOCK" kill-server 2>/dev/null
    }
    tty_run "terminal, right PIN" 5678 Enter
    check "terminal: the PIN typed at the prompt logs in, exit 0" 0
    file_lacks "terminal: the typed PIN is not echoed" "$T/pane" 5678
    tty_run "terminal, Ctrl-C" C-c
    check "terminal: Ctrl-C at the PIN prompt exits 130" 130
    tty_run "terminal, empty PIN" Enter
    check "terminal: an empty PIN at the prompt: exit 2" 2 '' '^hsmbench: error: no .* entered'
else
    skip "terminal PIN prompt (tmux)" "tmux is not installed (Debian package tmux; ci/install-deps.sh)"
fi
