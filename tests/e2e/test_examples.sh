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
# there for the next.  Each runs under bash -e with a time bound; a job an
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
    dir="$T/work/$(basename "$doc")"
    mkdir -p "$dir" "$T/ex"
    python3 "$TOP/tests/examples.py" "$TOP/$doc" >"$T/ex/all" || {
        fail "examples of $doc extracted" "tests/examples.py failed"
        return
    }
    n=$(grep -c '^@@ ' "$T/ex/all")
    if [ "$n" -gt 0 ]; then pass "$doc has examples ($n)"
    else fail "$doc has examples" "none found"; return; fi
    # One file per example: ex/N.name (the case's name), ex/N.sh (its text).
    awk -v d="$T/ex" '
        /^@@ / { n++; name = substr($0, 4); print name > (d "/" n ".name"); close(d "/" n ".name")
                 f = d "/" n ".sh"; print "trap '\''rc=$?; j=$(jobs -p); [ -z \"$j\" ] || kill $j 2>/dev/null || true; wait; exit $rc'\'' EXIT" > f; next }
        { print >> f }' "$T/ex/all"
    i=1
    while [ "$i" -le "$n" ]; do
        name=$(cat "$T/ex/$i.name")
        # An example that shows a failure says what it exits with, in its
        # last line: "# exit status: 1".
        want=$(sed -n 's/^# exit status: \([0-9][0-9]*\)$/\1/p' "$T/ex/$i.sh" | tail -n 1)
        want=${want:-0}
        # Its time bound: 30 s beyond the longest --duration it asks for.
        # A run --until-stable (README) stops at its --duration when a busy
        # machine keeps it from settling first, and is right to: a bound of
        # 30 s in all killed the README's --duration 30 there.
        longest=$(grep -o -- '--duration[= ][0-9]*' "$T/ex/$i.sh" | tr -dc '0-9\n' | sort -n | tail -n 1)
        (cd "$dir" && timeout -s INT $((30 + ${longest:-0})) bash -e "$T/ex/$i.sh" >"$T/out" 2>"$T/err" </dev/null)
        rc=$?
        if [ "$rc" -eq "$want" ]; then pass "example $name"
        else fail "example $name" "exit $rc, expected $want; $(tail -n 3 "$T/err" | tr '\n' ' ' | head -c 300) | $(tail -n 3 "$T/out" | tr '\n' ' ' | head -c 300)"; fi
        rm -f "$T/ex/$i.name" "$T/ex/$i.sh"
        i=$((i + 1))
    done
}

# EXAMPLES_ONLY=README.md (or man/hsmbench-rest.1 ...) runs one document's, while editing it.
docs="README.md"
for page in "$TOP"/man/*.[1-9]; do
    grep -q '^\.SH EXAMPLES' "$page" && docs="$docs man/$(basename "$page")"
done
for doc in ${EXAMPLES_ONLY:-$docs}; do
    run_examples "$doc"
done
