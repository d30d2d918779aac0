#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_mix.sh - run --mix (operation types drawn by weight, one
# run, reported per type) and --lookup (C_FindObjects before each
# operation), on the mock HSM and on hsmbench's own SoftHSM token.
# About 15 seconds.
# asan: yes (per-type histograms filled by many threads, blocking and on the worker pool, and merged)
. "$TOP/tests/e2e/lib.sh"

MOCK="$(dirname "$NULLP11")/libhsmbench-mock.so"
MIX='rsa-pkcs-sign:60,ecdsa-verify:30,aes-gcm-encrypt:10'

# mock CONFIG ARGS...: hsmbench with HSMBENCH_MOCK=CONFIG, through run().
mock() {
    cfg=$1
    shift
    run env HSMBENCH_MOCK="$cfg" "$HSMBENCH" "$@"
}

# Per-type counts against the weights: within 5 binomial sigmas of N * w.
WEIGHTS_OK='all(abs(c["ops"] - runs[0]["ops"] * c["weight"]) <= 5 * (runs[0]["ops"] * c["weight"] * (1 - c["weight"])) ** 0.5 for c in runs[0]["breakdown"]["type"])'
# The classes add up to the run: operations, errors, histogram totals.
ADDS_UP='sum(c["ops"] for c in runs[0]["breakdown"]["type"]) == runs[0]["ops"] and sum(c["errors"] for c in runs[0]["breakdown"]["type"]) == runs[0]["errors"] and sum(c["histogram"]["total"] for c in runs[0]["breakdown"]["type"]) == runs[0]["histogram"]["total"]'

# ---- the weights, on the mock ----------------------------------------------------
mock "" run --module "$MOCK" --mix "$MIX" --iterations 4000 --threads 2 \
    --json "$T/w.json" --csv "$T/w.csv" --html "$T/w.html" </dev/null
check "mix on the mock, 4000 operations: exit 0, a table by type" 0 '^    by type +share +weight'
cp "$T/out" "$T/w.out"
json_check "mix: test \"mix\", its mix field lists the types and weights" "$T/w.json" \
    'runs[0]["test"] == "mix" and [(m["test"], m["weight"]) for m in runs[0]["mix"]] == [("rsa-pkcs-sign", 0.6), ("ecdsa-verify", 0.3), ("aes-gcm-encrypt", 0.1)]'
json_check "mix: per-type counts within 5 sigma of the weights" "$T/w.json" "$WEIGHTS_OK"
# aes-gcm-encrypt processes data: the mix's bytes are its successes times its data size
json_check "mix: bytes_per_s counts the aes-gcm-encrypt type's data" "$T/w.json" \
    'runs[0]["bytes_per_s"] > 0 and abs(runs[0]["bytes_per_s"] * runs[0]["duration_s"] - [c for c in runs[0]["breakdown"]["type"] if c["class"] == "aes-gcm-encrypt"][0]["ops"] * 1024) <= 1024 + runs[0]["bytes_per_s"] * 1e-6'
file_has "mix: the summary's data line (binary units)" "$T/w.out" '^ +data\.+: [0-9.]+ ([KM]i)?B +[0-9.]+ ([KMG]i)?B/s$'
file_has "mix: the HTML page shows the data rate (binary units)" "$T/w.html" '<th>data rate</th><td class="n">[0-9.]+ ([KMG]i)?B/s'
file_lacks "mix: the HTML page does not say data 0 B" "$T/w.html" 'data 0 B'
file_lacks "mix: neither the header nor the summary says data 0 B" "$T/w.out" 'data 0 B'
# The types' data sizes differ (32 B signed, 1 KiB encrypted): the header and
# the summary's title say so, the page's runs table too.
file_has "mix: the header names the types' data sizes" "$T/w.out" '^Running mix \(.*mixed data sizes\)'
file_has "mix: the summary's title names the types' data sizes" "$T/w.out" '^  mix · 3 types · mixed data sizes · '
file_has "mix: the page's runs table says the data sizes are mixed" "$T/w.html" '<td class="n">mixed</td>'
json_check "mix: per-type operations, errors and histograms add up to the run's" "$T/w.json" "$ADDS_UP"
json_check "mix: every type has its ops/s, latency and errors" "$T/w.json" \
    'all(c["ops_per_s"] > 0 and c["latency_us"]["count"] == c["ops"] and c["attempts"] == c["ops"] + c["errors"] and c["errors_by_code"] == {} for c in runs[0]["breakdown"]["type"])'
# The summary's per-type operations (share x total) agree with the JSON.
if python3 - "$T/w.json" "$T/w.out" <<'PY'
import json, re, sys
run = json.load(open(sys.argv[1]))["runs"][0]
lines = open(sys.argv[2]).read().splitlines()
for c in run["breakdown"]["type"]:
    m = [l for l in lines if re.match(r"^      %s +[0-9.]+%%" % re.escape(c["class"]), l)]
    share = float(m[0].split()[1].rstrip("%"))
    assert abs(share - 100.0 * c["attempts"] / run["attempts"]) < 0.01, (c["class"], share)
PY
then pass "mix: the summary's shares are the JSON's"; else fail "mix: the summary's shares are the JSON's" "$(cat "$T/w.out")"; fi
file_has "mix CSV: a class column" "$T/w.csv" ',class.$'
file_has "mix CSV: the run's row, class empty" "$T/w.csv" '^mix,2,.*,.$'
for ty in rsa-pkcs-sign ecdsa-verify aes-gcm-encrypt; do
    file_has "mix CSV: a row for $ty" "$T/w.csv" ",type=$ty.\$"
done
file_has "mix HTML: a table by type" "$T/w.html" '<h3>by type</h3>'
file_has "mix HTML: a row for ecdsa-verify" "$T/w.html" '<tr><td>ecdsa-verify</td>'
run "$HSMBENCH" report "$T/w.json" --csv "$T/r.csv"
check "report of a mix file: exit 0" 0
if cmp -s "$T/w.csv" "$T/r.csv"; then pass "report --csv of the file: the run's CSV"
else fail "report --csv of the file: the run's CSV" "$(diff "$T/w.csv" "$T/r.csv" | head -5)"; fi

# ---- the seed makes a run's draw reproducible --------------------------------------
counts() {
    python3 -c 'import json,sys; print(" ".join(str(c["ops"]) for c in json.load(open(sys.argv[1]))["runs"][0]["breakdown"]["type"]))' "$1"
}
for n in 1 2; do
    mock "" run --module "$MOCK" --mix "$MIX" --iterations 500 --seed 7 --quiet --json "$T/s$n.json" </dev/null
done
mock "" run --module "$MOCK" --mix "$MIX" --iterations 500 --seed 8 --quiet --json "$T/s3.json" </dev/null
a=$(counts "$T/s1.json") b=$(counts "$T/s2.json") c=$(counts "$T/s3.json")
if [ -n "$a" ] && [ "$a" = "$b" ]; then pass "mix --seed 7 twice, one thread: the same per-type counts ($a)"
else fail "mix --seed 7 twice, one thread: the same per-type counts" "'$a' vs '$b'"; fi
if [ -n "$c" ] && [ "$c" != "$a" ]; then pass "mix --seed 8: another draw ($c)"
else fail "mix --seed 8: another draw" "'$c' vs '$a'"; fi

# ---- non-blocking, on the worker pool --------------------------------------------
# What is checked here is the mix's bookkeeping on the pool, not whether the
# client kept its schedule (test_openloop's verdicts, timed in the plain
# build alone).  By default 1 % of 1200 requests left unstarted fails the
# run: 15 ms of the process not scheduled near the end, which an ASan build
# beside a busy neighbour does not promise.  --max-unstarted 50 % keeps the
# verdict for a pool that starts little, with a margin a busy machine keeps.
mock "service=fixed:1ms;cores=4" run --module "$MOCK" --mix "$MIX" --mode nonblocking --rate 800 \
    --threads 4 --duration 1.5 --max-unstarted 50% --quiet --json "$T/nb.json" </dev/null
check "mix non-blocking on the mock: exit 0" 0
json_check "mix non-blocking: the worker pool, per-type counts add up" "$T/nb.json" \
    "runs[0]['mode'] == 'nonblocking' and runs[0]['settings']['engine'] == 'worker pool' and $ADDS_UP"
json_check "mix non-blocking: per-type latency from the scheduled time (>= the 1 ms service)" "$T/nb.json" \
    'all(c["latency_us"]["p50"] >= 900 for c in runs[0]["breakdown"]["type"])'

# ---- merge of two generators' mix files: the classes summed exactly --------------
start=$(( $(date +%s) + 5 ))   # a generator not ready by then joins late
for n in 1 2; do
    HSMBENCH_MOCK="" "$HSMBENCH" run --module "$MOCK" --mix "$MIX" --duration 0.3s --start-at "$start" \
        --quiet --json "$T/g$n.json" >"$T/g$n.out" 2>&1 </dev/null &
done
wait
run "$HSMBENCH" merge "$T/g1.json" "$T/g2.json" -o "$T/merged.json"
check "merge of two mix files: exit 0" 0
if python3 - "$T/g1.json" "$T/g2.json" "$T/merged.json" <<'PY'
import json, sys
a, b, m = (json.load(open(f))["runs"][0] for f in sys.argv[1:])
for x, y, z in zip(a["breakdown"]["type"], b["breakdown"]["type"], m["breakdown"]["type"]):
    assert z["class"] == x["class"] and z["ops"] == x["ops"] + y["ops"], z["class"]
    assert z["histogram"]["total"] == x["histogram"]["total"] + y["histogram"]["total"]
assert m["mix"] == a["mix"]
assert sum(c["ops"] for c in m["breakdown"]["type"]) == m["ops"]
PY
then pass "merge: per-type operations and histograms summed, the mix kept"
else fail "merge: per-type operations and histograms summed, the mix kept" "$(head -c 300 "$T/err")"; fi

# ---- --lookup adds a C_FindObjects (the mock gives it its service time) ------------
for l in plain lookup; do
    flag=
    [ "$l" = lookup ] && flag=--lookup
    mock "service=fixed:3ms;cores=8" run --module "$MOCK" --test ecdsa-sign --iterations 150 $flag \
        --quiet --json "$T/$l.json" </dev/null
done
check "--lookup on the mock: exit 0" 0
if python3 - "$T/plain.json" "$T/lookup.json" <<'PY'
import json, sys
p, l = (json.load(open(f))["runs"][0] for f in sys.argv[1:])
assert l["errors"] == 0 and p["errors"] == 0
# one more 3 ms call per operation: p50 from about 3 ms to about 6 ms
assert l["latency_us"]["p50"] >= p["latency_us"]["p50"] + 2000, (p["latency_us"]["p50"], l["latency_us"]["p50"])
PY
then pass "--lookup: p50 grows by about the mock's C_FindObjects service time"
else fail "--lookup: p50 grows by about the mock's C_FindObjects service time" "$(cat "$T/plain.json" | head -c 100)"; fi
mock "service=fixed:3ms;cores=8" run --module "$MOCK" --mix "$MIX" --lookup --iterations 150 \
    --quiet --json "$T/mixlookup.json" </dev/null
check "--mix with --lookup on the mock: exit 0" 0
json_check "--mix --lookup: every type slower than its service alone (two calls of 3 ms)" "$T/mixlookup.json" \
    'runs[0]["errors"] == 0 and all(c["latency_us"]["p50"] >= 5000 for c in runs[0]["breakdown"]["type"])'

# ---- SoftHSM: every type's results verified; nothing left on the token -------------
demo_with_user_key
run "$HSMBENCH" run --mix "$MIX,rsa-oaep-decrypt:5,hmac-sha256:5,aes-key-wrap:5" --iterations 300 \
    --threads 2 --verify=sample:5 --token-keys --json "$T/v.json"
check "SoftHSM mix of six with --verify --token-keys: exit 0" 0 '^    rsa-oaep-decrypt: [0-9]+ results checked \(compared with the plaintext OpenSSL encrypted before the run\), 0 wrong;'
json_check "SoftHSM mix --verify: every type's results checked, none wrong" "$T/v.json" \
    'all(m["verify"]["checked"] > 0 and m["verify"]["mismatched"] == 0 for m in runs[0]["mix"]) and runs[0]["verify"]["mismatched"] == 0 and runs[0]["errors"] == 0'
json_check "SoftHSM mix: per-type counts add up" "$T/v.json" "$ADDS_UP"
json_check "SoftHSM mix: each type's sessions reopened and buffers grown, summed in the run's" "$T/v.json" \
    'sum(m["sessions_reopened"] for m in runs[0]["mix"]) == runs[0]["sessions_reopened"] and sum(m["buffers_grown"] for m in runs[0]["mix"]) == runs[0]["buffers_grown"]'
after=$(demo_objects)
if [ -n "$before" ] && [ "$after" = "$before" ]; then pass "SoftHSM mix --token-keys: token object count unchanged ($after)"
else fail "SoftHSM mix --token-keys: token object count unchanged" "$before before, $after after"; fi
run "$HSMBENCH" run --mix "$MIX,aes-key-wrap:5,rsa-oaep-decrypt:5" --lookup --verify --iterations 200 \
    --token-keys --quiet --json "$T/vl.json"
check "SoftHSM mix --lookup --verify --token-keys: exit 0" 0
json_check "SoftHSM mix --lookup: no lookup error, results right" "$T/vl.json" \
    'runs[0]["errors"] == 0 and runs[0]["verify"]["checked"] > 0 and runs[0]["verify"]["mismatched"] == 0'
after=$(demo_objects)
if [ "$after" = "$before" ]; then pass "SoftHSM mix --lookup: token object count unchanged"
else fail "SoftHSM mix --lookup: token object count unchanged" "$before before, $after after"; fi

# Unwrap makes AES keys while its AES key is looked up: they carry their own label.
run "$HSMBENCH" run --test aes-key-unwrap,aes-key-wrap --lookup --threads 2 --iterations 200 --quiet \
    --json "$T/unwrap.json"
check "SoftHSM --lookup on unwrap and wrap, 2 threads: exit 0" 0
json_check "SoftHSM --lookup: the key alone found, never the target or an unwrapped key" "$T/unwrap.json" \
    'all(r["errors"] == 0 and r["ops"] == 200 for r in runs)'

# SIGINT in the middle of a mix with token keys: every type's keys still go.
"$HSMBENCH" run --mix "$MIX" --token-keys --duration 30 --json "$T/int.json" >"$T/int.out" 2>"$T/int.err" </dev/null &
bg=$!
i=0
while [ $i -lt 150 ] && ! grep -q '^OPERATIONS/second' "$T/int.out"; do sleep 0.1; i=$((i + 1)); done
kill -INT "$bg" 2>/dev/null
wait "$bg"
rc=$?
cp "$T/int.out" "$T/out"
cp "$T/int.err" "$T/err"
check "SIGINT during a mix: exit 130" 130 '^ +status\.+: interrupted$'
after=$(demo_objects)
if [ "$after" = "$before" ]; then pass "SIGINT during a mix --token-keys: token object count unchanged"
else fail "SIGINT during a mix --token-keys: token object count unchanged" "$before before, $after after"; fi

# ---- bad input: one line, exit 2 ---------------------------------------------------
run "$HSMBENCH" run --mix 'nosuch-test:5'
check_one_line_error "--mix unknown test: exit 2" 2 '^hsmbench: error: --mix nosuch-test: unknown test'
mock "slots=2" run --module "$MOCK" --slot 1,2 --mix sha256-digest:1,sha1-digest:1
check_one_line_error "--mix over two tokens: exit 2" 2 '^hsmbench: error: --mix runs on one token'
run "$HSMBENCH" run --mix 'rsa-pkcs-sign:0'
check_one_line_error "--mix weight 0: exit 2" 2 'the weight must be a positive number'
run "$HSMBENCH" run --mix 'rsa-pkcs-sign:x1'
check_one_line_error "--mix weight not a number: exit 2" 2 'the weight must be a positive number'
run "$HSMBENCH" run --mix 'rsa-pkcs-sign'
check_one_line_error "--mix without a weight: exit 2" 2 'give a weight'
run "$HSMBENCH" run --mix 'rsa-pkcs-sign:1,ecdsa-sign:1,rsa-pkcs-sign:2'
check_one_line_error "--mix duplicate type: exit 2" 2 'rsa-pkcs-sign is given twice'
run "$HSMBENCH" run --mix 'rsa-pkcs-sign:1' --test ecdsa-sign
check_one_line_error "--mix with --test: exit 2" 2 '--mix and --test'
run "$HSMBENCH" run --seed 4
check_one_line_error "--seed without --mix: exit 2" 2 '^hsmbench: error: --seed: only with --mix'
run "$HSMBENCH" run --lookup --test sha256-digest
check_one_line_error "--lookup on a test without a key: exit 2" 2 '^hsmbench: error: --lookup: sha256-digest uses no key'
run "$HSMBENCH" run --mix 'rsa-pkcs-sign:1,aes-gcm-encrypt:1' --key-size 2048
check_one_line_error "--mix with a flag one type refuses: exit 2" 2 '--key-size 2048: aes-gcm-encrypt'
