#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_hostile3.sh - hostile input, round three (issue 38): outputs
# pointed at a FIFO no one reads (item 3) or at the files hsmbench reads
# without an option naming them (item 4), datasheet --resume of a foreign,
# padded or failing file (10), capacity objectives a PKCS#11 search cannot
# judge (11), a datasheet whose file cannot be written (12).
# asan: yes (outputs on FIFOs and read files, foreign --resume files, failing writes mid-datasheet)
. "$TOP/tests/e2e/lib.sh"

need_mock || exit 0
quick() { run "$HSMBENCH" run --module "$NULLP11" --test sha256-digest --iterations 20 --quiet "$@" </dev/null; }

# ---- item 3: a FIFO no one reads is refused before the run, never waited on ----
mkfifo "$T/fifo"
for flag in --json --html --csv "--out jsonl="; do
    case $flag in *=) arg="$flag$T/fifo" ;; *) arg="$flag $T/fifo" ;; esac
    # shellcheck disable=SC2086
    run timeout -s KILL 20 "$HSMBENCH" run --module "$NULLP11" --test sha256-digest --iterations 20 --quiet $arg
    check_one_line_error "run $flag FIFO with no reader: refused at once, exit 2" 2 'a FIFO no one reads'
done
# A reader that is there gets the whole document (and its end of file).
( cat "$T/fifo" >"$T/fifo.out" ) &
reader=$!
quick --json "$T/fifo"
check "run --json FIFO with a reader: exit 0" 0
wait "$reader"
file_has "run --json FIFO: the reader got the results" "$T/fifo.out" '"schema": "hsmbench.result/3"'
( cat "$T/fifo" >"$T/fifo.out" ) &
reader=$!
run "$HSMBENCH" run --module "$NULLP11" --test sha256-digest --duration 1500ms --quiet --out "jsonl=$T/fifo" </dev/null
check "run --out jsonl=FIFO with a reader: exit 0" 0
wait "$reader"
file_has "run --out jsonl=FIFO: the reader got the stream" "$T/fifo.out" '"type":"second"'
run timeout -s KILL 20 "$HSMBENCH" datasheet --module "$NULLP11" --test sha256-digest --json "$T/fifo"
check_one_line_error "datasheet --json FIFO: refused, exit 2" 2 'a datasheet rewrites its files after every step'
# Interrupted before any step was written: no promise of steps in the file.
env HSMBENCH_MOCK='service=fixed:1ms' "$HSMBENCH" datasheet --module "$MOCK" --test sha256-digest \
    --step-time 2s --json "$T/none.json" >"$T/ds.out" 2>"$T/ds.err" </dev/null &
pid=$!
n=0
while ! grep -q '^datasheet: step 1 of' "$T/ds.out" && [ "$n" -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
kill -INT "$pid"
wait "$pid"
rc=$?
cp "$T/ds.err" "$T/err"
check "datasheet interrupted in its first step: exit 130, nothing to resume" 130 '' 'nothing to resume'
file_lacks "datasheet interrupted in its first step: no 'the steps done are in'" "$T/err" 'steps done are in'

# ---- item 4: the demo token's own files are inputs ------------------------------
run "$HSMBENCH" run --test sha256-digest --iterations 10 --quiet </dev/null
check "demo token set up" 0
D=$HSMBENCH_HOME/softhsm
cp "$D/user.pin" "$T/user.pin.before"
for f in user.pin so.pin softhsm2.conf; do
    for flag in --json --csv --html "--out jsonl="; do
        case $flag in *=) arg="$flag$D/$f" ;; *) arg="$flag $D/$f" ;; esac
        # shellcheck disable=SC2086
        run "$HSMBENCH" run --test sha256-digest --iterations 10 --quiet $arg </dev/null
        check_one_line_error "run $flag onto the demo token's $f: refused, exit 2" 2 \
            'refusing to overwrite an input'
    done
done
run "$HSMBENCH" datasheet --test sha256-digest --json "$D/user.pin" </dev/null
check_one_line_error "datasheet --json onto the demo token's user.pin: refused, exit 2" 2 \
    "the same file as the demo token's PIN file"
run env SOFTHSM2_CONF="$T/my.conf" "$HSMBENCH" run --module "$NULLP11" --test sha256-digest --iterations 10 \
    --quiet --json "$T/my.conf" </dev/null
check_one_line_error "run --json onto SOFTHSM2_CONF's file: refused, exit 2" 2 'the same file as SOFTHSM2_CONF'
if cmp -s "$D/user.pin" "$T/user.pin.before"; then pass "the demo token's PIN file is untouched"
else fail "the demo token's PIN file is untouched" "it changed"; fi
run "$HSMBENCH" run --test sha256-digest --iterations 10 --quiet </dev/null
check "the demo token still logs in afterwards" 0

# ---- item 12: a datasheet whose file cannot be written stops at once ------------
if [ -w /dev/full ]; then
    run "$HSMBENCH" datasheet --module "$NULLP11" --test sha256-digest --step-time 100ms --json /dev/full \
        --html "$T/full.html" </dev/null
    check_one_line_error "datasheet --json /dev/full: exit 1, the error said once" 1 '/dev/full: cannot write'
    steps=$(grep -c '^datasheet: step ' "$T/out")
    if [ "$steps" -eq 1 ]; then pass "datasheet --json /dev/full: no step measured after the failed write"
    else fail "datasheet --json /dev/full: no step measured after the failed write" "$steps steps ran"; fi
fi

# ---- item 11: objectives a PKCS#11 capacity search cannot judge -----------------
run "$HSMBENCH" run --module "$NULLP11" --test sha256-digest --find-capacity 'http_req_failed<1%' </dev/null
check_one_line_error "run --find-capacity with a REST metric: refused, exit 2" 2 "^hsmbench: error: --find-capacity 'http_req_failed<1%'"
run "$HSMBENCH" datasheet --module "$NULLP11" --test sha256-digest --capacity 'http_req_duration:p99<20ms' </dev/null
check_one_line_error "datasheet --capacity with a REST metric: refused, exit 2" 2 "^hsmbench: error: --capacity 'http_req_duration"
run "$HSMBENCH" datasheet --module "$NULLP11" --test sha256-digest --capacity 'p99<<5ms' </dev/null
check_one_line_error "datasheet --capacity's errors name --capacity" 2 "^hsmbench: error: --capacity 'p99<<5ms'"
for flag in --find-capacity --capacity; do
    case $flag in --capacity) cmd=datasheet ;; *) cmd=run ;; esac
    run "$HSMBENCH" $cmd --module "$NULLP11" --test sha256-digest $flag 'p99<20ms:abort' </dev/null
    check_one_line_error "$cmd $flag 'p99<20ms:abort': refused, exit 2" 2 "^hsmbench: error: $flag 'p99<20ms:abort': .*':abort' means nothing"
done

# ---- item 10: datasheet --resume of a foreign, padded or failing file ------------
DS="--test sha256-digest --data-size 16 --step-time 0.1s --max-threads 2 --until-stable 0"
# shellcheck disable=SC2086
run env HSMBENCH_MOCK='service=fixed:1ms;fail=CKR_DEVICE_ERROR:0.3;seed=7' "$HSMBENCH" datasheet \
    --module "$MOCK" $DS --json "$T/err.json" --quiet </dev/null
check "a datasheet with 30 % errors in one go: exit 1" 1
edit() {  # edit IN OUT PYTHON: OUT is IN's document after PYTHON (on doc)
    python3 -c 'import json, sys
doc = json.load(open(sys.argv[1])); runs = doc["runs"]
exec(sys.argv[3])
json.dump(doc, open(sys.argv[2], "w"))' "$1" "$2" "$3"
}
edit "$T/err.json" "$T/cut.json" 'runs.pop()'
# shellcheck disable=SC2086
run env HSMBENCH_MOCK='service=fixed:1ms' "$HSMBENCH" datasheet --module "$MOCK" $DS --resume "$T/cut.json" \
    --quiet </dev/null
check "--resume of steps that had 30 % errors: exit 1, as in one go" 1
edit "$T/err.json" "$T/dup.json" 'runs.pop(); runs.append(json.loads(json.dumps(runs[0])))'
# shellcheck disable=SC2086
run env HSMBENCH_MOCK='service=fixed:1ms' "$HSMBENCH" datasheet --module "$MOCK" $DS --resume "$T/dup.json" \
    --quiet </dev/null
check_one_line_error "--resume of a file with a step twice: refused, exit 2" 2 'is in the file twice'
edit "$T/err.json" "$T/alien.json" 'runs.pop(); runs[0]["datasheet"]["id"] = "nosuch/latency"'
# shellcheck disable=SC2086
run env HSMBENCH_MOCK='service=fixed:1ms' "$HSMBENCH" datasheet --module "$MOCK" $DS --resume "$T/alien.json" \
    --quiet </dev/null
check_one_line_error "--resume of a file with a step not in the plan: refused, exit 2" 2 'is not a step of the plan'
edit "$T/err.json" "$T/other.json" 'runs.pop()'
# shellcheck disable=SC2086
run "$HSMBENCH" datasheet --module "$NULLP11" $DS --resume "$T/other.json" --quiet </dev/null
check_one_line_error "--resume of the mock's file on the null module: refused, exit 2" 2 \
    'made on another module or token \(module path '

# ---- item 5: a server that echoes the request never gets a credential quoted ----
TOK=s3cr3tT0k3n-e2e-9f8a7b6c5d4e3f2a1b0c
KEY=$(printf 'app-e2e:s3cr3tK3y-e2e-0123456789abcdef' | base64 | tr -d '\n')
export TOK KEY
for mode in text json tail 500; do
    case $mode in 500) status=500 how=text ;; *) status=401 how=$mode ;; esac
    rm -f "$T/echo.port"
    python3 "$TOP/tests/hostile/echo_server.py" "$T/echo.port" "$status" "$how" 60 &
    echo_pid=$!
    n=0
    while [ ! -s "$T/echo.port" ] && [ "$n" -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
    port=$(cat "$T/echo.port")
    : >"$T/all"
    for cmd in http ekm sdkms; do
        rm -f "$T/echo.json"
        case $cmd in
        http) run "$HSMBENCH" rest http --url "http://127.0.0.1:$port/x" --bearer-env TOK --duration 0.3s \
                  --json "$T/echo.json" </dev/null ;;
        ekm) run "$HSMBENCH" rest ekm --endpoint "http://127.0.0.1:$port/k" --token-env TOK --duration 0.3s \
                 --json "$T/echo.json" </dev/null ;;
        sdkms) run "$HSMBENCH" rest sdkms --endpoint "http://127.0.0.1:$port" --api-key-env KEY --op encrypt \
                   --duration 0.3s --json "$T/echo.json" </dev/null ;;
        esac
        cat "$T/out" "$T/err" >>"$T/all"
        [ -f "$T/echo.json" ] && cat "$T/echo.json" >>"$T/all"
        if grep -q 'HTTP \(401\|500\)' "$T/err"; then pass "rest $cmd, echoing $mode: the answer is quoted"
        else fail "rest $cmd, echoing $mode: the answer is quoted" "$(head -c 300 "$T/err")"; fi
    done
    kill "$echo_pid" 2>/dev/null
    wait "$echo_pid" 2>/dev/null
    # The whole secret, or its start (8 characters) where a quote was cut short.
    for s in "$TOK" "$(echo "$TOK" | cut -c1-8)" "$KEY" "$(echo "$KEY" | cut -c1-10)" s3cr3tK3y; do
        if grep -qF -- "$s" "$T/all"; then fail "echoing $mode: no output holds '$s'" "$(grep -F -- "$s" "$T/all" | head -c 300)"
        else pass "echoing $mode: no output holds '$s'"; fi
    done
done

# ---- item 6: two signals 20 ms apart during an SDKMS clean-up --------------
# The server answers each DELETE after 8 s (longer than a clean-up request's
# 5 s) and deletes the key only if its client is still there; the second
# signal makes the clean-up give up at once, in both engines.  Every key the
# server made is deleted or listed by the URL that deletes it, the process
# ends long before the server's first DELETE could answer (it once waited
# 5 s for each: 30 s), and the credential is in no line.
export SDKMS_KEY="api-key-item6-$$"
for engine in lean libcurl; do
    : >"$T/sd.log"
    rm -f "$T/sd.port"
    python3 "$TOP/tests/hostile/sdkms_server.py" "$T/sd.port" "$T/sd.log" slow-delete 90 8 &
    spid=$!
    i=0
    while [ ! -s "$T/sd.port" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
    "$HSMBENCH" rest sdkms --endpoint "http://127.0.0.1:$(cat "$T/sd.port")" --api-key-env SDKMS_KEY \
        --engine $engine --op keygen --threads 2 --duration 30 --think 100ms \
        >"$T/sd.out" 2>"$T/sd.err" </dev/null &
    hpid=$!
    i=0
    until [ "$(grep -c '"POST", "path": "/crypto/v1/keys"' "$T/sd.log")" -ge 4 ] || [ $i -ge 200 ]; do
        sleep 0.1; i=$((i + 1))
    done
    kill -HUP "$hpid"; sleep 0.02; kill -HUP "$hpid"
    i=0                      # tenths of a second until it ends
    while kill -0 "$hpid" 2>/dev/null && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
    kill -KILL "$hpid" 2>/dev/null
    wait "$hpid"
    rc=$?
    kill "$spid" 2>/dev/null
    wait "$spid" 2>/dev/null
    if [ "$rc" = 130 ]; then pass "rest sdkms ($engine), two signals in clean-up: interrupted, exit 130"
    else fail "rest sdkms ($engine), two signals in clean-up: interrupted, exit 130" "exit $rc: $(head -c 300 "$T/sd.err")"; fi
    if [ $i -lt 50 ]; then pass "rest sdkms ($engine), two signals in clean-up: it ends within 5 s, a clean-up request's own limit (the server answers a DELETE in 8)"
    else fail "rest sdkms ($engine), two signals in clean-up: it ends within 5 s, a clean-up request's own limit (the server answers a DELETE in 8)" "still running $i tenths of a second after the second signal"; fi
    if python3 - "$T/sd.log" "$T/sd.err" >"$T/werr" 2>&1 <<'PY'
import json, re, sys
made, deleted = set(), set()
n = 0
for line in open(sys.argv[1]):
    r = json.loads(line)
    if "deleted" in r:
        deleted.add(r["deleted"])
    elif r.get("method") == "POST" and r.get("path") == "/crypto/v1/keys":
        n += 1
        made.add("k%d" % n)
listed = set(re.findall(r"^  DELETE http://127\.0\.0\.1:\d+/crypto/v1/keys/(k\d+)$", open(sys.argv[2]).read(), re.M))
lost = made - deleted - listed
print("made", len(made), "deleted", len(deleted), "listed", len(listed), "lost", sorted(lost))
sys.exit(1 if lost or len(made) < 4 else 0)
PY
    then pass "rest sdkms ($engine), two signals in clean-up: every key made is deleted or listed with its DELETE URL"
    else fail "rest sdkms ($engine), two signals in clean-up: every key made is deleted or listed with its DELETE URL" "$(head -c 400 "$T/werr")"; fi
    file_lacks "rest sdkms ($engine), two signals in clean-up: the API key is in no output" "$T/sd.err" "$SDKMS_KEY"
done
