#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_runner.sh - the test runner itself (tests/run.sh): every
# script parses; --only runs one test file and ends
# "N passed, N failed, N skipped" with the right exit status; and, on a
# scratch tree of fake tests, the whole-suite mode: results in a fixed order
# whatever finishes first, serial jobs alone, the others side by side
# (HSMBENCH_TEST_JOBS), and a FAIL line, a script exiting 1 without a result
# or a shell error making the exit status non-zero (a script that exits 0
# without a result has nothing to check).  A SKIP line, from an e2e script
# (lib.sh's skip) or a unit test (check.h's SKIP), is counted as skipped,
# never as passed; skips alone leave the exit status 0, except under CI
# (CI=true), where a skip makes it non-zero.
. "$TOP/tests/e2e/lib.sh"
# The runner's own knobs, from the suite that runs this script: not for the
# runners started here, whose output is checked line by line (CI is set
# where a case is about it).
unset HSMBENCH_TEST_JOBS HSMBENCH_TEST_TIMES HSMBENCH_TEST_LOAD HSMBENCH_TEST_BUILD CI

# ---- every script of the suite parses ----------------------------------------
bad=
for f in "$TOP/tests/run.sh" "$TOP/tests/fuzz/run.sh" "$TOP"/tests/e2e/*.sh; do
    sh -n "$f" 2>>"$T/syntax" || bad="$bad $(basename "$f")"
done
if [ -z "$bad" ]; then pass "sh -n: tests/run.sh, tests/fuzz/run.sh and every e2e script parse"
else fail "sh -n: every script parses" "syntax errors in$bad: $(head -c 300 "$T/syntax" | tr '\n' ' ')"; fi

# last_line: the last line of $T/out.
last_line() { tail -n 1 "$T/out"; }

# ---- --only, on the real tree --------------------------------------------------
run sh "$TOP/tests/run.sh" --only test_schedule "$VARIANT"
case $(last_line) in
"0 passed, 0 failed, 0 skipped") fail "--only test_schedule: exit 0, last line 'N passed, 0 failed, 0 skipped', N > 0" "$(last_line)" ;;
*[0-9]" passed, 0 failed, 0 skipped") check "--only test_schedule: exit 0, last line 'N passed, 0 failed, 0 skipped', N > 0" 0 ;;
*) fail "--only test_schedule: exit 0, last line 'N passed, 0 failed, 0 skipped', N > 0" "exit $rc, '$(last_line)'" ;;
esac
if grep -v '^$' "$T/out" | sed '$d' | grep -qv "^PASS \[$VARIANT\] test_schedule:"; then
    fail "--only test_schedule: every result line is 'PASS [$VARIANT] test_schedule:...'" "$(head -c 300 "$T/out" | tr '\n' ' ')"
else pass "--only test_schedule: every result line is 'PASS [$VARIANT] test_schedule:...'"; fi

run sh "$TOP/tests/run.sh" --only tests/e2e/test_list.sh "$VARIANT"
check "--only tests/e2e/test_list.sh (a path): exit 0" 0 "^PASS \[$VARIANT\] test_list:"

run sh "$TOP/tests/run.sh" --only nosuch
check "--only nosuch: exit 1, one FAIL naming it" 1 '^FAIL \[plain\] nosuch: no unit test build/tests/nosuch and no tests/e2e/nosuch\.sh$'
[ "$(last_line)" = "0 passed, 1 failed, 0 skipped" ] && pass "--only nosuch: last line '0 passed, 1 failed, 0 skipped'" ||
    fail "--only nosuch: last line '0 passed, 1 failed, 0 skipped'" "'$(last_line)'"

# ---- a scratch tree of fake tests ------------------------------------------------
# Each fake e2e script notes when it starts and ends in $TRACE.
W="$T/tree"
mkdir -p "$W/tests/e2e" "$W/tests/unit" "$W/tests/fuzz" "$W/build/tests"
cp "$TOP/tests/run.sh" "$W/tests/run.sh"
TRACE="$T/trace"
export TRACE
fake() {    # fake NAME SECONDS [LINE...]: tests/e2e/NAME.sh
    f="$W/tests/e2e/$1.sh" name=$1 secs=$2
    shift 2
    { echo 'echo "start '"$name"'" >>"$TRACE"'
      for l in "$@"; do echo "$l"; done
      echo "sleep $secs"
      echo 'echo "end '"$name"'" >>"$TRACE"'; } >"$f"
}
# test_a, beside others (HSMBENCH_TEST_JOBS above 1), runs until another
# has started (30 s at most): a fixed second was not enough on a busy
# machine, where starting the next job took longer than that.
fake test_a 1 'echo "PASS a1"' 'echo "PASS a2"' \
    '[ "${HSMBENCH_TEST_JOBS:-1}" -gt 1 ] && { i=0; until grep -q "^start test_[befghst]" "$TRACE" || [ $i -ge 300 ]; do sleep 0.1; i=$((i + 1)); done; }'
fake test_b 0.2 'echo "FAIL b1: on purpose"' 'echo "not a result"'
fake test_c 0.5 '# serial: a fake one that must run alone' 'echo "PASS c1"'
fake test_e 0.2 'echo "PASS e1"'
echo 'if then fi' >>"$W/tests/e2e/test_e.sh"          # a syntax error after its result
fake test_f 0.2 'echo "prints no result, exits 1"'
echo 'exit 1' >>"$W/tests/e2e/test_f.sh"
fake test_g 0.2 'echo "nothing to check here, exits 0"'
fake test_s 0.2 'echo "PASS s1"' 'echo "SKIP s2: no widget here"'
fake test_t 0.2 'echo "SKIP t1: no gadget here"'
# The jobs get SIGINT not ignored (the scripts send it, Ctrl-C relies on it),
# as an asynchronous list in the runner would have it.  The runner below is
# started by run, under timeout -s INT, which gives it SIGINT's default even
# when this script's caller ignores it (a CI started in the background does),
# so the jobs must see it not ignored, whatever this shell has.
WANT_SIGINT=0
export WANT_SIGINT
fake test_h 0.2 'm=$(sed -n "s/^SigIgn:[[:space:]]*//p" /proc/$$/status); d=${m#"${m%?}"}' \
    'if [ $((0x$d & 2)) = "$WANT_SIGINT" ]; then echo "PASS h1"; else echo "FAIL h1: SigIgn $m, SIGINT not as for the runner"; fi'
printf '#!/bin/sh\necho "PASS u1"\necho "noise" >&2\n' >"$W/build/tests/test_ua"
printf '/*\n * serial: a fake one that must run alone\n */\n' >"$W/tests/unit/test_ua.c"
printf '#!/bin/sh\necho "PASS v1"\necho "crashed" >&2\nexit 3\n' >"$W/build/tests/test_ub"
printf '#!/bin/sh\necho "SKIP w1: no pseudo-terminal"\necho "PASS w2"\n' >"$W/build/tests/test_uc"
chmod +x "$W/build/tests/test_ua" "$W/build/tests/test_ub" "$W/build/tests/test_uc"

cat >"$T/want" <<'EOF'
PASS [plain] test_ua:u1
PASS [plain] test_c:c1
PASS [plain] test_ub:v1
FAIL [plain] test_ub: exited 3: crashed 
SKIP [plain] test_uc:w1: no pseudo-terminal
PASS [plain] test_uc:w2
PASS [plain] test_a:a1
PASS [plain] test_a:a2
FAIL [plain] test_b:b1: on purpose
PASS [plain] test_e:e1
FAIL [plain] test_e: exited
FAIL [plain] test_f: exited 1: prints no result, exits 1 
PASS [plain] test_h:h1
PASS [plain] test_s:s1
SKIP [plain] test_s:s2: no widget here
SKIP [plain] test_t:t1: no gadget here
FAIL [asan] build: build/asan/hsmbench is missing (make sanitizers)
FAIL [tsan] build: build/tsan/hsmbench is missing (make sanitizers)
FAIL [fuzz] build: build/fuzz/fuzzers is missing (make fuzz-build)

failed:
FAIL [plain] test_ub: exited 3: crashed 
FAIL [plain] test_b:b1: on purpose
FAIL [plain] test_e: exited
FAIL [plain] test_f: exited 1: prints no result, exits 1 
FAIL [asan] build: build/asan/hsmbench is missing (make sanitizers)
FAIL [tsan] build: build/tsan/hsmbench is missing (make sanitizers)
FAIL [fuzz] build: build/fuzz/fuzzers is missing (make fuzz-build)
9 passed, 7 failed, 3 skipped
EOF

for j in 3 1; do
    : >"$TRACE"
    run env HSMBENCH_TEST_JOBS=$j sh "$W/tests/run.sh"
    # test_e's shell error: its status and message vary with the shell.
    sed 's/^\(FAIL \[plain\] test_e\): exited [0-9]*: .*/\1: exited/' "$T/out" >"$T/got.$j"
    if [ "$rc" -eq 1 ] && cmp -s "$T/want" "$T/got.$j"; then
        pass "whole suite, HSMBENCH_TEST_JOBS=$j: exit 1, every result in the plan's order, serial ones first"
    else
        fail "whole suite, HSMBENCH_TEST_JOBS=$j: exit 1, every result in the plan's order, serial ones first" \
            "exit $rc: $(diff "$T/want" "$T/got.$j" | head -c 400 | tr '\n' '|')"
    fi
    # The serial script ran alone: its start and end lines are adjacent.
    if grep -A 1 '^start test_c$' "$TRACE" | grep -qx 'end test_c' &&
        [ "$(grep -c . "$TRACE")" -eq 18 ]; then
        pass "HSMBENCH_TEST_JOBS=$j: the serial script ran with nothing beside it"
    else fail "HSMBENCH_TEST_JOBS=$j: the serial script ran with nothing beside it" "$(tr '\n' ' ' <"$TRACE")"; fi
    # Side by side: test_a was still running when another one started.
    if [ $j -gt 1 ]; then
        if sed -n '/^start test_a$/,/^end test_a$/p' "$TRACE" | grep -q '^start test_[befghst]$'; then
            pass "HSMBENCH_TEST_JOBS=$j: the other scripts ran side by side"
        else fail "HSMBENCH_TEST_JOBS=$j: the other scripts ran side by side" "$(tr '\n' ' ' <"$TRACE")"; fi
    else
        if [ "$(sed -n 'p;n' "$TRACE" | sed 's/^start //' | tr '\n' ' ')" = "$(sed -n 'n;p' "$TRACE" | sed 's/^end //' | tr '\n' ' ')" ]; then
            pass "HSMBENCH_TEST_JOBS=1: one at a time"
        else fail "HSMBENCH_TEST_JOBS=1: one at a time" "$(tr '\n' ' ' <"$TRACE")"; fi
    fi
done

# "# serial-variants: plain": serial in the plain build, beside the others
# in a sanitizer's (a fake asan build here).  The order of the results says
# which queue each job was in: the serial ones are printed first.
W2="$T/tree2"
mkdir -p "$W2/tests/e2e" "$W2/tests/unit" "$W2/build/tests" "$W2/build/asan/tests"
cp "$TOP/tests/run.sh" "$W2/tests/run.sh"
printf '#!/bin/sh\n' >"$W2/build/asan/hsmbench"
chmod +x "$W2/build/asan/hsmbench"
printf '# serial: times only in the plain build\n# serial-variants: plain\n# asan: yes (a fake)\necho "PASS p1"\n' >"$W2/tests/e2e/test_p.sh"
printf '# asan: yes (a fake)\necho "PASS q1"\n' >"$W2/tests/e2e/test_q.sh"
printf '# asan: no, a sanitizer finds nothing new here\necho "PASS r1"\n' >"$W2/tests/e2e/test_r.sh"
run sh "$W2/tests/run.sh"
if [ "$(grep '^PASS' "$T/out" | tr '\n' ' ')" = "PASS [plain] test_p:p1 PASS [plain] test_q:q1 PASS [plain] test_r:r1 PASS [asan] test_p:p1 PASS [asan] test_q:q1 " ]; then
    pass "# serial-variants: plain: serial in the plain build only"
    pass "# asan: yes: the whole suite runs a script under ASan only when its line says so"
else
    fail "# serial-variants: plain: serial in the plain build only" "$(tr '\n' ' ' <"$T/out")"
    fail "# asan: yes: the whole suite runs a script under ASan only when its line says so" "$(tr '\n' ' ' <"$T/out")"
fi

# tests/durations: the parallel jobs start longest first by it, one it does
# not name by its kind (a plain script 15 s, a unit test 1 s); their lines
# still print in the plan's order (unit tests, then scripts, by name).
W4="$T/tree4"
mkdir -p "$W4/tests/e2e" "$W4/tests/unit" "$W4/build/tests"
cp "$TOP/tests/run.sh" "$W4/tests/run.sh"
printf '# SPDX-License-Identifier: Apache-2.0\nplain test_z 99\nplain test_ux 20\nplain test_w 2\n' >"$W4/tests/durations"
for x in w y z; do printf 'echo "start test_%s" >>"$TRACE"\necho "PASS %s1"\n' $x $x >"$W4/tests/e2e/test_$x.sh"; done
printf '#!/bin/sh\necho "start test_ux" >>"$TRACE"\necho "PASS ux1"\n' >"$W4/build/tests/test_ux"
printf '#!/bin/sh\necho "start test_uy" >>"$TRACE"\necho "PASS uy1"\n' >"$W4/build/tests/test_uy"
chmod +x "$W4/build/tests/test_ux" "$W4/build/tests/test_uy"
: >"$TRACE"
run env HSMBENCH_TEST_JOBS=1 sh "$W4/tests/run.sh"
started=$(tr '\n' ' ' <"$TRACE")
if [ "$started" = "start test_z start test_ux start test_y start test_w start test_uy " ] &&
    [ "$(grep '^PASS' "$T/out" | cut -d: -f2 | tr '\n' ' ')" = "ux1 uy1 w1 y1 z1 " ]; then
    pass "tests/durations: longest first, an unnamed job by its kind; the lines in the plan's order"
else fail "tests/durations: longest first, an unnamed job by its kind; the lines in the plan's order" \
    "started: $started; lines: $(grep '^PASS' "$T/out" | tr '\n' ' ')"; fi
run sh "$W2/tests/run.sh" --only test_r asan
check "--only test_r asan: a script without '# asan: yes' runs there when asked" 0 '^PASS \[asan\] test_r:r1$'

# "# timed:": after the serial ones, a few at a time (one more than the
# processors) and beside nothing else; the others only once every timed one
# has ended.  Each fake notes its start and end.
W5="$T/tree5"
mkdir -p "$W5/tests/e2e" "$W5/tests/unit" "$W5/build/tests"
cp "$TOP/tests/run.sh" "$W5/tests/run.sh"
for x in t1 t2 t3 t4 t5; do
    printf '# timed: a fake\necho "start %s" >>"$TRACE"\nsleep 1\necho "end %s" >>"$TRACE"\necho "PASS %s"\n' $x $x $x \
        >"$W5/tests/e2e/test_$x.sh"
done
printf '# serial: a fake\necho "start s" >>"$TRACE"\necho "end s" >>"$TRACE"\necho "PASS s"\n' >"$W5/tests/e2e/test_s.sh"
printf 'echo "start p" >>"$TRACE"\necho "end p" >>"$TRACE"\necho "PASS p"\n' >"$W5/tests/e2e/test_p.sh"
: >"$TRACE"
run env HSMBENCH_TEST_JOBS=20 sh "$W5/tests/run.sh"
# the most timed ones running at once, and where s and p came
most=$(awk '/^start t/ { n++; if (n > m) m = n } /^end t/ { n-- } END { print m + 0 }' "$TRACE")
width=$(($(nproc) + 1))
if [ "$(head -n 2 "$TRACE" | tr '\n' ' ')" = "start s end s " ] && [ "$(tail -n 2 "$TRACE" | tr '\n' ' ')" = "start p end p " ] &&
    [ "$most" -ge 2 ] && [ "$most" -le "$width" ]; then
    pass "# timed: after the serial ones, at most $width at a time ($most here), before the others"
else fail "# timed: after the serial ones, at most $width at a time, before the others" "$(tr '\n' ' ' <"$TRACE")"; fi

# raised NAME ERE: as root, the trace has a line ERE (a niceness raised back
# to the tests'); elsewhere SKIP, since raising a priority takes root.
raised() {
    if [ "$(id -u)" = 0 ]; then file_has "$1" "$TRACE" "$2"
    else skip "$1" "not root: raising a priority takes root"; fi
}

# HSMBENCH_TEST_BUILD (make check): the other builds made at nice 19 beside
# the plain build's serial and timed jobs; their timed and serial ones (a
# sanitizer build's serial ones are timed) run once it has ended, the
# parallel ones last; the first job to wait for it raised it to the tests'
# priority.  A fake build here: it notes its niceness, waits for its raise
# (as root), then makes build/asan from build/.
W6="$T/tree6"
mkdir -p "$W6/tests/e2e" "$W6/tests/unit" "$W6/build/tests"
cp "$TOP/tests/run.sh" "$W6/tests/run.sh"
# The plain serial job notes the build's niceness as ps sees it (5 s at
# most for it to be 19): the build's own note comes whenever it gets a
# core, and beside a busy loop a nice 19 shell got none until it was raised.
printf '# serial: a fake\n# asan: yes (a fake)\necho "start s $VARIANT" >>"$TRACE"\nif [ "$VARIANT" = plain ]; then i=0; while :; do ni=$(ps -o ni= -p "$(pgrep -o -f "^(nice -n 19 )?sh -c echo .build nice")" 2>/dev/null | tr -d " "); [ "$ni" = 19 ] || [ $i -ge 50 ] && break; sleep 0.1; i=$((i + 1)); done; echo "s sees build nice $ni" >>"$TRACE"; fi\nsleep 0.5\necho "PASS s"\n' >"$W6/tests/e2e/test_s.sh"
printf '# timed: a fake\n# asan: yes (a fake)\necho "start t $VARIANT" >>"$TRACE"\nsleep 0.5\necho "PASS t"\n' >"$W6/tests/e2e/test_t.sh"
printf '# asan: yes (a fake)\necho "start p $VARIANT" >>"$TRACE"\necho "PASS p"\n' >"$W6/tests/e2e/test_p.sh"
printf '#!/bin/sh\necho "PASS u1"\n' >"$W6/build/tests/test_u"
printf '#!/bin/sh\necho "PASS v1"\n' >"$W6/build/tests/test_v"
chmod +x "$W6/build/tests/test_u" "$W6/build/tests/test_v"
# test_u starts threads (it says so); test_v does not, and has no TSan run.
printf '/*\n * tsan: yes (a fake)\n */\n' >"$W6/tests/unit/test_u.c"
printf '/*\n * a fake with one thread\n */\n' >"$W6/tests/unit/test_v.c"
# (the build ends once the plain timed job has started and, as root, once
# it has been raised to niceness 0: 30 s at most each)
FAKE_BUILD='echo "build nice $(nice)" >>"$TRACE"; i=0; until grep -q "^start t plain" "$TRACE" || [ $i -ge 300 ]; do sleep 0.1; i=$((i + 1)); done; i=0; until [ "$(id -u)" != 0 ] || [ "$(nice)" = 0 ] || [ $i -ge 300 ]; do sleep 0.1; i=$((i + 1)); done; for v in asan tsan; do mkdir -p build/$v/tests && cp build/tests/test_u build/tests/test_v build/$v/tests/ && : >build/$v/hsmbench && chmod +x build/$v/hsmbench; done; echo "build end nice $(nice)" >>"$TRACE"'
: >"$TRACE"
run env HSMBENCH_TEST_BUILD="$FAKE_BUILD" sh "$W6/tests/run.sh"
# the trace: the build's niceness and the plain s and t in any order, then
# the build's end, then t and s under ASan in any order, then p in both builds
order=$(awk '/^s sees/ { next } /^build nice/ || /^start [st] plain/ { a++; next } /^build end/ { print (a == 3 ? "pre-ok" : "pre-" a); next } /^start [st] asan/ { print "start st asan"; next } { print }' "$TRACE" | tr '\n' ' ')
case $order in "pre-ok start st asan start st asan start p "*) order_ok=$(grep -c '^start p' "$TRACE") ;; *) order_ok=0 ;; esac
if [ "$order_ok" = 2 ] && grep -q '^s sees build nice 19$' "$TRACE" &&
    grep -q '^PASS \[asan\] test_u:u1$' "$T/out" && grep -q '^PASS \[tsan\] test_u:u1$' "$T/out"; then
    pass "HSMBENCH_TEST_BUILD: built at nice 19 beside the plain serial and timed jobs; the others after it"
else fail "HSMBENCH_TEST_BUILD: built at nice 19 beside the plain serial and timed jobs; the others after it" \
    "trace: $(tr '\n' ' ' <"$TRACE"); $(grep '^\(PASS\|FAIL\)' "$T/out" | tr '\n' ' ')"; fi
raised "HSMBENCH_TEST_BUILD: a job that waits for the build raises it to the tests' priority" '^build end nice 0$'
if grep -q '^PASS \[asan\] test_v:v1$' "$T/out" && ! grep -q '\[tsan\] test_v' "$T/out"; then
    pass "a unit test without a line ' * tsan: yes (why)' runs under ASan, not TSan"
else fail "a unit test without a line ' * tsan: yes (why)' runs under ASan, not TSan" "$(grep 'test_v' "$T/out" | tr '\n' ' ')"; fi
# (its fake build made no fuzzers: that is a FAIL, never a silent nothing)
if grep -q '^FAIL \[fuzz\] build: build/fuzz/fuzzers is missing (make fuzz-build)$' "$T/out"; then
    pass "HSMBENCH_TEST_BUILD: no fuzzers after the build is a FAIL naming them"
else fail "HSMBENCH_TEST_BUILD: no fuzzers after the build is a FAIL naming them" "$(grep '^FAIL' "$T/out" | tr '\n' ' ')"; fi
rm -rf "$W6/build/asan" "$W6/build/tsan"
run env HSMBENCH_TEST_BUILD='echo "a compiler error"; exit 3' sh "$W6/tests/run.sh"
if [ "$rc" = 1 ] && grep -q '^FAIL \[asan\] test_s: not run: the build failed (exit 3: ' "$T/out" &&
    grep -q '^FAIL \[tsan\] test_u: not run: the build failed' "$T/out" && grep -q '^PASS \[plain\] test_s:s$' "$T/out" &&
    grep -q 'a compiler error' "$T/err" && ! grep -q '^PASS \[asan\]' "$T/out"; then
    pass "HSMBENCH_TEST_BUILD failing: its last lines shown, each job of those builds a FAIL naming it, exit 1"
else fail "HSMBENCH_TEST_BUILD failing: its last lines shown, each job of those builds a FAIL naming it, exit 1" \
    "exit $rc; $(grep '^\(PASS\|FAIL\)' "$T/out" | tr '\n' ' '); stderr: $(head -c 300 "$T/err")"; fi

# "# early:": beside the timed jobs (after the serial ones), at nice 19; once
# the timed queue has ended, no new early job, and the one running raised to
# the tests' priority (as root); each job run once, with SIGINT not ignored.  e1 and e2 start at once
# (a lane as wide as the processors: the timed job waits for both, 30 s at
# most, since a lane at nice 19 beside a busy loop may take seconds to get a
# core), e2 outlasting the timed job.
W7="$T/tree7"
mkdir -p "$W7/tests/e2e" "$W7/build/tests"
cp "$TOP/tests/run.sh" "$W7/tests/run.sh"
printf '# serial: a fake\necho "start s" >>"$TRACE"\nsleep 0.5\necho "end s" >>"$TRACE"\necho "PASS s"\n' >"$W7/tests/e2e/test_s.sh"
printf '# timed: a fake\necho "start t" >>"$TRACE"\ni=0; until [ "$(grep -c "^start e[12]" "$TRACE")" -ge 2 ] || [ $i -ge 300 ]; do sleep 0.1; i=$((i + 1)); done; sleep 1\necho "end t" >>"$TRACE"\necho "PASS t"\n' >"$W7/tests/e2e/test_t.sh"
printf '# early: a fake\necho "start e1 nice $(nice)" >>"$TRACE"\nm=$(sed -n "s/^SigIgn:[[:space:]]*//p" /proc/$$/status); d=${m#"${m%%?}"}\nif [ $((0x$d & 2)) = 0 ]; then echo "PASS e1"; else echo "FAIL e1: SigIgn $m, SIGINT ignored"; fi\n' >"$W7/tests/e2e/test_e1.sh"
printf '# early: a fake\necho "start e2 nice $(nice)" >>"$TRACE"\ni=0; until grep -q "^end t" "$TRACE" || [ $i -ge 100 ]; do sleep 0.1; i=$((i + 1)); done; sleep 1\necho "end e2 nice $(nice)" >>"$TRACE"\necho "PASS e2"\n' >"$W7/tests/e2e/test_e2.sh"
printf '# early: a fake\necho "start e3 nice $(nice)" >>"$TRACE"\necho "PASS e3"\n' >"$W7/tests/e2e/test_e3.sh"
printf 'echo "start p" >>"$TRACE"\necho "PASS p"\n' >"$W7/tests/e2e/test_p.sh"
: >"$TRACE"
run sh "$W7/tests/run.sh"
# e1 and e2 after s and before t's end at nice 19, p after t; each PASS once
# (not root: no lane, and e1 and e2 run with p)
lane=$(awk '/^start s/ { s = NR } /^end s/ { es = NR } /^end t/ { et = NR } /^start p/ { p = NR }
    /^start e[12] nice 19$/ { e[++n] = NR }
    END { print (n == 2 && e[1] > es && e[2] < et && p > et ? "ok" : "no") }' "$TRACE")
once=1
for x in s t e1 e2 e3 p; do
    [ "$(grep -c "^PASS \[plain\] test_$x:$x\$" "$T/out")" = 1 ] || once=0
done
if [ "$(id -u)" != 0 ]; then
    if [ "$once" = 1 ] && ! grep -q 'nice 19' "$TRACE"; then
        pass "# early, not root: no lane, the early jobs run with the others, each once"
    else fail "# early, not root: no lane, the early jobs run with the others, each once" "$(tr '\n' ' ' <"$TRACE")"; fi
elif [ "$lane" = ok ] && [ "$once" = 1 ]; then
    pass "# early: beside the timed jobs at nice 19, after the serial ones; each job run once, SIGINT not ignored"
else fail "# early: beside the timed jobs at nice 19, after the serial ones; each job run once, SIGINT not ignored" \
    "trace: $(tr '\n' ' ' <"$TRACE"); $(grep '^\(PASS\|FAIL\)' "$T/out" | tr '\n' ' ')"; fi
raised "# early: a job still running when the timed queue ends is raised to the tests' priority" '^end e2 nice 0$'

# Spare workers: with HSMBENCH_TEST_JOBS=2, a third job runs beside two
# that only wait once the processors sat idle (a fake /proc/stat,
# HSMBENCH_TEST_PROC_STAT, rewritten every 0.2 s), and never while they are
# all busy (the third starts only once one has ended).  Each fake waits
# until three have started (WAIT tenths at most).
W8="$T/tree8"
mkdir -p "$W8/tests/e2e" "$W8/build/tests"
cp "$TOP/tests/run.sh" "$W8/tests/run.sh"
for x in q1 q2 q3; do
    printf 'echo "start %s" >>"$TRACE"\ni=0; until [ "$(grep -c "^start" "$TRACE")" -ge 3 ] || [ $i -ge "$WAIT" ]; do sleep 0.1; i=$((i + 1)); done\necho "saw %s $(grep -c "^start" "$TRACE")" >>"$TRACE"\necho "PASS %s"\n' \
        $x $x $x >"$W8/tests/e2e/test_$x.sh"
done
# fake_stat IDLE: a machine whose processors are all idle (1) or all busy (0)
fake_stat() {
    (i=0; while [ -e "$T/stat.on" ]; do
        i=$((i + 100))
        if [ "$1" = 1 ]; then echo "cpu 0 0 0 $i 0 0 0 0 0 0"; else echo "cpu $i 0 0 0 0 0 0 0 0 0"; fi >"$T/stat.new"
        mv "$T/stat.new" "$T/stat"
        sleep 0.2
    done) &
    statp=$!
}
: >"$T/stat.on"
fake_stat 1
: >"$TRACE"
run env HSMBENCH_TEST_JOBS=2 HSMBENCH_TEST_PROC_STAT="$T/stat" WAIT=300 sh "$W8/tests/run.sh"
rm -f "$T/stat.on"; wait "$statp"
if [ "$(head -n 3 "$TRACE" | grep -c '^start q')" = 3 ] && [ "$(grep -c '^PASS ' "$T/out")" = 3 ]; then
    pass "spare workers: on idle processors a third job runs beside two that wait (HSMBENCH_TEST_JOBS=2)"
else fail "spare workers: on idle processors a third job runs beside two that wait (HSMBENCH_TEST_JOBS=2)" \
    "$(tr '\n' ' ' <"$TRACE")"; fi
: >"$T/stat.on"
fake_stat 0
: >"$TRACE"
run env HSMBENCH_TEST_JOBS=2 HSMBENCH_TEST_PROC_STAT="$T/stat" WAIT=30 sh "$W8/tests/run.sh"
rm -f "$T/stat.on"; wait "$statp"
if [ "$(sed -n 3p "$TRACE")" != "$(grep '^start q' "$TRACE" | sed -n 3p)" ] && [ "$(grep -c '^PASS ' "$T/out")" = 3 ]; then
    pass "spare workers: on busy processors no job beyond HSMBENCH_TEST_JOBS, every job run once"
else fail "spare workers: on busy processors no job beyond HSMBENCH_TEST_JOBS, every job run once" \
    "$(tr '\n' ' ' <"$TRACE")"; fi
run env HSMBENCH_TEST_SPARE=two sh "$W8/tests/run.sh"
check "HSMBENCH_TEST_SPARE='two': exit 2, one line" 2 '' '^tests/run.sh: HSMBENCH_TEST_SPARE=two: expected a number'

# ---- python3: the interpreter itself, not a shim in front of it ----------------
# A shim first on the PATH, as a version manager's is (pyenv's costs 0.4 s
# of CPU a start), notes each start: the runner finds the interpreter
# through it once, and the script's own two starts go to the interpreter.
W3="$T/tree3"
mkdir -p "$W3/tests/e2e" "$W3/build/tests" "$T/shim"
cp "$TOP/tests/run.sh" "$W3/tests/run.sh"
printf '#!/bin/sh\necho start >>"%s"\nexec "%s" "$@"\n' "$T/shim.calls" \
    "$(python3 -c 'import sys; print(sys.executable)')" >"$T/shim/python3"
chmod +x "$T/shim/python3"
cat >"$W3/tests/e2e/test_y.sh" <<'EOF'
python3 -c 'print("PASS y1")'
python3 -c 'print("PASS y2")'
EOF
: >"$T/shim.calls"
run env PATH="$T/shim:$PATH" sh "$W3/tests/run.sh" --only test_y
calls=$(wc -l <"$T/shim.calls")
if [ "$rc" -eq 0 ] && [ "$(grep -c '^PASS \[plain\] test_y:y[12]$' "$T/out")" = 2 ] && [ "$calls" -le 1 ]; then
    pass "python3: the scripts start the interpreter itself, not a shim first on the PATH"
else fail "python3: the scripts start the interpreter itself, not a shim first on the PATH" \
    "exit $rc, the shim started $calls times: $(tr '\n' ' ' <"$T/out" | head -c 200)"; fi

# ---- HSMBENCH_TEST_LOAD (make check-load): a busy loop beside the run ----------
# The fake script lists the processes while it runs; the runner names its
# busy loop on stderr.  The loop must run beside the script and be gone once
# the runner is, whether it ended, or was killed outright (no trap runs).
printf 'ps -eo pid=,args= >"$TRACE.ps"\nsleep "${LOAD_SLEEP:-0}"\necho "PASS l1"\n' >"$W2/tests/e2e/test_l.sh"
hog_pid() { sed -n 's/^tests\/run.sh: HSMBENCH_TEST_LOAD: a busy loop (pid \([0-9]*\)) beside the run$/\1/p' "$1"; }
gone() {    # gone PID: true once PID has ended (at most 5 s)
    g=0
    while kill -0 "$1" 2>/dev/null && [ $g -lt 50 ]; do sleep 0.1; g=$((g + 1)); done
    ! kill -0 "$1" 2>/dev/null
}
run env HSMBENCH_TEST_LOAD=1 sh "$W2/tests/run.sh" --only test_l
hog=$(hog_pid "$T/err")
if [ "$rc" -eq 0 ] && [ -n "$hog" ] && grep -Eq "^ *$hog sh -c while :; do :; done$" "$TRACE.ps" && gone "$hog"; then
    pass "HSMBENCH_TEST_LOAD=1: one busy loop beside the script, gone when the runner ends"
else fail "HSMBENCH_TEST_LOAD=1: one busy loop beside the script, gone when the runner ends" \
    "exit $rc, pid '$hog': $(grep -F 'while :' "$TRACE.ps" | tr '\n' ' ')"; fi
LOAD_SLEEP=5 HSMBENCH_TEST_LOAD=1 sh "$W2/tests/run.sh" --only test_l >/dev/null 2>"$T/load.err" &
runner=$!
i=0
until [ -n "$(hog_pid "$T/load.err")" ] || [ $i -ge 100 ]; do sleep 0.1; i=$((i + 1)); done
hog=$(hog_pid "$T/load.err")
kill -KILL "$runner" 2>/dev/null
wait "$runner" 2>/dev/null
if [ -n "$hog" ] && gone "$hog"; then pass "HSMBENCH_TEST_LOAD=1: the busy loop ends when the runner is killed outright"
else fail "HSMBENCH_TEST_LOAD=1: the busy loop ends when the runner is killed outright" "pid '$hog' still there"
    [ -n "$hog" ] && kill "$hog" 2>/dev/null
fi

run env HSMBENCH_TEST_TIMES=1 sh "$W/tests/run.sh" --only test_a
check "--only test_a: exit 0, HSMBENCH_TEST_TIMES adds a time line (wall and CPU time, start and end in the run)" 0 '^time \[plain\] test_a: [0-9]+\.[0-9] s, cpu [0-9]+\.[0-9] s, from [0-9]+ s to [0-9]+ s$'
[ "$(last_line)" = "2 passed, 0 failed, 0 skipped" ] && pass "--only test_a: the time line is not a result" ||
    fail "--only test_a: the time line is not a result" "'$(last_line)'"
run sh "$W/tests/run.sh" --only test_b
check "--only test_b (a FAIL line): exit 1" 1 '^0 passed, 1 failed, 0 skipped$'
run sh "$W/tests/run.sh" --only test_ub
check "--only test_ub (a unit test that exits 3 after its PASS): exit 1" 1 '^1 passed, 1 failed, 0 skipped$'
for j in 0 two -1; do
    run env HSMBENCH_TEST_JOBS=$j sh "$W/tests/run.sh" --only test_a
    check "HSMBENCH_TEST_JOBS='$j': exit 2, one line" 2 '' '^tests/run.sh: HSMBENCH_TEST_JOBS='
done

# ---- skips: counted apart, never as passes; under CI=true they fail the run ----
# only_skips NAME ARGS: run.sh --only ARGS in the scratch tree, then check
# the exit status and that the last line is the three counts given.
only_skips() {
    name=$1 want_rc=$2 want_last=$3
    shift 3
    run env "$@" sh "$W/tests/run.sh" --only "$name"
    if [ "$rc" -eq "$want_rc" ] && [ "$(last_line)" = "$want_last" ]; then return 0; fi
    echo "exit $rc (wanted $want_rc), last line '$(last_line)' (wanted '$want_last')"
    return 1
}
why=$(only_skips test_s 0 "1 passed, 0 failed, 1 skipped") &&
    grep -qx 'SKIP \[plain\] test_s:s2: no widget here' "$T/out" && ! grep -q '^PASS .*s2' "$T/out" &&
    pass "an e2e SKIP line is counted as skipped, not passed: exit 0, '1 passed, 0 failed, 1 skipped'" ||
    fail "an e2e SKIP line is counted as skipped, not passed" "${why:-$(head -c 300 "$T/out" | tr '\n' ' ')}"
why=$(only_skips test_uc 0 "1 passed, 0 failed, 1 skipped") &&
    grep -qx 'SKIP \[plain\] test_uc:w1: no pseudo-terminal' "$T/out" &&
    pass "a unit test's SKIP line is counted as skipped: exit 0" ||
    fail "a unit test's SKIP line is counted as skipped" "${why:-$(head -c 300 "$T/out" | tr '\n' ' ')}"
why=$(only_skips test_t 0 "0 passed, 0 failed, 1 skipped") &&
    pass "a script with nothing but a skip: exit 0 outside CI" || fail "a script with nothing but a skip: exit 0 outside CI" "$why"
why=$(only_skips test_s 1 "1 passed, 0 failed, 1 skipped" CI=true) &&
    grep -q '^CI=true: 1 skipped, and CI must skip nothing' "$T/out" &&
    pass "CI=true: a skip makes the exit status non-zero, and says why" ||
    fail "CI=true: a skip makes the exit status non-zero, and says why" "${why:-$(tail -n 3 "$T/out" | tr '\n' ' ')}"
why=$(only_skips test_t 1 "0 passed, 0 failed, 1 skipped" CI=true) &&
    pass "CI=true: nothing but a skip: exit 1" || fail "CI=true: nothing but a skip: exit 1" "$why"
why=$(only_skips test_a 0 "2 passed, 0 failed, 0 skipped" CI=true) &&
    pass "CI=true without a skip: exit 0" || fail "CI=true without a skip: exit 0" "$why"
run env CI=true sh "$W/tests/run.sh"
[ "$rc" -eq 1 ] && [ "$(last_line)" = "9 passed, 7 failed, 3 skipped" ] &&
    pass "CI=true, whole suite: the closing line has the three counts" ||
    fail "CI=true, whole suite: the closing line has the three counts" "exit $rc, '$(last_line)'"
# The recap above the count names every failure and, under CI, every skip.
if [ "$(sed -n '/^skipped:$/,/^CI=true: /p' "$T/out" | sed '1d;$d' | tr '\n' '|')" = \
    'SKIP [plain] test_uc:w1: no pseudo-terminal|SKIP [plain] test_s:s2: no widget here|SKIP [plain] test_t:t1: no gadget here|' ] &&
    [ "$(sed -n '/^failed:$/,/^skipped:$/p' "$T/out" | grep -c '^FAIL ')" -eq 7 ]; then
    pass "CI=true, whole suite: the last lines repeat the 7 FAIL and the 3 SKIP lines"
else fail "CI=true, whole suite: the last lines repeat the 7 FAIL and the 3 SKIP lines" "$(tail -n 14 "$T/out" | tr '\n' '|')"; fi

# ---- start_serve (test_rest_lib.sh): a server lives as long as its script --------
# A fixed --max-seconds 120 ended servers while a ThreadSanitizer build's
# script still used them on a busy machine (test_rest_http, 150 s and more);
# now the script's end ends its server, even a script killed outright.
cat >"$T/srvscript.sh" <<'EOF'
. "$TOP/tests/e2e/lib.sh"
REST_LIB_SOURCE=1 . "$TOP/tests/e2e/test_rest_lib.sh"
start_serve s || exit 1
tr '\0' ' ' <"/proc/$(cat "$T/s.pid")/cmdline" >"$SRVPID.cmdline"
cat "$T/s.pid" >"$SRVPID"
sleep 20
EOF
mkdir -p "$T/srvtmp"
TMPDIR="$T/srvtmp" SRVPID="$T/srv.pid" sh "$T/srvscript.sh" >"$T/srv.out" 2>&1 &
sp=$!
i=0
until [ -s "$T/srv.pid" ] || [ $i -ge 300 ]; do sleep 0.1; i=$((i + 1)); done
spid=$(cat "$T/srv.pid" 2>/dev/null)
kill -KILL "$sp" 2>/dev/null
wait "$sp" 2>/dev/null
if [ -n "$spid" ] && gone "$spid"; then
    pass "start_serve: the server ends within seconds of its script killed outright"
else fail "start_serve: the server ends within seconds of its script killed outright" \
    "pid '$spid' still there: $(head -c 300 "$T/srv.out")"
    [ -n "$spid" ] && kill "$spid" 2>/dev/null
fi
if grep -q -- '--max-seconds 1800 ' "$T/srv.pid.cmdline" 2>/dev/null; then
    pass "start_serve: no fixed lifetime shorter than a sanitizer build's script (--max-seconds 1800, a net)"
else fail "start_serve: no fixed lifetime shorter than a sanitizer build's script" "$(cat "$T/srv.pid.cmdline" 2>/dev/null)"; fi

# A script that stops its server and then waits for its own background
# jobs ("wait", as test_model does) ends: the watcher that ends the server
# with the script is not one of them (as a child of the script it held
# such a script for ever, once it no longer ended with the server).
cat >"$T/waitscript.sh" <<'EOF'
. "$TOP/tests/e2e/lib.sh"
REST_LIB_SOURCE=1 . "$TOP/tests/e2e/test_rest_lib.sh"
start_serve w || exit 1
stop_serve w
sleep 0.2 &
wait
echo "waited"
EOF
run timeout 30 sh "$T/waitscript.sh"
check "start_serve, stop_serve, then a bare wait: the script ends" 0 '^waited$'

# lib.sh's skip prints the line the runner counts.
out=$(skip "a check" "no widget")
[ "$out" = "SKIP a check: no widget" ] && pass "lib.sh: skip NAME WHY prints 'SKIP NAME: WHY'" ||
    fail "lib.sh: skip NAME WHY prints 'SKIP NAME: WHY'" "'$out'"

# check.h's SKIP, compiled: a skipped case prints SKIP and no PASS, returns
# from the case (what follows is not checked), leaves the exit status 0;
# a case that failed before its SKIP stays failed.
cat >"$T/skipcase.c" <<'C'
#include "tests/unit/check.h"
static int after_skip;
static void test_ok(void) { CHECK(1); }
static void test_skipped(void) { SKIP("no %s here", "widget"); after_skip = 1; CHECK(0); }
static void test_failed_then_skipped(void) { CHECK(0); SKIP("too late"); }
int main(int argc, char **argv)
{
    (void)argv;
    RUN(test_ok);
    RUN(test_skipped);
    if (argc > 1)
        RUN(test_failed_then_skipped);
    return after_skip ? 2 : check_finish();
}
C
if ${CC:-cc} -std=c11 -Wall -Wextra -Werror -I"$TOP" -o "$T/skipcase" "$T/skipcase.c" 2>"$T/cc.err"; then
    "$T/skipcase" >"$T/skip1.out"
    r1=$?
    "$T/skipcase" x >"$T/skip2.out"
    r2=$?
    printf 'PASS test_ok\nSKIP test_skipped: no widget here\n' >"$T/skip1.want"
    if [ "$r1" -eq 0 ] && cmp -s "$T/skip1.want" "$T/skip1.out"; then
        pass "check.h: SKIP(...) prints 'SKIP case: why', no PASS, returns; exit 0"
    else fail "check.h: SKIP(...) prints 'SKIP case: why', no PASS, returns; exit 0" "exit $r1: $(tr '\n' '|' <"$T/skip1.out")"; fi
    if [ "$r2" -eq 1 ] && grep -q '^FAIL test_failed_then_skipped: ' "$T/skip2.out" &&
        ! grep -q 'too late' "$T/skip2.out"; then
        pass "check.h: a case that failed before its SKIP stays failed (exit 1)"
    else fail "check.h: a case that failed before its SKIP stays failed (exit 1)" "exit $r2: $(tr '\n' '|' <"$T/skip2.out")"; fi
else
    fail "check.h: a case with SKIP compiles (-Wall -Wextra -Werror)" "$(head -c 300 "$T/cc.err")"
fi
