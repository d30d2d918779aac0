#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_sdkms_bench.sh - the SDKMS test bench's habits (seed 001),
# replayed as its README gives them, against hsmbench serve: its
# environment (export SDKMS_API_KEY=... SDKMS_API_ENDPOINT=..., no flags),
# its --mode GCM|CBC (the cipher mode: taken, with a note naming
# --cipher-mode, while --mode stays the load mode, so CBC, PSS and
# PKCS1_V15 run open-loop), the note that its defaults (50 threads for
# 5 minutes) are not hsmbench's, and an RSA --filepath too large named as
# such.  Short runs: 1 s, or --iterations.
. "$TOP/tests/e2e/lib.sh"
REST_LIB_SOURCE=1 . "$TOP/tests/e2e/test_rest_lib.sh"

KEY=$(printf 'app-%s:secret-%s' "$$" "$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')" | base64 | tr -d '\n')
export SERVER_API_KEY="$KEY"
unset SDKMS_API_KEY SDKMS_API_ENDPOINT || true

start_serve bench --api-key-env SERVER_API_KEY || exit 0
printf 'The quick brown fox jumps over the lazy dog, as the bench encrypts it.\n' >"$T/filepath"

# ---- the bench's environment, as its README sets it ---------------------------
# export SDKMS_API_KEY="..."; export SDKMS_API_ENDPOINT="https://..."; then
# test-bench.sh run encryption --algorithm AES --keysize 128 --mode GCM --filepath filepath
export SDKMS_API_KEY="$KEY" SDKMS_API_ENDPOINT="$URL"
run "$HSMBENCH" rest sdkms --op encrypt --alg AES --key-size 128 --mode GCM --filepath "$T/filepath" \
    --threads 2 --iterations 20 --json "$T/env.json"
check "SDKMS_API_KEY and SDKMS_API_ENDPOINT read, no flag: exit 0" 0 '^Running sdkms-encrypt'
json_check "the bench's environment: the run went to SDKMS_API_ENDPOINT, every request 2xx" "$T/env.json" \
    'runs[0]["ops"] > 0 and runs[0]["errors"] == 0 and runs[0]["http"]["failed"] == 0'
file_has "--mode GCM: a note names --cipher-mode" "$T/err" \
    '^hsmbench: --mode GCM is the SDKMS bench.s spelling: taken as --cipher-mode GCM'
n_notes=$(grep -c 'cipher-mode' "$T/err")
if [ "$n_notes" -eq 1 ]; then pass "--mode GCM: the note once"
else fail "--mode GCM: the note once" "$n_notes lines"; fi
json_check "--mode GCM: the cipher mode GCM, the load mode blocking" "$T/env.json" \
    'runs[0]["rest"]["mode"] == "GCM" and runs[0]["mode"] == "blocking"'
no_secret "SDKMS_API_KEY: never printed or written" "$KEY" "$T/out" "$T/err" "$T/env.json"

# A flag still wins over the variables: a wrong SDKMS_API_KEY is not read
# when --api-key-env names another, and is read (HTTP 401, exit 3) when not.
export GOOD_KEY="$KEY"
SDKMS_API_KEY=$(printf 'app:wrong' | base64)
run "$HSMBENCH" rest sdkms --op keygen --iterations 4 --api-key-env GOOD_KEY --quiet
check "--api-key-env wins over SDKMS_API_KEY: exit 0" 0
run "$HSMBENCH" rest sdkms --op keygen --iterations 4 --quiet
check "a wrong SDKMS_API_KEY is the key used: exit 3 (the API key)" 3 '' 'check the API key'
SDKMS_API_KEY=$KEY
run "$HSMBENCH" rest sdkms --endpoint http://127.0.0.1:1 --op keygen --iterations 4 --quiet
check "--endpoint wins over SDKMS_API_ENDPOINT: exit 3 (nothing listens there)" 3 '' '127.0.0.1:1'
unset SDKMS_API_ENDPOINT
# The bench's default endpoint, said (issue 39, item 9); no API key, so no
# request leaves the machine.
run env -u SDKMS_API_KEY "$HSMBENCH" rest sdkms --op keygen --iterations 4 </dev/null
check "no --endpoint nor SDKMS_API_ENDPOINT: the bench's default, with a note (no request made: exit 2 for the key)" 2 '' \
    '^hsmbench: neither --endpoint nor SDKMS_API_ENDPOINT: https://apps.sdkms.fortanix.com'
unset SDKMS_API_KEY
run "$HSMBENCH" rest sdkms --endpoint "$URL" --op keygen --iterations 4 </dev/null
check_one_line_error "no API key flag nor SDKMS_API_KEY (no terminal): exit 2, SDKMS_API_KEY named" 2 \
    'needs an API key.*SDKMS_API_KEY'
export SDKMS_API_KEY="$KEY" SDKMS_API_ENDPOINT="$URL"

# ---- --mode: the load mode; the bench's cipher modes run open-loop ------------
run "$HSMBENCH" rest sdkms --op encrypt --alg AES --mode CBC --mode nonblocking --rate 40 --inflight 2 \
    --duration 0.5s \
    --quiet --json "$T/cbc.json"
check "--mode CBC --mode nonblocking (the issue's command line): exit 0" 0
json_check "--mode CBC --mode nonblocking: CBC, open-loop at the rate" "$T/cbc.json" \
    'runs[0]["rest"]["mode"] == "CBC" and runs[0]["mode"] == "nonblocking" and runs[0]["ops"] > 0 and runs[0]["errors"] == 0 and runs[0]["settings"]["rate"] == 40'
run "$HSMBENCH" rest sdkms --op sign --alg RSA --cipher-mode PSS --mode nonblocking --rate 40 --inflight 2 \
    --duration 0.5s --quiet --json "$T/pss.json"
check "--cipher-mode PSS --mode nonblocking: exit 0, no note" 0
file_lacks "--cipher-mode: no note" "$T/err" "note:"
json_check "RSA-PSS open-loop" "$T/pss.json" \
    'runs[0]["rest"]["mode"] == "PSS" and runs[0]["mode"] == "nonblocking" and runs[0]["mechanism"].startswith("RSA-PSS") and runs[0]["errors"] == 0'
run "$HSMBENCH" rest sdkms --op encrypt --alg RSA --mode nonblocking --mode PKCS1_V15 --inflight 2 \
    --duration 0.5s --quiet --json "$T/v15.json"
check "--mode nonblocking --mode PKCS1_V15 (either order): exit 0" 0
json_check "RSA PKCS1_V15 encryption open-loop" "$T/v15.json" \
    'runs[0]["rest"]["mode"] == "PKCS1_V15" and runs[0]["mode"] == "nonblocking" and runs[0]["ops"] > 0 and runs[0]["errors"] == 0'

run "$HSMBENCH" rest sdkms --op encrypt --mode blocking --mode nonblocking --rate 10
check_one_line_error "two load modes: exit 2" 2 '^hsmbench: error: --mode given twice'
run "$HSMBENCH" rest sdkms --op encrypt --mode CBC --cipher-mode GCM
check "two cipher modes (--mode CBC, --cipher-mode GCM): exit 2" 2 '' 'cipher mode is given twice'
# The bench's README has "--algorithm RSA --keysize 2048 --mode GSM": not a mode at all.
run "$HSMBENCH" rest sdkms --op encrypt --alg RSA --mode GSM
check_one_line_error "--mode GSM: exit 2, both flags named" 2 \
    '--mode GSM: the load mode is blocking or nonblocking; a cipher mode is --cipher-mode GCM[|]CBC[|]OAEP[|]PKCS1_V15[|]PSS'
run "$HSMBENCH" rest sdkms --op encrypt --alg AES --cipher-mode PSS
check_one_line_error "--cipher-mode PSS for AES: exit 2, the modes AES takes" 2 '--cipher-mode PSS: AES encrypt takes GCM or CBC'
run "$HSMBENCH" rest sdkms --help
check "--help lists --cipher-mode" 0 '^  --cipher-mode MODE'

# ---- the bench's defaults, said at run time -------------------------------------
# test-bench.sh run encryption --algorithm AES --keysize 128: 50 threads
# for 5 minutes there; here 1 thread for 10 s, and a note says so (the run
# is stopped once it is under way).
# note_run FILE ARGS...: the bench's encryption run with hsmbench's
# defaults, stopped (SIGTERM) once FILE is not empty (lib.sh's await_file).
note_run() {
    file=$1
    shift
    : >"$T/out"
    : >"$T/err"
    "$HSMBENCH" rest sdkms --op encrypt --alg AES --key-size 128 "$@" >"$T/out" 2>"$T/err" </dev/null &
    bg=$!
    await_file "$file"
    kill -TERM "$bg" 2>/dev/null
    wait "$bg"
    rc=$?
}
# Until stdout has the run's header, which comes after the note.
note_run "$T/out"
check "the bench's defaults: the run starts (stopped: exit 130)" 130 '' \
    "^hsmbench: 1 thread for 10 s \\(the SDKMS bench's default is 50 threads for 300 s: --threads 50 --duration 300\\)$"
run "$HSMBENCH" rest sdkms --op encrypt --alg AES --key-size 128 --threads 2 --duration 0.3s
check "--threads and --duration given: exit 0" 0
file_lacks "--threads and --duration given: no note" "$T/err" "default is 50 threads"
run "$HSMBENCH" rest sdkms --op encrypt --alg AES --iterations 5
file_lacks "--iterations given: no note" "$T/err" "default is 50 threads"
# --quiet: stopped after its first second (the stream's first line), past the note's place.
note_run "$T/q.jsonl" --quiet --out jsonl="$T/q.jsonl"
file_lacks "--quiet: no note" "$T/err" "default is 50 threads"

# ---- the bench is a JMeter plan: JMeter's summariser, threads x loops ---------------
run "$HSMBENCH" rest sdkms --op encrypt --alg AES --threads 2 --loops 15 --summary jmeter --quiet
check "--threads 2 --loops 15 --summary jmeter: exit 0, JMeter's total" 0 \
    '^summary = +30 in 00:00:0[0-9] = +[0-9.*]+/s Avg: +[0-9]+ Min: +[0-9]+ Max: +[0-9]+ Err: +0 \(0\.00%\)$'
run "$HSMBENCH" rest sdkms --op encrypt --alg AES --duration 1.2s --summary jmeter --summary-interval 1s --quiet
check "--summary jmeter --summary-interval 1s: a summary + line" 0 \
    '^summary \+ +[0-9]+ in 00:00:01 = .* Err: +0 \(0\.00%\) Active: 1 Started: 1 Finished: 0$'
run "$HSMBENCH" rest sdkms --op encrypt --summary-interval 1s
check_one_line_error "--summary-interval without --summary jmeter: exit 2" 2 'needs --summary jmeter'

# ---- an RSA --filepath too large names the file ---------------------------------
head -c 4096 /dev/zero | tr '\0' 'x' >"$T/big.bin"
run "$HSMBENCH" rest sdkms --op encrypt --alg RSA --key-size 2048 --filepath "$T/big.bin"
check_one_line_error "RSA --filepath of 4096 bytes: exit 2, the file, its size and the maximum" 2 \
    "--filepath .*big.bin: 4096 bytes; RSA 2048 with OAEP encrypts at most 214"
file_lacks "RSA --filepath too large: no --data-size named" "$T/err" "--data-size"

stop_serve bench
