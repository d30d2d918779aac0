#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_dead.sh - no dead code exported (tests/dead.py): every
# global function has a user outside its file (another object of the
# program, or a unit test or fuzz harness that exercises it), and every
# function a header declares is defined.  A small made-up build first shows
# the check finds what it is for.
# early: no check depends on the cores it gets (symbols of the build (nm), and a small build of its own)
. "$(dirname "$0")/lib.sh"

# The check on a build with one unused function and one stale declaration.
mkdir -p "$T/fake/obj/bench/util" "$T/fake/obj/bench" "$T/top/bench/util" "$T/top/tests/unit"
cat >"$T/fake/util.c" <<'C'
int bench_fake_used(void);
int bench_fake_unused(void);
int bench_fake_used(void) { return 1; }
int bench_fake_unused(void) { return 2; }
C
printf 'int bench_fake_used(void);\nint main(void) { return bench_fake_used(); }\n' >"$T/fake/main.c"
printf 'int bench_fake_used(void);\nint bench_fake_unused(void);\nint bench_fake_gone(int x);\n' \
    >"$T/top/bench/util/fake.h"
# Each object's source stands in the top tree, as in a real build (dead.py
# leaves out objects whose source is gone).
cp "$T/fake/util.c" "$T/top/bench/util/fake.c" && cp "$T/fake/main.c" "$T/top/bench/main.c"
if cc -c -o "$T/fake/obj/bench/util/fake.o" "$T/fake/util.c" &&
    cc -c -o "$T/fake/obj/bench/main.o" "$T/fake/main.c"; then
    python3 "$TOP/tests/dead.py" "$T/fake" "$T/top" >"$T/fake.out" 2>&1
    frc=$?
    if [ "$frc" -eq 1 ] && grep -q 'bench/util/fake.c: bench_fake_unused has no user' "$T/fake.out" &&
        grep -q 'bench/util/fake.h: declares bench_fake_gone, defined nowhere' "$T/fake.out" &&
        ! grep -q 'bench_fake_used' "$T/fake.out"; then
        pass "dead: an unused function and a stale declaration are found"
    else
        fail "dead: an unused function and a stale declaration are found" \
            "exit $frc: $(tr '\n' ';' <"$T/fake.out")"
    fi
    # A unit test that exercises a function is a user.
    printf 'int bench_fake_unused(void);\n' >"$T/top/tests/unit/test_fake.c"
    python3 "$TOP/tests/dead.py" "$T/fake" "$T/top" >"$T/fake.out" 2>&1
    if ! grep -q 'bench_fake_unused' "$T/fake.out"; then
        pass "dead: a function a test calls is used"
    else
        fail "dead: a function a test calls is used" "$(tr '\n' ';' <"$T/fake.out")"
    fi
else
    fail "dead: an unused function and a stale declaration are found" "cc failed"
fi

build=$(dirname "$HSMBENCH")
if python3 "$TOP/tests/dead.py" "$build" "$TOP" >"$T/dead" 2>&1; then
    pass "dead: every exported function has a user outside its file"
else
    fail "dead: every exported function has a user outside its file" "$(head -c 800 "$T/dead" | tr '\n' ';')"
fi
