#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_metrics_push.sh - --metrics-push against Debian's
# prometheus-pushgateway on loopback, scraped by a real Prometheus
# (honor_labels): a push while the run measures and a final one at its
# end, the group's series in Prometheus's query API equal to the results
# file, histogram_quantile over the default buckets within the documented
# error (docs/multi-host.md) of the results file's quantiles on the mock
# HSM (log-normal service times) and on SoftHSM; the URL's credentials
# never printed; an unreachable Pushgateway a warning, not a failed run;
# and the default scrape of a 10-test run under 10 % of the fine one's.
# Under the sanitizers too: the pusher is a thread of its own.
# tsan: yes (the pusher is a thread of its own, reading the counters the workers write)
. "$TOP/tests/e2e/lib.sh"
need_mock || exit 0
for tool in prometheus-pushgateway prometheus; do
    if ! command -v $tool >/dev/null 2>&1; then
        fail "$tool is installed" "missing (Debian packages prometheus-pushgateway, prometheus; ci/install-deps.sh)"
        exit 0
    fi
done
PG_PID= PROM_PID=
trap '[ -z "$PG_PID" ] || kill "$PG_PID" 2>/dev/null; [ -z "$PROM_PID" ] || kill "$PROM_PID" 2>/dev/null; rm -rf "$T"' EXIT

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
# get URL: the body (or nothing)
get() {
    python3 -c 'import sys,urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=5).read().decode())' "$1" 2>/dev/null
}

PGPORT=$(free_port)
# its own store: Debian's pushgateway keeps every group in /var/lib/prometheus
# by default, which another run (this script's other variant) would share
timeout 1800 prometheus-pushgateway --web.listen-address="127.0.0.1:$PGPORT" \
    --persistence.file="$T/pushgateway.data" >"$T/pg.log" 2>&1 &
PG_PID=$!
i=0
until get "http://127.0.0.1:$PGPORT/-/ready" >/dev/null || [ $i -ge 100 ]; do sleep 0.1; i=$((i + 1)); done
if ! get "http://127.0.0.1:$PGPORT/-/ready" >/dev/null; then
    fail "the pushgateway starts on loopback" "$(tail -c 300 "$T/pg.log")"
    exit 0
fi
cat >"$T/prom.yml" <<EOF2
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: pushgateway
    honor_labels: true
    static_configs:
      - targets: ["127.0.0.1:$PGPORT"]
EOF2
prom_start "$T/prom.yml" "$T" || { fail "prometheus starts on loopback" "$(tail -c 300 "$T/prom.log")"; exit 0; }

# A push URL with credentials: the Pushgateway (no auth configured) ignores
# them; they must appear nowhere in hsmbench's output.
SECRET=s3cr3tpw
PUSH="http://hsmuser:$SECRET@127.0.0.1:$PGPORT/"

# pushed_run NAME RUN_ID ARGS...: run hsmbench with --metrics-push, watching
# the Pushgateway meanwhile; then Prometheus's answers against the results.
pushed_run() {
    name=$1 rid=$2
    shift 2
    python3 - "http://127.0.0.1:$PGPORT/metrics" "$rid" >"$T/$name.seen" 2>&1 <<'PY' &
import re, sys, time, urllib.request
url, rid = sys.argv[1], sys.argv[2]
end, seen = time.time() + 60, set()
pat = re.compile(r'^hsmbench_phase\{[^}]*phase="(\w+)"[^}]*\} 1$', re.M)
while time.time() < end and "done" not in seen:
    try:
        body = urllib.request.urlopen(url, timeout=5).read().decode()
        for line in body.splitlines():
            if f'run_id="{rid}"' in line:
                m = pat.match(line)
                if m: seen.add(m.group(1))
    except Exception:
        pass
    time.sleep(0.3)
print(" ".join(sorted(seen)))
PY
    wpid=$!
    "$HSMBENCH" run --run-id "$rid" --generator 3 --metrics-push "$PUSH" --json "$T/$name.json" --quiet "$@" \
        >"$T/$name.out" 2>"$T/$name.err"
    rc=$?
    wait $wpid
    if [ $rc -eq 0 ] && grep -q "^hsmbench: metrics pushed to http://127.0.0.1:$PGPORT/ every 5 s and at the end$" "$T/$name.err"; then
        pass "$name: the run pushes, and says where (without the credentials)"
    else
        fail "$name: the run pushes" "exit $rc: $(head -c 300 "$T/$name.err")"
        return 1
    fi
    if grep -q "$SECRET" "$T/$name.out" "$T/$name.err" "$T/$name.json"; then
        fail "$name: the push URL's password is printed nowhere" "$(grep -h "$SECRET" "$T/$name.out" "$T/$name.err" | head -c 200)"
    else
        pass "$name: the push URL's password is printed nowhere"
    fi
}

# prom_checks NAME RUN_ID BOUND50 BOUND99: Prometheus has the group's final
# counts; histogram_quantile within the bounds of the results' p50, p99.
# Each query reads the last sample (last_over_time): on a busy machine a
# scrape of the Pushgateway can miss its 1 s timeout, and a failed scrape
# marks every series stale until the next.
prom_checks() {
    name=$1 rid=$2
    sel="run_id=\"$rid\",generator=\"3\",job=\"hsmbench\""
    ops=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["runs"][0]["ops"])' "$T/$name.json")
    # up to 120 s of the clock, not a count of tries (a sanitizer build on a
    # busy machine is slow to push and to scrape)
    end=$(( $(date +%s) + 120 ))
    got=
    while [ "$got" != "$ops" ] && [ "$(date +%s)" -lt $end ]; do
        got=$(prom_query "sum(last_over_time(hsmbench_operations_total{$sel}[5m]))")
        sleep 0.5
    done
    if [ "$got" = "$ops" ]; then
        pass "$name: Prometheus, scraping the Pushgateway, has the group's final operations ($ops, as the results file)"
    else
        fail "$name: Prometheus has the group's final operations" "$got, results $ops"
        return 1
    fi
    for q in 0.5 0.99; do
        est=$(prom_query "histogram_quantile($q, sum by (le) (last_over_time(hsmbench_latency_seconds_bucket{$sel}[5m])))")
        bound=$3
        [ "$q" = 0.99 ] && bound=$4
        if python3 - "$T/$name.json" "$q" "$est" "$bound" >"$T/q.out" 2>&1 <<'PY'; then
import json, sys
r = json.load(open(sys.argv[1]))["runs"][0]["latency_us"]
exact = r["p50" if sys.argv[2] == "0.5" else "p99"] / 1e6
est, lo, hi = float(sys.argv[3]), *map(float, sys.argv[4].split(":"))
err = est / exact - 1
print(f"histogram_quantile {est:.6g} s, results {exact:.6g} s: {100 * err:+.1f}% (bound {100 * lo:+.0f}%..{100 * hi:+.0f}%)")
sys.exit(0 if lo <= err <= hi else 1)
PY
            pass "$name: histogram_quantile($q) within the documented error: $(cat "$T/q.out")"
        else
            fail "$name: histogram_quantile($q) within the documented error" "query: $est; $(tail -c 300 "$T/q.out" | tr '\n' ' ')"
        fi
    done
}

# ---- the mock HSM: log-normal service times (median 10 ms, sigma 0.5) -----
# Long enough that the machine's own delays hardly change the shape; pushes
# at 5 s while measuring (warm-up 1 s, 7 s measured) and at the end.
RID=push-mock-$$
if HSMBENCH_MOCK='service=lognormal:10ms:0.5' pushed_run mock "$RID" --module "$MOCK" --test sha256-digest \
    --threads 8 --warmup 1 --duration 7; then
    seen=$(cat "$T/mock.seen")
    case " $seen " in
    *" measured "*) pass "mock: a push while the run measured reached the Pushgateway (phases seen: $seen)" ;;
    *) fail "mock: a push while the run measured reached the Pushgateway" "phases seen: $seen" ;;
    esac
    case " $seen " in
    *" done "*) pass "mock: the final push left the run's end at the Pushgateway" ;;
    *) fail "mock: the final push left the run's end at the Pushgateway" "phases seen: $seen" ;;
    esac
    # the documented bound of log-normal spreads of sigma 0.25 or more (the
    # mock's 0.5; the machine only widens it): p50 within 9 %, p99 within 40 %
    prom_checks mock "$RID" -0.09:0.09 -0.40:0.40
    got=$(prom_query "max(last_over_time(process_resident_memory_bytes{$sel}[5m])) > 0 and on() max(last_over_time(hsmbench_client_cpu{$sel}[5m])) >= 0")
    case $got in empty|error*) fail "mock: process_* and the client-CPU gauge pushed" "$got" ;;
    *) pass "mock: process_* and the client-CPU gauge pushed" ;; esac
fi

# ---- SoftHSM: whatever its distribution, within one bucket (-44 %..+78 %) --
# (A bound that holds on any number of operations, docs/multi-host.md: a
# second of SoftHSM's signatures, thousands of them, after a warm-up whose
# operations the pushed counts must leave out.)
RID=push-softhsm-$$
if pushed_run softhsm "$RID" --test ecdsa-sign --threads 2 --warmup 0.3s --duration 1; then
    prom_checks softhsm "$RID" -0.44:0.78 -0.44:0.78
fi

# ---- an unreachable Pushgateway: one warning, the run still succeeds -------
DEAD=$(free_port)
run env HSMBENCH_MOCK='service=fixed:100us' "$HSMBENCH" run --module "$MOCK" --test sha256-digest \
    --duration 0.3 --quiet --metrics-push "http://hsmuser:$SECRET@127.0.0.1:$DEAD/"
n=$(grep -c "warning: --metrics-push http://127.0.0.1:$DEAD/: " "$T/err")
if [ "$rc" -eq 0 ] && [ "$n" = 1 ] && ! grep -q "$SECRET" "$T/out" "$T/err"; then
    pass "an unreachable Pushgateway: one warning without the password, exit 0"
else
    fail "an unreachable Pushgateway: one warning without the password, exit 0" "exit $rc, $n warnings: $(head -c 300 "$T/err")"
fi
run "$HSMBENCH" run --module "$MOCK" --test sha256-digest --metrics-push "ftp://127.0.0.1/"
check_one_line_error "--metrics-push takes an http(s) URL: one line, exit 2" 2 "^hsmbench: error: --metrics-push: "
run "$HSMBENCH" run --module "$MOCK" --test sha256-digest --metrics-buckets medium
check_one_line_error "--metrics-buckets takes coarse or fine: one line, exit 2" 2 "^hsmbench: error: --metrics-buckets medium"

# ---- the scrape of a 10-test run: default vs fine --------------------------
TESTS=sha256-digest,sha384-digest,sha512-digest,sha1-digest,aes-cbc-encrypt,aes-cbc-decrypt,aes-gcm-encrypt,aes-gcm-decrypt,hmac-sha256,hmac-sha256-verify
for b in coarse fine; do
    HSMBENCH_MOCK='service=fixed:100us' "$HSMBENCH" run --module "$MOCK" --test "$TESTS" --duration 0.1 --quiet \
        --metrics-buckets $b --metrics-push "http://127.0.0.1:$PGPORT/" --run-id "size-$b-$$" >"$T/$b.out" 2>"$T/$b.err"
    get "http://127.0.0.1:$PGPORT/metrics" | grep "run_id=\"size-$b-$$\"" | grep '^hsmbench_' >"$T/$b.prom"
done
if python3 - "$T/coarse.prom" "$T/fine.prom" >"$T/size.out" 2>&1 <<'PY'; then
import sys
c, f = (open(p).read() for p in sys.argv[1:3])
tests = {l.split('test="')[1].split('"')[0] for l in c.splitlines() if 'test="' in l}
print(f"{len(c)} bytes of 10 tests' series at the default, {len(f)} fine: {100 * len(c) / max(len(f), 1):.1f}%")
sys.exit(0 if len(tests) == 10 and f and len(c) < 0.10 * len(f) else 1)
PY
    pass "a 10-test run's series: under 10 % of the fine buckets' bytes ($(cat "$T/size.out"))"
else
    fail "a 10-test run's series: under 10 % of the fine buckets' bytes" "$(head -c 300 "$T/size.out")"
fi

if grep -Eq 'Sanitizer|runtime error' "$T"/*.err "$T/err" 2>/dev/null; then
    fail "no sanitizer report" "$(grep -Eh 'Sanitizer|runtime error' "$T"/*.err "$T/err" | head -n 2 | tr '\n' ' ')"
else
    pass "no sanitizer report"
fi
