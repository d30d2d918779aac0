#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_until_stable.sh - --until-stable PCT (issue 26, item 1):
# on the mock HSM with a fixed service time a run stops "stable" well
# before its bound, with the results file's stable object; on the mock
# drifting (drift=+50%:5s) it runs to the bound and says so; non-blocking
# runs at a fixed rate (run, and rest http against hsmbench serve) stop
# stable too, and a blocking rest http run records its stable object; the refusals (with --iterations, --loops, --stages, PCT 0, 60, abc)
# are one line naming the flag, exit 2; a hostile stable object is refused
# by report; the summary, the HTML page and the results file's
# stable.covers say the interval is this run's steady state (issue 41: it
# was read as the token's rate).  About 25 seconds.
# tsan: yes (the sampler reads the workers' counters every 100 ms for the stable series)
# timed: asserts that the mock's rates settle within 2 % well before the bound, which other jobs on the same cores would disturb
# serial-variants: plain
. "$TOP/tests/e2e/lib.sh"
REST_LIB_SOURCE=1 . "$TOP/tests/e2e/test_rest_lib.sh"

need_mock || exit 0

# ---- refusals: one line naming the flag, exit 2 -----------------------------------------
for args in "--iterations 100:--iterations" "--loops 5:--loops" "--stages 1s:2:--stages" \
            "--iterations-per-thread 5:--iterations-per-thread"; do
    extra=${args%:*}
    flag=${args##*:}
    run "$HSMBENCH" run --module "$MOCK" --test sha256-digest --until-stable 2% $extra
    check_one_line_error "--until-stable with $flag refused" 2 "--until-stable .*leave out $flag"
done
for pct in 0 60 abc -1; do
    run "$HSMBENCH" run --module "$MOCK" --test sha256-digest --until-stable "$pct"
    check_one_line_error "--until-stable $pct refused" 2 "^hsmbench: error: --until-stable $pct: a percentage more than 0% and at most 50%"
done
run "$HSMBENCH" rest http --url http://127.0.0.1:1/ --until-stable 2 --loops 3
check_one_line_error "rest http: --until-stable with --loops refused" 2 "--until-stable .*leave out --loops"
run "$HSMBENCH" run --module "$MOCK" --test sha256-digest --until-stable 2 --find-capacity 'p99<10ms'
check_one_line_error "--until-stable with --find-capacity refused" 2 "--find-capacity .*leave out --until-stable"

# ---- a steady target: stops stable, well before --duration ---------------------------
# (the plain build's measurement; a sanitizer build's mock is too noisy to
# be stable to 2 % in time, and there the run's object is checked alone)
# Two cores of 1 ms and four threads: a thread always waits for a core, so
# the true rate is the cores' 2000/s however the machine's timers wake.
if all_cases; then
    run env HSMBENCH_MOCK="service=fixed:1ms;cores=2" "$HSMBENCH" run --module "$MOCK" --test rsa-pkcs-sign \
        --threads 4 --until-stable 2% --duration 30 --json "$T/steady.json"
    check "steady mock: exit 0, the stable line says stopped: stable" 0 \
        '^    stable\.+: [0-9.]+/s ±[0-9.]+ % \(95 %, this run'"'"'s steady state: [0-9]+ batch means of [0-9.]+ s.*\(MSER-5\); stopped: stable at [0-9.]+ s of 30 s$'
    # Under 20 s of its 30: about 5 s on a quiet machine, but each stall of
    # a busy one moves a batch mean, and the judgement waits for ten that agree.
    json_check "steady mock: stopped stable in under 20 s, the object complete and consistent" "$T/steady.json" \
        '(lambda r, s: s["stopped"] == "stable" and s["target_pct"] == 2 and r["duration_s"] < 20 and r["duration_s"] >= 5 and s["bound_s"] == 30 and s["method"] == "MSER-5 + batch means" and 10 <= s["batches"] <= 30 and s["half_width_pct"] <= 2 and s["ci95_low"] <= s["mean_ops_per_s"] <= s["ci95_high"] and r["status"] == "ok" and len(r["per_second"]) == round(r["duration_s"]) and abs(s["mean_ops_per_s"] - 2000) < 60)(runs[0], runs[0]["stable"])'
else
    run env HSMBENCH_MOCK="service=fixed:1ms" "$HSMBENCH" run --module "$MOCK" --test rsa-pkcs-sign \
        --threads 2 --until-stable 2% --duration 7 --json "$T/steady.json"
    json_check "steady mock: the stable object, stopped stable or at the bound" "$T/steady.json" \
        '(lambda r, s: s["stopped"] in ("stable", "bound") and s["batches"] >= 2 and s["ci95_low"] <= s["mean_ops_per_s"] <= s["ci95_high"] and r["status"] == "ok")(runs[0], runs[0]["stable"])'
fi
# The run's own figures are the whole measured part's: ops over duration_s.
json_check "steady mock: ops_per_s is ops over the measured duration" "$T/steady.json" \
    '(lambda r: abs(r["ops_per_s"] - r["ops"] / r["duration_s"]) < 0.01 * r["ops_per_s"])(runs[0])'
run "$HSMBENCH" report "$T/steady.json"
check "report reads a file with a stable object" 0

# ---- a bound too short to judge: said so, not "still" ------------------------------------------
# Two seconds hold at most four batches of 0.5 s, fewer than the ten a
# judgement needs, whatever the interval.
run env HSMBENCH_MOCK="service=fixed:1ms" "$HSMBENCH" run --module "$MOCK" --test sha256-digest \
    --until-stable 50 --duration 2 --json "$T/short.json" --html "$T/short.html"
check "a 2 s bound: too short to judge, not 'still' within the target" 0 \
    'stopped: at the bound, 2 s, (too short to judge \([0-9] of the 10 batches a judgement needs\)|not stable \(target 50 %\)|stable there \(within the target 50 %\)|still ±([5-9][0-9]|[0-9]{3,})\.[0-9]+ % \(target 50 %\))$'

# ---- what the interval covers: this run's steady state, in every view (issue 41) -------------
# main's binary printed "stable....: 858.95/s ±3.88 % (95 %, 3 batch means
# of 0.5 s) ..." and a stable object without "covers": nothing said whose
# rate the interval was.
file_has "summary: the interval is this run's steady state" "$T/out" \
    "^    stable\.+: (too short for an interval of this run's steady state|[0-9.]+/s (±[0-9.]+ % )?\(95 %, this run's steady state: )"
json_check "results file: stable.covers says this run's steady state" "$T/short.json" \
    'runs[0]["stable"]["covers"] == "this run'"'"'s steady state"'
file_has "html: the stable row says this run's steady state" "$T/short.html" \
    "<th>stable</th><td colspan=\"5\">.*this run(&#39;|&#x27;|')s steady state"

# ---- a drifting target: runs to the bound, saying so -------------------------------------------
run env HSMBENCH_MOCK="service=fixed:1ms;drift=+50%:5s" "$HSMBENCH" run --module "$MOCK" \
    --test rsa-pkcs-sign --threads 2 --until-stable 2% --duration 6 --json "$T/drift.json"
check "drifting mock: exit 0, stopped at the bound" 0 'stopped: at the bound, 6 s, (still ±[0-9.]+ %|not stable) \(target 2 %\)$'
json_check "drifting mock: stable.stopped is bound, the run its whole 6 s" "$T/drift.json" \
    '(lambda r: r["stable"]["stopped"] == "bound" and abs(r["duration_s"] - 6) < 0.01 and r["stable"].get("half_width_pct", 100) > 2)(runs[0])'

if all_cases; then
    # ---- non-blocking at a fixed rate: the schedule kept is stable at once -------------------------
    run env HSMBENCH_MOCK="service=fixed:1ms" "$HSMBENCH" run --module "$MOCK" --test sha256-digest \
        --threads 2 --mode nonblocking --rate 400 --until-stable 2 --json "$T/rate.json"
    json_check "non-blocking --rate 400: stops stable near 400/s, its bound the default 60 s" "$T/rate.json" \
        '(lambda r, s: s["stopped"] == "stable" and s["bound_s"] == 60 and r["duration_s"] < 20 and abs(s["mean_ops_per_s"] - 400) < 8)(runs[0], runs[0]["stable"])'

    # ---- REST: rest http against hsmbench serve, blocking and at a fixed rate -----------------------
    if start_serve hello --latency 5ms; then
        run "$HSMBENCH" rest http --url "$URL/hello" --threads 2 --mode nonblocking --rate 200 \
            --until-stable 2% --duration 30 --json "$T/rest.json"
        check "rest http --rate 200: exit 0, stopped: stable" 0 'stopped: stable at [0-9.]+ s of 30 s$'
        # Stable well before its 30 s bound: about 5 s on a quiet machine,
        # 7 to 8 s beside a busy loop (each stall of the client's process
        # moves a batch, and the judgement waits for ten that agree), so
        # under 20 s, as the run's --rate 400 above.
        json_check "rest http --rate 200: the stable object, under 20 s, near 200/s" "$T/rest.json" \
            '(lambda s: s["stopped"] == "stable" and runs[0]["duration_s"] < 20 and abs(s["mean_ops_per_s"] - 200) < 4)(runs[0]["stable"])'
        # Blocking, the server's own pace: stable or at the bound, as the machine allows.
        run "$HSMBENCH" rest http --url "$URL/hello" --threads 2 --until-stable 2% --duration 8 \
            --json "$T/rest-b.json"
        json_check "rest http blocking: the stable object, stable or at the bound" "$T/rest-b.json" \
            '(lambda r, s: s["stopped"] in ("stable", "bound") and s["batches"] >= 2 and (s["stopped"] == "bound") == (abs(r["duration_s"] - 8) < 0.01))(runs[0], runs[0]["stable"])'
        rest_stop_all
    fi
fi

# ---- readers refuse a hostile stable object -------------------------------------------------------
for bad in 'target_pct=-3' 'stopped="maybe"' 'ci95_low=1e9' 'lag1=7' 'batches=-1'; do
    python3 - "$T/steady.json" "$T/bad.json" "$bad" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
k, v = sys.argv[3].split("=", 1)
d["runs"][0]["stable"][k] = json.loads(v)
json.dump(d, open(sys.argv[2], "w"))
EOF
    run "$HSMBENCH" report "$T/bad.json"
    check_one_line_error "report refuses stable.$bad" 2 "runs\[0\]\.stable"
done
