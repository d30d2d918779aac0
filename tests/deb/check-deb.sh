#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/deb/check-deb.sh BUILD - "make check-deb": build the Debian package
# (make deb), check it with lintian, unpack it into a scratch root (dpkg -x,
# nothing is installed on this machine) and run what it installed there:
# --version, list tests, man -w, the completion, a short demo run on SoftHSM
# and one on the packaged mock HSM.  Then what can be checked of the image
# without building it (no registry is reachable here): the Containerfile
# installs this package as a non-root user, and the Kubernetes job names the
# image docs/multi-host.md builds.
# Prints PASS/FAIL lines and "N passed, N failed"; non-zero when anything failed.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-build}
case $build in /*) ;; *) build="$top/$build" ;; esac
T=$(mktemp -d "${TMPDIR:-/tmp}/hsmbench-deb.XXXXXX")
trap 'rm -rf "$T"' EXIT
export HSMBENCH_HOME="$T/home"
CHECK=check-deb
. "$top/tests/checks.sh"
# ok NAME CMD...: PASS when CMD succeeds, else FAIL with its output's tail.
ok() {
    name=$1
    shift
    if "$@" >"$T/cmd.out" 2>&1; then pass "$name"
    else fail "$name" "$(tail -c 300 "$T/cmd.out" | tr '\n' ' ')"; fi
}
t0=$(date +%s)

version=$(sed -n 's/^VERSION *:= *//p' "$top/Makefile")
arch=$(dpkg --print-architecture)
triplet=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)
deb="$build/hsmbench_${version}_$arch.deb"

# ---- make deb, out of tree ---------------------------------------------------
before=$(git -C "$top" status --porcelain 2>/dev/null)
rm -f "$deb"
if make -C "$top" --no-print-directory BUILD="$build" deb >"$T/deb.log" 2>&1 && [ -f "$deb" ]; then
    pass "make deb builds $(basename "$deb")"
else
    fail "make deb builds $(basename "$deb")" "$(tail -n 5 "$T/deb.log" | tr '\n' ' ')"
    finish
fi
after=$(git -C "$top" status --porcelain 2>/dev/null)
if [ "$before" = "$after" ]; then pass "make deb leaves the source tree as it was"
else fail "make deb leaves the source tree as it was" "$(echo "$after" | head -n 5 | tr '\n' ' ')"; fi

# ---- lintian -------------------------------------------------------------------
if command -v lintian >/dev/null 2>&1; then
    lintian "$deb" >"$T/lintian" 2>"$T/lintian.err"
    errors=$(grep -c '^E:' "$T/lintian")
    warnings=$(grep -c '^W:' "$T/lintian")
    if [ "$errors" -eq 0 ] && ! grep -q '^E:' "$T/lintian.err"; then
        pass "lintian: no errors ($warnings warnings)"
    else
        fail "lintian: no errors" "$(grep '^E:' "$T/lintian" "$T/lintian.err" | head -n 5 | tr '\n' ' ')"
    fi
else
    fail "lintian: no errors" "lintian is missing (ci/install-deps.sh installs it)"
fi

# ---- what the package declares -----------------------------------------------
dep=$(dpkg-deb -f "$deb" Depends)
case $dep in *libc6*libcurl*libp11-kit*) pass "Depends from \${shlibs:Depends}: $dep" ;;
*) fail "Depends from \${shlibs:Depends}" "$dep" ;; esac
rec=$(dpkg-deb -f "$deb" Recommends)
case $rec in *softhsm2*) pass "Recommends: softhsm2" ;; *) fail "Recommends: softhsm2" "$rec" ;; esac

# ---- what it installs ---------------------------------------------------------
R="$T/root"
ok "dpkg -x into a scratch root" dpkg -x "$deb" "$R"
miss=
for f in usr/bin/hsmbench "usr/lib/$triplet/hsmbench/libhsmbench-mock.so" \
         "usr/lib/$triplet/hsmbench/libhsmbench-null.so" \
         "usr/lib/$triplet/hsmbench/libhsmbench-trace.so" \
         usr/share/bash-completion/completions/hsmbench \
         usr/share/doc/hsmbench/hsmbench-job.yaml usr/share/doc/hsmbench/hsmbench-collect.yaml \
         usr/share/doc/hsmbench/hsmbench-pvc.yaml usr/share/doc/hsmbench/hsmbench-metrics-policy.yaml \
         usr/share/hsmbench/grafana/hsmbench-fleet.json \
         usr/share/doc/hsmbench/copyright \
         usr/share/doc/hsmbench/README.md.gz usr/share/doc/hsmbench/multi-host.md.gz \
         usr/share/doc/hsmbench/results-schema.md.gz; do
    [ -e "$R/$f" ] || miss="$miss /$f"
done
for page in "$top"/man/*.[1-9]; do
    sec=${page##*.}
    [ -f "$R/usr/share/man/man$sec/$(basename "$page").gz" ] || miss="$miss man$sec/$(basename "$page")"
done
if [ -z "$miss" ]; then pass "the program, its three modules, every manual page, the completion and the docs"
else fail "the program, its three modules, every manual page, the completion and the docs" "missing:$miss"; fi

# The paths compiled in are the package's, not the build tree's.
if grep -aqF "/usr/lib/$triplet/hsmbench" "$R/usr/bin/hsmbench" &&
    grep -aqF "/usr/lib/$triplet/softhsm/libsofthsm2.so" "$R/usr/bin/hsmbench" &&
    ! grep -aqF "$build" "$R/usr/bin/hsmbench"; then
    pass "compiled-in paths: /usr/lib/$triplet/hsmbench and Debian's SoftHSM"
else
    fail "compiled-in paths: /usr/lib/$triplet/hsmbench and Debian's SoftHSM" \
        "$(strings "$R/usr/bin/hsmbench" | grep -E 'hsmbench$|softhsm' | head -n 3 | tr '\n' ' ')"
fi

# ---- running it from the scratch root -------------------------------------------
H="$R/usr/bin/hsmbench"
if out=$("$H" --version 2>&1) && [ "$out" = "hsmbench $version" ]; then pass "hsmbench --version: $out"
else fail "hsmbench --version" "$out"; fi
if "$H" list tests >"$T/tests" 2>&1 && grep -q 'sha256-digest' "$T/tests" && grep -q 'rsa-pkcs-sign' "$T/tests"; then
    pass "hsmbench list tests"
else
    fail "hsmbench list tests" "$(head -c 300 "$T/tests")"
fi
if out=$(man -M "$R/usr/share/man" -w hsmbench 2>&1) && [ "$out" = "$R/usr/share/man/man1/hsmbench.1.gz" ]; then
    pass "man -w hsmbench finds the installed page"
else
    fail "man -w hsmbench finds the installed page" "$out"
fi
if MANPATH="$R/usr/share/man" MANWIDTH=100 man hsmbench-run 2>/dev/null | grep -q 'metrics-listen'; then
    pass "man hsmbench-run formats from the package (MANPATH)"
else
    fail "man hsmbench-run formats from the package (MANPATH)" "no --metrics-listen in it"
fi
ok "the packaged completion loads" bash -c ". '$R/usr/share/bash-completion/completions/hsmbench' && complete -p hsmbench"

if "$H" run --test sha256-digest,ecdsa-sign --threads 1 --duration 1 --json "$T/demo.json" >"$T/demo.out" 2>&1 &&
    python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["runs"]; sys.exit(0 if len(r)==2 and all(x["status"]=="ok" and x["ops"]>0 for x in r) else 1)' "$T/demo.json"; then
    pass "a demo run on SoftHSM (the default module) from the installed files"
else
    fail "a demo run on SoftHSM (the default module) from the installed files" "$(tail -c 300 "$T/demo.out" | tr '\n' ' ')"
fi
if HSMBENCH_MOCK='service=fixed:1ms' "$H" run --module "$R/usr/lib/$triplet/hsmbench/libhsmbench-mock.so" \
        --test rsa-pkcs-sign --threads 2 --duration 1 --quiet --json "$T/mock.json" >"$T/mock.out" 2>&1 &&
    python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["runs"][0]; sys.exit(0 if r["status"]=="ok" and r["ops"]>100 else 1)' "$T/mock.json"; then
    pass "a run on the packaged mock HSM"
else
    fail "a run on the packaged mock HSM" "$(tail -c 300 "$T/mock.out" | tr '\n' ' ')"
fi

# ---- the image: what can be checked without building it -------------------------
C="$top/Containerfile"
grep -Eq '^FROM +([a-z.]+/)*(library/)?debian:12' "$C" && pass "Containerfile: FROM debian:12" ||
    fail "Containerfile: FROM debian:12" "$(grep '^FROM' "$C")"
cdeb=$(sed -n 's/^ARG DEB=//p' "$C")
[ "$cdeb" = "build/$(basename "$deb")" ] && pass "Containerfile installs the package make deb builds ($cdeb)" ||
    fail "Containerfile installs the package make deb builds" "ARG DEB=$cdeb, built $(basename "$deb")"
grep -q 'install .*/tmp/hsmbench.deb.* softhsm2' "$C" && pass "Containerfile installs it with softhsm2" ||
    fail "Containerfile installs it with softhsm2" "no apt-get install line"
# By number (uid or uid:gid), not 0: a Kubernetes pod with runAsNonRoot
# refuses an image whose user is a name ("image has non-numeric user").
user=$(sed -n 's/^USER  *//p' "$C" | tail -n 1)
uid=${user%%:*}
case $uid in
    '' | *[!0-9]*) fail "Containerfile runs as a numeric non-root user" "USER '$user' is not numeric (uid or uid:gid)" ;;
    *) if [ "$uid" -ne 0 ] && { [ "$uid" = "$user" ] || case ${user#*:} in '' | *[!0-9]*) false ;; esac; }; then
           pass "Containerfile runs as a numeric non-root user ($user)"
       else
           fail "Containerfile runs as a numeric non-root user" "USER '$user'"
       fi ;;
esac
grep -qx 'ENTRYPOINT \["hsmbench"\]' "$C" && pass "Containerfile: hsmbench is the entrypoint" ||
    fail "Containerfile: hsmbench is the entrypoint" "$(grep ENTRYPOINT "$C")"
tag=$(sed -n 's/^ *podman build -f Containerfile -t \([^ ]*\) \.$/\1/p' "$top/docs/multi-host.md" | head -n 1)
img=$(sed -n 's/^ *image: *//p' "$top/k8s/hsmbench-job.yaml")
[ -n "$tag" ] && [ "$tag" = "$img" ] && [ "$tag" = "registry.example.com/hsmbench:$version" ] &&
    pass "the Kubernetes job's image is what docs/multi-host.md builds ($img)" ||
    fail "the Kubernetes job's image is what docs/multi-host.md builds" "built '$tag', job '$img'"
finish
