#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_fleet.sh - a fleet of load generators as the Kubernetes
# example runs it, without a cluster:
#  - what "kubectl apply -k k8s/" creates and the image (Containerfile)
#    checked offline against the Kubernetes API schema, the restricted Pod
#    Security Standard and what the kubelet refuses (tests/k8s_check.py),
#    and the checks shown to catch a named USER, runAsNonRoot without
#    runAsUser, misspelt fields, each restricted rule broken, and two
#    manifests joined without "---" (the old launch's stream);
#  - the generator Job's pod command, taken from k8s/hsmbench-job.yaml, run
#    three times as local processes with their indexes and the shared START
#    (the third one late: it joins at the next whole second), then the
#    collection Job's command: the merged result is the union of its parts
#    and says how many generators joined and who was late;
#  - a real Prometheus (Debian's) scraping the three on loopback: its
#    histogram_quantile(0.5|0.99) over the generators within the documented
#    4.6 % (--metrics-buckets fine) of the merged exact p50 and p99, for the mock HSM at 2 ms and for
#    sha256-digest on SoftHSM (about a microsecond); every query of the
#    Grafana dashboard answers there.
. "$TOP/tests/e2e/lib.sh"
[ "$VARIANT" = plain ] || exit 0
need_mock || exit 0
SCHEMA="$TOP/k8s/schema/kubernetes-1.22.json"
JOB="$TOP/k8s/hsmbench-job.yaml"
COLLECT="$TOP/k8s/hsmbench-collect.yaml"
ERR_BOUND=0.046   # --metrics-buckets fine (the generators here): docs/multi-host.md, bench/results/metrics.c

if ! python3 -c 'import yaml, jsonschema' 2>/dev/null; then
    fail "python3-yaml and python3-jsonschema" "missing (ci/install-deps.sh)"
    exit 0
fi

# ---- the manifests, offline -------------------------------------------------
OBJECTS=ConfigMap/hsmbench-start,PersistentVolumeClaim/hsmbench-results,NetworkPolicy/hsmbench-metrics,Job/hsmbench,Job/hsmbench-collect
if python3 "$TOP/tests/k8s_check.py" "$SCHEMA" "$TOP/Containerfile" --objects "$OBJECTS" -k "$TOP/k8s" \
        >"$T/k8s.out" 2>&1; then
    pass "kubectl apply -k k8s/ creates every object ($OBJECTS), each valid against the Kubernetes API schema, the pods restricted, image USER numeric ($(grep -c '^ok' "$T/k8s.out") checks)"
else
    fail "kubectl apply -k k8s/: every object, valid, restricted" "$(grep FAIL "$T/k8s.out" | head -n 3 | tr '\n' ' ')"
fi
unlisted=$(for f in "$TOP"/k8s/*.yaml; do
    b=$(basename "$f")
    [ "$b" = kustomization.yaml ] || grep -qx "  - $b" "$TOP/k8s/kustomization.yaml" || printf '%s ' "$b"
done)
[ -z "$unlisted" ] && pass "k8s/kustomization.yaml lists every manifest of k8s/" ||
    fail "k8s/kustomization.yaml lists every manifest of k8s/" "not: $unlisted"
# The stream the old launch made (sed over two files, no "---" between
# them): one document, kubectl keeping only the second Job; refused now.
sed 's/x/x/' "$JOB" "$COLLECT" >"$T/joined.yaml"
if python3 "$TOP/tests/k8s_check.py" "$SCHEMA" "$TOP/Containerfile" --objects Job/hsmbench,Job/hsmbench-collect - \
        <"$T/joined.yaml" >"$T/joined.out" 2>&1; then
    fail "refused: two manifests joined without ---" "accepted"
elif grep -q "duplicate key 'apiVersion'" "$T/joined.out" && grep -q "FAIL the objects created: none" "$T/joined.out"; then
    pass "refused: two manifests joined without --- (one document to kubectl: a duplicate key, not the two Jobs)"
else
    fail "refused: two manifests joined without ---" "$(grep FAIL "$T/joined.out" | head -n 2 | tr '\n' ' ')"
fi
# Where a kubectl is installed, its kustomize builds the objects the offline build does.
if command -v kubectl >/dev/null 2>&1 && kubectl kustomize "$TOP/k8s" >"$T/kust.yaml" 2>"$T/kust.err"; then
    python3 "$TOP/tests/k8s_stream.py" objects "$T/kust.yaml" | sed 's/-[0-9a-z]\{10\}$//' | sort >"$T/kust.objs"
    python3 "$TOP/tests/k8s_stream.py" build "$TOP/k8s" | python3 "$TOP/tests/k8s_stream.py" objects - |
        sed 's/-[0-9a-z]\{10\}$//' | sort >"$T/mine.objs"
    if cmp -s "$T/kust.objs" "$T/mine.objs"; then
        pass "kubectl kustomize k8s/ creates the objects the offline build does ($(tr '\n' ' ' <"$T/kust.objs"))"
    else
        fail "kubectl kustomize k8s/ creates the objects the offline build does" "$(tr '\n' ' ' <"$T/kust.objs") vs $(tr '\n' ' ' <"$T/mine.objs")"
    fi
fi
# k8s_bad NAME PATTERN SED [CONTAINERFILE_SED]: the checker refuses a changed manifest, naming why.
k8s_bad() {
    sed "$3" "$JOB" >"$T/bad.yaml"
    sed "${4:-}" "$TOP/Containerfile" >"$T/bad.Containerfile"
    if python3 "$TOP/tests/k8s_check.py" "$SCHEMA" "$T/bad.Containerfile" "$T/bad.yaml" >"$T/bad.out" 2>&1; then
        fail "$1" "accepted"
    elif grep -q "$2" "$T/bad.out"; then
        pass "$1"
    else
        fail "$1" "$(grep FAIL "$T/bad.out" | head -n 2 | tr '\n' ' ')"
    fi
}
k8s_bad "refused: the image's USER by name (the kubelet: image has non-numeric user)" \
    "USER 'hsmbench' is not numeric" 's/^x//' 's/^USER .*/USER hsmbench/'
k8s_bad "refused: runAsNonRoot without a numeric runAsUser" \
    "runAsNonRoot without a numeric runAsUser" '/^ *runAsUser: 10001$/d'
k8s_bad "refused: runAsUser as a string" "spec.template.spec.securityContext.runAsUser: '10001' is not of type 'integer'" \
    's/^\( *\)runAsUser: 10001$/\1runAsUser: "10001"/'
k8s_bad "refused: a field the API does not know (completionsMode)" \
    "Additional properties are not allowed ('completionsMode' was unexpected)" 's/completionMode:/completionsMode:/'
k8s_bad "refused: a container without its required name" "'name' is a required property" 's/^        - name: hsmbench$/        - tty: false/'
k8s_bad "refused: a container allowed to escalate privileges" "allowPrivilegeEscalation is not false" \
    's/allowPrivilegeEscalation: false/allowPrivilegeEscalation: true/'
# the restricted Pod Security Standard
k8s_bad "refused (restricted): no seccomp profile" "seccompProfile unset (restricted: RuntimeDefault" \
    '/^ *seccompProfile:$/,/^ *type: RuntimeDefault$/d'
k8s_bad "refused (restricted): seccomp Unconfined" "seccompProfile Unconfined" 's/type: RuntimeDefault/type: Unconfined/'
k8s_bad "refused (restricted): capabilities not all dropped" "capabilities do not drop ALL" 's/drop: \["ALL"\]/drop: ["NET_RAW"]/'
k8s_bad "refused (restricted): a capability added" "capabilities add SYS_ADMIN" \
    's/drop: \["ALL"\]/drop: ["ALL"]\n              add: ["SYS_ADMIN", "NET_BIND_SERVICE"]/'
k8s_bad "refused (restricted): a hostPath volume" "volume results: hostPath" \
    '/^ *persistentVolumeClaim:$/{N;s/persistentVolumeClaim:\n *claimName:.*/hostPath: {path: \/srv\/results}/}'
k8s_bad "refused (baseline): the host's network" "hostNetwork: true" 's/^      restartPolicy: Never$/&\n      hostNetwork: true/'
k8s_bad "refused (baseline): a privileged container" "privileged (baseline)" \
    's/allowPrivilegeEscalation: false/&\n            privileged: true/'

# ---- the pod commands, as local processes ------------------------------------
mkdir -p "$T/bin"
ln -s "$HSMBENCH" "$T/bin/hsmbench"
PATH="$T/bin:$PATH"
export PATH

# pod_command MANIFEST SUBST...: the container's "sh -c" script, with each
# SUBST (OLD=>NEW, a fixed string that must occur) applied.
pod_command() {
    python3 - "$@" <<'PY'
import sys, yaml
doc = yaml.safe_load(open(sys.argv[1]))
c = doc["spec"]["template"]["spec"]["containers"][0]
assert c["command"] == ["sh", "-c"], c["command"]
cmd = c["args"][0]
for s in sys.argv[2:]:
    old, new = s.split("=>", 1)
    if old not in cmd:
        sys.exit(f"{sys.argv[1]}: the pod command has no {old!r}: {cmd}")
    cmd = cmd.replace(old, new)
print(cmd)
PY
}

PROM_PID=
GEN_PIDS=
cleanup_fleet() {
    for p in $GEN_PIDS; do kill -INT "$p" 2>/dev/null; done
    for p in $GEN_PIDS; do wait "$p" 2>/dev/null; done
    GEN_PIDS=
    [ -n "$PROM_PID" ] && kill "$PROM_PID" 2>/dev/null && wait "$PROM_PID" 2>/dev/null
    PROM_PID=
}
trap 'cleanup_fleet; rm -rf "$T"' EXIT

# prom_wait SECONDS WANT EXPR: prom_query EXPR every half second until it
# answers WANT (exit 0) or SECONDS of the clock have passed (exit 1); prints
# the last answer.
prom_wait() {
    pw_end=$(( $(date +%s) + $1 ))
    while :; do
        pw_got=$(prom_query "$3")
        [ "$pw_got" = "$2" ] && { echo "$pw_got"; return 0; }
        [ "$(date +%s)" -ge "$pw_end" ] && { echo "$pw_got"; return 1; }
        sleep 0.5
    done
}

# gen_alive DIR N: y for each generator still running, else n and what
# it last wrote on stderr.
gen_alive() {
    i=0
    while [ $i -lt "$2" ]; do
        if kill -0 "$(cat "$1/gen$i.pid")" 2>/dev/null; then printf 'y '
        else printf 'n (%s) ' "$(tail -n 3 "$1/gen$i.err" | tr '\n' ' ' | tail -c 300)"; fi
        i=$((i + 1))
    done
}

# prom_targets: each scrape target's health, last error and last scrape's
# duration, from Prometheus's targets API (what a failure shows).
prom_targets() {
    python3 - "$PROM" <<'PY'
import json, sys, urllib.request
try:
    d = json.load(urllib.request.urlopen(sys.argv[1] + "/api/v1/targets", timeout=10))
    print("; ".join("%s %s %r %.4fs" % (t["scrapeUrl"], t["health"], t["lastError"], t["lastScrapeDuration"])
                    for t in d["data"]["activeTargets"]))
except Exception as e:
    print("error:", e)
PY
}

# with_conf CONF CMD...: CMD with SOFTHSM2_CONF=CONF when CONF is not empty.
with_conf() {
    wc_conf=$1
    shift
    if [ -n "$wc_conf" ]; then SOFTHSM2_CONF=$wc_conf exec "$@"; else exec "$@"; fi
}

# fleet NAME N LATE MODULE TOKEN TEST DURATION: START a few seconds ahead; a
# Prometheus scraping every second; the Job's pod command N times with
# JOB_COMPLETION_INDEX 0..N-1 (index N-1 started LATE seconds after START
# when LATE is not 0); then the collection Job's command.  Leaves the
# generators' files and the merged one in $T/NAME/results/START, the
# Prometheus at $PROM and the run id in $RUN.
fleet() {
    name=$1 n=$2 late=$3 module=$4 token=$5 test=$6 duration=$7
    d="$T/$name"
    mkdir -p "$d/tsdb"
    mkdir -p "$d"
    (umask 077 && printf '%s\n' "$HSM_PIN" >"$d/pin")
    if ! cmd=$(pod_command "$JOB" "/opt/hsm/lib/libcryptoki.so=>$module" "--token prod=>--token $token" \
            "--pin-file /etc/hsm/pin/pin=>--pin-file $d/pin" \
            "--test ecdsa-sign=>--test $test" "--threads 8=>--threads 2" "--duration 60=>--duration $duration" \
            "/results/=>$d/results/" "0.0.0.0:9464=>127.0.0.1:0 --metrics-buckets fine" \
            "--metrics-linger 30s=>--metrics-linger 600s" \
            2>"$d/cmd.err"); then
        fail "$name: the generator Job's pod command" "$(cat "$d/cmd.err")"
        return 1
    fi
    # 10 s ahead: on a loaded machine a generator takes seconds to be ready,
    # and one later than the duration measures nothing
    START=$(( $(date +%s) + 10 ))
    RUN=$START
    urls=
    i=0
    while [ $i -lt "$n" ]; do
        # Each generator its own copy of a SoftHSM token, as each pod has its
        # own HSM client: SoftHSM rewrites token.object at every C_Login, and
        # a process reading the token at that moment does not see it (about
        # 1 in 100 "pkcs11-tool -L" beside a login loop; here a generator
        # exited 3, "--token hsmbench-demo: no token with that label").
        if [ -n "${SOFTHSM2_CONF:-}" ]; then
            mkdir -p "$d/hsm$i"
            cp -R "$(sed -n 's/^directories.tokendir *= *//p' "$SOFTHSM2_CONF")" "$d/hsm$i/tokens"
            sed "s|^directories.tokendir *=.*|directories.tokendir = $d/hsm$i/tokens|" "$SOFTHSM2_CONF" \
                >"$d/hsm$i/softhsm2.conf"
            gen_conf="$d/hsm$i/softhsm2.conf"
        else
            gen_conf=
        fi
        if [ "$late" != 0 ] && [ $i -eq $((n - 1)) ]; then
            # the late pod: it comes up LATE seconds after START
            ( sleep $((START - $(date +%s))); sleep "$late"
              START=$START JOB_COMPLETION_INDEX=$i with_conf "$gen_conf" sh -c "$cmd" ) >"$d/gen$i.out" 2>"$d/gen$i.err" &
        else
            START=$START JOB_COMPLETION_INDEX=$i with_conf "$gen_conf" sh -c "$cmd" >"$d/gen$i.out" 2>"$d/gen$i.err" &
        fi
        GEN_PIDS="$GEN_PIDS $!"
        echo $! >"$d/gen$i.pid"
        i=$((i + 1))
    done
    i=0
    while [ $i -lt "$n" ]; do
        if ! u=$(metrics_url "$d/gen$i.err"); then
            fail "$name: generator $i serves its metrics" "$(head -c 300 "$d/gen$i.err")"
            return 1
        fi
        urls="$urls \"$(echo "$u" | sed 's|^http://\([^/]*\)/metrics$|\1|')\","
        i=$((i + 1))
    done
    cat >"$d/prom.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: hsmbench
    static_configs:
      - targets: [${urls%,} ]
EOF
    promtool check config "$d/prom.yml" >"$d/promtool.out" 2>&1 ||
        fail "$name: promtool check config" "$(head -c 300 "$d/promtool.out")"
    if ! prom_start "$d/prom.yml" "$d"; then
        fail "$name: prometheus starts on loopback" "$(tail -c 300 "$d/prom.log")"
        return 1
    fi
    # every generator's results file written: the runs are over (they linger)
    i=0
    while [ "$(ls "$d/results/$START" 2>/dev/null | grep -c '^[0-9]*\.json$')" -lt "$n" ] && [ $i -lt 600 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    i=0
    while [ $i -lt "$n" ]; do
        if [ ! -s "$d/results/$START/$i.json" ]; then
            fail "$name: generator $i wrote its results file" "$(gen_alive "$d" "$n")"
            return 1
        fi
        i=$((i + 1))
    done
    # the collection Job's command, as the collection pod runs it
    if ! ccmd=$(pod_command "$COLLECT" "/results/=>$d/results/" 2>"$d/ccmd.err"); then
        fail "$name: the collection Job's pod command" "$(cat "$d/ccmd.err")"
        return 1
    fi
    START=$START GENERATORS=$n DURATION=$duration WINDOW=60 KEEP=0 timeout 120 sh -c "$ccmd" \
        >"$d/collect.out" 2>"$d/collect.err"
    crc=$?
    if [ $crc -eq 0 ] && [ -s "$d/results/$START/all.json" ] && [ -s "$d/results/$START/all.html" ]; then
        pass "$name: the collection step merges the $n generators' files into all.json (and all.html, all.csv)"
    else
        fail "$name: the collection step merges the generators' files" "exit $crc: $(head -c 400 "$d/collect.err") $(head -c 300 "$d/collect.out")"
        return 1
    fi
    # Prometheus has scraped every generator after its end
    want_ops=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["runs"][0]["ops"])' "$d/results/$START/all.json")
    # Up to 120 s of the clock, not a count of tries (on a machine busy with
    # the rest of the suite, 180 tries of a python3 each outlasted the
    # generators' linger).  On such a machine a scrape can miss
    # its 1 s timeout several times in a row, and a failed scrape makes a
    # target's series stale: last_over_time reads each generator's last
    # scraped sample (staleness markers are not samples), and the phase says
    # that sample is from after its end.
    if got=$(prom_wait 120 "$want_ops" "sum(last_over_time(hsmbench_latency_seconds_count{run_id=\"$RUN\"}[5m])) and on() count(last_over_time(hsmbench_phase{run_id=\"$RUN\",phase=\"done\"}[5m]) == 1) == $n"); then
        pass "$name: Prometheus scraped the $n generators' final counts ($want_ops operations, as merged)"
    else
        fail "$name: Prometheus scraped the generators' final counts" \
            "$got, merged $want_ops; counts by generator: $(prom_query "sum by (generator) (last_over_time(hsmbench_latency_seconds_count{run_id=\"$RUN\"}[5m]))"); done: $(prom_query "count(last_over_time(hsmbench_phase{run_id=\"$RUN\",phase=\"done\"}[5m]) == 1)"); generators alive: $(gen_alive "$d" "$n"); targets: $(prom_targets)"
        return 1
    fi
    return 0
}

# union_check NAME DIR N: the merged file equals the union of its parts.
union_check() {
    if python3 "$TOP/tests/e2e/merge_union.py" "$2" "$3" >"$T/union.out" 2>&1; then
        pass "$1: the merged result is the union of its parts (operations, errors by code, histogram slot by slot, per second)"
    else
        fail "$1: the merged result is the union of its parts" "$(head -c 500 "$T/union.out" | tr '\n' ' ')"
    fi
}

# quantiles NAME DIR: histogram_quantile over the generators vs the merged
# exact p50 and p99, within ERR_BOUND; the figures in the PASS line.
quantiles() {
    qname=$1 qdir=$2
    for q in 0.5 0.99; do
        key=$( [ $q = 0.5 ] && echo p50 || echo p99 )
        exact=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["runs"][0]["latency_us"][sys.argv[2]])' "$qdir/all.json" "$key")
        # (each bucket's last scraped sample: a scrape that timed out since makes
        # the series stale, not different)
        est=$(prom_query "histogram_quantile($q, sum by (le) (last_over_time(hsmbench_latency_seconds_bucket{run_id=\"$RUN\"}[5m])))")
        if python3 - "$exact" "$est" "$ERR_BOUND" >"$T/q.out" 2>&1 <<'PY'; then
import sys
exact_us, est_s, bound = float(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
err = (est_s * 1e6 - exact_us) / exact_us
print(f"{est_s * 1e6:.3f} us vs exact {exact_us:.3f} us: {err * 100:+.2f} %")
sys.exit(0 if abs(err) <= bound else 1)
PY
            pass "$qname: histogram_quantile($q) over the generators within 4.6 % of the merged exact $key: $(cat "$T/q.out")"
        else
            fail "$qname: histogram_quantile($q) over the generators within 4.6 % of the merged exact $key" "$(cat "$T/q.out") (query: $est)"
        fi
    done
}

# ---- a fleet on the mock HSM, 2 ms, one generator late -----------------------
export HSMBENCH_MOCK='service=fixed:2ms;cores=8'
export HSM_PIN=1234
if fleet mock 3 1.5 "$MOCK" mock sha256-digest 4; then
    dir="$T/mock/results/$START"
    union_check "mock fleet" "$dir" 3
    json_check "mock fleet: the merge says 3 of 3 generators joined, generator 2 late; each file names its run and generator" \
        "$dir/all.json" "doc['generators']['joined'] == 3 and doc['generators']['expected'] == 3 and \
        [x['file'].rsplit('/', 1)[-1] for x in doc['generators']['late']] == ['2.json'] and \
        doc['generators']['late'][0]['late_s'] >= 1.5"
    if python3 - "$dir" "$START" <<'PY'; then
import json, sys
d, start_ms = sys.argv[1], int(sys.argv[2]) * 1000
fs = [json.load(open(f"{d}/{i}.json")) for i in range(3)]
assert all(f["fleet"]["generator"] == str(i) and f["fleet"]["run_id"] == sys.argv[2] for i, f in enumerate(fs))
late, first = fs[2]["runs"][0], fs[0]["runs"][0]
# it joined at START + k whole seconds (k >= 2: it came 1.5 s late): past
# that second it began as the on-time generator 0 began past START
k, rest = divmod(late["measure_start_epoch_ms"] - start_ms, 1000)
rest0 = first["measure_start_epoch_ms"] - start_ms
assert fs[2]["fleet"]["joined"] and fs[2]["fleet"]["late_s"] >= 1.5 and k >= 2 and abs(rest - rest0) < 300, (k, rest, rest0)
# and measured until the others ended: the duration less the seconds it missed
assert abs(late["duration_s"] - (late["settings"]["duration_s"] - k)) < 0.01, late["duration_s"]
assert abs(first["duration_s"] - first["settings"]["duration_s"]) < 0.01
PY
        pass "mock fleet: the late generator joined at a whole second after START and ended with the others"
    else
        fail "mock fleet: the late generator joined at a whole second after START and ended with the others" \
            "$(grep -h 'late\|waiting' "$T/mock/gen2.out" | head -c 200)"
    fi
    if grep -q "3 of 3 generators joined; .*2.json [0-9.]* s late" "$T/mock/collect.out"; then
        pass "mock fleet: the collection step says how many generators joined and who was late"
    else
        fail "mock fleet: the collection step says how many generators joined" "$(head -c 300 "$T/mock/collect.out")"
    fi
    # the --out jsonl stream of each generator: a line per second, the results file's figures
    if python3 - "$dir" <<'PY'; then
import json, sys
d = sys.argv[1]
for i in range(3):
    res = json.load(open(f"{d}/{i}.json"))["runs"][0]
    lines = [json.loads(l) for l in open(f"{d}/{i}.jsonl")]
    measured = [l for l in lines if l["phase"] == "measured"]
    assert all(l["generator"] == str(i) and l["run_id"] == json.load(open(f"{d}/{i}.json"))["fleet"]["run_id"] for l in lines)
    keys = ("t", "span_s", "ops", "errors", "p50_us", "p99_us")
    assert [{k: l[k] for k in keys} for l in measured] == [{k: s[k] for k in keys} for s in res["per_second"]], i
PY
        pass "mock fleet: each generator's --out jsonl stream holds its per-second figures, as its results file"
    else
        fail "mock fleet: each generator's --out jsonl stream holds its per-second figures" "differ"
    fi
    quantiles "mock 2 ms fleet" "$dir"
    # every query of the Grafana dashboard answers on this Prometheus
    python3 - "$TOP/grafana/hsmbench-fleet.json" "$RUN" >"$T/exprs" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for p in d["panels"]:
    for t in p["targets"]:
        e = t["expr"].replace("$run_id", sys.argv[2]).replace("$generator", ".*").replace("$test", ".*")
        print(p["title"] + "\t" + e.replace("$__rate_interval", "1m"))
PY
    bad=
    nq=0
    while IFS="$(printf '\t')" read -r title expr; do
        nq=$((nq + 1))
        r=$(prom_query "$expr")
        case $r in error:*) bad="$bad [$title: $r]" ;; esac
        case $title in Throughput*|Generators|"Latency quantiles"*|"p99 latency"*)
            [ "$r" = empty ] && bad="$bad [$title: no data]" ;; esac
    done <"$T/exprs"
    if [ -z "$bad" ] && [ "$nq" -gt 10 ]; then
        pass "every one of the dashboard's $nq queries answers on Prometheus with the fleet's series"
    else
        fail "every one of the dashboard's queries answers on Prometheus" "$bad"
    fi
fi
cleanup_fleet

# ---- a fleet on SoftHSM: sha256-digest of 32 bytes, about a microsecond ------
unset HSMBENCH_MOCK
run "$HSMBENCH" run --test sha256-digest --iterations 10 --quiet
check "demo token set up" 0
softhsm_env
HSM_PIN=$(cat "$PINFILE")
export HSM_PIN
# Runs of 1 s: the union and the quantiles checked here hold of a run of
# any length.
if fleet softhsm 3 0 "$SOFTHSM" hsmbench-demo "sha256-digest --data-size 32" 1; then
    dir="$T/softhsm/results/$START"
    union_check "SoftHSM fleet" "$dir"  3
    p50=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["runs"][0]["latency_us"]["p50"])' "$dir/all.json")
    quantiles "SoftHSM sha256-digest fleet (exact p50 $p50 us)" "$dir"
fi
cleanup_fleet
