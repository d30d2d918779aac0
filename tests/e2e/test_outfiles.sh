#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_outfiles.sh - results writers never damage what a path
# names (issue 13, item 1): a device stays a device, a link stays a link and
# is written through, a link planted at a temporary name is not followed,
# every output path is checked before the run; and options are known only
# by their whole names, single-valued ones given once (item 7).
. "$TOP/tests/e2e/lib.sh"

quick() { run "$HSMBENCH" run --module "$NULLP11" --test sha256-digest --iterations 20 --quiet "$@" </dev/null; }

# ---- devices and FIFOs: written in place, never replaced ----------------------
quick --json /dev/null
check "--json /dev/null is accepted and written" 0
if [ -c /dev/null ]; then pass "/dev/null is still a character device"
else fail "/dev/null is still a character device" "it is not"; fi
if [ "$(id -u)" -eq 0 ] && mknod "$T/nulldev" c 1 3 2>/dev/null; then
    quick --json "$T/nulldev" --csv "$T/nulldev" --html "$T/nulldev"
    check "run --json/--csv/--html to a device node" 0
    if [ -c "$T/nulldev" ]; then pass "a device node given to --json stays a device"
    else fail "a device node given to --json stays a device" "$(ls -l "$T/nulldev")"; fi
else
    skip "a device node given to --json stays a device" "mknod needs root (id -u $(id -u))"
fi
mkfifo "$T/fifo"
( cat "$T/fifo" >"$T/fifo.out" ) &
reader=$!
quick --json "$T/fifo"
check "--json to a FIFO exits 0" 0
wait "$reader"
if [ -p "$T/fifo" ]; then pass "a FIFO given to --json stays a FIFO"; else fail "a FIFO given to --json stays a FIFO" "replaced"; fi
file_has "the FIFO's reader got the results" "$T/fifo.out" '"schema": "hsmbench.result/3"'

# ---- symbolic links: followed, never replaced ---------------------------------
echo old >"$T/real.json"
ln -s real.json "$T/link.json"
quick --json "$T/link.json"
check "--json to a symbolic link exits 0" 0
if [ -L "$T/link.json" ]; then pass "the link given to --json is still a link"
else fail "the link given to --json is still a link" "$(ls -l "$T/link.json")"; fi
file_has "the results went to what the link points at" "$T/real.json" '"schema": "hsmbench.result/3"'
ln -s "$T/nowhere/x.json" "$T/dangling.json"
quick --json "$T/dangling.json"
check_one_line_error "a link to nothing is refused before the run" 2 'dangling.json: a symbolic link to nothing'

# A link planted where the old writer put its temporary file (FILE.tmp.PID):
# exec keeps the shell's PID, so the name is known in advance.
echo precious >"$T/victim"
run sh -c 'ln -s "$1/victim" "$1/out.json.tmp.$$" && exec "$2" run --module "$3" --test sha256-digest \
    --iterations 20 --quiet --json "$1/out.json" --csv "$1/out.csv" </dev/null' sh "$T" "$HSMBENCH" "$NULLP11"
check "a run with a planted temporary link exits 0" 0
if [ "$(cat "$T/victim")" = precious ]; then pass "a link planted at the temporary name is not followed"
else fail "a link planted at the temporary name is not followed" "victim now: $(head -c 80 "$T/victim")"; fi
file_has "the results file was written" "$T/out.json" '"schema": "hsmbench.result/3"'
if ls -a "$T" | grep -q '^\.out\.json\..*\.tmp$'; then fail "no temporary file is left behind" "$(ls -a "$T")"
else pass "no temporary file is left behind"; fi

# report and merge follow the same rules.
cp "$T/out.json" "$T/a.json"
run "$HSMBENCH" report "$T/a.json" --csv /dev/null --html /dev/null
check "report --csv/--html /dev/null" 0
echo keep >"$T/real.csv"
ln -s real.csv "$T/link.csv"
run "$HSMBENCH" report "$T/a.json" --csv "$T/link.csv"
check "report --csv to a link exits 0" 0
if [ -L "$T/link.csv" ] && grep -q '^operation,' "$T/real.csv"; then pass "report --csv writes through a link"
else fail "report --csv writes through a link" "$(ls -l "$T/link.csv")"; fi
# another generator's file (merge refuses one run given twice)
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); d["fleet"]["generator"] = "2"; json.dump(d, open(sys.argv[2], "w"))' \
    "$T/a.json" "$T/b.json"
run "$HSMBENCH" merge "$T/a.json" "$T/b.json" -o /dev/null
check "merge -o /dev/null" 0
run "$HSMBENCH" merge "$T/a.json" "$T/b.json" -o "$T/dangling.json"
check_one_line_error "merge -o to a link to nothing is refused" 2 'a symbolic link to nothing'
run "$HSMBENCH" rest ekm --endpoint https://127.0.0.1:1/k --json "$T/dangling.json" --duration 1
check_one_line_error "rest --json to a link to nothing is refused before set-up" 2 'a symbolic link to nothing'
run "$HSMBENCH" rest http --url http://127.0.0.1:1/ --json "$T" --duration 1
check_one_line_error "rest http --json DIR is refused before set-up" 2 'is a directory'

# ---- options: whole names only; single values once ---------------------------
run "$HSMBENCH" rest http --time 2
check_one_line_error "rest http --time (an abbreviation of --timeout) is refused" 2 \
    '^hsmbench: error: --time: unknown option; did you mean --timeout\?'
run "$HSMBENCH" run --dur 1
check_one_line_error "run --dur is refused" 2 '^hsmbench: error: --dur: unknown option'
run "$HSMBENCH" run --iter=5
check_one_line_error "run --iter=5 is refused" 2 '^hsmbench: error: --iter: unknown option'
run "$HSMBENCH" report --htm x.html a.json
check_one_line_error "report --htm is refused" 2 '^hsmbench: error: --htm: unknown option'
run "$HSMBENCH" run --json "$T/1.json" --json "$T/2.json"
check_one_line_error "run --json given twice is refused" 2 '^hsmbench: error: --json given twice'
run "$HSMBENCH" run --threads 1 --threads=2
check_one_line_error "run --threads given twice is refused" 2 '--threads given twice'
run "$HSMBENCH" merge -o "$T/1.json" --output "$T/2.json" "$T/a.json"
check_one_line_error "merge -o and --output together are refused" 2 '--output given twice'
run "$HSMBENCH" rest http --url http://x/ --timeout 1 --timeout 2
check_one_line_error "rest http --timeout given twice is refused" 2 '--timeout given twice'
quick --threshold 'rate>1' --threshold 'errors==0'
check "--threshold stays repeatable" 0

# ---- an output that is an input or another output (issue 23, item 1) ----------
# Compared by device and inode (links followed, other spellings of the path
# too) before anything runs; a path not there yet by its directory and name.
mkdir -p "$T/same"
echo 1234 >"$T/same/user.pin"
cp "$T/same/user.pin" "$T/same/pin.copy"
run "$HSMBENCH" run --module "$NULLP11" --pin-file "$T/same/user.pin" --test sha256-digest --iterations 20 \
    --json "$T/same/user.pin"
check_one_line_error "--json naming the --pin-file is refused" 2 \
    '^hsmbench: error: --json .*user.pin: the same file as --pin-file .*user.pin: refusing to overwrite an input'
if cmp -s "$T/same/user.pin" "$T/same/pin.copy"; then pass "the PIN file is untouched"
else fail "the PIN file is untouched" "now: $(head -c 40 "$T/same/user.pin")"; fi
ln -s user.pin "$T/same/pin.link"
ln "$T/same/user.pin" "$T/same/pin.hard"
run "$HSMBENCH" run --module "$NULLP11" --pin-file "$T/same/user.pin" --test sha256-digest --iterations 20 \
    --csv "$T/same/pin.link"
check_one_line_error "--csv through a link to the --pin-file is refused" 2 'pin.link: the same file as --pin-file'
run "$HSMBENCH" run --module "$NULLP11" --pin-file "$T/same/pin.hard" --test sha256-digest --iterations 20 \
    --html "$T/same/../same/user.pin"
check_one_line_error "--html at a hard link of the --pin-file, spelt with ..,  is refused" 2 \
    'the same file as --pin-file .*pin.hard'
quick --json "$T/same/out" --csv "$T/same/out"
check_one_line_error "--json X --csv X is refused" 2 '^hsmbench: error: --json .*out: the same file as --csv .*out: refusing to write one file twice'
quick --json "$T/same/out2" --html "$T/same/./out2"
check_one_line_error "--json X --html ./X is refused" 2 'the same file as --html'
quick --json "$T/same/out3" --out "jsonl=$T/same/out3"
check_one_line_error "--json X --out jsonl=X is refused" 2 'the same file as --out jsonl='
[ ! -e "$T/same/out" ] && [ ! -e "$T/same/out2" ] && [ ! -e "$T/same/out3" ] &&
    pass "a refused output is not created" || fail "a refused output is not created" "$(ls "$T/same")"
quick --json "$T/same/r.json"
check "a run writes r.json" 0
run "$HSMBENCH" report "$T/same/r.json" --html "$T/same/r.json"
check_one_line_error "report --html naming the results file it reads is refused" 2 \
    'the same file as the results file'
run "$HSMBENCH" merge "$T/same/r.json" "$T/same/r.json" -o "$T/same/../same/r.json"
check_one_line_error "merge -o naming one of its inputs is refused" 2 'the same file as the results file'
file_has "the results file is still whole" "$T/same/r.json" '"schema": "hsmbench.result/3"'
echo body >"$T/same/body"
run "$HSMBENCH" rest http --url http://127.0.0.1:9/ --body-file "$T/same/body" --iterations 1 --json "$T/same/body"
check_one_line_error "rest http --json naming its --body-file is refused" 2 'the same file as --body-file'
quick --json /dev/null --csv /dev/null --html /dev/null
check "/dev/null for every output stays allowed" 0
