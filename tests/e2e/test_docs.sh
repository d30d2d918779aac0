#!/bin/sh
# tests/e2e/test_docs.sh - the documentation and install bits keep up with the
# code: every manual page formats without a warning; every long option of the
# getopt tables of run, list, keys and menu is in that command's manual page,
# its --help and the bash completion; every flag of "run --help" is in the
# README; the completion loads in bash; "make install" installs the program,
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

# ---- long options: manual page, --help, completion -------------------------
# The names in getopt entries: { "name", no_argument|required_argument|... }.
entry_names() {
    grep -o '{ *"[a-z0-9][a-z0-9-]*", *[a-z_]*_argument' | sed 's/^{ *"\([^"]*\)".*/\1/'
}

# The body of a #define in the headers (with its continuation lines).
macro_body() {
    awk -v n="$1" '
        $0 ~ "^#define[ \t]+" n "([ \t\\\\]|$)" { on = 1 }
        on { print; if ($0 !~ /\\$/) on = 0 }' "$TOP"/bench/*.h "$TOP"/p11/*.h "$TOP"/rest/*.h
}

# The long options of a command's getopt table, with those of the macros it
# includes (P11_TARGET_LONGOPTS, BENCH_LOAD_LONGOPTS, ...).
table_opts() {
    {
        entry_names <"$1"
        for m in $(grep -oE '[A-Z][A-Z0-9_]*_LONGOPTS?' "$1" | sort -u); do
            macro_body "$m" | entry_names
        done
    } | sort -u
}

# has_opt FILE NAME: FILE mentions --NAME as a whole option (man sources
# write "\-\-name"; "--pin" must not be found in "--pin-env").
has_opt() {
    sed 's/\\-/-/g' "$1" | grep -Eq -- "--$2([^a-z0-9-]|\$)"
}

comp="$TOP/completion/hsmbench.bash"
for cmd in run list keys menu; do
    src="$TOP/p11/cmd_$cmd.c"
    opts=$(table_opts "$src")
    if [ -z "$opts" ]; then
        fail "$cmd: options found in $(basename "$src")" "no getopt table entries"
        continue
    fi
    "$HSMBENCH" "$cmd" --help >"$T/help.$cmd" 2>&1
    miss_man= miss_help= miss_comp=
    for o in $opts; do
        has_opt "$TOP/man/hsmbench-$cmd.1" "$o" || miss_man="$miss_man --$o"
        # --help need not list itself; list takes the PIN options only so that
        # a run command line can be reused, and ignores them (see hsmbench-list(1)).
        case "$cmd:$o" in
        *:help | list:pin | list:pin-env | list:pin-file) ;;
        *) has_opt "$T/help.$cmd" "$o" || miss_help="$miss_help --$o" ;;
        esac
        has_opt "$comp" "$o" || miss_comp="$miss_comp --$o"
    done
    if [ -z "$miss_man" ]; then pass "$cmd: every option is in hsmbench-$cmd(1)"
    else fail "$cmd: every option is in hsmbench-$cmd(1)" "missing:$miss_man"; fi
    if [ -z "$miss_help" ]; then pass "$cmd: every option is in '$cmd --help'"
    else fail "$cmd: every option is in '$cmd --help'" "missing:$miss_help"; fi
    if [ -z "$miss_comp" ]; then pass "$cmd: every option is in the bash completion"
    else fail "$cmd: every option is in the bash completion" "missing:$miss_comp"; fi
done

# The REST commands and the emulator: the same three places.
for spec in "rest/cmd_rest.c:rest ekm:rest" "rest/http_cmd.c:rest http:rest" "serve/cmd.c:serve:serve"; do
    src="$TOP/${spec%%:*}"
    rest=${spec#*:}
    words=${rest%%:*}
    page="$TOP/man/hsmbench-${rest##*:}.1"
    opts=$(table_opts "$src")
    # shellcheck disable=SC2086
    "$HSMBENCH" $words --help >"$T/help.x" 2>&1
    miss_man= miss_help= miss_comp=
    for o in $opts; do
        has_opt "$page" "$o" || miss_man="$miss_man --$o"
        [ "$o" = help ] || has_opt "$T/help.x" "$o" || miss_help="$miss_help --$o"
        has_opt "$comp" "$o" || miss_comp="$miss_comp --$o"
    done
    if [ -z "$miss_man" ]; then pass "$words: every option is in $(basename "$page")"
    else fail "$words: every option is in $(basename "$page")" "missing:$miss_man"; fi
    if [ -z "$miss_help" ]; then pass "$words: every option is in '$words --help'"
    else fail "$words: every option is in '$words --help'" "missing:$miss_help"; fi
    if [ -z "$miss_comp" ]; then pass "$words: every option is in the bash completion"
    else fail "$words: every option is in the bash completion" "missing:$miss_comp"; fi
done

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
