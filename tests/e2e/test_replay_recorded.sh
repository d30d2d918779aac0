#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_replay_recorded.sh - recorded traffic replayed (issue 42):
# three applications recorded at the module boundary by the call recorder
# (a known hsmbench mix on the mock, OpenSC's pkcs11-tool signing in a loop
# and GnuTLS's p11tool on SoftHSM), each replayed on the mock at 1x and 2x
# through the recorder again, and the second recording held to the first
# by an observer that is not the replay: operations per test and their data
# sizes equal (within 2 %), their span 1.00x and 0.50x of the original's
# (within 2 %).  Then the shipped scenarios on the demo token and the mock,
# every key the replay made destroyed, and compare of two tokens' replays
# with a verdict per transaction.
# timed: asserts replayed rates against recorded ones
. "$TOP/tests/e2e/lib.sh"

need_mock || exit 0
TRACE="$(dirname "$NULLP11")/libhsmbench-trace.so"
softhsm_env
run "$HSMBENCH" run --test sha256-digest --iterations 10 --quiet
check "demo token set up" 0
PIN=$(cat "$PINFILE")

# replay_traced NAME SPEED FILE [ARGS...]: FILE replayed on the mock at SPEED
# through the recorder: $T/NAME.trace, read into $T/NAME.tj; hsmbench's own
# results in $T/NAME.json.
replay_traced() {
    name=$1 speed=$2 file=$3
    shift 3
    rm -f "$T/$name.trace"
    run env HSMBENCH_MOCK='service=fixed:1ms;cores=4' HSMBENCH_TRACE_MODULE="$MOCK" \
        HSMBENCH_TRACE_FILE="$T/$name.trace" \
        "$HSMBENCH" replay "$file" --module "$TRACE" --speed "$speed" --json "$T/$name.json" "$@"
    "$HSMBENCH" trace --quiet "$T/$name.trace" --json "$T/$name.tj" 2>"$T/trace.err" ||
        echo "{\"runs\": [], \"error\": \"$(head -c 200 "$T/trace.err")\"}" >"$T/$name.tj"
}

# same_traffic WHAT ORIGINAL REPLAY SPEED MIN: the replay's recording holds
# the original's operations of every test with MIN or more of them, within
# 2 %, of the same data size, over a span 1/SPEED of the original's (2 %).
same_traffic() {
    if python3 - "$T/$2.tj" "$T/$3.tj" "$4" "$5" >"$T/werr" 2>&1 <<'PY'
import json, sys
orig = {r["test"]: r for r in json.load(open(sys.argv[1]))["runs"]}
rep = {r["test"]: r for r in json.load(open(sys.argv[2]))["runs"]}
speed, least = float(sys.argv[3]), int(sys.argv[4])
bad = []
for t, a in orig.items():
    if a["ops"] < least:
        continue
    b = rep.get(t)
    if not b:
        bad.append(f"{t}: not replayed"); continue
    if abs(b["ops"] - a["ops"]) > 0.02 * a["ops"]:
        bad.append(f"{t}: {b['ops']} operations, recorded {a['ops']}")
    if b.get("data_size") != a.get("data_size"):
        bad.append(f"{t}: data {b.get('data_size')} B, recorded {a.get('data_size')} B")
    if a["ops"] >= 10:
        ratio = a["duration_s"] / b["duration_s"]
        if abs(ratio / speed - 1) > 0.02:
            bad.append(f"{t}: span {b['duration_s']:.4f} s against {a['duration_s']:.4f} s: {ratio:.4f}x")
print("; ".join(bad) or "ok", {t: (r["ops"], r.get("duration_s")) for t, r in rep.items()})
sys.exit(1 if bad or not any(a["ops"] >= least for a in orig.values()) else 0)
PY
    then pass "$1"; else fail "$1" "$(head -c 600 "$T/werr")"; fi
}

# ---- a known hsmbench mix on the mock ------------------------------------------
rm -f "$T/mix.trace"
run env HSMBENCH_MOCK='service=fixed:1ms;cores=4' HSMBENCH_TRACE_MODULE="$MOCK" \
    HSMBENCH_TRACE_FILE="$T/mix.trace" "$HSMBENCH" run --module "$TRACE" \
    --mix ecdsa-sign:3,sha256-digest:1 --mode nonblocking --rate 200 --duration 3 --threads 2 --quiet
check "recorded: a mix of 3 ecdsa-sign to 1 sha256-digest, 200/s for 3 s, on the mock" 0
"$HSMBENCH" trace --quiet "$T/mix.trace" --json "$T/mix.tj" 2>/dev/null
run "$HSMBENCH" replay "$T/mix.trace" --model-only
check "replay --model-only of the recording: its transactions" 0 'ecdsa-sign +7[0-9]\.[0-9]%'
for sp in 1 2; do
    replay_traced mix-$sp $sp "$T/mix.trace"
    check "replayed at ${sp}x on the mock" 0
    same_traffic "mix at ${sp}x: operations, sizes and span as recorded (2 %)" mix mix-$sp $sp 50
done
json_check "the model in the results: 3 ecdsa-sign to 1 sha256-digest, 32 and 1 024 B, 200/s (2 %)" \
    "$T/mix-1.json" '[
    abs(k["ecdsa-sign"]["count"] / k["sha256-digest"]["count"] / 3 - 1) < 0.25
    and k["ecdsa-sign"]["steps"][0]["data_bytes"] == 32 and k["sha256-digest"]["steps"][0]["data_bytes"] == 1024
    and abs(m["rate"] / 200 - 1) < 0.02
    for m in [runs[0]["replay"]["model"]] for k in [{x["name"]: x for x in m["kinds"]}]][0]'

# ---- OpenSC's pkcs11-tool signing in a loop, and GnuTLS's p11tool, on SoftHSM ------
if all_cases; then
    # 32 bytes: ECDSA's input as the catalogue's ecdsa-sign makes it (a SHA-256 digest)
    printf 'replay-data-never-recorded-01234' >"$T/data"
    pkcs11-tool --module "$SOFTHSM" --token-label hsmbench-demo --login --pin "$PIN" --keypairgen \
        --key-type EC:prime256v1 --label replay-key --id 7702 >"$T/kg.out" 2>&1 ||
        fail "pkcs11-tool makes a key to sign with" "$(head -c 300 "$T/kg.out")"
    rm -f "$T/tool.trace"
    n=0
    for i in 1 2 3 4 5 6 7 8 9 10 11 12; do
        env HSMBENCH_TRACE_MODULE="$SOFTHSM" HSMBENCH_TRACE_FILE="$T/tool.trace" \
            pkcs11-tool --module "$TRACE" --token-label hsmbench-demo --login --pin "$PIN" \
            --sign --mechanism ECDSA --id 7702 -i "$T/data" -o "$T/sig" >"$T/tool.out" 2>&1 && n=$((n + 1))
        sleep 0.2
    done
    if [ "$n" = 12 ]; then pass "recorded: pkcs11-tool --sign 12 times, 0.2 s apart"
    else fail "recorded: pkcs11-tool --sign 12 times" "$n of 12: $(head -c 300 "$T/tool.out")"; fi
    "$HSMBENCH" trace --quiet "$T/tool.trace" --json "$T/tool.tj" 2>/dev/null
    for sp in 1 2; do
        replay_traced tool-$sp $sp "$T/tool.trace"
        check "pkcs11-tool's recording replayed at ${sp}x on the mock" 0
        same_traffic "pkcs11-tool at ${sp}x: 12 signatures of 32 B over the recorded span (2 %)" tool tool-$sp $sp 12
    done
    cat "$T/out" "$T/err" "$T/tool-2.json" >"$T/all-out"
    file_lacks "the replay's outputs hold no PIN" "$T/all-out" "$PIN"

    if command -v p11tool >/dev/null 2>&1; then
        rm -f "$T/gnutls.trace"
        for i in 1 2 3; do
            env GNUTLS_PIN="$PIN" HSMBENCH_TRACE_MODULE="$SOFTHSM" HSMBENCH_TRACE_FILE="$T/gnutls.trace" \
                p11tool --provider "$TRACE" --login --test-sign \
                "pkcs11:token=hsmbench-demo;object=replay-key;type=private" >"$T/gn.out" 2>&1
        done
        "$HSMBENCH" trace --quiet "$T/gnutls.trace" --json "$T/gnutls.tj" 2>/dev/null
        replay_traced gnutls-1 1 "$T/gnutls.trace"
        check "p11tool's recording replayed on the mock" 0
        same_traffic "p11tool: its 3 signatures replayed, of the recorded size" gnutls gnutls-1 1 3
    else
        skip "p11tool's recording replayed" "p11tool (gnutls-bin) is not installed"
    fi
    pkcs11-tool --module "$SOFTHSM" --token-label hsmbench-demo --login --pin "$PIN" --delete-object \
        --type privkey --id 7702 >/dev/null 2>&1
    pkcs11-tool --module "$SOFTHSM" --token-label hsmbench-demo --login --pin "$PIN" --delete-object \
        --type pubkey --id 7702 >/dev/null 2>&1
fi

# ---- the shipped scenarios, on the mock and on the demo token ---------------------
before=$(demo_objects)
for scn in "$TOP"/scenarios/*.scn; do
    sc=$(basename "$scn" .scn)
    run "$HSMBENCH" replay "$scn" --module "$MOCK" --closed --threads 2 --duration 1s --json "$T/$sc-mock.json"
    check "scenario $sc replayed on the mock" 0
    run "$HSMBENCH" replay "$scn" --closed --threads 2 --duration 1s --json "$T/$sc-demo.json"
    check "scenario $sc replayed on the demo token (SoftHSM)" 0
    json_check "scenario $sc on the demo token: every transaction kind ran, none failed" \
        "$T/$sc-demo.json" '
[r["errors"] == 0 and r["breakdown"]["transaction"]
 and all(c["ops"] > 0 for c in r["breakdown"]["transaction"]) for r in runs[:1]] == [True]'
done
after=$(demo_objects)
if [ "$after" = "$before" ]; then pass "the scenarios' keys are all destroyed from the demo token ($after objects)"
else fail "the scenarios' keys are all destroyed from the demo token" "$before objects before, $after after"; fi

run "$HSMBENCH" compare "$T/envelope-encryption-mock.json" "$T/envelope-encryption-demo.json"
file_has "compare of two tokens' replays: a verdict for envelope-encrypt" "$T/out" 'transaction envelope-encrypt'
file_has "compare of two tokens' replays: a verdict for envelope-decrypt" "$T/out" 'transaction envelope-decrypt'
