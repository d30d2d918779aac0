#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_options.sh - the option table (bench/util/options.h) is the
# one truth about every command's options: "hsmbench __options COMMAND" dumps
# it, and this script fails when anything else disagrees with it, both ways:
#   (a) the command's --help lists every option of the table, and no line of
#       its listing starts with an option the table lacks;
#   (b) the OPTIONS section of the command's manual page names every option
#       of the table, and none of its entries (.TP/.TQ headings) is an
#       option the table lacks (hsmbench-rest(1) covers rest ekm|sdkms and
#       rest http);
#   (c) the bash completion's word list for the command is the table's, and
#       its list of options that take no value is the tables' (one that
#       lacks it makes the completion offer file names after the option).
# Plain build only: nothing here depends on how the binary was compiled.
# early: no check depends on the cores it gets (the option table against the help, the manual pages and the completion)
. "$TOP/tests/e2e/lib.sh"
[ "$VARIANT" = plain ] || exit 0

comp="$TOP/completion/hsmbench.bash"

# The long options of a table, "--name" a line, sorted; and its short ones.
# (Its old spellings, the "old" lines, are tests/e2e/test_spellings.sh's:
# --help, the manual pages and the completion list none of them.)
table_long() { "$HSMBENCH" __options "$@" | awk '$1 != "old" { print $1 }' | sort -u; }
table_short() { "$HSMBENCH" __options "$@" | awk '$1 != "old" && NF == 3 { print $3 }' | sort -u; }

# The options that start a line of a --help listing (after indentation,
# "-x, " included), and every option word the help mentions.
help_starts() {
    sed -n 's/^ \{1,\}\(-[A-Za-z], \)\{0,1\}\(--[a-z0-9][a-z0-9-]*\).*/\2/p' "$1" | sort -u
}
help_words() { grep -oE -- '(^|[^a-z0-9-])--[a-z0-9][a-z0-9-]*' "$1" | sed 's/^[^-]*//' | sort -u; }

# The options of a manual page's OPTIONS section, roff's \- turned into -:
# man_opts PAGE heads, those named by its entry headings (the line after
# .TP or .TQ); man_opts PAGE all, every one it names.
man_opts() {
    awk -v all="$2" '/^\.SH/ { on = ($0 ~ /^\.SH "?OPTIONS"?$/) ; next }
         on && (tp || all == "all") { print }
         { tp = 0 }
         on && /^\.T[PQ]/ { tp = 1 }' "$1" |
        sed 's/\\-/-/g; s/\\f[BIRP]//g' | grep -oE -- '(^|[^a-z0-9-])--[a-z0-9][a-z0-9-]*' |
        sed 's/^[^-]*//' | sort -u
}

# The words the completion offers for a command's options.
comp_opts() {
    bash -c ". '$comp' && printf '%s\n' \$_hsmbench_opts_$1" | grep -- '^--' | sed 's/=.*//' | sort -u
}

# same NAME WANT GOT: pass when the two sorted lists are equal, else say
# what each lacks.
same() {
    name=$1
    printf '%s\n' "$2" | sed '/^$/d' >"$T/want"
    printf '%s\n' "$3" | sed '/^$/d' >"$T/got"
    extra=$(comm -13 "$T/want" "$T/got" | tr '\n' ' ')
    missing=$(comm -23 "$T/want" "$T/got" | tr '\n' ' ')
    if [ -z "$extra$missing" ]; then pass "$name"
    else fail "$name" "missing: ${missing:-none}; not in the table: ${extra:-none}"; fi
}

# subset NAME SMALL BIG: every line of SMALL is in BIG.
subset() {
    printf '%s\n' "$2" | sed '/^$/d' >"$T/small"
    printf '%s\n' "$3" | sed '/^$/d' >"$T/big"
    missing=$(comm -23 "$T/small" "$T/big" | tr '\n' ' ')
    if [ -z "$missing" ]; then pass "$1"; else fail "$1" "missing: $missing"; fi
}

cmds=$("$HSMBENCH" __options)
if [ -n "$cmds" ]; then pass "__options lists the commands"
else fail "__options lists the commands" "nothing printed"; fi
run "$HSMBENCH" __options frobnicate
check_one_line_error "__options: an unknown command is refused" 2 '__options frobnicate: no such command'

printf '%s\n' "$cmds" | while IFS= read -r words; do
    # shellcheck disable=SC2086
    set -- $words
    long=$(table_long "$@")
    if [ -z "$long" ]; then fail "$words: the table has options" "none dumped"; continue; fi

    # (a) --help
    if [ "$words" = hsmbench ]; then
        "$HSMBENCH" --help >"$T/help" 2>&1
    else
        # shellcheck disable=SC2086
        "$HSMBENCH" $words --help >"$T/help" 2>&1
    fi
    subset "$words: --help lists every option of the table" "$long" "$(help_words "$T/help")"
    subset "$words: every option --help lists is in the table" "$(help_starts "$T/help")" "$long"
    miss=
    for s in $(table_short "$@"); do
        grep -Eq -- "^ +$s, --" "$T/help" || miss="$miss $s"
    done
    if [ -z "$miss" ]; then pass "$words: --help shows every short option beside its long one"
    else fail "$words: --help shows every short option beside its long one" "missing:$miss"; fi

    # (b) the manual page's OPTIONS section
    case $words in
    hsmbench) page=hsmbench.1 ;;
    rest*) page=hsmbench-rest.1 ;;
    *) page=hsmbench-$1.1 ;;
    esac
    case $words in
    rest*) want=$( { table_long rest; table_long rest http; } | sort -u) ;;
    *) want=$long ;;
    esac
    subset "$words: the OPTIONS of $page name every option of the table" "$long" \
        "$(man_opts "$TOP/man/$page" all)"
    subset "$words: every entry of the OPTIONS of $page is an option of the table" \
        "$(man_opts "$TOP/man/$page" heads)" "$want"

    # (c) the bash completion (the top level's words are in _hsmbench itself)
    case $words in
    hsmbench) continue ;;
    rest*) same "$words: the completion's options are the table's" "$want" "$(comp_opts rest)" ;;
    *) same "$words: the completion's options are the table's" "$long" "$(comp_opts "$1")" ;;
    esac
done

# (d) the completion's options without a value: every option the tables give
# no value (or an optional one), and only those.
novalue=$(printf '%s\n' "$cmds" | while IFS= read -r words; do
    # shellcheck disable=SC2086
    "$HSMBENCH" __options $words | awk '$1 != "old" && ($2 == "none" || $2 == "optional") { print $1; if (NF == 3) print $3 }'
done | grep -vx -- '-[hV]\|--version' | sort -u)
flags=$(bash -c ". '$comp' && printf '%s\n' \$_hsmbench_flags" | sed '/^$/d; s/=.*//' | sort -u)
same "completion: the options that take no value are the table's" "$novalue" "$flags"

# An option without a value at the end of a line of the list is still one:
# the word after it is the service, so --cipher-mode offers SDKMS's cipher modes.
run bash -c ". '$comp' && COMP_WORDS=(hsmbench rest --tls-matrix sdkms --cipher-mode ''); COMP_CWORD=5; _hsmbench; echo \"\${COMPREPLY[*]}\""
check "completion: the service after a flag at a line's end is found (--cipher-mode offers GCM)" 0 'GCM'
run bash -c ". '$comp' && COMP_WORDS=(hsmbench rest --all sdkms --cipher-mode ''); COMP_CWORD=5; _hsmbench; echo \"\${COMPREPLY[*]}\""
check "completion: --all at the end of a line of the list takes no value" 0 'GCM'
run bash -c ". '$comp' && COMP_WORDS=(hsmbench rest sdkms --mode ''); COMP_CWORD=4; _hsmbench; echo \"\${COMPREPLY[*]}\""
check "completion: rest sdkms's --mode is the load mode" 0 '^blocking nonblocking$'
