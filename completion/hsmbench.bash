# SPDX-License-Identifier: Apache-2.0
# bash completion for hsmbench(1)                                -*- shell-script -*-
#
# Installed as $(PREFIX)/share/bash-completion/completions/hsmbench; or, by
# hand:  . completion/hsmbench.bash
#
# Completes the commands, every option of each command (as its getopt table
# in the source has them), the values of the options that take a fixed set,
# test names for --test (asked of "hsmbench list tests" at completion time),
# module names for --module ("hsmbench list modules") besides file names, the
# slots and token labels of the module on the line for --slot and --token
# ("hsmbench list slots"),
# the words of list and keys, and file names where a file is expected.  It
# needs nothing from the bash-completion package.

_hsmbench_sel='--module --init-args --slot --token --uri --pin-env --pin-file --pin'

# The load, metrics and capacity options run and rest share (bench/driver).
_hsmbench_load='--threads --duration --iterations --iterations-per-thread --loops --ramp-up --until-stable --warmup
    --mode --rate --inflight --stages --think --abort-on-errors --max-unstarted --stuck-after --metrics-listen --metrics-linger
    --metrics-buckets --metrics-push --find-capacity --step --precision --max-steps'

# Options of each command: the option table's ("hsmbench __options
# COMMAND"; tests/e2e/test_options.sh fails when these lists differ from it).
_hsmbench_opts_run="$_hsmbench_sel --pin-user --test --key-size --curve --hash --data-size --aad-size
    --token-keys --static-key --key-label --key-id --verify --verify=sample:
    --mix --seed --lookup --repeat
    $_hsmbench_load
    --json --csv --html --threshold --start-at --start-window --run-id --generator --out --quiet --help"
_hsmbench_opts_datasheet="$_hsmbench_sel --test --key-size --data-size --step-time --max-threads --until-stable
    --capacity --resume --json --html --quiet --help"
_hsmbench_opts_list="$_hsmbench_sel --help"
_hsmbench_opts_keys="$_hsmbench_sel --type --label --key-size --curve --force --all --help"
_hsmbench_opts_menu="$_hsmbench_sel --pin-user --help"
_hsmbench_opts_report='--html --csv --csv-layout --threshold --quiet --help'
_hsmbench_opts_trace='--json --csv --html --quiet --help'
_hsmbench_opts_replay="$_hsmbench_sel --speed --closed --threads --duration --model-only --find-speed
    --step --precision --max-steps
    --json --csv --html --threshold --start-at --start-window --run-id --generator --out --quiet --help"
_hsmbench_opts_compare='--fail-on --min-change --json --html --help'
_hsmbench_opts_merge='--output -o --quiet --expect --help'
_hsmbench_opts_rest="$_hsmbench_load --endpoint --op --data-size
    --json --csv --html --threshold --start-at --start-window --run-id --generator --out --quiet --cacert --cert --key --insecure --no-connection-reuse --http2
    --timeout --engine --verbose -v --token-env --token-file --token --token-cmd --token-ttl --reason
    --aad --api-key-env --api-key-file --api-key --alg --key-size --curve --cipher-mode
    --hash-alg --transient --filepath --check --help --url --method --header -H --header-env --header-file --secret-header --bearer-env --bearer-file
    --body --body-file --expect-status --expect-body --expect-json --summary --summary-interval --tls-matrix
    --plain-url --plain-port"
_hsmbench_opts_serve="$_hsmbench_sel --listen --tls-cert --tls-key --client-ca
    --client-cert-optional --plain-listen
    --connection-limit --ekm-token-env --ekm-token-file --ekm-token-ttl --api-key-env --api-key-file
    --session-ttl --profiling --fault --fault-after --fault-delay --latency --max-keys
    --max-transient --max-requests --max-seconds --metrics-listen --metrics-linger --metrics-buckets --metrics-push
    --verbose -v --help"

# Options that take no value.
_hsmbench_flags=' --quiet --help --token-keys --verify --verify=sample: --force --all --lookup
    --insecure --no-connection-reuse --http2 --verbose -v --transient --check --profiling
    --tls-matrix --client-cert-optional --closed --model-only '
# One space between words, and around them, for the " --name " match below.
_hsmbench_flags=" ${_hsmbench_flags//[$'\n\t ']/ } "

# The test names, from the hsmbench being completed.
_hsmbench_tests()
{
    local prog=$1
    command -v -- "$prog" >/dev/null 2>&1 || prog=hsmbench
    "$prog" list tests 2>/dev/null | awk 'NR > 1 && /^[a-z0-9]/ { print $1 }'
}

# The module names --module takes: p11-kit's registered modules and the ones
# hsmbench ships (hsmbench-mock, hsmbench-null, hsmbench-trace), as
# "hsmbench list modules" names them.
_hsmbench_modules()
{
    local prog=$1
    command -v -- "$prog" >/dev/null 2>&1 || prog=hsmbench
    "$prog" list modules 2>/dev/null | awk 'NR > 1 && $1 !~ /^\(/ { print $1 }'
}

# The value of option $1 on the line before the cursor (the last one given:
# "--module X", "--module=X", which readline splits at "="), or nothing.
_hsmbench_value_of()
{
    local i w v=
    for ((i = 1; i < COMP_CWORD; i++)); do
        w=${COMP_WORDS[i]}
        if [[ $w == "$1" ]]; then
            ((i + 1 < COMP_CWORD)) && v=${COMP_WORDS[i + 1]}
            if [[ $v == = ]]; then
                v=
                ((i + 2 < COMP_CWORD)) && v=${COMP_WORDS[i + 2]}
            fi
        elif [[ $w == "$1"=* ]]; then
            v=${w#*=}
        fi
    done
    printf '%s' "${v/#\~/$HOME}"
}

# The slot IDs ($2 = slot) or token labels ($2 = label) of the module on
# the line, from "hsmbench list slots"; nothing without a --module (the
# default token would be made by asking), and nothing after 10 s.
_hsmbench_slots()
{
    local prog=$1 mod init
    mod=$(_hsmbench_value_of --module)
    [[ -n $mod ]] || return 0
    init=$(_hsmbench_value_of --init-args)
    command -v -- "$prog" >/dev/null 2>&1 || prog=hsmbench
    local args=(list slots --module "$mod")
    [[ -n $init ]] && args+=(--init-args "$init")
    if [[ $2 == slot ]]; then
        timeout 10 "$prog" "${args[@]}" 2>/dev/null | sed -n 's/^Slot \([0-9][0-9]*\):.*/\1/p'
    else
        timeout 10 "$prog" "${args[@]}" 2>/dev/null | sed -n 's/^  label  *: \(.*[^ ]\) *$/\1/p'
    fi
}

# Set COMPREPLY to the words of $1 that start with $2.
_hsmbench_words()
{
    local IFS=$' \t\n'
    COMPREPLY=($(compgen -W "$1" -- "$2"))
}

# No file names for an option whose value is not a file.
_hsmbench_nofiles()
{
    compopt +o default 2>/dev/null
    COMPREPLY=()
}

_hsmbench()
{
    local cur prev cmd sub i w eq=
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=
    ((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}

    # --opt=value: readline splits at "=" (and at ":" in the value).
    if [[ $cur == --*=* ]]; then
        prev=${cur%%=*}
        cur=${cur#*=}
        eq=1
    elif [[ $cur == = ]] && ((COMP_CWORD > 1)); then
        prev=${COMP_WORDS[COMP_CWORD - 1]}
        cur=
        eq=1
    elif [[ $prev == = ]] && ((COMP_CWORD > 1)); then
        prev=${COMP_WORDS[COMP_CWORD - 2]}
        eq=1
    fi

    # The command, and for rest, list and keys the word after it.
    cmd= sub=
    for ((i = 1; i < COMP_CWORD; i++)); do
        w=${COMP_WORDS[i]}
        if [[ -z $cmd ]]; then
            [[ $w == -* ]] && continue
            cmd=$w
        elif [[ -z $sub && $w != -* && ( $cmd == rest || $cmd == list || $cmd == keys ) ]]; then
            # a value of an option is not the word we are looking for
            [[ ${COMP_WORDS[i - 1]} == --* && $_hsmbench_flags != *" ${COMP_WORDS[i - 1]} "* ]] && continue
            sub=$w
        fi
    done

    if [[ -z $cmd ]]; then
        if [[ $cur == -* ]]; then
            _hsmbench_words '-h --help -V --version' "$cur"
        else
            _hsmbench_words 'run datasheet list keys menu trace replay report compare merge rest serve help' "$cur"
        fi
        return
    fi

    # Values of the option before the cursor.
    case $prev in
    --test)
        [[ $cmd == run || $cmd == datasheet ]] || { _hsmbench_nofiles; return; }
        local pre= part=$cur
        if [[ $cur == *,* ]]; then
            pre=${cur%,*},
            part=${cur##*,}
        fi
        local IFS=$' \t\n'
        COMPREPLY=($(compgen -P "$pre" -W "all $(_hsmbench_tests "${COMP_WORDS[0]}")" -- "$part"))
        compopt -o nospace 2>/dev/null
        compopt +o default 2>/dev/null
        return
        ;;
    --metrics-buckets)
        _hsmbench_words 'coarse fine' "$cur"
        compopt +o default 2>/dev/null
        return
        ;;
    --mode)
        # the load mode (rest sdkms takes the SDKMS bench's --mode CBC too: --cipher-mode)
        _hsmbench_words 'blocking nonblocking' "$cur"
        compopt +o default 2>/dev/null
        return
        ;;
    --cipher-mode)
        # an option of rest sdkms: its service found after the flags before it
        [[ $sub == sdkms ]] && _hsmbench_words 'GCM CBC OAEP PKCS1_V15 PSS' "$cur"
        compopt +o default 2>/dev/null
        return
        ;;
    --curve)
        if [[ $cmd == rest ]]; then
            _hsmbench_words 'SecP192K1 SecP224K1 SecP256K1 NistP192 NistP224 NistP256 NistP384 NistP521' "$cur"
        else
            _hsmbench_words 'P-256 P-384 P-521' "$cur"
        fi
        compopt +o default 2>/dev/null
        return
        ;;
    --hash | --hash-alg)
        _hsmbench_words 'SHA1 SHA256 SHA384 SHA512' "$cur"
        compopt +o default 2>/dev/null
        return
        ;;
    --type)
        _hsmbench_words 'rsa ec ed25519 aes hmac' "$cur"
        compopt +o default 2>/dev/null
        return
        ;;
    --op)
        if [[ $sub == ekm ]]; then
            _hsmbench_words 'wrap unwrap wrap-unwrap' "$cur"
        else
            _hsmbench_words 'keygen encrypt decrypt sign verify mac' "$cur"
        fi
        compopt +o default 2>/dev/null
        return
        ;;
    --verify)
        # its value only comes after "=": --verify=sample:N
        if [[ -n $eq ]]; then
            _hsmbench_words 'sample:' "$cur"
            compopt -o nospace 2>/dev/null
            compopt +o default 2>/dev/null
            return
        fi
        ;;
    --alg)
        _hsmbench_words 'AES RSA EC HMAC' "$cur"
        compopt +o default 2>/dev/null
        return
        ;;
    --out)
        # jsonl=FILE, jtl=FILE: the kind, then a file name after it
        if [[ $cur == jsonl=* || $cur == jtl=* ]]; then
            local IFS=$'\n' kind=${cur%%=*}=
            COMPREPLY=($(compgen -f -P "$kind" -- "${cur#*=}"))
            compopt -o filenames 2>/dev/null
        else
            _hsmbench_words 'jsonl= jtl=' "$cur"
            compopt -o nospace 2>/dev/null
        fi
        return
        ;;
    --csv-layout)
        _hsmbench_words 'sdkms tidy' "$cur"
        compopt +o default 2>/dev/null
        return
        ;;
    --summary)
        # jmeter: rest http only
        _hsmbench_words 'k6 jmeter' "$cur"
        compopt +o default 2>/dev/null
        return
        ;;
    --pin-env | --token-env | --api-key-env | --ekm-token-env)
        local IFS=$' \t\n'
        COMPREPLY=($(compgen -e -- "$cur"))
        compopt +o default 2>/dev/null
        return
        ;;
    --token-cmd)
        # a shell command: its first word from the PATH
        local IFS=$'\n'
        COMPREPLY=($(compgen -c -- "$cur"))
        compopt +o default 2>/dev/null
        return
        ;;
    --module)
        # a module's name (p11-kit's, hsmbench's own), or a file
        local IFS=$'\n'
        COMPREPLY=($(compgen -W "$(_hsmbench_modules "${COMP_WORDS[0]}")" -- "$cur") $(compgen -f -- "$cur"))
        compopt -o filenames 2>/dev/null
        return
        ;;
    --slot | --token)
        # the module's slots or token labels; a comma list ("--slot 1,2")
        local pre= part=$cur what=slot
        [[ $prev == --token ]] && what=label
        if [[ $cur == *,* ]]; then
            pre=${cur%,*},
            part=${cur##*,}
        fi
        local IFS=$'\n'
        COMPREPLY=($(compgen -P "$pre" -W "$(_hsmbench_slots "${COMP_WORDS[0]}" $what)" -- "$part"))
        compopt +o default 2>/dev/null
        return
        ;;
    --pin-file | --static-key | --json | --csv | --html | --output | -o | \
        --cacert | --cert | --key | --token-file | --api-key-file | --tls-cert | --tls-key | \
        --client-ca | --ekm-token-file)
        local IFS=$'\n'
        COMPREPLY=($(compgen -f -- "$cur"))
        compopt -o filenames 2>/dev/null
        return
        ;;
    --init-args | --uri | --pin | --key-size | --data-size | --aad-size | --mix | --seed | \
        --key-label | --key-id | --threads | --duration | --iterations | --iterations-per-thread | \
        --warmup | --rate | --inflight | --stages | --think | --abort-on-errors | --max-unstarted | --stuck-after | --threshold | --start-at | \
        --start-window | --run-id | --generator | --expect | \
        --label | --endpoint | --timeout | --reason | --aad | --api-key | --listen | \
        --connection-limit | --session-ttl | --ekm-token-ttl | --token-ttl | --fault | --fault-after | --fault-delay | --latency | \
        --max-keys | --max-transient | --max-requests | --max-seconds | --metrics-listen | \
        --metrics-linger | --metrics-push | --find-capacity | --step | --precision | --max-steps)
        _hsmbench_nofiles
        return
        ;;
    esac

    # A word that is not an option: what the command takes there.
    if [[ $cur != -* ]]; then
        case $cmd in
        list)
            [[ -z $sub ]] && { _hsmbench_words 'modules slots mechanisms tests' "$cur"; return; }
            ;;
        keys)
            [[ -z $sub ]] && { _hsmbench_words 'create list destroy' "$cur"; return; }
            ;;
        rest)
            [[ -z $sub ]] && { _hsmbench_words 'ekm sdkms http' "$cur"; return; }
            ;;
        trace)
            local IFS=$'\n'
            COMPREPLY=($(compgen -f -X '!*.trace' -- "$cur") $(compgen -d -- "$cur"))
            compopt -o filenames 2>/dev/null
            return
            ;;
        replay)
            # a recording, a pkcs11-spy log or a scenario: any file
            local IFS=$'\n'
            COMPREPLY=($(compgen -f -- "$cur"))
            compopt -o filenames 2>/dev/null
            return
            ;;
        report | compare | merge)
            local IFS=$'\n'
            COMPREPLY=($(compgen -f -X '!*.json' -- "$cur") $(compgen -d -- "$cur"))
            compopt -o filenames 2>/dev/null
            return
            ;;
        esac
        _hsmbench_nofiles
        return
    fi

    case $cmd in
    run) _hsmbench_words "$_hsmbench_opts_run" "$cur" ;;
    datasheet) _hsmbench_words "$_hsmbench_opts_datasheet" "$cur" ;;
    list) _hsmbench_words "$_hsmbench_opts_list" "$cur" ;;
    keys) _hsmbench_words "$_hsmbench_opts_keys" "$cur" ;;
    menu) _hsmbench_words "$_hsmbench_opts_menu" "$cur" ;;
    report) _hsmbench_words "$_hsmbench_opts_report" "$cur" ;;
    trace) _hsmbench_words "$_hsmbench_opts_trace" "$cur" ;;
    replay) _hsmbench_words "$_hsmbench_opts_replay" "$cur" ;;
    compare) _hsmbench_words "$_hsmbench_opts_compare" "$cur" ;;
    merge) _hsmbench_words "$_hsmbench_opts_merge" "$cur" ;;
    rest) _hsmbench_words "$_hsmbench_opts_rest" "$cur" ;;
    serve) _hsmbench_words "$_hsmbench_opts_serve" "$cur" ;;
    *) COMPREPLY=() ;;
    esac
    # "--verify=sample:" wants its number right after it.
    [[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} == *: ]] && compopt -o nospace 2>/dev/null
    return 0
}

complete -o default -F _hsmbench hsmbench
