#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/run.sh - the whole suite, as `make check` runs it.
#
# Three builds, one runner:
#   build/       unit tests and every end-to-end script
#   build/asan   unit tests, and the e2e scripts marked "# asan: yes (why)",
#                under AddressSanitizer + UndefinedBehaviorSanitizer
#   build/tsan   the threaded core (the unit tests whose header comment has
#                a line " * tsan: yes (why)", and the e2e scripts marked
#                "# tsan: yes (why)") under ThreadSanitizer
# A sanitizer run of an e2e script earns its place by what it can find that
# the plain run cannot.  The rule for "# asan: yes": the script drives, in
# the real binary, code that handles memory the input or the timing decides
# (bytes from a server, a module, a recording or a results file; buffers
# sized by what a module or server answers; threads, slots and transfers
# torn down mid-flight by stops, signals, stuck calls), and no unit test or
# fuzzer already runs that code under ASan.  A script that checks documents,
# packaging, the option table, usage errors, output text or timing, or that
# reaches only code a tagged script, a unit test or a fuzzer runs under
# ASan, runs in the plain build alone: there a sanitizer would find nothing
# new, and each such run cost a sanitizer build's three to ten times the
# plain one's time.  The unit tests and fuzzers always run under ASan.
# The rule for "# tsan: yes (why)": the script runs, in the real binary,
# threads that share state (counters the workers write and another thread
# reads, a session or token one worker renews for all, a stop or a signal
# reaching workers mid-call) that no unit test and no other tagged script
# runs the same way; a script whose threads another tagged script already
# drives, that runs one thread, or that checks what is written after the
# workers end, says "# tsan: no (why)".  The why names the shared state or
# the script that covers it.  A unit test earns its TSan run the same way,
# by threads that share state: strace -f -e trace=clone,clone3 shows that
# 29 of the 39 start none, and test_heap's compares nothing under a
# sanitizer's allocator.
# Then the libFuzzer harnesses (build/fuzz/fuzzers, make fuzz-build), each
# over its seed corpus and then briefly (FUZZ_CHECK_SECONDS, default 3).
# Every check prints "PASS name", "FAIL name: why", or "SKIP name: why" when
# this machine lacks what it needs (chromium, tmux, an IPv6 loopback, root:
# lib.sh's skip, check.h's SKIP); a skip is never a PASS.  The last line is
# "N passed, N failed, N skipped", just below a recap of every FAIL line (and
# under CI every SKIP line), and the exit status is non-zero when
# anything failed, or nothing ran at all.  Skips alone do not fail a run here,
# but under CI (CI=true, as .ci/run runs) every skip fails it: CI installs
# everything the tests need (ci/install-deps.sh), so a skip there is a check
# that proved nothing.  A check that does not apply to a build variant (the
# browser in a sanitizer build, say) is not run there and prints nothing.
#
# Each test file of each variant is one job: a unit-test binary, an e2e
# script, or the fuzzers.  HSMBENCH_TEST_JOBS (default: twice the number
# of processors plus one, since most scripts spend their time waiting on
# servers and timers: measured with HSMBENCH_TEST_TIMES beside a busy
# loop, the jobs' CPU came to a third of their wall time, 2 497 s in
# 7 900 s, and about half that CPU once python3 was found once, below)
# jobs run at a time, each with its output collected in
# its own file; a job's lines are printed whole, in a fixed order (the
# order the jobs start in), once it and the jobs before it have finished.
#
# The jobs marked serial run first, one at a time, with no other test
# running: an e2e script with a line starting "# serial:", a unit test whose
# header comment has a line starting " * serial:" (the rest of the line says
# why: a figure other jobs' bursts on the cores move past any margin, a p99
# of 1-2 ms, a knee from how throughput grows with threads).  Then the timed
# ones, an e2e script with a line "# timed: why" (it asserts rates or
# latencies against delays the mock or serve injects, with margins that hold
# beside a busy loop), a few at a time (one more than the processors) and
# beside no other test.  Mark a new test timed when it times anything.  A
# script whose timed sections run in the plain build alone (all_cases) adds
# "# serial-variants: plain", and its sanitizer runs go beside the others;
# a sanitizer build's serial unit tests are timed jobs (their margins are
# the sanitizer's).  Beside the timed ones, on the cores they leave, an
# early lane at nice 19 runs the scripts marked "# early: why", the unit
# tests whose header comment has a line " * early: why" (no check depends on
# the cores they get) and the fuzzers.  Spare workers run more of the others
# while the processors idle (HSMBENCH_TEST_SPARE, below).  Every other e2e script runs beside others: it
# keeps its files under lib.sh's $T and listens on port 0 (never on a port
# chosen in advance).  A script that stops on a shell error (exit status 2
# or more: a syntax error, a signal), or exits 1 without a result line, has
# failed.
#
# HSMBENCH_TEST_BUILD (make check sets it) is a command that builds the
# sanitizer and fuzz builds: the runner starts it at the lowest priority
# (nice 19) beside the plain build's serial and timed jobs, whose cores are
# mostly idle.  A nice 19 compiler yields a core at once to any
# job that wants it, and these jobs hold beside a busy loop at the runner's
# own priority (make check-load).  The other builds' timed jobs join the timed queue,
# after the plain build's, each waiting for the build to end (the first to
# wait raises the build to the tests' priority).  When the build fails, its last lines are
# printed and each job of those builds is a FAIL naming it.
#
# HSMBENCH_TEST_SPARE (default: the number of processors) spare workers run
# one more of the others each while the processors sat idle (see below); 0:
# none.  HSMBENCH_TEST_JOBS=1 runs everything one at a time; HSMBENCH_TEST_TIMES=1
# adds a line "time [variant] name: S s, cpu C s, from A s to B s" after
# each job's results (its wall time, its processes' CPU time, and when it
# started and ended in the run; not counted as a result).
#
#   sh tests/run.sh --only NAME [VARIANT]   one test file alone: a unit test
#       (test_pool) or an e2e script (test_catalog or tests/e2e/test_catalog.sh),
#       both when both have the name (test_rest), in the plain build unless VARIANT (asan, tsan) says otherwise
#       (make check-one T=NAME [V=VARIANT]).
#   sh tests/run.sh --job DIR N             (internal) run job N of DIR.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2

export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:exitcode=86:allocator_may_return_null=1"
export LSAN_OPTIONS="suppressions=$top/tests/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:exitcode=87"
export TSAN_OPTIONS="halt_on_error=1:exitcode=88:second_deadlock_stack=1"

# unit VARIANT DIR NAME: one unit-test binary, DIR/tests/NAME.
unit() {
    variant=$1 dir=$2 name=$3
    NULLP11_PATH="$dir/libhsmbench-null.so" MOCKHSM_PATH="$dir/libhsmbench-mock.so" \
        "$dir/tests/$name" >"$work/out" 2>"$work/err" </dev/null
    rc=$?
    sed -n "s/^\(PASS\|FAIL\|SKIP\) /\1 [$variant] $name:/p" "$work/out"
    if [ $rc -ne 0 ] && ! grep -q '^FAIL' "$work/out"; then
        echo "FAIL [$variant] $name: exited $rc: $(tail -n 3 "$work/err" | tr '\n' ' ')"
    fi
}

# e2e VARIANT DIR NAME: one end-to-end script, tests/e2e/NAME.sh.  Its
# output goes through a pipe, so the job also waits for anything the script
# left running in the background that still holds it.  A script that
# stopped on a shell error (status 2 and up: a syntax error, a missing file,
# a signal), or exited 1 without a result line, failed; one that exits 0
# without a result has nothing to check here (test_docs.sh outside plain).
e2e() {
    variant=$1 dir=$2 name=$3
    { HSMBENCH="$top/$dir/hsmbench" NULLP11="$top/$dir/libhsmbench-null.so" \
          VARIANT="$variant" TOP="$top" sh "tests/e2e/$name.sh" </dev/null 2>&1
      echo $? >"$work/rc"; } | cat >"$work/out"
    rc=$(cat "$work/rc")
    sed -n "s/^\(PASS\|FAIL\|SKIP\) /\1 [$variant] $name:/p" "$work/out"
    if [ "$rc" -ge 2 ] || { [ "$rc" -ne 0 ] && ! grep -q '^\(PASS\|FAIL\|SKIP\) ' "$work/out"; }; then
        echo "FAIL [$variant] $name: exited $rc: $(grep -v '^\(PASS\|FAIL\|SKIP\) ' "$work/out" | tail -n 3 | tr '\n' ' ')"
    fi
}

# The fuzzers: tests/fuzz/run.sh prints a PASS or FAIL line per harness.
fuzz() {
    sh tests/fuzz/run.sh build/fuzz/fuzzers "${FUZZ_CHECK_SECONDS:-3}" </dev/null 2>&1
}

# renice_tree PID NICE: PID and every process under it to niceness NICE,
# parents first, so that a child forked meanwhile inherits the new value.
# Raising a priority takes root (CI's case); elsewhere it changes nothing.
renice_tree() {
    renice -n "$2" -p "$1" >/dev/null 2>&1 || return 0
    for child in $(pgrep -P "$1" 2>/dev/null); do
        renice_tree "$child" "$2"
    done
}

# ms: the time in milliseconds (for HSMBENCH_TEST_TIMES).
ms() {
    t=$(date +%s%N)
    echo $((t / 1000000))
}

# --job DIR N: job N of the plan in DIR ("KIND VARIANT BUILD NAME" in
# DIR/N.job); its lines go to DIR/N.out, and DIR/N.done marks it finished.
if [ "${1:-}" = --job ]; then
    log=$2 n=$3
    # A job runs once: the early lane and the last queue (below) may both
    # reach it, and the first to make its claim runs it.
    mkdir "$log/$n.claim" 2>/dev/null || exit 0
    work="$log/$n.d"
    mkdir -p "$work" || exit 2
    read -r kind variant dir name <"$log/$n.job"
    # A build being made beside the tests (HSMBENCH_TEST_BUILD): wait for it
    # (an hour at most), and fail if it failed.  A job that waits for it
    # first raises it to the tests' priority: a test now waits on it.
    if [ "$variant" != plain ] && [ -e "$log/build.cmd" ]; then
        [ -e "$log/build.rc" ] || renice_tree "$(cat "$log/build.pid")" 0
        i=0
        while [ ! -e "$log/build.rc" ] && [ $i -lt 7200 ]; do
            sleep 0.5
            i=$((i + 1))
        done
        brc=timeout
        [ -e "$log/build.rc" ] && read -r brc _ <"$log/build.rc"
        [ "$brc" = 0 ] || kind=fail name="$name: not run: the build failed (exit $brc: $(cat "$log/build.cmd"))"
    fi
    t0=$(ms)
    case $kind in
    unit) unit "$variant" "$dir" "$name" ;;
    e2e) e2e "$variant" "$dir" "$name" ;;
    fuzz)
        if ls build/fuzz/fuzzers/fuzz_* >/dev/null 2>&1; then fuzz
        else echo "FAIL [fuzz] build: build/fuzz/fuzzers is missing (make fuzz-build)"; fi
        ;;
    *) echo "FAIL [$variant] $name" ;;   # a FAIL line the plan wrote itself
    esac >"$log/$n.out" 2>&1
    if [ -n "${HSMBENCH_TEST_TIMES:-}" ]; then
        t1=$(ms)
        # times' second line: the CPU time of this job's children, user
        # then system ("0m1.250s 0m0.310s").
        # (times itself in this shell: in a subshell it would see none.)
        times >"$log/$n.times"
        cpu=$(sed -n '2{s/[ms]/ /g;p}' "$log/$n.times" | awk '{printf "%.1f", $1 * 60 + $2 + $3 * 60 + $4}')
        s0=${HSMBENCH_TEST_T0:-$t0}
        printf 'time [%s] %s: %d.%d s, cpu %s s, from %d s to %d s\n' "$variant" "${name%%:*}" $(((t1 - t0) / 1000)) \
            $(((t1 - t0) % 1000 / 100)) "$cpu" $(((t0 - s0) / 1000)) $(((t1 - s0) / 1000)) >>"$log/$n.out"
    fi
    rm -rf "$work"
    : >"$log/$n.done"
    exit 0
fi

# --lane DIR (internal): one worker of the early lane, started at nice 19
# once the serial jobs have ended: it runs the jobs of DIR/early.order not
# yet claimed, a sanitizer build's once that build is made, until
# DIR/prephase.done says the timed queue and the build have ended.
if [ "${1:-}" = --lane ]; then
    log=$2
    while [ ! -e "$log/prephase.done" ]; do
        left=0 took=0
        for i in $(cat "$log/early.order"); do
            [ -e "$log/prephase.done" ] && break
            [ -e "$log/$i.claim" ] && continue
            left=1
            read -r kind variant dir name <"$log/$i.job"
            [ "$variant" != plain ] && [ -e "$log/build.cmd" ] && [ ! -e "$log/build.rc" ] && continue
            sh "$top/tests/run.sh" --job "$log" "$i"
            took=1
        done
        [ "$left" = 0 ] && break
        [ "$took" = 0 ] && sleep 1
    done
    exit 0
fi

# idle_ticks: "TOTAL IDLE", the processors' time so far in clock ticks, all
# of it and the idle part (idle and iowait), from /proc/stat's first line
# (HSMBENCH_TEST_PROC_STAT names another file: test_runner's fake machine);
# nothing where there is none.
idle_ticks() {
    awk '$1 == "cpu" { t = 0; for (i = 2; i <= 9 && i <= NF; i++) t += $i; print t, $5 + $6; exit }' \
        "${HSMBENCH_TEST_PROC_STAT:-/proc/stat}" 2>/dev/null
}

# --spare DIR CPUS (internal): one spare worker of the last queue.  Every
# second it reads how much of the CPUS processors sat idle; when at least
# 0.6 of one did, it runs the next job of DIR/rest.order not yet claimed,
# then looks again, until none is left.  See "spare workers" below.
if [ "${1:-}" = --spare ]; then
    log=$2 cpus=$3
    set -- $(idle_ticks)
    [ $# = 2 ] || exit 0
    t0=$1 i0=$2
    while :; do
        sleep 1
        set -- $(idle_ticks)
        [ $# = 2 ] || exit 0
        # idle processors over the second, in hundredths
        idle=0
        [ "$1" -gt "$t0" ] && idle=$(((($2 - i0) * 100 * cpus) / ($1 - t0)))
        t0=$1 i0=$2
        next=
        for i in $(cat "$log/rest.order"); do
            [ -e "$log/$i.claim" ] || { next=$i; break; }
        done
        [ -n "$next" ] || break
        [ "$idle" -ge 60 ] || continue
        sh "$top/tests/run.sh" --job "$log" "$next"
        set -- $(idle_ticks)
        t0=$1 i0=$2
    done
    exit 0
fi

cpus=$(nproc 2>/dev/null || echo 2)
jobs=${HSMBENCH_TEST_JOBS:-$((2 * cpus + 1))}
case $jobs in
'' | *[!0-9]* | 0*)
    echo "tests/run.sh: HSMBENCH_TEST_JOBS=$jobs: expected a number of jobs, 1 or more" >&2
    exit 2
    ;;
esac
spare=${HSMBENCH_TEST_SPARE:-$cpus}
case $spare in
'' | *[!0-9]* | 0?*)
    echo "tests/run.sh: HSMBENCH_TEST_SPARE=$spare: expected a number of spare workers, 0 or more" >&2
    exit 2
    ;;
esac
# The timed jobs' own width: one more than the processors (3 on CI's 2),
# never more than $jobs.
timed_jobs=$((cpus + 1))
[ "$timed_jobs" -le "$jobs" ] || timed_jobs=$jobs

log=$(mktemp -d "${TMPDIR:-/tmp}/hsmbench-tests.XXXXXX") || exit 2
printing= hog= building= lanes= spares=
trap '[ -n "$hog" ] && kill "$hog" 2>/dev/null; rm -rf "$log"' EXIT
trap '[ -n "$printing" ] && kill "$printing" 2>/dev/null; [ -n "$building" ] && kill "$building" 2>/dev/null
      [ -n "$lanes$spares" ] && kill $lanes $spares 2>/dev/null; exit 130' INT TERM
t_start=$(ms)
HSMBENCH_TEST_T0=$t_start
export HSMBENCH_TEST_T0

# python3, which the scripts start about two thousand times (json_check,
# the hostile servers), is the interpreter itself, found once: a version
# manager's shim in front of it (pyenv's is a bash script that runs
# "pyenv exec") costs some 0.4 s of CPU at every start, five times the
# interpreter's own, and was a third of the suite's CPU.  Debian's
# /usr/bin/python3 first, where there is one: ci/install-deps.sh installs
# the modules the tests use for it, and another interpreter's start-up may
# carry its own (a .pth importing certifi made pyenv's 3.11 start in 127 ms
# of CPU, Debian's in 70).
py=
[ -x /usr/bin/python3 ] && py=$(/usr/bin/python3 -c 'import sys; print(sys.executable)' 2>/dev/null)
[ -n "$py" ] || py=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null)
if [ -n "$py" ] && [ -x "$py" ] && [ "$(command -v python3)" != "$py" ]; then
    mkdir "$log/bin" && ln -s "$py" "$log/bin/python3" && PATH="$log/bin:$PATH" && export PATH
fi

# HSMBENCH_TEST_LOAD=1 (make check-load): one process that keeps a core
# busy beside the whole run, as CI's neighbours do, so that a check whose
# margins do not hold on a busy machine fails here first.  It ends with
# this shell: the EXIT trap above, or, should this shell be killed outright
# (no trap runs then), the watcher below within a second.
if [ -n "${HSMBENCH_TEST_LOAD:-}" ]; then
    sh -c 'while :; do :; done' </dev/null >/dev/null 2>&1 &
    hog=$!
    runner=$$
    (while kill -0 "$runner" 2>/dev/null; do sleep 1; done; kill "$hog" 2>/dev/null) </dev/null >/dev/null 2>&1 &
    echo "tests/run.sh: HSMBENCH_TEST_LOAD: a busy loop (pid $hog) beside the run" >&2
fi

# The plan: one file per job, and the order they run in: the serial ones
# ($log/serial), the timed ones ($log/timed) with the early lane beside them
# ($log/early), then the others ($log/parallel, and what the lane left).
n=0
: >"$log/serial"
: >"$log/timed"
: >"$log/early"
: >"$log/parallel"
build_cmd=
[ "${1:-}" = --only ] || build_cmd=${HSMBENCH_TEST_BUILD:-}
unset HSMBENCH_TEST_BUILD    # not for the tests (test_runner runs runners)
# unit_says NAME MARK: unit test NAME's header comment has a line " * MARK"
# (or "/* MARK"): early:, serial:, tsan: yes.
unit_says() {
    grep -q "^\\(/\\*\\| \\*\\) $2" "tests/unit/$1.c" 2>/dev/null
}
# job KIND VARIANT BUILD NAME
job() {
    n=$((n + 1))
    echo "$1 $2 $3 $4" >"$log/$n.job"
    queue=parallel
    case $1 in
    unit)
        unit_says "$4" early: && queue=early
        unit_says "$4" serial: && queue=serial
        ;;
    e2e)
        grep -q '^# early:' "tests/e2e/$4.sh" && queue=early
        grep -q '^# timed:' "tests/e2e/$4.sh" && queue=timed
        grep -q '^# serial:' "tests/e2e/$4.sh" && queue=serial
        ;;
    fuzz) queue=early ;;
    esac
    # "# serial-variants: plain" (or a list): serial (or timed) in those
    # builds only, for a script whose sanitizer runs assert nothing timed.
    if [ $queue != parallel ] && [ "$1" = e2e ]; then
        serial_in=$(sed -n 's/^# serial-variants: *//p' "tests/e2e/$4.sh")
        if [ -n "$serial_in" ]; then
            case " $serial_in " in *" $2 "*) ;; *) queue=parallel ;; esac
        fi
    fi
    # A sanitizer build's serial jobs are timed jobs: their margins are
    # the sanitizer's, wide enough for a busy loop beside them (make
    # check-load); the figure that wants the cores alone is the plain build's.
    if [ "$2" != plain ] && [ $queue = serial ]; then
        queue=timed
    fi
    echo "$n" >>"$log/$queue"
}
# variant VARIANT BUILD [NAME]: its unit tests and e2e scripts (with tsan,
# those marked for it), or the one NAME.  A build still to be made
# (HSMBENCH_TEST_BUILD) has the plain build's unit tests.
variant() {
    units=$2
    [ -n "$build_cmd" ] && units=build
    for bin in "$units"/tests/${3:-test_*}; do
        [ -x "$bin" ] || continue
        if [ -z "${3:-}" ] && [ "$1" = tsan ] && ! unit_says "$(basename "$bin")" "tsan: yes"; then
            continue
        fi
        job unit "$1" "$2" "$(basename "$bin")"
    done
    for script in tests/e2e/${3:-test_*}.sh; do
        [ -f "$script" ] || continue
        # The whole suite runs a script in a sanitizer build only where
        # its line "# asan: yes (why)" or "# tsan: yes (why)" asks for it;
        # --only runs it in any build asked.
        if [ -z "${3:-}" ] && [ "$1" != plain ] && ! grep -q "^# $1: yes" "$script"; then
            continue
        fi
        job e2e "$1" "$2" "$(basename "$script" .sh)"
    done
}

if [ "${1:-}" = --only ]; then
    # One test file alone: a unit test or an e2e script, in one variant.
    only=$(basename "${2:?--only NAME}" .sh)
    ovar=${3:-plain}
    case $ovar in plain) dir=build ;; *) dir=build/$ovar ;; esac
    if [ -x "$dir/tests/$only" ] || [ -f "tests/e2e/$only.sh" ]; then
        variant "$ovar" "$dir" "$only"
    else
        job fail "$ovar" - "$only: no unit test $dir/tests/$only and no tests/e2e/$only.sh"
    fi
else
    variant plain build
    for v in asan tsan; do
        if [ -n "$build_cmd" ] || [ -x "build/$v/hsmbench" ]; then
            variant "$v" "build/$v"
        else
            job fail "$v" - "build: build/$v/hsmbench is missing (make sanitizers)"
        fi
    done
    job fuzz fuzz - fuzzers    # (no fuzzers: the job says so, once they could be made)
fi

# Run: the serial jobs one by one, then the rest, $jobs at a time (xargs
# starts them in the plan's order), in the foreground: an asynchronous list
# would start the tests with SIGINT ignored, which Ctrl-C and the scripts'
# own signals rely on.  Meanwhile a printer in the background prints each
# job's lines, in that same order, as soon as it has finished; $log/ran says
# every job has ended, so a job that never finished is reported, not waited
# for; the printer stops if this shell is gone.
runner=$$
printer() {
    for i in $(cat "$log/serial" "$log/timed"; sort -n "$log/early" "$log/parallel"); do
        while [ ! -e "$log/$i.done" ]; do
            kill -0 "$runner" 2>/dev/null || exit 0
            if [ -e "$log/ran" ] && [ ! -e "$log/$i.done" ]; then
                read -r kind variant dir name <"$log/$i.job"
                echo "FAIL [$variant] $name: the runner stopped before this job finished" >"$log/$i.out"
                break
            fi
            # (A job takes seconds: a second's lag prints nothing later
            # that matters, and at 0.2 s this loop's sleeps were a fifth
            # of a script's CPU under --only.)
            sleep 1
        done
        cat "$log/$i.out" 2>/dev/null
    done
}
printer | tee "$log/all" &
printing=$!
# The other builds, beside the plain build's serial and timed jobs.
# build.rc: its status and when it ended, written whole once it has.
if [ -n "$build_cmd" ]; then
    b0=$(ms)
    printf '%s\n' "$build_cmd" >"$log/build.cmd"
    (nice -n 19 sh -c "$build_cmd" </dev/null >"$log/build.log" 2>&1
     echo "$? $(ms)" >"$log/build.rc.new" && mv "$log/build.rc.new" "$log/build.rc") &
    building=$!
    echo "$building" >"$log/build.pid"
fi
# longest_first QUEUE [PLAIN_FIRST]: the jobs of QUEUE, longest first by
# tests/durations (see the others, below); with PLAIN_FIRST, the plain
# build's before the rest (which may still wait for their build).
longest_first() {
    for i in $(cat "$log/$1"); do
        read -r kind variant dir name <"$log/$i.job"
        s=$(awk -v v="$variant" -v n="$name" '$1 == v && $2 == n { print $3; exit }' tests/durations 2>/dev/null)
        if [ -z "$s" ]; then
            case $kind.$variant in
            e2e.tsan | e2e.asan) s=30 ;;
            fuzz.fuzz) s=35 ;;
            e2e.plain) s=15 ;;
            *) s=1 ;;
            esac
        fi
        late=0
        [ -n "${2:-}" ] && [ "$variant" != plain ] && late=1
        echo "$late $s $i"
    done | sort -k1,1n -k2,2nr -k3,3n | cut -d' ' -f3
}
# serial QUEUE: the jobs of QUEUE one by one.
serial() {
    for i in $(cat "$log/$1"); do
        sh "$top/tests/run.sh" --job "$log" "$i"
    done
}
serial serial
# The early lane: the jobs marked early (an e2e script's line "# early:
# why", and the fuzzers) run beside the timed ones at nice 19, $lane_width at
# a time, on the cores those leave idle (they mostly wait on the mock's
# delays).  At nice 19 a lane job gives a core up at once to a timed job, so
# it is starved in bursts: a job is marked early only when no check of it
# depends on the cores it gets (documents, packaging, exit statuses, the
# fuzzers' time-boxed runs).  Once the timed queue and the build have ended,
# the lane takes no new job, what it runs is raised to the tests' priority,
# and the jobs it did not reach run with the others.  Raising a priority
# takes root: elsewhere a lane job still running then would finish last,
# starved by the others (an example past its time bound), so there is no
# lane, and its jobs run with the others.
lane_width=$cpus
if [ -s "$log/early" ] && [ "$jobs" -gt 1 ] && [ "$(id -u)" = 0 ]; then
    longest_first early plain_first >"$log/early.order"
    w=0
    while [ "$w" -lt "$lane_width" ]; do
        # (started in the background, it would have SIGINT and SIGQUIT
        # ignored, as its tests would: env gives them back their default)
        nice -n 19 env --default-signal=INT,QUIT sh "$top/tests/run.sh" --lane "$log" &
        lanes="$lanes $!"
        w=$((w + 1))
    done
fi
# The timed ones, a few at a time and beside no other test: they mostly wait
# on the mock's delays (90 s of CPU in 450 s of wall, one after another),
# so $timed_jobs of them leave the cores to each other's timers even beside
# a busy loop, where the sanitizer builds' scripts beside them did not.
# Longest first, as the others below, the plain build's first.
if [ -s "$log/timed" ]; then
    longest_first timed plain_first | xargs -n 1 -P "$timed_jobs" sh "$top/tests/run.sh" --job "$log"
fi
if [ -n "$building" ]; then
    wait "$building"
    building=
    read -r brc b1 <"$log/build.rc"
    if [ "$brc" != 0 ]; then
        { echo "tests/run.sh: the sanitizer and fuzz builds failed (exit $brc); their last lines:"
          tail -n 30 "$log/build.log"; } >&2
    elif [ -n "${HSMBENCH_TEST_TIMES:-}" ]; then
        printf 'time build: the sanitizer and fuzz builds, from %d s to %d s\n' \
            $(((b0 - t_start) / 1000)) $(((b1 - t_start) / 1000)) >"$log/build.time"
    fi
fi
: >"$log/prephase.done"
for l in $lanes; do
    renice_tree "$l" 0
done
# The others start longest first, so that no long job starts last and runs
# on alone at the end: by tests/durations (each job's wall time in a run of
# the whole suite; a hint, not a check: rewrite it from a run's log with
# HSMBENCH_TEST_TIMES=1 when the order drifts), and a job it does not name by
# its kind (a sanitizer build's script takes minutes, the fuzzers about one,
# a plain script seconds, a unit test less).  Their lines still print in the
# plan's order.
cat "$log/early" "$log/parallel" >"$log/rest"
if [ -s "$log/rest" ]; then
    longest_first rest >"$log/rest.order"
    # Spare workers: $jobs jobs at a time keep both processors busy for most
    # of the run, but not while the ones running mostly wait (test_examples,
    # test_rest_parity in two builds and test_views under ASan, started
    # together, left 0.7 of the two idle for two minutes).  A spare worker
    # runs one more job whenever it saw 0.6 of a processor idle over a
    # second, so a busy machine (CI's neighbours) gets none, and a quiet one
    # one for each job that only waits.  HSMBENCH_TEST_SPARE of them (by
    # default as many as the processors; 0: none).
    if [ "$jobs" -gt 1 ] && [ -n "$(idle_ticks)" ]; then
        w=0
        while [ "$w" -lt "$spare" ]; do
            # (env: SIGINT and SIGQUIT back to their default, as for the lane)
            env --default-signal=INT,QUIT sh "$top/tests/run.sh" --spare "$log" "$cpus" </dev/null &
            spares="$spares $!"
            w=$((w + 1))
        done
    fi
    xargs -n 1 -P "$jobs" sh "$top/tests/run.sh" --job "$log" <"$log/rest.order"
fi
for l in $lanes $spares; do
    wait "$l"
done
lanes= spares=
: >"$log/ran"
wait "$printing"

passed=$(grep -c '^PASS' "$log/all")
failed=$(grep -c '^FAIL' "$log/all")
skipped=$(grep -c '^SKIP' "$log/all")
# The whole run's wall time, to compare runs by (not a result).
if [ -n "${HSMBENCH_TEST_TIMES:-}" ]; then
    t1=$(ms)
    cat "$log/build.time" 2>/dev/null
    printf 'time all: %d s\n' $(((t1 - t_start) / 1000))
fi
echo
# The failures again, just above the count, so a log's last lines name them.
if [ "$failed" -gt 0 ]; then
    echo "failed:"
    grep '^FAIL' "$log/all" | cut -c 1-300
fi
if [ "${CI:-}" = true ] && [ "$skipped" -gt 0 ]; then
    echo "skipped:"
    grep '^SKIP' "$log/all" | cut -c 1-300
    echo "CI=true: $skipped skipped, and CI must skip nothing (ci/install-deps.sh installs what the tests need): the run fails"
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] && [ $((passed + skipped)) -gt 0 ] && { [ "${CI:-}" != true ] || [ "$skipped" -eq 0 ]; }
