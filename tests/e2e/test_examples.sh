#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_examples.sh - every example of the README and of the manual
# pages' EXAMPLES sections runs as written, after the README's two set-up
# commands.  tests/examples.py extracts them (README: the "$ " lines of its
# indented blocks; man/*.1, man/*.7: the .EX blocks of EXAMPLES), one case a
# block: "example README.md:LINE COMMAND".
#
# "After the two commands" is: hsmbench on the PATH (here the build under
# test, $HSMBENCH), the bare name --module hsmbench-mock resolvable
# (HSMBENCH_LIBDIR, see hsmbench(1), names the build's directory instead of
# the installed one), and a private HSMBENCH_HOME whose demo token is made on
# first use.  The examples of one document run one after the other in one
# directory, as a reader following it would, so a file an example writes is
# there for the next; the documents, each in its own directory, run side by
# side (EXAMPLES_JOBS at a time, default 3: most examples wait on the mock's
# delays), and their lines print in the documents' order once all have run.
# Each example runs under bash -e with a time bound; a job an
# example starts in the background (a server) is stopped when it ends.  An
# example passes when it exits 0, or with the status its last line states
# ("# exit status: 1", for an example that shows errors being counted).
# Plain build only: the examples test the documents, not the build.
. "$TOP/tests/e2e/lib.sh"
[ "$VARIANT" = plain ] || exit 0

B=$(cd "$(dirname "$HSMBENCH")" && pwd)
mkdir -p "$T/bin"
ln -s "$B/$(basename "$HSMBENCH")" "$T/bin/hsmbench"
PATH="$T/bin:$PATH"
HSMBENCH_LIBDIR=$B
export PATH HSMBENCH_LIBDIR
unset HSMBENCH_MOCK ENDPOINT_URL G_TOKEN TOKEN || true

run_examples() { # DOC: every example of DOC, in order
    doc=$1
    key=$(basename "$doc")
    dir="$T/work/$key" ex="$T/ex/$key"
    mkdir -p "$dir" "$ex"
    python3 "$TOP/tests/examples.py" "$TOP/$doc" >"$ex/all" || {
        fail "examples of $doc extracted" "tests/examples.py failed"
        return
    }
    n=$(grep -c '^@@ ' "$ex/all")
    if [ "$n" -gt 0 ]; then pass "$doc has examples ($n)"
    else fail "$doc has examples" "none found"; return; fi
    # One file per example: ex/N.name (the case's name), ex/N.sh (its text).
    awk -v d="$ex" '
        /^@@ / { n++; name = substr($0, 4); print name > (d "/" n ".name"); close(d "/" n ".name")
                 f = d "/" n ".sh"; print "trap '\''rc=$?; j=$(jobs -p); [ -z \"$j\" ] || kill $j 2>/dev/null || true; wait; exit $rc'\'' EXIT" > f; next }
        { print >> f }' "$ex/all"
    i=1
    while [ "$i" -le "$n" ]; do
        name=$(cat "$ex/$i.name")
        # An example that shows a failure says what it exits with, in its
        # last line: "# exit status: 1".
        want=$(sed -n 's/^# exit status: \([0-9][0-9]*\)$/\1/p' "$ex/$i.sh" | tail -n 1)
        want=${want:-0}
        # Its time bound: 30 s beyond the longest --duration it asks for.
        # A run --until-stable (README) stops at its --duration when a busy
        # machine keeps it from settling first, and is right to: a bound of
        # 30 s in all killed the README's --duration 30 there.
        longest=$(grep -o -- '--duration[= ][0-9]*' "$ex/$i.sh" | tr -dc '0-9\n' | sort -n | tail -n 1)
        (cd "$dir" && timeout -s INT $((30 + ${longest:-0})) bash -e "$ex/$i.sh" >"$ex/out" 2>"$ex/err" </dev/null)
        rc=$?
        if [ "$rc" -eq "$want" ]; then pass "example $name"
        else fail "example $name" "exit $rc, expected $want; $(tail -n 3 "$ex/err" | tr '\n' ' ' | head -c 300) | $(tail -n 3 "$ex/out" | tr '\n' ' ' | head -c 300)"; fi
        rm -f "$ex/$i.name" "$ex/$i.sh"
        i=$((i + 1))
    done
}

# EXAMPLES_ONLY=README.md (or man/hsmbench-rest.1 ...) runs one document's, while editing it.
docs="README.md"
for page in "$TOP"/man/*.[1-9]; do
    grep -q '^\.SH EXAMPLES' "$page" && docs="$docs man/$(basename "$page")"
done
# The documents side by side, EXAMPLES_JOBS at a time; each one's lines in
# $T/lines/KEY, printed in the documents' order.  (The demo token, made on
# first use, is made once: hsmbench holds a lock while it makes it.)
jobs=${EXAMPLES_JOBS:-3}
mkdir -p "$T/lines"
running=
for doc in ${EXAMPLES_ONLY:-$docs}; do
    while :; do
        alive=
        for p in $running; do kill -0 "$p" 2>/dev/null && alive="$alive $p"; done
        running=$alive
        [ "$(echo $running | wc -w)" -lt "$jobs" ] && break
        sleep 0.2
    done
    run_examples "$doc" >"$T/lines/$(basename "$doc")" 2>&1 &
    running="$running $!"
done
wait
for doc in ${EXAMPLES_ONLY:-$docs}; do
    cat "$T/lines/$(basename "$doc")"
done
