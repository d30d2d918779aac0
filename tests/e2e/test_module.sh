#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_module.sh - choosing the module and the token: files, p11-kit
# names, slots, labels, PKCS#11 URIs.  Failures to load or find: exit 3 with
# one line; malformed input: exit 2.
. "$TOP/tests/e2e/lib.sh"

FAST="--test sha256-digest --iterations 20 --quiet"

# ---- modules that cannot be used ------------------------------------------
run "$HSMBENCH" run --module /nonexistent.so --duration 1
check_one_line_error "--module missing file: exit 3, path named" 3 '^hsmbench: error: --module /nonexistent\.so: '

printf 'this is not a shared object\n' >"$T/notelf.so"
run "$HSMBENCH" run --module "$T/notelf.so" --duration 1
check_one_line_error "--module non-ELF file: exit 3, not loadable" 3 'notelf\.so: not a loadable shared object'

libz=$(ldconfig -p 2>/dev/null | awk '$1 == "libz.so.1" { print $NF; exit }')
[ -n "$libz" ] || libz=/lib/x86_64-linux-gnu/libz.so.1
if [ -f "$libz" ]; then
    run "$HSMBENCH" run --module "$libz" --duration 1
    check_one_line_error "--module a non-PKCS#11 library (libz): exit 3, no C_GetFunctionList" 3 \
        'not a PKCS#11 module: it does not export C_GetFunctionList'
else
    fail "--module a non-PKCS#11 library (libz)" "no libz.so.1 found to try"
fi

run "$HSMBENCH" run --module "$T" --duration 1
check_one_line_error "--module a directory: exit 3" 3 'not a regular file'

run "$HSMBENCH" run --module no-such-registered-module --duration 1
check_one_line_error "--module unknown registered name: exit 3, name given" 3 \
    'no-such-registered-module: no such file, and no p11-kit module registered'

# ---- the demo token, and selection on it -----------------------------------
run "$HSMBENCH" run $FAST --json "$T/demo.json"
check "demo token created on first use, run exits 0" 0
json_check "demo run: environment says demo_token" "$T/demo.json" \
    'doc["environment"]["module"]["demo_token"] is True and doc["environment"]["token"]["label"] == "hsmbench-demo"'

# SoftHSM renumbers a slot once its token is initialised, but only for the
# processes that load it afterwards: take the slot from a second run.
run "$HSMBENCH" run $FAST --json "$T/demo2.json"
slot=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["environment"]["token"]["slot"])' "$T/demo2.json" 2>/dev/null)
if [ -n "$slot" ]; then
    run "$HSMBENCH" run --slot "$slot" $FAST
    check "--slot <the demo token's slot> works" 0
else
    fail "--slot <the demo token's slot> works" "no slot in the second run's JSON"
fi
run "$HSMBENCH" run --slot 987654 --duration 1
check_one_line_error "--slot unknown: exit 3, slot named" 3 '--slot 987654: no such slot'
run "$HSMBENCH" run --token no-such-label --duration 1
check_one_line_error "--token unknown label: exit 3, label named" 3 '--token no-such-label: no token with that label'
run "$HSMBENCH" run --token hsmbench-demo $FAST
check "--token hsmbench-demo works" 0
run "$HSMBENCH" run --uri 'pkcs11:token=nope' --duration 1
check_one_line_error "--uri matching no token: exit 3" 3 '--uri pkcs11:token=nope: no token matches'
run "$HSMBENCH" run --uri 'not-a-uri' --duration 1
check_one_line_error "--uri without the pkcs11: scheme: exit 2" 2 "--uri not-a-uri: "
run "$HSMBENCH" run --uri 'pkcs11:token=%zz' --duration 1
check_one_line_error "--uri with bad percent-encoding: exit 2" 2 '--uri pkcs11:token=%zz: '
run "$HSMBENCH" run --uri 'pkcs11:token=hsmbench-demo' $FAST
check "--uri pkcs11:token=hsmbench-demo on the demo module works" 0

# ---- the same token through SoftHSM directly -------------------------------
softhsm_env
if [ ! -f "$SOFTHSM2_CONF" ] || [ ! -f "$PINFILE" ]; then
    fail "demo token files exist" "no $SOFTHSM2_CONF or $PINFILE"
fi
run "$HSMBENCH" run --module softhsm2 --token hsmbench-demo --pin-file "$PINFILE" $FAST --json "$T/reg.json"
check "--module softhsm2 (p11-kit registered name) works" 0
json_check "--module softhsm2: JSON names the module and the token" "$T/reg.json" \
    'doc["environment"]["module"]["name"] == "softhsm2" and doc["environment"]["module"]["demo_token"] is False and doc["environment"]["token"]["label"] == "hsmbench-demo" and runs[0]["status"] == "ok"'
run "$HSMBENCH" run --module "$SOFTHSM" --uri 'pkcs11:token=hsmbench-demo' --pin-file "$PINFILE" $FAST
check "--module PATH --uri pkcs11:token=hsmbench-demo works" 0
run "$HSMBENCH" run --uri "pkcs11:token=hsmbench-demo?module-path=$SOFTHSM" --pin-file "$PINFILE" $FAST
check "--uri with module-path works" 0
run "$HSMBENCH" run --module "$SOFTHSM" --token hsmbench-demo --pin-file "$PINFILE" $FAST
check "--module PATH --token hsmbench-demo works" 0
run "$HSMBENCH" run --module "$SOFTHSM" --token nope --pin-file "$PINFILE" --duration 1
check_one_line_error "--module PATH --token unknown: exit 3" 3 '--token nope'

# ---- --module hsmbench-mock: the directory compiled in, or $HSMBENCH_LIBDIR ----
B=$(cd "$(dirname "$HSMBENCH")" && pwd)
run env HSMBENCH_LIBDIR="$B" "$HSMBENCH" run --module hsmbench-mock $FAST --json "$T/own.json"
check "--module hsmbench-mock with HSMBENCH_LIBDIR=the build directory works" 0
json_check "--module hsmbench-mock: the run used the mock from HSMBENCH_LIBDIR" "$T/own.json" \
    'doc["environment"]["module"]["path"] == "'"$B"'/libhsmbench-mock.so" and runs[0]["status"] == "ok"'
run env HSMBENCH_LIBDIR="$T/nowhere" "$HSMBENCH" run --module hsmbench-null $FAST
check "--module hsmbench-null with HSMBENCH_LIBDIR naming an empty place: exit 3" 3 '' \
    "--module hsmbench-null: .*$T/nowhere/libhsmbench-null.so"
