#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_usage.sh - help, version, and every way to get the command
# line wrong: exit 2 with exactly one "hsmbench: error:" line naming the
# culprit, and nothing loaded (no module, no demo token).
# tsan: no (usage errors end before any thread starts)
# early: no check depends on the cores it gets (usage errors' statuses and lines)
. "$TOP/tests/e2e/lib.sh"

# ---- help and version ----------------------------------------------------
run "$HSMBENCH" --help
check "--help exits 0 with the usage on stdout" 0 '^Usage: hsmbench COMMAND'
run "$HSMBENCH" -h
check "-h exits 0 with the usage on stdout" 0 '^Usage: hsmbench COMMAND'
run "$HSMBENCH" help
check "help command exits 0 with the usage" 0 '^Usage: hsmbench COMMAND'
run "$HSMBENCH" --version
check "--version prints 'hsmbench X.Y.Z'" 0 '^hsmbench [0-9]+\.[0-9]+\.[0-9]+$'
run "$HSMBENCH" -V
check "-V prints the version" 0 '^hsmbench [0-9]+\.[0-9]+\.[0-9]+$'
run "$HSMBENCH" run --help
check "run --help exits 0 with the run usage" 0 '^Usage: hsmbench run'
file_has "run --help documents the exit codes" "$T/out" '130 interrupted'
file_has "run --help documents --pin-env" "$T/out" '--pin-env'
run "$HSMBENCH" list --help
check "list --help exits 0 with the list usage" 0 '^Usage: hsmbench list'
run "$HSMBENCH" run -h
check "run -h exits 0" 0 '^Usage: hsmbench run'
file_has "run --help's usage names the keys options" "$T/out" '^Usage: hsmbench run \[selection\] \[test\] \[keys\] \[load\] \[output\]$'
run "$HSMBENCH" help run
check "help run prints run's help, not the list of commands" 0 '^Usage: hsmbench run'
run "$HSMBENCH" help rest http
check "help rest http prints rest http's help" 0 '^Usage: hsmbench rest http'
run "$HSMBENCH" help merge
check "help merge prints merge's help" 0 '^Usage: hsmbench merge'
run "$HSMBENCH" help frobnicate
check_one_line_error "help of an unknown command: one-line error naming it" 2 '^hsmbench: error: frobnicate: unknown command'

run "$HSMBENCH"
check "no arguments: exit 2, usage on stderr" 2 '' '^Usage: hsmbench'
if [ -s "$T/out" ]; then fail "no arguments: nothing on stdout" "stdout: $(head -c 200 "$T/out")"
else pass "no arguments: nothing on stdout"; fi

# ---- unknown command / option / value / positional -------------------------
run "$HSMBENCH" frobnicate
check_one_line_error "unknown command: one-line error naming it" 2 '^hsmbench: error: frobnicate: unknown command'
# the seeds' own tools typed as a command (k6 run ekm_wrap.js, jmeter -n ...)
# name the command that does their work
run "$HSMBENCH" k6 run --vus 3 ekm_wrap.js
check_one_line_error "k6 as a command: one line naming rest ekm and rest http" 2 \
    '^hsmbench: error: k6: unknown command: .*hsmbench rest ekm .*hsmbench rest http'
run "$HSMBENCH" jmeter -n -t plan.jmx -l results.jtl
check_one_line_error "jmeter as a command: one line naming --out jtl=FILE" 2 \
    '^hsmbench: error: jmeter: unknown command: .*--out jtl=FILE'
run "$HSMBENCH" run --frobnicate
check_one_line_error "run: unknown long option named in one line" 2 '^hsmbench: error: --frobnicate: unknown option'
run "$HSMBENCH" list --frobnicate tests
check_one_line_error "list: unknown long option named in one line" 2 '^hsmbench: error: --frobnicate: unknown option'
run "$HSMBENCH" run -x
check_one_line_error "run: unknown short option named" 2 '^hsmbench: error: -x: unknown option'
run "$HSMBENCH" run -xy
check_one_line_error "run: unknown short option in a cluster (-xy) names the option, not 'run'" 2 \
    '^hsmbench: error: -x[y]?: unknown option'
run "$HSMBENCH" run --quiet=yes
check_one_line_error "run: a value given to a flag that takes none is rejected" 2 '--quiet'
run "$HSMBENCH" run --threads
check_one_line_error "run: missing option value named" 2 '^hsmbench: error: --threads: a value is required'
run "$HSMBENCH" run --duration 1 --json
check_one_line_error "run: missing --json value named" 2 '^hsmbench: error: --json: a value is required'
run "$HSMBENCH" list tests --module
check_one_line_error "list: missing option value named" 2 '^hsmbench: error: --module: a value is required'
run "$HSMBENCH" run --duration 1 extra
check_one_line_error "run: unexpected positional argument named" 2 '^hsmbench: error: extra: unexpected argument'
run "$HSMBENCH" list
check_one_line_error "list with nothing to list: one-line error" 2 'modules, slots, mechanisms or tests'
run "$HSMBENCH" list tests extra
check_one_line_error "list with two things to list: one-line error" 2 'modules, slots, mechanisms or tests'

# ---- bad numbers: each one line naming the flag ---------------------------
bad() {   # bad FLAG VALUE [EXTRA ARGS...]
    flag=$1 value=$2
    shift 2
    run "$HSMBENCH" run "$flag" "$value" "$@"
    check_one_line_error "$flag '$value' rejected, flag named" 2 "^hsmbench: error: $flag( |:)"
}
for v in 0 -1 abc 99999 1.5 '' ' 2' 18446744073709551616; do bad --threads "$v"; done
for v in 0 -5 abc 10x 999999h 0.5ms nan inf ''; do bad --duration "$v"; done
for v in 0 -1 x 1e3 ''; do bad --iterations "$v"; done
for v in 0 16201 x -3; do bad --data-size "$v"; done
for v in -1 abc 2h 5parsecs; do bad --warmup "$v"; done
for v in 0 x 70000; do bad --key-size "$v"; done
for v in abc -1; do bad --slot "$v"; done

# The largest accepted values parse (then fail later for other reasons is
# fine; here --help stops before anything is loaded).
run "$HSMBENCH" run --threads 1024 --duration 168h --data-size 16200 --help
check "edge values 1024 threads, 168h, 16200 B are accepted" 0 '^Usage: hsmbench run'

# ---- values that conflict with each other or with the test ----------------
run "$HSMBENCH" run --duration 1 --iterations 5
check_one_line_error "--duration with --iterations rejected" 2 '--duration and --iterations'
run "$HSMBENCH" run --key-size 1234 --duration 1
check_one_line_error "--key-size 1234 for rsa-pkcs-sign rejected with the valid sizes" 2 \
    '--key-size 1234: rsa-pkcs-sign takes .*2048'
run "$HSMBENCH" run --test aes-gcm-encrypt --key-size 2048 --duration 1
check_one_line_error "--key-size 2048 for aes-gcm-encrypt rejected" 2 '--key-size 2048: aes-gcm-encrypt'
run "$HSMBENCH" run --test sha256-digest --key-size 256 --duration 1
check_one_line_error "--key-size for sha256-digest (keyless) rejected" 2 '--key-size: sha256-digest takes no key size'
run "$HSMBENCH" run --test ecdsa-sign --curve P-999 --duration 1
check_one_line_error "--curve P-999 rejected, curve named" 2 '--curve P-999'
run "$HSMBENCH" run --test ecdsa-sign --key-size 2048 --duration 1
check_one_line_error "ecdsa-sign --key-size 2048 (not a curve size) rejected" 2 '--key-size 2048'
run "$HSMBENCH" run --curve P-256 --duration 1
check_one_line_error "--curve with rsa-pkcs-sign rejected" 2 '--curve: rsa-pkcs-sign takes no curve'
run "$HSMBENCH" run --test sha256-digest,rsa-pkcs-sign --curve P-384 --duration 1
check_one_line_error "--curve rejected when any listed test takes none" 2 '--curve: .* takes no curve'
run "$HSMBENCH" run --test nope --duration 1
check_one_line_error "unknown test named in the error" 2 '--test nope: unknown test'
run "$HSMBENCH" run --test sha256-digest,nope --duration 1
check_one_line_error "unknown test in a list named in the error" 2 '--test nope: unknown test'
run "$HSMBENCH" run --test , --duration 1
check_one_line_error "empty test list rejected" 2 '--test'
run "$HSMBENCH" run --slot 1 --token x --duration 1
check_one_line_error "--slot with --token rejected" 2 '--slot, --token and --uri'
run "$HSMBENCH" run --token x --uri pkcs11:token=x --duration 1
check_one_line_error "--token with --uri rejected" 2 '--slot, --token and --uri'
run "$HSMBENCH" run --pin-env A --pin-file B --duration 1
check_one_line_error "--pin-env with --pin-file rejected" 2 '--pin-env, --pin-file and --pin'
run "$HSMBENCH" run --pin-env '' --duration 1
check_one_line_error "--pin-env with an empty variable name rejected" 2 '--pin-env'
run "$HSMBENCH" run --json '' --duration 1
check_one_line_error "--json with an empty file name rejected" 2 '--json'

# None of the above may have created the demo token: usage errors come first.
if [ -e "$HSMBENCH_HOME" ]; then
    fail "usage errors load nothing (no demo token created)" "$HSMBENCH_HOME exists"
else
    pass "usage errors load nothing (no demo token created)"
fi
