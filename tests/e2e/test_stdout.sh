#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_stdout.sh - a failed write to standard output is an error
# (issue 23, item 5): every command that prints a report or listing to a
# full device (/dev/full) says so in one line naming standard output and
# its reason, and exits 1; a reader gone (EPIPE) is 130, as documented;
# the same commands to /dev/null still exit 0.
# tsan: no (writes to a full or closed standard output after the run: one thread; the runs are test_rest's)
. "$TOP/tests/e2e/lib.sh"
REST_LIB_SOURCE=1 . "$TOP/tests/e2e/test_rest_lib.sh"
need_mock || exit 0

if [ ! -c /dev/full ]; then
    skip "writes to /dev/full" "no /dev/full on this machine"
    exit 0
fi

# full NAME ARGS...: hsmbench ARGS > /dev/full: exit 1, one line naming
# standard output and ENOSPC's reason; then > /dev/null: exit 0.
full() {
    what=$1
    shift
    timeout -s INT 120 "$HSMBENCH" "$@" >/dev/full 2>"$T/err" </dev/null
    rc=$?
    check_one_line_error "$what > /dev/full: exit 1, one line" 1 \
        'cannot write to standard output: No space left on device'
    timeout -s INT 120 "$HSMBENCH" "$@" >/dev/null 2>"$T/err" </dev/null
    rc=$?
    check "$what > /dev/null: exit 0" 0
}

full "run (mock)" run --module "$MOCK" --test sha256-digest --iterations 50
full "run --mode nonblocking --rate" run --module "$MOCK" --test sha256-digest --mode nonblocking \
    --rate 200 --duration 1
# --quiet prints nothing there: nothing is lost, so nothing fails.
timeout -s INT 120 "$HSMBENCH" run --module "$MOCK" --test sha256-digest --iterations 50 --quiet \
    >/dev/full 2>"$T/err"
rc=$?
check "run --quiet > /dev/full (nothing written): exit 0" 0
full "list tests" list tests
full "list mechanisms" list mechanisms --module "$MOCK"
full "--help" --help
full "run --help" run --help

run "$HSMBENCH" run --module "$MOCK" --test sha256-digest --iterations 50 --quiet --json "$T/r.json"
check "a results file to report on" 0
full "report" report "$T/r.json"
full "compare" compare "$T/r.json" "$T/r.json"
# merge combines concurrent runs (their wall-clock times must overlap, within
# a second): the two generators run at once, not one after the other, which
# a loaded sanitizer build spaces by more than that.
timeout -s INT 120 "$HSMBENCH" run --module "$MOCK" --test sha256-digest --duration 1 --quiet \
    --generator 1 --json "$T/g1.json" >/dev/null 2>"$T/err1" </dev/null &
g1=$!
run "$HSMBENCH" run --module "$MOCK" --test sha256-digest --duration 1 --quiet --generator 2 \
    --json "$T/g2.json"
wait "$g1"
rc1=$?
[ "$rc" = 0 ] && rc=$rc1
check "two concurrent generators to merge" 0
full "merge's summary" merge "$T/g1.json" "$T/g2.json" -o "$T/m.json"

start_serve plain || exit 0
full "rest http (against serve)" rest http --url "$URL/hello" --iterations 20
full "rest http --summary k6" rest http --url "$URL/hello" --iterations 20 --summary k6

# A reader gone: 130 (standard output closed), no error line.
python3 - "$HSMBENCH" "$T/pipe.rc" <<'PY'
import os, subprocess, sys
r, w = os.pipe()
os.close(r)             # the reader is gone before the listing is written
p = subprocess.run([sys.argv[1], "list", "tests"], stdout=w, stderr=subprocess.PIPE, timeout=60)
open(sys.argv[2], "w").write("%d %s" % (p.returncode, p.stderr.decode().strip().replace("\n", "|")))
PY
case $(cat "$T/pipe.rc") in
"130 ") pass "list tests to a closed pipe: exit 130, no error line" ;;
*) fail "list tests to a closed pipe: exit 130, no error line" "got '$(cat "$T/pipe.rc")'" ;;
esac

# A full file system (a 64 kB tmpfs, filled): the 0-byte file is exit 1 too.
if [ "$(id -u)" = 0 ] && mkdir -p "$T/tiny" && mount -t tmpfs -o size=64k tmpfs "$T/tiny" 2>/dev/null; then
    dd if=/dev/zero of="$T/tiny/fill" bs=4k count=64 2>/dev/null
    for cmd in list report; do
        if [ $cmd = list ]; then set -- list tests; else set -- report "$T/r.json"; fi
        timeout -s INT 60 "$HSMBENCH" "$@" >"$T/tiny/out.txt" 2>"$T/err" </dev/null
        rc=$?
        check_one_line_error "$cmd > a file on a full file system: exit 1, one line" 1 \
            'cannot write to standard output: No space left on device'
    done
    umount "$T/tiny"
else
    skip "writes to a full file system" "not root, or no tmpfs mount here"
fi
