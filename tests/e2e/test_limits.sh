#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_limits.sh - limits named, inputs that never block, numbers
# refused on overflow, contradictions refused (issue 23, items 6, 8 and 9):
# a descriptor limit too low for the threads is named before the run (or the
# soft limit raised to the hard one, said); a FIFO, directory or device given
# as an input file is refused without waiting; numbers past 2^64 or with
# garbage after them are refused naming the flag; a mix's seed is recorded;
# flags that cannot both hold are refused naming both (exit 2).
. "$TOP/tests/e2e/lib.sh"

quick() { run "$HSMBENCH" run --module "$NULLP11" --test sha256-digest --iterations 20 --quiet "$@" </dev/null; }
# An endpoint nothing listens on: every case here is refused before a request.
NOWHERE=http://127.0.0.1:1
export I23_KEY=k

# ---- descriptors against threads and connections ----------------------------------
( ulimit -n 64 && run "$HSMBENCH" rest http --url "$NOWHERE/" --threads 500 --duration 1 --quiet </dev/null
  check_one_line_error "rest http --threads 500 under ulimit -n 64: the limit named, exit 2" 2 \
      '^hsmbench: error: --threads 500 needs about [0-9]+ file descriptors; the limit \(ulimit -n\) is 64' )
( ulimit -n 64 && run "$HSMBENCH" rest http --url "$NOWHERE/" --threads 2 --mode nonblocking --inflight 300 \
      --duration 1 --quiet </dev/null
  check_one_line_error "rest http --inflight 300 under ulimit -n 64: the limit named, exit 2" 2 \
      '^hsmbench: error: --inflight 300 needs about [0-9]+ file descriptors; the limit \(ulimit -n\) is 64' )
( ulimit -n 64 && run "$HSMBENCH" run --module "$NULLP11" --test sha256-digest --threads 500 --duration 1 \
      --quiet </dev/null
  check_one_line_error "run --threads 500 under ulimit -n 64: the limit named, exit 2" 2 \
      '^hsmbench: error: --threads 500 needs about [0-9]+ file descriptors; the limit \(ulimit -n\) is 64' )
if [ "$(ulimit -Hn)" = unlimited ] || [ "$(ulimit -Hn)" -ge 1024 ]; then
    ( ulimit -Sn 64 && quick --threads 200
      check "run --threads 200 under a soft limit of 64: raised to the hard limit, exit 0" 0 '' \
          'warning: --threads 200 needs about [0-9]+ file descriptors: raised the soft limit \(ulimit -n\) from 64' )
else
    skip "the soft descriptor limit raised to the hard one" "the hard limit is $(ulimit -Hn), under 1024"
fi

# ---- input files: never a blocking open --------------------------------------------
mkfifo "$T/fifo"
# A blocking open would wait for a writer: each case is given 10 s.
run timeout -s INT 10 "$HSMBENCH" rest sdkms --endpoint "$NOWHERE" --op encrypt --filepath "$T/fifo" --api-key-env I23_KEY
check_one_line_error "--filepath FIFO: refused at once naming the flag, exit 2" 2 \
    '^hsmbench: error: --filepath .*/fifo: a FIFO, not a regular file$'
run "$HSMBENCH" rest sdkms --endpoint "$NOWHERE" --op encrypt --filepath "$T" --api-key-env I23_KEY
check_one_line_error "--filepath DIRECTORY: refused naming the flag, exit 2" 2 \
    '^hsmbench: error: --filepath .*: a directory, not a regular file$'
run "$HSMBENCH" rest http --url "$NOWHERE/" --body-file /dev/zero --duration 1
check_one_line_error "--body-file /dev/zero: a device, refused, exit 2" 2 \
    '^hsmbench: error: --body-file /dev/zero: a device, not a regular file$'
quick --json "$T/r.json"
check "a results file" 0
run timeout -s INT 10 "$HSMBENCH" report "$T/fifo"
check_one_line_error "report FIFO: refused at once, exit 2" 2 'fifo: a FIFO, not a regular file$'
run timeout -s INT 10 "$HSMBENCH" compare "$T/r.json" "$T/fifo"
check_one_line_error "compare FILE FIFO: refused at once, exit 2" 2 'fifo: a FIFO, not a regular file$'
run "$HSMBENCH" report "$T"
check_one_line_error "report DIRECTORY: named as a directory, exit 2" 2 ': a directory, not a regular file$'
printf '1234\n' >"$T/pin"
chmod 600 "$T/pin"
run timeout -s INT 10 "$HSMBENCH" run --module "$NULLP11" --test sha256-digest --iterations 20 --quiet \
    --pin-file "$T/fifo" </dev/null
check_one_line_error "--pin-file FIFO with no writer: not a wait, an empty file (exit 2)" 2 \
    '^hsmbench: error: --pin-file .*fifo: the file is empty$'

# ---- out of memory reading an input: said so, not "bad JSON" --------------------
# Each second with a member hsmbench does not hold ("gc_ms"): the series
# are jansson's parse tree, as every series was before they were read
# compactly (bench/results/series.h), and jansson runs out of memory; the
# same file without it reads within the bound, and runs out below it in
# hsmbench's own buffers.
python3 - "$T/r.json" "$T/big.json" "$T/plain.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
r = d["runs"][0]
n = 200000
r["per_second"] = [{"t": i + 1, "span_s": 1.0, "ops": 0, "errors": 0, "p50_us": 0.04, "p99_us": 0.05, "gc_ms": 0}
                   for i in range(n)]
r["duration_s"] = float(n)
r["settings"]["duration_s"] = float(n)
json.dump(d, open(sys.argv[2], "w"), separators=(",", ":"))
for s in r["per_second"]:
    del s["gc_ms"]
json.dump(d, open(sys.argv[3], "w"), separators=(",", ":"))
PY
run "$HSMBENCH" report "$T/big.json"
check "report of a 15 MB results file" 0
if [ "$VARIANT" = plain ]; then
    ( ulimit -v 90000 && run "$HSMBENCH" report "$T/big.json"
      check_one_line_error "report under ulimit -v: out of memory reading FILE, exit 2" 2 \
          '^hsmbench: error: out of memory reading .*big\.json$' )
    ( ulimit -v 90000 && run "$HSMBENCH" report "$T/plain.json"
      check "report under ulimit -v: the same file's series read compactly fit" 0 'sha256-digest' )
    ( ulimit -v 35000 && run "$HSMBENCH" report "$T/plain.json"
      check_one_line_error "report under a smaller ulimit -v: out of memory reading FILE, exit 2" 2 \
          '^hsmbench: error: out of memory reading .*plain\.json$' )
fi

# ---- numbers: overflow and trailing garbage refused --------------------------------
quick --mix sha256-digest:1,sha1-digest:1 --seed 99999999999999999999999xyz
check_one_line_error "--seed with digits past 2^64 then xyz: not a whole number, exit 2" 2 \
    "^hsmbench: error: --seed: '99999999999999999999999xyz' is not a whole number$"
quick --mix sha256-digest:1,sha1-digest:1 --seed 18446744073709551616
check_one_line_error "--seed 2^64: out of range, not 2^64-1, exit 2" 2 \
    '^hsmbench: error: --seed: 18446744073709551616 is out of range'
quick --slot 18446744073709551617,2
check_one_line_error "--slot 2^64+1,2: out of range naming the value given, exit 2" 2 \
    '^hsmbench: error: --slot: 18446744073709551617 is out of range'
quick --warmup 99999999999999999999it
check_one_line_error "--warmup past 2^64 operations: refused, exit 2" 2 '^hsmbench: error: --warmup'
# Decimal numbers only: strtod's white space, hexadecimal and inf are not numbers here.
quick --mode nonblocking --rate 0x10
check_one_line_error "--rate 0x10: hexadecimal refused, exit 2" 2 '^hsmbench: error: --rate 0x10: '
quick --mix 'sha256-digest: 2,sha1-digest:1'
check_one_line_error "--mix weight ' 2': leading space refused, exit 2" 2 '^hsmbench: error: --mix sha256-digest: 2: '
quick --duration ' 1'
check_one_line_error "--duration ' 1': refused, exit 2" 2 "^hsmbench: error: --duration: ' 1' is not a duration"
quick --mode nonblocking --stages '1s:inf'
check_one_line_error "--stages target inf: refused, exit 2" 2 '^hsmbench: error: --stages'
run "$HSMBENCH" run --module "$NULLP11" --test sha256-digest --iterations 99999999999999999999 </dev/null
check_one_line_error "--iterations past 2^64: out of range, exit 2" 2 \
    '^hsmbench: error: --iterations: 99999999999999999999 is out of range'
need_mock && {
    run "$HSMBENCH" run --module "$MOCK" --mix sha256-digest:1,sha1-digest:1 --seed 18446744073709551615 \
        --iterations 40 --quiet --json "$T/mix.json" </dev/null
    check "a mix with the largest seed" 0
    json_check "the mix's seed is in settings.seed, exactly" "$T/mix.json" \
        'runs[0]["settings"]["seed"] == "18446744073709551615"'
    run "$HSMBENCH" run --module "$MOCK" --mix sha256-digest:1,sha1-digest:1 --iterations 40 --quiet \
        --json "$T/mix1.json" </dev/null
    json_check "the default seed is recorded too" "$T/mix1.json" 'runs[0]["settings"]["seed"] == "1"'
}

# ---- contradictions: both flags named, exit 2 --------------------------------------
quick --uri "pkcs11:token=x?module-path=/other.so"
check_one_line_error "--module X with a --uri naming module-path=/other.so: both named, exit 2" 2 \
    '^hsmbench: error: --module .*libhsmbench-null\.so and --uri naming module /other\.so'
quick --uri "pkcs11:token=x?module-path=$NULLP11"
if grep -q 'and --uri naming module' "$T/err"; then fail "--module and a --uri naming the same module agree" "$(cat "$T/err")"
else pass "--module and a --uri naming the same module agree"; fi
printf 'data' >"$T/data"
run "$HSMBENCH" rest sdkms --endpoint "$NOWHERE" --op keygen --filepath "$T/data" --api-key-env I23_KEY
check_one_line_error "--op keygen --filepath F: both named, exit 2" 2 \
    '^hsmbench: error: --op keygen and --filepath .*data: keygen sends no data'
run "$HSMBENCH" rest sdkms --endpoint "$NOWHERE" --op keygen --data-size 64 --api-key-env I23_KEY
check_one_line_error "--op keygen --data-size 64: both named, exit 2" 2 \
    '^hsmbench: error: --op keygen and --data-size 64: keygen sends no data'
quick --csv - --html -
check_one_line_error "--csv - --html -: both named, exit 2" 2 '^hsmbench: error: --csv - and --html -'
run "$HSMBENCH" run --module "$NULLP11" --test sha256-digest --find-capacity 'p99<1s' --find-capacity 'p99<2s' \
    --rate 100 --step 100ms </dev/null
check_one_line_error "the same --find-capacity figure twice: both named, exit 2" 2 \
    "^hsmbench: error: --find-capacity 'p99<1s' and --find-capacity 'p99<2s' bound the same figure"
run "$HSMBENCH" run --module "$NULLP11" --test sha256-digest --find-capacity "p99<1s" --rate 0.001 --step 100ms </dev/null
check_one_line_error "--rate 0.001 --step 100ms: fewer than one request a step, refused, exit 2" 2 \
    '^hsmbench: error: --rate 0.001 and --step 100ms: a step would schedule 0.0001 requests, fewer than one'
