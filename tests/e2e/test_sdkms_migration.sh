#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_sdkms_migration.sh - every command of the SDKMS test bench
# (seed 001's test-bench.sh) translated as docs/sdkms-migration.md says, run
# against hsmbench serve; scaled down: 2 threads for 0.1 s instead of the
# bench's 50 threads for 5 minutes.  Also: every curve the bench lists, a
# token that does not offer a curve refuses it clearly, --filepath fills the
# CSV's capacity column, --transient=true|false.
# tsan: no (the SDKMS workload under threads is test_rest_sdkms's; this checks translated command lines and their CSV)
. "$TOP/tests/e2e/lib.sh"
REST_LIB_SOURCE=1 . "$TOP/tests/e2e/test_rest_lib.sh"

KEY=$(printf 'app-%s:secret-%s' "$$" "$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')" | base64 | tr -d '\n')
export SDKMS_API_KEY="$KEY" SERVER_API_KEY="$KEY"

start_serve mig --api-key-env SERVER_API_KEY || exit 0
EP=$URL
printf 'The quick brown fox jumps over the lazy dog, as the bench encrypts it.\n' >"$T/data.txt"
FSIZE=$(wc -c <"$T/data.txt" | tr -d ' ')

n=0
# bench NAME ARGS...: the translated command (--threadcount 2 --time 0.1s),
# exit 0 with operations and no errors, a CSV row written.  (An operation
# begun before the end counts: 0.1 s made 11 RSA-1024 keys, hundreds of
# anything else.)
bench() {
    name=$1
    shift
    n=$((n + 1))
    run "$HSMBENCH" rest sdkms --endpoint "$EP" --api-key-env SDKMS_API_KEY --threads 2 --duration 0.1s \
        --quiet --json "$T/m$n.json" --csv "$T/m$n.csv" "$@"
    check "test-bench.sh run $name: exit 0" 0 || return 0
    json_check "test-bench.sh run $name: operations, no errors" "$T/m$n.json" \
        'runs[0]["ops"] > 0 and runs[0]["errors"] == 0 and runs[0]["threads"] == 2'
}

# The README's examples, one by one (docs/sdkms-migration.md).
bench "keygen --algorithm AES --keysize 128 --transient=true" \
    --op keygen --alg AES --key-size 128 --transient=true
json_check "keygen --transient=true: transient keys" "$T/m$n.json" 'runs[0]["rest"]["transient"] is True'
bench "keygen --algorithm AES --keysize 256 --transient=false" \
    --op keygen --alg AES --key-size 256 --transient=false
json_check "keygen --transient=false: named keys" "$T/m$n.json" 'runs[0]["rest"]["transient"] is False'
bench "keygen --algorithm RSA --keysize 1024 --transient=true" \
    --op keygen --alg RSA --key-size 1024 --transient=true
bench "keygen --algorithm EC --transient=true" --op keygen --alg EC --transient=true
bench "encryption --algorithm AES --keysize 128 --mode GCM --filepath F" \
    --op encrypt --alg AES --key-size 128 --cipher-mode GCM --filepath "$T/data.txt"
json_check "encryption --filepath: the data is the file's" "$T/m$n.json" \
    "runs[0]['data_size'] == $FSIZE and runs[0]['bytes_per_s'] > 0 and runs[0]['rest']['filepath'] is True"
# capacity (kb/s) = bytes_per_s / 1024, as the bench's column
python3 - "$T/m$n.csv" "$T/m$n.json" >"$T/cap" 2>&1 <<'PY'
import csv, json, sys
row = next(csv.DictReader(open(sys.argv[1])))
bps = json.load(open(sys.argv[2]))["runs"][0]["bytes_per_s"]
cap = float(row["capacity (kb/s)"])
sys.exit(0 if cap > 0 and abs(cap - bps / 1024) < 0.01 else 1)
PY
if [ $? -eq 0 ]; then pass "encryption --filepath: the CSV's capacity (kb/s) column is filled"
else fail "encryption --filepath: the CSV's capacity (kb/s) column is filled" "$(head -c 300 "$T/m$n.csv" | tr '\n' ' ')"; fi
bench "decryption --algorithm AES --keysize 128 --mode GCM --filepath F" \
    --op decrypt --alg AES --key-size 128 --cipher-mode GCM --filepath "$T/data.txt"
file_has "decryption --filepath: capacity filled" "$T/m$n.csv" '^sdkms-decrypt,2,[^,]*,[^,]*,[^,]*,[^,]*,[^,]*,[^,]*,[^,]*,[^,]*,[^,]*,[0-9]'
bench "encryption --algorithm AES --keysize 192 --mode CBC" --op encrypt --alg AES --key-size 192 --cipher-mode CBC
bench "encryption --algorithm RSA --keysize 2048 --filepath F" \
    --op encrypt --alg RSA --key-size 2048 --filepath "$T/data.txt"
bench "encryption --algorithm RSA --keysize 2048" --op encrypt --alg RSA --key-size 2048
bench "decryption --algorithm RSA --keysize 2048" --op decrypt --alg RSA --key-size 2048
bench "sign --algorithm RSA --keysize 2048" --op sign --alg RSA --key-size 2048
bench "verify --algorithm RSA --keysize 2048" --op verify --alg RSA --key-size 2048
bench "sign --algorithm EC --keysize NistP256 --filepath F" --op sign --alg EC --curve NistP256 \
    --filepath "$T/data.txt"

# Every curve the bench lists, made and used through SoftHSM's token.
for c in SecP192K1 SecP224K1 SecP256K1 NistP192 NistP224 NistP256 NistP384 NistP521; do
    bench "keygen --algorithm EC --keysize $c" --op keygen --alg EC --curve "$c"
    json_check "keygen EC $c: the curve in the results" "$T/m$n.json" "runs[0]['key']['curve'] == '$c'"
done
bench "sign --algorithm EC --keysize SecP256K1" --op sign --alg EC --curve SecP256K1
bench "verify --algorithm EC --keysize SecP192K1" --op verify --alg EC --curve SecP192K1 --hash-alg SHA1

# The bench's defaults are 50 threads for 5 minutes: the translation says so.
file_has "docs: the bench's defaults (50 threads, 5 minutes) translated" \
    "$TOP/docs/sdkms-migration.md" '--threads 50 --duration 5m'
file_has "README links the migration table" "$TOP/README.md" 'docs/sdkms-migration.md'

# Flags hsmbench takes only in the bench's spellings.
run "$HSMBENCH" rest sdkms --endpoint "$EP" --api-key-env SDKMS_API_KEY --op keygen --transient=maybe
check "--transient=maybe: exit 2" 2 '' 'expected true or false'
run "$HSMBENCH" rest sdkms --endpoint "$EP" --api-key-env SDKMS_API_KEY --op encrypt --filepath "$T/none"
check "--filepath missing file: exit 2" 2 '' 'filepath'
: >"$T/empty"
run "$HSMBENCH" rest sdkms --endpoint "$EP" --api-key-env SDKMS_API_KEY --op encrypt --filepath "$T/empty"
check "--filepath empty file: exit 2" 2 '' 'empty'
run "$HSMBENCH" rest sdkms --endpoint "$EP" --api-key-env SDKMS_API_KEY --op encrypt \
    --filepath "$T/data.txt" --data-size 32
check "--filepath with --data-size: exit 2" 2 '' 'only one'
run "$HSMBENCH" rest sdkms --endpoint "$EP" --api-key-env SDKMS_API_KEY --op sign --alg EC --curve P-666
check "--curve P-666: exit 2, the curves listed" 2 '' 'SecP192K1.*NistP521'
stop_serve mig

# A token without the Koblitz and small NIST curves (the mock HSM): serve
# refuses them with HTTP 400 naming the curve; P-256 still works.
if need_mock; then
    start_serve mock --module "$MOCK" --api-key-env SERVER_API_KEY || exit 0
    run "$HSMBENCH" rest sdkms --endpoint "$URL" --api-key-env SDKMS_API_KEY --op sign --alg EC \
        --curve SecP256K1 --iterations 5
    check "a token without secp256k1: the run fails (exit 1), HTTP 400 naming the curve" 1 '' \
        'HTTP 400: Elliptic curve SecP256K1 is not offered by this server.s token'
    run "$HSMBENCH" rest sdkms --endpoint "$URL" --api-key-env SDKMS_API_KEY --check --alg EC \
        --curve NistP192
    check "--check on a token without NistP192: exit 3, the step and the curve" 3 \
        'key made: +FAILED: .*HTTP 400: Elliptic curve NistP192 is not offered'
    run "$HSMBENCH" rest sdkms --endpoint "$URL" --api-key-env SDKMS_API_KEY --op sign --alg EC \
        --curve NistP256 --iterations 5
    check "the same token with NistP256: exit 0" 0
    stop_serve mock
fi
