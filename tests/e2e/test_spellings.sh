#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_spellings.sh - the old tools' spellings (issue 24): the
# option table's old spellings ("old" lines of hsmbench __options COMMAND)
# against docs/migrating.md's table and the README's, both ways; every
# spelling given to every command that has it (a "same", "value" or
# "ignored" one says so once on stderr; a "refused" one is an unknown option
# whose one-line error names the options the table says); close
# misspellings get a "did you mean"; then each seed's own command line
# (k6's EKM package and OPA TLS test, the SDKMS bench, pkpspeed, JMeter),
# scaled down, against hsmbench serve and the mock HSM, run as the
# canonical flags would run.
. "$TOP/tests/e2e/lib.sh"
REST_LIB_SOURCE=1 . "$TOP/tests/e2e/test_rest_lib.sh"
need_mock || exit 0

# once NAME TEXT: $T/err has exactly one line starting "hsmbench: TEXT".
once() {
    n=$(awk -v t="hsmbench: $2" 'index($0, t) == 1 { n++ } END { print n + 0 }' "$T/err")
    if [ "$n" = 1 ]; then pass "$1"
    else fail "$1" "$n lines start 'hsmbench: $2': $(head -c 300 "$T/err" | tr '\n' ' ')"; fi
}

# same_run NAME A.json B.json: the old spelling's run and the canonical
# flags' are the same run (test, mode, threads, settings, key, data size,
# the service's settings and the endpoint's).
same_run() {
    if python3 - "$2" "$3" >"$T/jerr" 2>&1 <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
keys = ("test", "mode", "threads", "settings", "key", "data_size", "rest")
ra, rb = a["runs"][0], b["runs"][0]
diff = [k for k in keys if ra.get(k) != rb.get(k)]
ea, eb = a["environment"].get("endpoint"), b["environment"].get("endpoint")
if ea != eb:
    diff.append("environment.endpoint")
print(" ".join(diff))
sys.exit(1 if diff else 0)
PY
    then pass "$1"; else fail "$1" "they differ in: $(cat "$T/jerr")"; fi
}

# ---- the table against the docs, and each spelling given --------------------
for cmd in rest "rest http" run menu; do
    # shellcheck disable=SC2086
    "$HSMBENCH" __options $cmd | awk -v c="$cmd" -F '\t' '$1 == "old" { print c "\t" $0 }'
done >"$T/old.tsv"
if [ -s "$T/old.tsv" ]; then pass "__options lists the old spellings ($(wc -l <"$T/old.tsv") lines)"
else fail "__options lists the old spellings" "none"; fi

python3 - "$HSMBENCH" "$TOP" "$T/old.tsv" <<'PY'
import re, subprocess, sys

hsmbench, top, tsv = sys.argv[1:4]
old = []                      # (command, tool, spelling, kind, hsmbench)
for line in open(tsv):
    f = line.rstrip("\n").split("\t")
    old.append((f[0], f[2], f[3], f[4], f[5]))

def result(ok, name, why=""):
    print(("PASS %s" % name) if ok else ("FAIL %s: %s" % (name, why)))

def words(cell):
    got = " ".join(re.findall(r"`([^`]*)`", cell)).split()
    return " ".join(got) if got else "-"

# docs/migrating.md: | tool | `old` | kind | `hsmbench`... | commands | note |
doc = {}
for line in open(top + "/docs/migrating.md"):
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    if len(cells) != 6 or cells[0] in ("tool", "---") or not cells[1].startswith("`"):
        continue
    for cmd in (c.strip() for c in cells[4].split(",")):
        doc[(cmd, cells[0], cells[1].strip("`"))] = (cells[2], words(cells[3]))
table = {(c, t, s): (k, h) for c, t, s, k, h in old}
missing = sorted("%s %s %s" % k for k in table if k not in doc)
extra = sorted("%s %s %s" % k for k in doc if k not in table)
result(not missing, "docs/migrating.md documents every old spelling of the table", "missing: %s" % missing)
result(not extra, "every spelling docs/migrating.md lists is one of the table", "not in the table: %s" % extra)
wrong = sorted("%s %s %s: doc %s, table %s" % (k + (doc[k], table[k])) for k in table
               if k in doc and doc[k] != table[k])
result(not wrong, "docs/migrating.md gives each its kind and hsmbench's spelling", "; ".join(wrong))

# The README's short table: every spelling taken (same, value, ignored), and only those.
readme = set()
for line in open(top + "/README.md"):
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    if len(cells) == 3 and cells[1].startswith("`") and cells[0] in ("k6", "SDKMS bench", "pkpspeed", "JMeter"):
        readme |= {(cells[0], s) for s in re.findall(r"`([^`]*)`", cells[1])}
taken = {(t, s) for c, t, s, k, h in old if k != "refused"}
result(taken == readme, "the README's table lists every spelling taken, and only those",
       "missing: %s; not taken: %s" % (sorted(taken - readme), sorted(readme - taken)))

# Each spelling given to each command.
argv0 = {"rest": ["rest", "sdkms"], "rest http": ["rest", "http"], "run": ["run"], "menu": ["menu"]}
value = {"--threads": "2", "--stages": "1s:1", "--iterations": "5", "--duration": "1s", "--alg": "AES",
         "--key-size": "128", "--pin": "1234", "--pin-user": "CU"}
ignored_value = {("pkpspeed", "-s"): "CU", ("JMeter", "-n"): None}
def notes(err):
    return [l for l in err.splitlines() if not l.startswith("hsmbench: warning:")]
for cmd, tool, spelling, kind, to in old:
    name = "%s: %s's %s (%s)" % (cmd, tool, spelling, kind)
    if kind == "value":
        flag, val = spelling.split(" ", 1)
        args, want = [flag, val], "hsmbench: %s is %s's spelling of %s" % (spelling, tool, to)
    elif kind == "same":
        target = to.split()[0]
        args = [spelling] + ([value[target]] if target in value else [])
        want = "hsmbench: %s is %s's spelling of %s" % (spelling, tool, target)
    elif kind == "ignored":
        v = ignored_value[(tool, spelling)]
        args = [spelling] + ([v] if v else [])
        want = "hsmbench: %s (%s's): ignored; " % (" ".join(args), tool)
    else:
        args = [spelling + "x.json"] if spelling.endswith("=") else [spelling, "x"]
        args = ["--out", spelling[6:] + "x"] if spelling.startswith("--out ") else args
    if kind != "refused":
        # --help ends the parse (exit 0); a repeatable one given twice is said once.
        if kind == "same" and target == "--stages":
            args = args + args
        p = subprocess.run([hsmbench] + argv0[cmd] + args + ["--help"], capture_output=True, text=True,
                           timeout=60)
        got = notes(p.stderr)
        ok = p.returncode == 0 and len(got) == 1 and got[0].startswith(want)
        result(ok, name + ": taken, said once", "exit %d, stderr %r" % (p.returncode, p.stderr[:400]))
    else:
        p = subprocess.run([hsmbench] + argv0[cmd] + args, capture_output=True, text=True, timeout=60)
        got = notes(p.stderr)
        ok = (p.returncode == 2 and len(got) == 1 and ("%s's" % tool) in got[0] and
              all(re.search(re.escape(f) + r"(?![a-z0-9-])", got[0]) for f in to.split()))
        result(ok, name + ": one line naming " + to, "exit %d, stderr %r" % (p.returncode, p.stderr[:400]))
PY

# ---- close misspellings -----------------------------------------------------
run "$HSMBENCH" run --thread 2
check_one_line_error "run --thread: did you mean --threads?" 2 \
    '^hsmbench: error: --thread: unknown option; did you mean --threads\? \(see: hsmbench run --help\)$'
run "$HSMBENCH" rest sdkms --threadcont 2
check_one_line_error "rest sdkms --threadcont (the SDKMS bench's, misspelt): did you mean --threads?" 2 \
    'did you mean --threads\?'
run "$HSMBENCH" rest http --duraton 1s
check_one_line_error "rest http --duraton: did you mean --duration?" 2 'did you mean --duration\?'
run "$HSMBENCH" run --quiet=yes
check_one_line_error "run --quiet=yes: --quiet takes no value" 2 '--quiet takes no value'
run "$HSMBENCH" rest http -e ENDPOINT_URL=x
check_one_line_error "rest http -e: k6's and JMeter's, both named" 2 "k6's -e: .*JMeter's -e: "
run "$HSMBENCH" rest sdkms --threads 2 --threadcount 3
check_one_line_error "--threadcount after --threads: --threads given twice" 2 '--threads given twice'

# ---- seed 000: k6 run --stage 5s:70,30s:70,5s:0 ekm_wrap.js (the EKM package) -----
TOKEN="ekm-token-$$-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
export G_TOKEN="$TOKEN" EKM_SERVER_TOKEN="$TOKEN"
KEY=$(printf 'app-%s:secret-%s' "$$" "$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')" | base64 | tr -d '\n')
export SDKMS_API_KEY="$KEY" SERVER_API_KEY="$KEY"
start_serve plain --ekm-token-env EKM_SERVER_TOKEN --api-key-env SERVER_API_KEY || exit 0
EP=$URL
run "$HSMBENCH" rest ekm --endpoint "$EP/ekm/k1" --token-env G_TOKEN --stage 0.5s:2 -s 0.5s:0 --quiet \
    --json "$T/k6.json"
check "seed 000: rest ekm --stage A -s B (k6's form): exit 0" 0
once "seed 000: said once for --stage and -s" "--stage is k6's spelling of --stages"
file_lacks "seed 000: -s not said apart" "$T/err" "-s is k6's"
json_check "seed 000: the run is --stages 0.5s:2,0.5s:0's" "$T/k6.json" \
    'runs[0]["settings"]["stages"] == "0.5s:2,0.5s:0" and runs[0]["ops"] > 0 and runs[0]["errors"] == 0'
run "$HSMBENCH" rest ekm --endpoint "$EP/ekm/k1" --token-env G_TOKEN --stages 0.5s:2,0.5s:0 --quiet \
    --json "$T/k6-canon.json"
check "seed 000: the same with --stages: exit 0" 0
same_run "seed 000: --stage A -s B runs as --stages A,B" "$T/k6.json" "$T/k6-canon.json"

# ---- seed 003: k6 run --no-vu-connection-reuse --no-connection-reuse --duration 5s (OPA TLS) ----
P="$T/pki"
if make_certs "$P"; then
    start_serve tls --tls-cert "$P/server.pem" --tls-key "$P/server.key" || exit 0
    run "$HSMBENCH" rest http --url "$URL/hello" --insecure-skip-tls-verify --no-vu-connection-reuse \
        --no-connection-reuse --vus 1 -d 1s --quiet --json "$T/opa.json"
    check "seed 003: rest http with k6's flags: exit 0" 0 '' 'warning: --insecure'
    for s in "--insecure-skip-tls-verify is k6's spelling of --insecure" \
             "--no-vu-connection-reuse is k6's spelling of --no-connection-reuse" \
             "--vus is k6's spelling of --threads" "-d is k6's spelling of --duration"; do
        once "seed 003: '$s', once" "$s"
    done
    json_check "seed 003: a new connection and handshake per request, not verified, 1 thread for 1 s" \
        "$T/opa.json" '(doc["environment"]["endpoint"]["connection_reuse"] is False and
        doc["environment"]["endpoint"]["tls"]["verify"] is False and runs[0]["threads"] == 1 and
        abs(runs[0]["duration_s"] - 1) < 0.5 and runs[0]["http"]["phases_us"]["tls_handshaking"]["min"] > 0)'
    run "$HSMBENCH" rest http --url "$URL/hello" --insecure --no-connection-reuse --threads 1 --duration 1s \
        --quiet --json "$T/opa-canon.json"
    check "seed 003: the same with hsmbench's flags: exit 0" 0
    same_run "seed 003: k6's flags run as hsmbench's" "$T/opa.json" "$T/opa-canon.json"
    stop_serve tls
else
    fail "test certificates" "$(tail -c 300 "$T/openssl.log")"
fi

# ---- seed 001: test-bench.sh run encryption --algorithm AES --keysize 128 --mode GCM ----
run "$HSMBENCH" rest sdkms --endpoint "$EP" --api-key-env SDKMS_API_KEY --op encryption --algorithm AES \
    --keysize 128 --mode GCM --threadcount 2 --time 1 --quiet --json "$T/sdkms.json"
check "seed 001: rest sdkms with the bench's flags: exit 0" 0 '' \
    "^hsmbench: --op encryption is SDKMS bench's spelling of --op encrypt"
for s in "--algorithm is SDKMS bench's spelling of --alg" "--keysize is SDKMS bench's spelling of --key-size" \
         "--threadcount is SDKMS bench's spelling of --threads" "--time is SDKMS bench's spelling of --duration" \
         "--op encryption is SDKMS bench's spelling of --op encrypt"; do
    once "seed 001: '$s', once" "$s"
done
json_check "seed 001: AES-128 GCM encryption, 2 threads for 1 s" "$T/sdkms.json" \
    '(runs[0]["rest"]["op"] == "encrypt" and runs[0]["rest"]["alg"] == "AES" and runs[0]["key"]["bits"] == 128
     and runs[0]["threads"] == 2 and abs(runs[0]["duration_s"] - 1) < 0.5 and runs[0]["errors"] == 0)'
run "$HSMBENCH" rest sdkms --endpoint "$EP" --api-key-env SDKMS_API_KEY --op encrypt --alg AES \
    --key-size 128 --mode GCM --threads 2 --duration 1 --quiet --json "$T/sdkms-canon.json"
check "seed 001: the same with hsmbench's flags: exit 0" 0
same_run "seed 001: the bench's flags run as hsmbench's" "$T/sdkms.json" "$T/sdkms-canon.json"
run "$HSMBENCH" rest sdkms --endpoint "$EP" --api-key-env SDKMS_API_KEY --op sign --algorithm EC \
    --keysize NistP384 --threadcount 1 --time 0.5 --quiet --json "$T/ec.json"
check "seed 001: --keysize NistP384 is --curve NistP384: exit 0" 0 '' \
    "^hsmbench: --keysize NistP384 is SDKMS bench's spelling of --curve NistP384$"
json_check "seed 001: the key is EC P-384" "$T/ec.json" 'runs[0]["key"]["curve"] == "NistP384"'
run "$HSMBENCH" rest sdkms --endpoint "$EP" encryption --algorithm AES
check_one_line_error "seed 001: run encryption's word: did you mean --op encrypt" 2 \
    "^hsmbench: error: encryption: unexpected argument; the SDKMS bench's 'run encryption' is --op encrypt "
run "$HSMBENCH" rest sdkms --endpoint "$EP" sign --algorithm RSA
check_one_line_error "seed 001: run sign's word: --op sign" 2 "'run sign' is --op sign "
stop_serve plain

# ---- seed 002: pkpspeed -s CU -p password --------------------------------------
PIN="pin-$$"
# AWS CloudHSM's PKCS#11 PIN is CU:password: the mock's PIN has that shape.
HSMBENCH_MOCK="pin=CU:$PIN" run "$HSMBENCH" run --module "$MOCK" -s CU -p "$PIN" --test sha256-digest \
    --iterations 20 --quiet --json "$T/pkp.json"
check "seed 002: run -s CU -p PASSWORD: exit 0 (logged in with the PIN CU:PASSWORD)" 0 '' \
    "^hsmbench: -s is pkpspeed's spelling of --pin-user \(AWS CloudHSM's PKCS#11 PIN is USER:PASSWORD"
once "seed 002: -p is --pin, said once" "-p is pkpspeed's spelling of --pin"
once "seed 002: -s said once" "-s is pkpspeed's spelling of --pin-user"
file_has "seed 002: -p warns as --pin does" "$T/err" '^hsmbench: warning: --pin puts the PIN in the shell history'
file_lacks "seed 002: the password is in no output" "$T/pkp.json" "$PIN"
HSMBENCH_MOCK="pin=CU:$PIN" run "$HSMBENCH" run --module "$MOCK" --pin "CU:$PIN" --test sha256-digest \
    --iterations 20 --quiet --json "$T/pkp-canon.json"
check "seed 002: the same with --pin CU:PASSWORD: exit 0" 0
same_run "seed 002: -s CU -p PASSWORD runs as --pin CU:PASSWORD" "$T/pkp.json" "$T/pkp-canon.json"
HSMBENCH_MOCK="pin=CU:$PIN" run "$HSMBENCH" run --module "$MOCK" -s CU -p wrong --test sha256-digest --iterations 5
check "seed 002: a wrong -p is a wrong PIN: exit 3" 3 '' 'error: .*CKR_PIN_INCORRECT'
run "$HSMBENCH" run -p 1 --pin 2
check "seed 002: -p and --pin: --pin given twice" 2 '' '^hsmbench: error: --pin given twice'
printf 'X\n' | HSMBENCH_MOCK="pin=CU:$PIN" timeout 60 "$HSMBENCH" menu --module "$MOCK" -s CU -p "$PIN" \
    >"$T/out" 2>"$T/err"
rc=$?
check "seed 002: menu -s CU -p PASSWORD, then X: exit 0" 0 '' "^hsmbench: -p is pkpspeed's spelling of --pin$"

# ---- seed 004: jmeter -n -t plan.jmx -l results.jtl ----------------------------
run "$HSMBENCH" rest http -n -t plan.jmx -l results.jtl
check "seed 004: -n -t PLAN: -t refused, naming --url" 2 '' "^hsmbench: error: -t: unknown option; JMeter's -t: .*--url"
file_has "seed 004: -n ignored, said" "$T/err" "^hsmbench: -n \(JMeter's\): ignored; hsmbench has no GUI"
start_serve h || exit 0
run "$HSMBENCH" rest http -n --url "$URL/hello" --threads 2 --iterations 20 --summary jmeter --csv "$T/j.csv"
check "seed 004: -n with hsmbench's flags: exit 0, JMeter's summary line" 0 \
    '^summary = +20 in [0-9:]+ = +[0-9.]+/s Avg: ' "^hsmbench: -n \(JMeter's\): ignored"
stop_serve h
