#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_tokens.sh - one run spread over several tokens of one module
# (issue 15, "many tokens"): --slot 1,2,3, --token a,b and --uri given more
# than once, on three SoftHSM tokens in a private SOFTHSM2_CONF and on the
# mock HSM with slots=3 (blocking and non-blocking).  Per-token counts must
# add up to the run's (JSON and summary), every token's object count must be
# what it was before, and the bad selections are one-line errors.  About
# 10 seconds.
# tsan: yes (per-token counters written by several workers over several tokens)
# asan: yes (sessions and per-token counters over several tokens, blocking and non-blocking)
. "$TOP/tests/e2e/lib.sh"

need_mock || exit 0
OBJ="$T/objects"

# by_token_adds_up NAME FILE NTOKENS: in every run of FILE the breakdown by
# token has NTOKENS classes, whose ops and errors add up to the run's, each
# token with at least one operation.
by_token_adds_up() {
    json_check "$1" "$2" "all(len(r['breakdown']['token']) == $3 and
        sum(c['ops'] for c in r['breakdown']['token']) == r['ops'] and
        sum(c['errors'] for c in r['breakdown']['token']) == r['errors'] and
        all(c['ops'] > 0 for c in r['breakdown']['token']) for r in runs)"
}

# summary_adds_up NAME: the summary's "by token" lines (in $T/out) add up to
# the run's operations/s (errors are 0 in these runs), within rounding.
summary_adds_up() {
    if python3 - "$T/out" "$2" >"$T/sum.err" 2>&1 <<'PY'
import re, sys
text = open(sys.argv[1]).read()
n = int(sys.argv[2])
total = float(re.search(r"operations\.+: +\d+ +([0-9.]+)/s", text).group(1))
part = text.split("by token", 1)[1].splitlines()[1:1 + n]
rates = [float(re.split(r" {2,}", l.strip())[2]) for l in part]
shares = [float(re.split(r" {2,}", l.strip())[1].rstrip("%")) for l in part]
assert len(rates) == n, part
assert abs(sum(rates) - total) < 0.05 * n, (rates, total)
assert abs(sum(shares) - 100) < 0.05 * n, shares
PY
    then pass "$1"; else fail "$1" "$(head -c 300 "$T/sum.err")"; fi
}

# ---- three SoftHSM tokens -------------------------------------------------------------
if [ -f "$SOFTHSM" ] && command -v softhsm2-util >/dev/null 2>&1; then
    mkdir -p "$T/softhsm/tokens"
    printf 'directories.tokendir = %s\nobjectstore.backend = file\nlog.level = ERROR\n' \
        "$T/softhsm/tokens" >"$T/softhsm/softhsm2.conf"
    SOFTHSM2_CONF="$T/softhsm/softhsm2.conf"
    export SOFTHSM2_CONF
    ok=1
    for l in tok-a tok-b tok-c; do
        softhsm2-util --init-token --free --label $l --so-pin 1234 --pin 5678 \
            >"$T/init.out" 2>&1 || ok=0
    done
    # objects LABEL: the token's object count (what any application sees once logged in).
    objects() {
        pkcs11-tool --module "$SOFTHSM" --token-label "$1" --login --pin 5678 --list-objects \
            2>/dev/null | grep -c 'Object;'
    }
    if [ "$ok" = 1 ] && command -v pkcs11-tool >/dev/null 2>&1; then
        # One object of the user's own on tok-b, which hsmbench must leave alone.
        pkcs11-tool --module "$SOFTHSM" --token-label tok-b --login --pin 5678 --keygen \
            --key-type AES:16 --label users-own >/dev/null 2>&1
        before="$(objects tok-a) $(objects tok-b) $(objects tok-c)"
        run env SO_PIN=5678 "$HSMBENCH" run --module "$SOFTHSM" --token tok-a,tok-b,tok-c \
            --pin-env SO_PIN --test ecdsa-sign --threads 3 --duration 0.3s --token-keys \
            --json "$T/s.json" </dev/null
        check "softhsm: a run over three tokens by label" 0 '^ +by token'
        by_token_adds_up "softhsm: per-token counts add up to the run's (JSON)" "$T/s.json" 3
        summary_adds_up "softhsm: per-token lines add up to the run's (summary)" 3
        json_check "softhsm: the tokens by label, in order, and the environment names all three" \
            "$T/s.json" "([c['class'] for c in runs[0]['breakdown']['token']] == ['tok-a','tok-b','tok-c']
            and [t['label'] for t in doc['environment']['tokens']] == ['tok-a','tok-b','tok-c']
            and doc['environment']['token']['label'] == 'tok-a'
            and doc['environment']['target']['name'].endswith('tokens tok-a, tok-b, tok-c')
            and doc['environment']['target']['id'].count('serial=') == 3)"
        after="$(objects tok-a) $(objects tok-b) $(objects tok-c)"
        if [ "$before" = "$after" ] && [ "$before" = "0 1 0" ]; then
            pass "softhsm: every token's object count unchanged ($after)"
        else
            fail "softhsm: every token's object count unchanged" "before '$before', after '$after'"
        fi
        # The same tokens by --uri, twice, non-blocking.
        run env SO_PIN=5678 "$HSMBENCH" run --module "$SOFTHSM" --uri "pkcs11:token=tok-c" \
            --uri "pkcs11:token=tok-a" --pin-env SO_PIN --test sha256-digest --threads 2 \
            --mode nonblocking --rate 200 --duration 1 --json "$T/u.json" </dev/null
        check "softhsm: --uri twice, non-blocking" 0 'worker pool: the run spans 2 tokens'
        by_token_adds_up "softhsm: --uri twice: per-token counts add up" "$T/u.json" 2
        json_check "softhsm: --uri twice: the tokens in the order given" "$T/u.json" \
            "[c['class'] for c in runs[0]['breakdown']['token']] == ['tok-c','tok-a']"
        run env SO_PIN=5678 "$HSMBENCH" run --module "$SOFTHSM" --uri "pkcs11:token=tok-a" \
            --uri "pkcs11:token=tok-a;manufacturer=SoftHSM%20project" --pin-env SO_PIN \
            --test sha256-digest --threads 2 --duration 1 </dev/null
        check_one_line_error "softhsm: two URIs naming one token: exit 2" 2 \
            "both name token 'tok-a'"
        run env SO_PIN=0000 "$HSMBENCH" run --module "$SOFTHSM" --token tok-a,tok-b \
            --pin-env SO_PIN --threads 2 --duration 1 </dev/null
        check_one_line_error "softhsm: a wrong PIN: exit 3, naming the token" 3 \
            "login to token 'tok-a': CKR_PIN_INCORRECT"
        after="$(objects tok-a) $(objects tok-b) $(objects tok-c)"
        [ "$after" = "0 1 0" ] && pass "softhsm: object counts still unchanged ($after)" \
            || fail "softhsm: object counts still unchanged" "'$after'"
    else
        fail "softhsm: three tokens made" "softhsm2-util or pkcs11-tool: $(head -c 300 "$T/init.out")"
    fi
    unset SOFTHSM2_CONF
else
    skip "softhsm: three tokens in one run" "no $SOFTHSM or no softhsm2-util (Debian package softhsm2)"
fi

# ---- the mock with three tokens ---------------------------------------------------------
CFG="slots=3;service=fixed:1ms;cores=8;objects-file=$OBJ"
run env HSMBENCH_MOCK="$CFG" "$HSMBENCH" run --module "$MOCK" --slot 1,2,3 --test ecdsa-sign \
    --threads 3 --duration 1 --token-keys --json "$T/m.json" </dev/null
check "mock: three tokens by slot, blocking" 0 '^ +mock-3 '
by_token_adds_up "mock: blocking: per-token counts add up to the run's (JSON)" "$T/m.json" 3
summary_adds_up "mock: blocking: per-token lines add up (summary)" 3
# Each thread on its own token: the mock's tokens do not see each other's
# keys, so a thread on the wrong token would fail with CKR_KEY_HANDLE_INVALID.
json_check "mock: blocking: no errors, a third of the operations per token" "$T/m.json" \
    "runs[0]['errors'] == 0 and all(abs(c['ops'] / runs[0]['ops'] - 1/3) < 0.1
        for c in runs[0]['breakdown']['token'])"
file_has "mock: blocking: no token object left on any token" "$OBJ" '^objects 0$'

run env HSMBENCH_MOCK="$CFG" "$HSMBENCH" run --module "$MOCK" --token mock-1,mock-3 \
    --test rsa-pkcs-sign --threads 4 --mode nonblocking --rate 300 --duration 1 --token-keys \
    --json "$T/n.json" </dev/null
check "mock: two tokens by label, non-blocking" 0 '^ +mock-1 '
by_token_adds_up "mock: non-blocking: per-token counts add up" "$T/n.json" 2
json_check "mock: non-blocking: threads round-robin, half the requests each" "$T/n.json" \
    "runs[0]['errors'] == 0 and all(abs(c['ops'] / runs[0]['ops'] - 0.5) < 0.1
        for c in runs[0]['breakdown']['token'])"
file_has "mock: non-blocking: no token object left" "$OBJ" '^objects 0$'

# A token without the mechanism: the test is skipped, naming the token.
run env HSMBENCH_MOCK="slots=2;mechanisms=CKM_ECDSA,CKM_EC_KEY_PAIR_GEN" "$HSMBENCH" run \
    --module "$MOCK" --slot 1,2 --test rsa-pkcs-sign --threads 2 --duration 1 </dev/null
check "mock: a test a token cannot run is skipped, naming the token" 0 \
    "skipped: token 'mock-1' \\(slot 1\\): CKM_SHA256_RSA_PKCS not offered"

# Keys that cannot be destroyed: listed per token, each with its own command.
run env HSMBENCH_MOCK="slots=2;quirks=destroy-fails;objects-file=$OBJ" "$HSMBENCH" run \
    --module "$MOCK" --slot 1,2 --test ecdsa-sign --threads 2 --iterations 20 --token-keys \
    </dev/null
check "mock: keys left on two tokens: exit 1, one destroy command per token" 1 '' \
    'keys destroy --label hsmbench-ecdsa-sign-[0-9]+ --module .* --slot 2$'
file_has "mock: the mock agrees: two objects left on each token" "$OBJ" '^slot 2 objects 2$'

# Ctrl-C during the run: every token's keys still go.
rm -f "$OBJ"
HSMBENCH_MOCK="$CFG" "$HSMBENCH" run --module "$MOCK" --slot 1,2,3 --test ecdsa-sign \
    --threads 3 --duration 30 --token-keys >"$T/out" 2>"$T/err" </dev/null &
pid=$!
sleep 1
kill -INT $pid
wait $pid
rc=$?
check "mock: interrupted: exit 130" 130
file_has "mock: interrupted: no token object left on any token" "$OBJ" '^objects 0$'

# The PIN asked once on a terminal, sent to every token that wants one.
if command -v tmux >/dev/null 2>&1; then
    SOCK=$T/tmux.sock
    rm -f "$T/tty.rc"
    tmux -S "$SOCK" -f /dev/null new-session -d -x 120 -y 20 \
        "HSMBENCH_MOCK='slots=3;login=required;pin=1234' '$HSMBENCH' run --module '$MOCK' \
         --slot 1,2,3 --test ecdsa-sign --threads 3 --iterations 30 --quiet >'$T/out' 2>'$T/err'; \
         echo \$? >'$T/tty.rc'; sleep 30"
    n=0
    until grep -q "User PIN for token 'mock-1' (and every other token of the run): " "$T/err" \
            2>/dev/null || [ "$n" -ge 300 ]; do
        sleep 0.1
        n=$((n + 1))
    done
    sleep 0.2
    tmux -S "$SOCK" send-keys 1234 Enter
    await_file "$T/tty.rc"
    rc=$(cat "$T/tty.rc" 2>/dev/null || echo 255)
    tmux -S "$SOCK" kill-server 2>/dev/null
    check "terminal: the PIN is asked once and logs in to all three tokens" 0
    prompts=$(grep -o "User PIN for token" "$T/err" | wc -l)
    [ "$prompts" -eq 1 ] && pass "terminal: one prompt for three tokens" \
        || fail "terminal: one prompt for three tokens" "$prompts prompts: $(head -c 300 "$T/err")"
else
    skip "terminal: one PIN prompt for three tokens (tmux)" "tmux is not installed (Debian package tmux; ci/install-deps.sh)"
fi

# ---- bad selections: one line, documented exit codes ----------------------------------------
bad() {
    name=$1 want=$2 pat=$3
    shift 3
    run env HSMBENCH_MOCK="slots=3" "$HSMBENCH" run --module "$MOCK" "$@" --test ecdsa-sign \
        --duration 1 </dev/null
    check_one_line_error "$name" "$want" "$pat"
}
bad "unknown token in the list: exit 3" 3 "--token nope: no token with that label" \
    --token mock-1,nope --threads 2
bad "unknown slot in the list: exit 3" 3 "--slot 9: no such slot" --slot 1,9 --threads 2
bad "a slot given twice: exit 2" 2 "--slot 1,2,1: slot 1 given twice" --slot 1,2,1 --threads 3
bad "a token given twice: exit 2" 2 "token 'mock-2' given twice" --token mock-2,mock-2 --threads 2
bad "a URI given twice: exit 2" 2 "--uri pkcs11:token=mock-1: given twice" \
    --uri pkcs11:token=mock-1 --uri pkcs11:token=mock-1 --threads 2
bad "an empty item: exit 2" 2 "--token mock-1,: empty item" --token mock-1, --threads 2
bad "fewer threads than tokens: exit 2" 2 "--threads 2: fewer threads than the 3 tokens" \
    --slot 1,2,3 --threads 2
bad "a sweep going below the tokens: exit 2" 2 "--threads 1: fewer threads than the 2 tokens" \
    --slot 1,2 --threads 4,1
bad "a PIN in one of several URIs: exit 2" 2 "pin-value with several tokens" \
    --uri "pkcs11:token=mock-1;pin-value=1" --uri pkcs11:token=mock-2 --threads 2
run env HSMBENCH_MOCK="slots=3" "$HSMBENCH" menu --module "$MOCK" --slot 1,2 </dev/null
check_one_line_error "menu refuses several tokens: exit 2" 2 \
    "--slot 1,2: this command uses one token"
run env HSMBENCH_MOCK="slots=3" "$HSMBENCH" keys list --module "$MOCK" --token mock-1,mock-2 </dev/null
check_one_line_error "keys refuses several tokens: exit 2" 2 "--token mock-1,mock-2: this command uses one token"
# One token of a module with several: as before, no breakdown.
run env HSMBENCH_MOCK="slots=3" "$HSMBENCH" run --module "$MOCK" --slot 2 --test ecdsa-sign \
    --threads 2 --duration 0.3s --json "$T/one.json" </dev/null
check "one token of three: runs as before" 0
json_check "one token: no breakdown, no tokens list, target names the token" "$T/one.json" \
    "('breakdown' not in runs[0] and 'tokens' not in doc['environment']
    and doc['environment']['target']['name'].endswith('token mock-2'))"
exit 0
