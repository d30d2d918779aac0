#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tsan: yes (a schedule, ramps and think time paced across worker threads and the non-blocking slots)
# Load profiles: non-blocking schedules, ramps, think time, per-thread
# bounds and counted warm-up, on the do-nothing module (timing asserted only
# against what the schedule itself sets, with wide tolerances).
# timed: asserts achieved rates, ramps and think time against the schedule
. "$TOP/tests/e2e/lib.sh"

run "$HSMBENCH" run --module "$NULLP11" --test sha256-digest --mode nonblocking --rate 2000 \
    --threads 2 --duration 3 --json "$T/nb.json" </dev/null
check "nonblocking --rate 2000: exit 0, per-second line shows target and in flight" 0 \
    '^OPERATIONS/second +[0-9]+/1 +target [0-9]+ +in flight [0-9]+ +p50'
json_check "nonblocking --rate 2000: achieved within 5% of 6000 ops in 3 s" "$T/nb.json" \
    '5700 <= runs[0]["ops"] <= 6300 and runs[0]["mode"] == "nonblocking"'
json_check "nonblocking: schedule, service and queueing parts in the JSON" "$T/nb.json" \
    'set(["schedule", "service_us", "queue_us"]) <= set(runs[0]) and runs[0]["schedule"]["dropped"] <= 10'
json_check "nonblocking: per-second targets near 2000" "$T/nb.json" \
    'all(1800 <= s["target"] <= 2200 for s in runs[0]["per_second"] if s["span_s"] > 0.9)'
json_check "nonblocking: latency from schedule >= service time (medians)" "$T/nb.json" \
    'runs[0]["latency_us"]["p50"] >= runs[0]["service_us"]["p50"]'

run "$HSMBENCH" run --module "$NULLP11" --test sha256-digest --mode nonblocking --inflight 4 \
    --threads 2 --duration 1 --json "$T/win.json" </dev/null
check "nonblocking --inflight 4: exit 0" 0
json_check "nonblocking --inflight: operations completed" "$T/win.json" 'runs[0]["ops"] > 100'

run "$HSMBENCH" run --module "$NULLP11" --test sha256-digest --mode nonblocking \
    --stages 1s:500,1s:500,1s:0 --threads 2 --json "$T/nbst.json" </dev/null
check "nonblocking --stages: exit 0" 0
json_check "nonblocking --stages: about 1000 operations (ramp up, hold, ramp down)" "$T/nbst.json" \
    '850 <= runs[0]["ops"] <= 1100'
json_check "nonblocking --stages: the per-second series follows the ramp (250, 500, 250)" "$T/nbst.json" \
    'all(abs(s["ops"] - w) <= 0.2 * w for s, w in zip(runs[0]["per_second"], [250, 500, 250]))'

run "$HSMBENCH" run --module "$NULLP11" --test sha256-digest --stages 1s:1,2s:3 --json "$T/st.json" </dev/null
check "blocking --stages: exit 0" 0
json_check "blocking --stages: threads from the peak, targets follow the ramp" "$T/st.json" \
    'runs[0]["threads"] == 3 and [round(s["target"]) for s in runs[0]["per_second"][:3]] == [1, 2, 3]'

run "$HSMBENCH" run --module "$NULLP11" --test sha256-digest --think 100ms --duration 2 --json "$T/think.json" </dev/null
check "--think 100ms: exit 0" 0
json_check "--think 100ms for 2 s: about 20 operations" "$T/think.json" '14 <= runs[0]["ops"] <= 21'

run "$HSMBENCH" run --module "$NULLP11" --test sha256-digest --iterations-per-thread 7 --threads 3 --json "$T/ipt.json" </dev/null
check "--iterations-per-thread 7 --threads 3: exit 0" 0
json_check "--iterations-per-thread: exactly 21 operations" "$T/ipt.json" 'runs[0]["ops"] == 21'

run "$HSMBENCH" run --module "$NULLP11" --test sha256-digest --warmup 10it --iterations-per-thread 5 --threads 2 --json "$T/wit.json" </dev/null
check "--warmup 10it: exit 0" 0
json_check "--warmup 10it: warm-up operations excluded, 10 measured" "$T/wit.json" 'runs[0]["ops"] == 10'

for bad in "--mode blocking --rate 100" "--inflight 3" "--mode nonblocking" "--mode fast" "--mode nonblocking --rate 0" \
    "--mode nonblocking --rate 10 --iterations 5" "--mode nonblocking --rate 10 --think 1s" \
    "--stages 5s" "--stages 5s:x" "--stages 1s:2 --duration 3" "--stages 1s:2 --threads 4" \
    "--iterations 5 --iterations-per-thread 5" "--warmup 5xit" "--stages 1s:2000" \
    "--mode nonblocking --rate 10 --warmup 5it"; do
    # shellcheck disable=SC2086
    run "$HSMBENCH" run --module "$NULLP11" --test sha256-digest $bad
    check_one_line_error "bad load flags ($bad): exit 2" 2 '.'
done
