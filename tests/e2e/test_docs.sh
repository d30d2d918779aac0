#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_docs.sh - the documentation and install bits keep up with the
# code: every manual page formats without a warning; every flag of
# "run --help" is in the README; the completion loads in bash; "make install" installs the program,
# every manual page and the completion.
# Plain build only: nothing here depends on how the binary was compiled.
# early: no check depends on the cores it gets (manual pages, help text, the completion and make install)
. "$TOP/tests/e2e/lib.sh"
[ "$VARIANT" = plain ] || exit 0

# ---- manual pages format cleanly -----------------------------------------
for page in "$TOP"/man/*.[1-9]; do
    name=$(basename "$page")
    out=$(groff -man -ww -z "$page" 2>&1)
    if [ -z "$out" ]; then pass "groff -ww: $name"
    else fail "groff -ww: $name" "$(printf '%s' "$out" | head -n 3 | tr '\n' ' ')"; fi
    out=$(man --warnings -l "$page" 2>&1 >/dev/null)
    if [ -z "$out" ]; then pass "man --warnings: $name"
    else fail "man --warnings: $name" "$(printf '%s' "$out" | head -n 3 | tr '\n' ' ')"; fi
done

# Every option against the manual pages, --help and the completion, both
# ways, is tests/e2e/test_options.sh, from the option table itself.

# has_opt FILE NAME: FILE mentions --NAME as a whole option (man sources
# write "\-\-name"; "--pin" must not be found in "--pin-env").
has_opt() {
    sed 's/\\-/-/g' "$1" | grep -Eq -- "--$2([^a-z0-9-]|\$)"
}

comp="$TOP/completion/hsmbench.bash"
"$HSMBENCH" run --help >"$T/help.run" 2>&1

# ---- every flag of run --help is in hsmbench-run(1) -----------------------------
# (The README once listed them all; the manual page is their one home now.)
miss=
for o in $(grep -oE -- '--[a-z][a-z0-9-]*' "$T/help.run" | sed 's/^--//' | sort -u); do
    has_opt "$TOP/man/hsmbench-run.1" "$o" || miss="$miss --$o"
done
if [ -z "$miss" ]; then pass "hsmbench-run(1) has every flag of 'run --help'"
else fail "hsmbench-run(1) has every flag of 'run --help'" "missing:$miss"; fi

# ---- the README: short, and pointing at every manual page and document ---------
n=$(wc -l <"$TOP/README.md")
if [ "$n" -lt 250 ]; then pass "README.md is under 250 lines ($n)"
else fail "README.md is under 250 lines" "$n lines"; fi
miss=
for f in "$TOP"/man/*.[1-9] "$TOP"/docs/*.md; do
    rel=${f#"$TOP"/}
    grep -qF "($rel)" "$TOP/README.md" || miss="$miss $rel"
done
if [ -z "$miss" ]; then pass "README.md links every manual page and every document of docs/"
else fail "README.md links every manual page and every document of docs/" "missing:$miss"; fi
for pat in 'make demo' 'make check' 'make uninstall' 'make check-one T=NAME \[V=asan\|tsan\]' \
           'N passed, N failed, N skipped' '^\| 130 \|'; do
    if grep -Eq -- "$pat" "$TOP/README.md"; then pass "README.md has /$pat/"
    else fail "README.md has /$pat/" "not found"; fi
done
# The exit codes the README's table names are hsmbench(1)'s.
for code in 0 1 2 3 99 130; do
    if grep -Eq "^\| $code \|" "$TOP/README.md" && grep -q "^\.B $code\$" "$TOP/man/hsmbench.1"; then
        pass "exit status $code: in the README's table and in hsmbench(1)"
    else fail "exit status $code: in the README's table and in hsmbench(1)" "missing in one"; fi
done
# The facts the README once held live in docs/ now.
file_has "docs/multi-host.md has the Prometheus scrape configuration" "$TOP/docs/multi-host.md" '^scrape_configs:'
file_has "docs/measuring.md describes make bench" "$TOP/docs/measuring.md" 'make bench'
file_has "docs/building.md describes make check's jobs" "$TOP/docs/building.md" 'HSMBENCH_TEST_JOBS'
file_has "docs/building.md describes make install's MANDIR" "$TOP/docs/building.md" 'MANDIR'

# ---- docs/architecture.md: the layout table is true ------------------------
# One row per folder: | `DIR/` | ... |.  Every folder named exists; every
# folder of the tree with .c, .h, .sh or .py files is named.  (No line
# counts: they drifted with every commit, and wc -l gives them.)
arch="$TOP/docs/architecture.md"
sed -n 's/^| `\([a-z][a-z0-9/]*\)\/` |.*/\1/p' "$arch" >"$T/layout"
if [ -s "$T/layout" ]; then pass "docs/architecture.md has a layout table"
else fail "docs/architecture.md has a layout table" "no rows"; fi
if grep -q '^| folder | what lives there |$' "$arch"; then pass "the layout table has no line-count column"
else fail "the layout table has no line-count column" "its heading is not | folder | what lives there |"; fi
bad=
while read -r dir; do
    [ -d "$TOP/$dir" ] || bad="$bad $dir/"
done <"$T/layout"
if [ -z "$bad" ]; then pass "every folder of the layout table exists"
else fail "every folder of the layout table exists" "missing:$bad"; fi
miss=
# every folder of the tree but the build's, git's and the packaging's (a
# new top folder, as cli/ was, is found without being named here)
for dir in $(cd "$TOP" && find . \( -path ./build -o -path ./.git -o -path ./debian \) -prune -o -type f \
        \( -name '*.c' -o -name '*.h' -o -name '*.sh' -o -name '*.py' \) -exec dirname {} \; |
        sed 's|^\./||' | grep -v '^\.$' | sort -u); do
    grep -qx "$dir" "$T/layout" || miss="$miss $dir/"
done
if [ -z "$miss" ]; then pass "every source folder is in the layout table"
else fail "every source folder is in the layout table" "missing:$miss"; fi

# ---- the completion loads --------------------------------------------------
run bash -c ". '$comp' && complete -p hsmbench"
check "the bash completion loads and registers hsmbench" 0 'complete .*-F _hsmbench hsmbench'
run bash -c ". '$comp' && COMP_WORDS=(hsmbench run --mode ''); COMP_CWORD=3; _hsmbench; echo \"\${COMPREPLY[*]}\""
check "the completion offers --mode's values" 0 '^blocking nonblocking$'
run bash -c ". '$comp' && COMP_WORDS=('$HSMBENCH' run --test sha256-d); COMP_CWORD=3; _hsmbench; echo \"\${COMPREPLY[*]}\""
check "the completion asks hsmbench for test names" 0 '^sha256-digest$'

# ---- make install ----------------------------------------------------------
# Install what this variant built, as it is: -o keeps make from rebuilding it.
B=$(cd "$(dirname "$HSMBENCH")" && pwd)
I="$T/inst"
if make -C "$TOP" --no-print-directory BUILD="$B" -o "$B/hsmbench" \
        -o "$B/libhsmbench-null.so" -o "$B/libhsmbench-mock.so" \
        DESTDIR="$I" PREFIX=/usr install >"$T/make.out" 2>&1; then
    pass "make install DESTDIR=... PREFIX=/usr"
else
    fail "make install DESTDIR=... PREFIX=/usr" "$(tail -n 3 "$T/make.out" | tr '\n' ' ')"
fi
miss=
[ -x "$I/usr/bin/hsmbench" ] || miss="$miss /usr/bin/hsmbench"
for page in "$TOP"/man/*.1; do
    [ -f "$I/usr/share/man/man1/$(basename "$page")" ] || miss="$miss man1/$(basename "$page")"
done
for page in "$TOP"/man/*.7; do
    [ -e "$page" ] || continue
    [ -f "$I/usr/share/man/man7/$(basename "$page")" ] || miss="$miss man7/$(basename "$page")"
done
[ -f "$I/usr/share/bash-completion/completions/hsmbench" ] ||
    miss="$miss share/bash-completion/completions/hsmbench"
cmp -s "$I/usr/share/hsmbench/grafana/hsmbench-fleet.json" "$TOP/grafana/hsmbench-fleet.json" ||
    miss="$miss share/hsmbench/grafana/hsmbench-fleet.json"
if [ -z "$miss" ]; then pass "make install installs the program, every manual page, the completion and the Grafana dashboard"
else fail "make install installs the program, every manual page, the completion and the Grafana dashboard" "missing:$miss"; fi
