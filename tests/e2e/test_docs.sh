#!/bin/sh
# tests/e2e/test_docs.sh - the documentation and install bits keep up with the
# code: every manual page formats without a warning; every flag of
# "run --help" is in the README; the completion loads in bash; "make install" installs the program,
# every manual page and the completion.
# Plain build only: nothing here depends on how the binary was compiled.
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

# ---- every flag of run --help is in the README --------------------------------
miss=
for o in $(grep -oE -- '--[a-z][a-z0-9-]*' "$T/help.run" | sed 's/^--//' | sort -u); do
    has_opt "$TOP/README.md" "$o" || miss="$miss --$o"
done
if [ -z "$miss" ]; then pass "README.md has every flag of 'run --help'"
else fail "README.md has every flag of 'run --help'" "missing:$miss"; fi

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
if [ -z "$miss" ]; then pass "make install installs the program, every manual page and the completion"
else fail "make install installs the program, every manual page and the completion" "missing:$miss"; fi
