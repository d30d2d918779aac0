#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_jmeter.sh - the JMeter enclave test (seed 004) replayed
# against hsmbench serve: a thread group (threads, loop count, ramp-up)
# against GET /hello, and JMeter's non-GUI summariser output ("summary +"
# every interval with Active/Started/Finished, "summary =" running totals,
# failed samples in Avg/Min/Max), in JMeter's layout.  The interval is 1 s
# here (--summary-interval) instead of JMeter's 30 s; runs of 2 s at most.
# No figure is timed: counts, and latencies the server holds (lower bounds).
# tsan: yes (the summariser thread prints intervals from counters the workers write)
. "$TOP/tests/e2e/lib.sh"
REST_LIB_SOURCE=1 . "$TOP/tests/e2e/test_rest_lib.sh"

PLUS='^summary \+ +[0-9]+ in [0-9]{2}:[0-9]{2}:[0-9]{2} = +[0-9]+\.[0-9]/s Avg: +[0-9]+ Min: +[0-9]+ Max: +[0-9]+ Err: +[0-9]+ \([0-9]+\.[0-9]{2}%\) Active: [0-9]+ Started: [0-9]+ Finished: [0-9]+$'

# ---- the thread group: 2 threads, 30 loops each, ramp-up 3 s -------------------
# JMeter: ThreadGroup.num_threads=2, LoopController.loops=30, ramp_time=3;
# jmeter -n -t enclave.jmx (summariser every 30 s; here every 1 s).
start_serve hello --latency 20ms || exit 0
run "$HSMBENCH" rest http --url "$URL/hello" --threads 2 --loops 30 --ramp-up 3s \
    --summary jmeter --summary-interval 1s --quiet --json "$T/tg.json"
check "--threads 2 --loops 30 --ramp-up 3s --summary jmeter: exit 0" 0 \
    '^summary = +60 in 00:00:0[1-3] = +[0-9]+\.[0-9]/s Avg: +[0-9]+ Min: +[0-9]+ Max: +[0-9]+ Err: +0 \(0\.00%\)$'
file_has "summary + lines, in JMeter's layout, with the threads' counts" "$T/out" "$PLUS"
others=$(grep -cv '^summary [+=] ' "$T/out")
if [ "$others" -eq 0 ]; then pass "--quiet --summary jmeter: the summariser's lines alone"
else fail "--quiet --summary jmeter: the summariser's lines alone" "$(head -c 300 "$T/out")"; fi
# JMeter's padding: "summary +" then the count right-aligned in 6 columns.
file_has "the count right-aligned in 6 columns, Avg/Min/Max/Err in 5" "$T/out" \
    '^summary = {5}60 in [0-9:]{8} = {1,3}[0-9.]{3,5}/s Avg: {1,4}[0-9]+ Min: {1,4}[0-9]+ Max: {1,4}[0-9]+ Err: {5}0 '
first=$(grep -m1 '^summary +' "$T/out")
case $first in
*"Started: 1 Finished: "*) pass "ramp-up: at the first interval one thread of two had started" ;;
*) fail "ramp-up: at the first interval one thread of two had started" "$first" ;;
esac
last=$(grep '^summary +' "$T/out" | tail -n 1)
case $last in
*"Active: 0 Started: 2 Finished: 2") pass "loops: at the end both threads finished" ;;
*) fail "loops: at the end both threads finished" "$last" ;;
esac
plus=$(awk '/^summary \+/ { n += $3 } END { print n + 0 }' "$T/out")
if [ "$plus" -eq 60 ]; then pass "the summary + lines add up to the total (60)"
else fail "the summary + lines add up to the total (60)" "$plus"; fi
if [ "$(grep -c '^summary = ' "$T/out")" -ge 2 ]; then pass "running totals: summary = after the second interval, and the total"
else fail "running totals: summary = after the second interval, and the total" "$(cat "$T/out")"; fi
json_check "threads x loops operations, every one 2xx; the ramp-up recorded and lived through" "$T/tg.json" \
    'runs[0]["ops"] == 60 and runs[0]["errors"] == 0 and runs[0]["settings"]["ramp_up_s"] == 3 and runs[0]["settings"]["per_thread"] is True and runs[0]["settings"]["iterations"] == 30 and runs[0]["duration_s"] >= 1.5'
stop_serve hello

# ---- failed samples count in Avg/Min/Max, as JMeter's -------------------------------
# Every EKM wrap times out: held 300 ms, then 503.  JMeter's line counts
# them: Min is at least 300 ms, Err 100 %.
export EKM_TOKEN=tok-$$
start_serve faults --ekm-token-env EKM_TOKEN --fault timeout:1 --fault-after 1 --fault-delay 300ms || exit 0
run "$HSMBENCH" rest http --url "$URL/ekm/k1:wrap" --bearer-env EKM_TOKEN --body '{"plaintext":"AAECAwQFBgc="}' \
    --threads 2 --loops 4 --summary jmeter --summary-interval 1s --quiet --json "$T/f.json"
check "every request failed: exit 1" 1
min_of() { sed -n 's/.* Min: *\([0-9]*\) .*/\1/p' | head -n 1; }
m=$(grep '^summary = ' "$T/out" | tail -n 1 | min_of)
if [ -n "$m" ] && [ "$m" -ge 300 ]; then pass "summary =: Min counts the failed samples (>= 300 ms)"
else fail "summary =: Min counts the failed samples (>= 300 ms)" "$(cat "$T/out")"; fi
file_has "summary =: Err 8 (100.00%)" "$T/out" '^summary = +8 in .* Err: +8 \(100\.00%\)$'
m=$(grep '^summary + ' "$T/out" | head -n 1 | min_of)
if [ -n "$m" ] && [ "$m" -ge 300 ]; then pass "summary +: Min counts the failed samples (>= 300 ms)"
else fail "summary +: Min counts the failed samples (>= 300 ms)" "$(cat "$T/out")"; fi
stop_serve faults

# ---- the same thread group in hsmbench run ------------------------------------------
run "$HSMBENCH" run --module "$NULLP11" --test sha256-digest --threads 3 --loops 7 --ramp-up 0.3s \
    --json "$T/run.json" </dev/null
check "run --threads 3 --loops 7 --ramp-up 0.3s: exit 0, the ramp-up in the header" 0 \
    '^Running sha256-digest .*: 3 threads, blocking, 7 operations a thread, ramp-up 0\.3s$'
json_check "run --loops 7: exactly 21 operations, after the last thread's start" "$T/run.json" \
    'runs[0]["ops"] == 21 and runs[0]["settings"]["ramp_up_s"] == 0.3 and runs[0]["duration_s"] >= 0.2'

# ---- refusals -----------------------------------------------------------------------
bad() {
    want=$1 pat=$2
    shift 2
    run "$HSMBENCH" run --module "$NULLP11" --test sha256-digest "$@" </dev/null
    check_one_line_error "$* : exit $want" "$want" "$pat"
}
bad 2 '--iterations-per-thread and --loops each give the operations per thread' \
    --iterations-per-thread 3 --loops 3
bad 2 '--ramp-up starts the threads of a blocking run' --ramp-up 1s --mode nonblocking --rate 10
bad 2 '--stages ramps the threads already' --ramp-up 1s --stages 1s:2
bad 2 '--ramp-up: its last threads would start after the run.s 2 s end' --ramp-up 5s --duration 2s
bad 2 '--loops' --loops 0
run "$HSMBENCH" rest http --url http://127.0.0.1:1/ --summary-interval 1s
check_one_line_error "--summary-interval without --summary jmeter: exit 2" 2 'needs --summary jmeter'
run "$HSMBENCH" rest http --url http://127.0.0.1:1/ --summary jmeter --summary-interval 1.5s
check_one_line_error "--summary-interval 1.5s: exit 2, whole seconds" 2 'whole seconds'
run "$HSMBENCH" rest http --help
check "--help lists --summary-interval, --loops and --ramp-up" 0 '^  --summary-interval TIME'
file_has "--help lists --loops" "$T/out" '^  --loops N'
file_has "--help lists --ramp-up" "$T/out" '^  --ramp-up TIME'
