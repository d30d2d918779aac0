#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/fleet/check-fleet.sh BUILD - "make check-fleet": the Kubernetes fleet
# of docs/multi-host.md, run for real with podman instead of a cluster.
#  1. The image: a Debian 12 base made by mmdebstrap (cached between runs),
#     imported into podman, the Containerfile built on it with the package
#     "make deb" makes (rebuilt when a file of the tree is newer).
#  2. The launch: docs/multi-host.md's two launch blocks, run as written,
#     with tests/k8s_kubectl.py as "kubectl": the objects it creates are
#     checked offline (tests/k8s_check.py: the API schema, the restricted
#     Pod Security Standard) and kept.
#  3. The pods: the generators' pod template and the collection step's run
#     as podman containers with their securityContext, env and volumes as
#     the manifests give them (tests/k8s_podman.py): a probe shows uid
#     10001, no new privileges, seccomp filtering, no capabilities and the
#     PIN, the client configuration and certificates where the doc says.
#     Three fleets of the Job's 4 generators at the START the launch set:
#     on the mock HSM, on SoftHSM (its softhsm2.conf given as the HSM
#     client's configuration), and on the mock with generator 3 failing:
#     each merged result is the exact union of its parts
#     (tests/e2e/merge_union.py), and the failed generator is named.
# Prints PASS/FAIL lines and "N passed, N failed"; non-zero when anything
# failed.  Where podman cannot run it says SKIP and why, and exits 0;
# under CI (CI=true) a skip is a failure.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-build}
case $build in /*) ;; *) build="$top/$build" ;; esac
T=$(mktemp -d "${TMPDIR:-/tmp}/hsmbench-fleet.XXXXXX")
CACHE=${HSMBENCH_FLEET_CACHE:-/var/cache/hsmbench-fleet}
BASE_TAR="$CACHE/base-bookworm.tar"
BASE_IMG=localhost/hsmbench-fleet-base:bookworm
IMG=localhost/hsmbench-fleet:check-$$
PODMAN="podman --runtime runc --cgroup-manager cgroupfs"
export PODMAN
CHECK=check-fleet
t0=$(date +%s)
. "$top/tests/checks.sh"
cleanup() {
    # only this run's containers (named hsmbench-fleet-PID-POD by pod() below) and image
    for n in $($PODMAN ps -a --format '{{.Names}}' 2>/dev/null | grep "^hsmbench-fleet-$$-"); do
        $PODMAN rm -f "$n" >/dev/null 2>&1
    done
    $PODMAN rmi "$IMG" >/dev/null 2>&1
    rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
skip() {
    if [ "${CI:-}" = true ]; then
        fail "check-fleet runs" "skipped under CI: $1"
        finish
    fi
    echo "SKIP check-fleet: $1"
    exit 0
}
tail1() { tail -c "${2:-300}" "$1" | tr '\n' ' '; }

# ---- can podman run here? -------------------------------------------------------
[ "$(id -u)" -eq 0 ] || skip "not root: the check runs root podman (runc, cgroupfs)"
for t in podman runc mmdebstrap python3 softhsm2-util openssl; do
    command -v "$t" >/dev/null 2>&1 || skip "$t is not installed (ci/install-deps.sh)"
done
# The sandbox refuses podman's default rlimits: no default ulimits (idempotent).
conf=/etc/containers/containers.conf
if ! grep -q '^ *default_ulimits *=' "$conf" 2>/dev/null; then
    if grep -q '^\[containers\]' "$conf" 2>/dev/null; then
        sed -i 's/^\[containers\]$/[containers]\ndefault_ulimits = []/' "$conf"
    else
        printf '[containers]\ndefault_ulimits = []\n' >>"$conf"
    fi
fi
$PODMAN info >"$T/info.out" 2>&1 || skip "podman info fails: $(tail1 "$T/info.out" 200)"

# ---- 1. the image ------------------------------------------------------------------
# The base: mmdebstrap's Debian 12, one tarball kept (about 170 MB), made
# again when 30 days old; imported again when the tarball is newer.
# mmdebstrap picks its output's format from the name's extension and makes a
# directory of any other, so the temporary name is told the format (an
# earlier version's ".tar.new" made a directory that podman import refused).
mkdir -p "$CACHE"
[ -d "$BASE_TAR" ] && rm -rf "$BASE_TAR"
if [ ! -f "$BASE_TAR" ] || [ ! -s "$BASE_TAR" ] || [ -n "$(find "$BASE_TAR" -mtime +30)" ]; then
    t=$(date +%s)
    rm -rf "$BASE_TAR.new"
    if timeout 1200 mmdebstrap --variant=minbase --format=tar bookworm "$BASE_TAR.new" >"$T/mmdebstrap.out" 2>&1 &&
        [ -f "$BASE_TAR.new" ] && mv "$BASE_TAR.new" "$BASE_TAR"; then
        pass "a Debian 12 base by mmdebstrap --variant=minbase bookworm ($(($(date +%s) - t)) s, cached in $CACHE)"
    else
        rm -rf "$BASE_TAR.new"
        fail "a Debian 12 base by mmdebstrap" "$(tail1 "$T/mmdebstrap.out")"
        finish
    fi
fi
stamp="$CACHE/base-bookworm.imported"
if ! $PODMAN image exists "$BASE_IMG" || [ "$BASE_TAR" -nt "$stamp" ]; then
    if $PODMAN import "$BASE_TAR" "$BASE_IMG" >"$T/import.out" 2>&1; then touch "$stamp"
    else fail "podman import of the base" "$(tail1 "$T/import.out")"; finish; fi
fi
version=$(sed -n 's/^VERSION *:= *//p' "$top/Makefile")
deb="$build/hsmbench_${version}_$(dpkg --print-architecture).deb"
if [ ! -s "$deb" ] || [ -n "$(cd "$top" && find . -path ./build -prune -o -path ./.git -prune -o -type f -newer "$deb" -print | head -n 1)" ]; then
    make -C "$top" --no-print-directory BUILD="$build" deb >"$T/deb.out" 2>&1 ||
        { fail "make deb" "$(tail1 "$T/deb.out")"; finish; }
fi
t=$(date +%s)
if (cd "$top" && timeout 900 $PODMAN build --from "$BASE_IMG" --pull=never --network host --layers=false \
        --build-arg DEB="${deb#"$top"/}" -f Containerfile -t "$IMG" .) >"$T/build.out" 2>&1; then
    pass "the Containerfile builds on it with $(basename "$deb") ($(($(date +%s) - t)) s)"
else
    fail "the Containerfile builds" "$(tail1 "$T/build.out" 500)"
    finish
fi
user=$($PODMAN image inspect --format '{{.Config.User}} {{.Config.Entrypoint}}' "$IMG" 2>&1)
[ "$user" = "10001:10001 [hsmbench]" ] && pass "the image runs hsmbench as 10001:10001" ||
    fail "the image runs hsmbench as 10001:10001" "$user"

# ---- 2. the launch, as docs/multi-host.md writes it ----------------------------------
# launch_block PATTERN: the doc's sh block holding PATTERN.
launch_block() {
    awk -v pat="$1" '/^```sh$/ { inb = 1; b = ""; next }
        inb && /^```$/ { inb = 0; if (index(b, pat)) { printf "%s", b; exit } next }
        inb { b = b $0 "\n" }' "$top/docs/multi-host.md"
}
L="$T/launch"
mkdir -p "$L/bin" "$L/hsm-client" "$L/hsm-client-certs" "$T/state"
cp -R "$top/k8s" "$L/k8s"
ln -s "$top/tests/k8s_kubectl.py" "$L/bin/kubectl"
PIN=Fl33t-pin-7391     # distinctive: no output may hold it
(umask 077 && printf '%s\n' "$PIN" >"$L/hsm-pin")
# the HSM client's configuration: SoftHSM's (a Luna client's Chrystoki.conf
# would be beside it); its certificates: a CA's
printf 'directories.tokendir = /var/lib/hsmbench-token\nobjectstore.backend = file\nlog.level = ERROR\n' \
    >"$L/hsm-client/softhsm2.conf"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=hsmbench-fleet-ca -days 1 \
    -keyout /dev/null -out "$L/hsm-client-certs/server-ca.pem" >"$T/openssl.out" 2>&1 ||
    fail "a test CA certificate" "$(tail1 "$T/openssl.out")"
launch_block 'kubectl create secret generic hsm-user-pin' >"$T/once.sh"
launch_block 'kubectl apply -k k8s/' >"$T/run.sh"
if [ -s "$T/once.sh" ] && [ -s "$T/run.sh" ] &&
    (cd "$L" && PATH="$L/bin:$PATH" KUBECTL_STATE="$T/state" sh -e "$T/once.sh" && 
     PATH="$L/bin:$PATH" KUBECTL_STATE="$T/state" sh -e "$T/run.sh") >"$T/launch.out" 2>&1; then
    pass "docs/multi-host.md's launch runs as written ($(grep -c . "$T/state/calls") kubectl commands)"
else
    fail "docs/multi-host.md's launch runs as written" "$(tail1 "$T/launch.out")"
    finish
fi
grep -q -- '--from-literal' "$T/once.sh" "$T/run.sh" &&
    fail "the launch gives the PIN from a file" "--from-literal in the doc"
START=$(sed -n 's/^START=//p' "$L/k8s/start.env")
objects=ConfigMap/hsmbench-start,PersistentVolumeClaim/hsmbench-results,NetworkPolicy/hsmbench-metrics,Job/hsmbench,Job/hsmbench-collect
if python3 "$top/tests/k8s_check.py" "$top/k8s/schema/kubernetes-1.22.json" "$top/Containerfile" \
        --objects "$objects" "$T/state/applied.yaml" >"$T/check.out" 2>&1; then
    pass "the launch creates every object (${objects}), each valid and the pods restricted"
else
    fail "the launch creates every object, valid and restricted" "$(grep FAIL "$T/check.out" | head -n 3 | tr '\n' ' ')"
fi

# ---- 3. the pods --------------------------------------------------------------------
# pod NAME JOB [k8s_podman.py options]: run JOB's pod in the background, its
# output in $T/NAME.out, its pid in $T/NAME.pid.
pod() {
    pname=$1 pjob=$2
    shift 2
    timeout 600 python3 "$top/tests/k8s_podman.py" "$T/state" "$pjob" "$IMG" "$T/work/$pname" \
        --name "hsmbench-fleet-$$-$pname" "$@" >"$T/$pname.out" 2>&1 &
    echo $! >"$T/$pname.pid"
}
# wait_pod NAME: its exit status
wait_pod() { wait "$(cat "$T/$1.pid")"; }

pod probe-gen hsmbench --index 0 --probe --pvc "hsmbench-results=$(mkdir -p "$T/pvc-probe" && echo "$T/pvc-probe")"
wait_pod probe-gen
prc=$?
pod probe-collect hsmbench-collect --probe --pvc "hsmbench-results=$T/pvc-probe"
wait_pod probe-collect
for p in probe-gen probe-collect; do
    if [ $prc -eq 0 ] && python3 - "$T/$p.out" "$p" >"$T/$p.check" <<'PY'; then
import re, sys
s = open(sys.argv[1]).read()
f = dict(re.findall(r"^(\w+):\s+(.*)$", s, re.M))
want = {"NoNewPrivs": "1", "Seccomp": "2", "CapEff": "0000000000000000", "CapPrm": "0000000000000000",
        "CapBnd": "0000000000000000"}
bad = [k for k, v in want.items() if f.get(k) != v]
if f.get("Uid", "").split() != ["10001"] * 4 or f.get("Gid", "").split() != ["10001"] * 4:
    bad.append("uid/gid")
if "10001" not in f.get("Groups", "").split():
    bad.append("groups")
if sys.argv[2] == "probe-gen":
    if not re.search(r"^/etc/hsm/pin: -r--r----- 1 0 10001 .* pin$", s, re.M): bad.append("pin file")
    if not re.search(r"^/etc/hsm/config: .* softhsm2.conf$", s, re.M): bad.append("client configuration")
    if not re.search(r"^/etc/hsm/certs: -r--r----- 1 0 10001 .* server-ca.pem$", s, re.M): bad.append("certificates")
    if "ChrystokiConfigurationPath=/etc/hsm/config" not in s: bad.append("ChrystokiConfigurationPath")
if "Fl33t-pin" in s: bad.append("the PIN in the output")
print(" ".join(bad))
sys.exit(1 if bad else 0)
PY
        pass "$p: uid and gid 10001, no new privileges, seccomp filter, no capabilities$( [ $p = probe-gen ] && echo '; the PIN (0440, group 10001), the client configuration and certificates mounted where the doc says')"
    else
        fail "$p: the pod's security context as the kernel sees it" "$(cat "$T/$p.check"): $(tail1 "$T/$p.out" 600)"
    fi
done

# fleet NAME MODULE MODULE3 COLLECT_ENV GENERATOR_OPTIONS...: the Job's 4
# generators (0-2 on MODULE, 3 on MODULE3) and the collection step (with
# COLLECT_ENV's words as --env), all at once, on a volume of their own.
fleet() {
    fname=$1 fmod=$2 fmod3=$3 cenv=$4
    shift 4
    mkdir -p "$T/pvc-$fname"
    for i in 0 1 2 3; do
        m=$fmod
        [ $i -eq 3 ] && m=$fmod3
        tok=
        [ "$fname" = softhsm ] && tok="$T/token$i=/var/lib/hsmbench-token"
        pod "$fname-gen$i" hsmbench --index $i --pvc "hsmbench-results=$T/pvc-$fname" \
            --sub "/opt/hsm/lib/libcryptoki.so=>$m" --sub "--threads 8=>--threads 2" \
            --sub "--duration 60=>--duration 4" --sub "--metrics-linger 30s=>--metrics-linger 1s" \
            ${tok:+--mount "$tok"} "$@"
    done
    set --
    for e in KEEP=0 DURATION=4 $cenv; do set -- "$@" --env "$e"; done
    pod "$fname-collect" hsmbench-collect --pvc "hsmbench-results=$T/pvc-$fname" "$@"
}
# SoftHSM: each generator its own copy of the token (SoftHSM rewrites it at
# every login; a network HSM keeps its state itself), where softhsm2.conf
# says, owned by the pods' user
mkdir -p "$T/token"
printf 'directories.tokendir = %s\nobjectstore.backend = file\nlog.level = ERROR\n' "$T/token" >"$T/softhsm2.conf"
SOFTHSM2_CONF="$T/softhsm2.conf" softhsm2-util --init-token --free --label hsmbench-demo --so-pin 12345678 \
    --pin "$PIN" >"$T/token.out" 2>&1 || fail "a SoftHSM token" "$(tail1 "$T/token.out")"
for i in 0 1 2 3; do
    cp -R "$T/token" "$T/token$i" && chown -R 10001:10001 "$T/token$i"
done
fleet mock hsmbench-mock hsmbench-mock "" --sub "--token prod=>--token mock" \
    --sub "--test ecdsa-sign=>--test sha256-digest" --env "HSMBENCH_MOCK=service=fixed:2ms;cores=8"
fleet fail hsmbench-mock /opt/hsm/lib/none.so "WINDOW=5 GRACE=5" --sub "--token prod=>--token mock" \
    --sub "--test ecdsa-sign=>--test sha256-digest" --env "HSMBENCH_MOCK=service=fixed:2ms;cores=8"
SOFTHSM_MOD=$($PODMAN run --rm --network none --entrypoint sh "$IMG" -c 'ls /usr/lib/softhsm/libsofthsm2.so /usr/lib/*/softhsm/libsofthsm2.so 2>/dev/null | head -n 1')
fleet softhsm "${SOFTHSM_MOD:-/usr/lib/softhsm/libsofthsm2.so}" "${SOFTHSM_MOD:-/usr/lib/softhsm/libsofthsm2.so}" "" \
    --sub "--token prod=>--token hsmbench-demo" --sub "--test ecdsa-sign=>--test sha256-digest --data-size 32" \
    --env SOFTHSM2_CONF=/etc/hsm/config/softhsm2.conf
for f in mock softhsm fail; do
    for p in gen0 gen1 gen2 gen3 collect; do
        wait_pod "$f-$p"
        echo $? >"$T/$f-$p.rc"
    done
done
rc() { cat "$T/$1.rc"; }
# check_fleet NAME JOINED MODULE: every generator that should has exited 0 and
# written its file as uid 10001; the collection step merged the JOINED
# files, the exact union of its parts, measured on MODULE.
check_fleet() {
    d="$T/pvc-$1/$START"
    gens="$(rc "$1-gen0") $(rc "$1-gen1") $(rc "$1-gen2") $(rc "$1-gen3")"
    want="0 0 0 0"
    [ "$2" = 3 ] && want="0 0 0 3"
    if [ "$gens" = "$want" ] && [ "$(rc "$1-collect")" = 0 ] && [ -s "$d/all.json" ] && [ -s "$d/all.html" ]; then
        pass "$1 fleet: the 4 generator pods exit $want, the collection pod merges into all.json and all.html"
    else
        fail "$1 fleet: the pods' exits ($want; collection 0)" "generators $gens, collection $(rc "$1-collect"): $(tail1 "$T/$1-collect.out") $(tail1 "$T/$1-gen0.out")"
        return
    fi
    owners=$(stat -c %u:%g "$d"/[0-9].json | sort -u | tr '\n' ' ')
    [ "$owners" = "10001:10001 " ] && pass "$1 fleet: the generators wrote their files as 10001:10001" ||
        fail "$1 fleet: the generators wrote their files as 10001:10001" "$owners"
    if python3 "$top/tests/e2e/merge_union.py" "$d" 4 >"$T/union.out" 2>&1 &&
        python3 - "$d/all.json" "$2" "$3" >>"$T/union.out" 2>&1 <<'PY'; then
import json, sys
doc = json.load(open(sys.argv[1]))
g, t = doc["generators"], json.dumps(doc["environment"]["target"])
ok = g["joined"] == int(sys.argv[2]) and g["expected"] == 4 and sys.argv[3] in t and doc["runs"][0]["ops"] > 0
print("" if ok else f"generators {g}, target {t}, ops {doc['runs'][0]['ops']}")
sys.exit(0 if ok else 1)
PY
        pass "$1 fleet: on $3, the merged result is the exact union of its $2 parts (operations, errors by code, histogram slot by slot, per second)"
    else
        fail "$1 fleet: the merged result is the exact union of its parts" "$(tail1 "$T/union.out")"
    fi
}
check_fleet mock 4 libhsmbench-mock.so
check_fleet softhsm 4 libsofthsm2.so
check_fleet fail 3 libhsmbench-mock.so
if [ "$(grep -c '^hsmbench: error: ' "$T/fail-gen3.out")" -eq 1 ]; then
    pass "fail fleet: the generator on a missing module exits 3 and says why in one line ($(grep '^hsmbench: error: ' "$T/fail-gen3.out"))"
else
    fail "fail fleet: the failing generator says so in one line" "$(tail1 "$T/fail-gen3.out")"
fi
if grep -q '3 of 4 generators joined' "$T/fail-collect.out" && grep -q 'generator 3: no results file' "$T/fail-collect.out" &&
    python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1]))["generators"]["missing"] != ["3"])' "$T/pvc-fail/$START/all.json"; then
    pass "fail fleet: the collection step merges the other 3 and names generator 3 as missing (generators.missing)"
else
    fail "fail fleet: the collection step names the missing generator" "$(tail1 "$T/fail-collect.out")"
fi
if grep -rl "Fl33t-pin" "$T"/*.out "$T"/pvc-* >"$T/leak" 2>/dev/null; then
    fail "the PIN reaches no output or results file" "$(tr '\n' ' ' <"$T/leak")"
else
    pass "the PIN reaches no output or results file"
fi
finish
