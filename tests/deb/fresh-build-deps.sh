#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/deb/fresh-build-deps.sh [BUILD] - "make check-deb-fresh": "make deb" on a
# fresh Debian 12 installs debian/control's Build-Depends and nothing else,
# and they are enough to build the package.  A minimal Debian 12
# (mmdebstrap --variant=minbase bookworm, made once and kept as the podman
# image hsmbench-builddeps-base:bookworm) runs, as root in a container,
# ci/build-deps.sh and then make deb on a copy of the tracked files.  Checks:
# the packages newly marked as installed by hand are exactly the
# Build-Depends (debhelper for debhelper-compat) and build-essential; none
# of the test suite's tools came with them; dpkg-checkbuilddeps is then
# satisfied; make deb builds the package there.
# Needs root, podman (root podman here runs with --runtime runc
# --cgroup-manager cgroupfs and /etc/containers/containers.conf's
# "[containers] default_ulimits = []"), mmdebstrap and the Debian archive;
# says SKIP with the reason without them.  Prints PASS/FAIL/SKIP lines and
# "N passed, N failed, N skipped"; non-zero when anything failed.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-build}
case $build in /*) ;; *) build="$top/$build" ;; esac
image=${HSMBENCH_BUILDDEPS_IMAGE:-localhost/hsmbench-builddeps-base:bookworm}
passed=0 failed=0 skipped=0
pass() { echo "PASS $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1: $2"; failed=$((failed + 1)); }
skip() { echo "SKIP $1: $2"; skipped=$((skipped + 1)); }
finish() {
    echo
    echo "$passed passed, $failed failed, $skipped skipped"
    [ "$failed" -eq 0 ]
    exit $?
}
what="make deb on a fresh Debian 12"
[ "$(id -u)" -eq 0 ] || { skip "$what" "not root (root podman)"; finish; }
for tool in podman mmdebstrap git; do
    command -v "$tool" >/dev/null 2>&1 || { skip "$what" "no $tool (Debian package $tool)"; finish; }
done
W="$build/fresh-build-deps"
rm -rf "$W" && mkdir -p "$W/src" "$W/out" || { fail "$what" "cannot make $W"; finish; }
PODMAN="podman --runtime runc --cgroup-manager cgroupfs"

# ---- the base image, made once ---------------------------------------------------------
if ! $PODMAN image exists "$image"; then
    if ! mmdebstrap --variant=minbase bookworm "$W/base.tar" >"$W/mmdebstrap.log" 2>&1; then
        skip "$what" "mmdebstrap could not make a Debian 12 base: $(tail -n 2 "$W/mmdebstrap.log" | tr '\n' ' ')"
        finish
    fi
    $PODMAN import "$W/base.tar" "$image" >/dev/null 2>"$W/import.err" ||
        { fail "podman import of the Debian 12 base" "$(tr '\n' ' ' <"$W/import.err")"; finish; }
    rm -f "$W/base.tar"
fi

# ---- in the container: build-deps, then make deb ----------------------------------
git -C "$top" ls-files -z | (cd "$top" && xargs -0 tar -cf -) | tar -C "$W/src" -xf - ||
    { fail "$what" "cannot copy the tracked files"; finish; }
cat >"$W/in.sh" <<'EOF'
set -u
cp -a /src /tmp/src && cd /tmp/src || exit 1
apt-mark showmanual | sort >/out/manual-before
dpkg-query -W -f='${Package}\n' | sort >/out/before
sh ci/build-deps.sh >/out/build-deps.log 2>&1
echo $? >/out/build-deps.rc
apt-mark showmanual | sort >/out/manual-after
dpkg-query -W -f='${Package}\n' | sort >/out/after
dpkg-checkbuilddeps >/out/checkbuilddeps.log 2>&1
echo $? >/out/checkbuilddeps.rc
make deb >/out/deb.log 2>&1
echo $? >/out/deb.rc
ls build/*.deb >/out/debs 2>/dev/null
EOF
if ! timeout 1800 $PODMAN run --rm --network host -v "$W/src:/src:ro" -v "$W/out:/out" -v "$W/in.sh:/in.sh:ro" \
        "$image" sh /in.sh >"$W/podman.log" 2>&1; then
    if [ ! -f "$W/out/build-deps.rc" ]; then
        skip "$what" "the container did not run: $(tail -n 3 "$W/podman.log" | tr '\n' ' ')"
        finish
    fi
fi
O="$W/out"
if [ "$(cat "$O/build-deps.rc" 2>/dev/null)" = 0 ]; then
    pass "ci/build-deps.sh on a fresh Debian 12 ($(comm -13 "$O/before" "$O/after" | wc -l) packages installed)"
else
    fail "ci/build-deps.sh on a fresh Debian 12" "$(tail -n 3 "$O/build-deps.log" | tr '\n' ' ')"
fi
# Build-Depends (the first of alternatives) and build-essential.
. "$top/tests/deb/builddeps-lib.sh"
{ build_depends "$top/debian/control" | cut -d'|' -f1; echo build-essential; } | sort >"$W/want"
comm -13 "$O/manual-before" "$O/manual-after" >"$W/manual-new"
if cmp -s "$W/want" "$W/manual-new"; then
    pass "installed by hand: exactly the Build-Depends and build-essential ($(tr '\n' ' ' <"$W/want"))"
else
    fail "installed by hand: exactly the Build-Depends and build-essential" \
        "wanted: $(tr '\n' ' ' <"$W/want"); got: $(tr '\n' ' ' <"$W/manual-new")"
fi
extra=$(test_tools_in "$O/after")
if [ -z "$extra" ]; then pass "none of the test suite's tools installed (nginx, chromium, lintian, ...)"
else fail "none of the test suite's tools installed" "installed:$extra"; fi
if [ "$(cat "$O/checkbuilddeps.rc" 2>/dev/null)" = 0 ]; then pass "dpkg-checkbuilddeps is then satisfied"
else fail "dpkg-checkbuilddeps is then satisfied" "$(tr '\n' ' ' <"$O/checkbuilddeps.log")"; fi
if [ "$(cat "$O/deb.rc" 2>/dev/null)" = 0 ] && [ -s "$O/debs" ]; then
    pass "make deb builds $(basename "$(head -n 1 "$O/debs")") with nothing more"
else
    fail "make deb builds the package with nothing more" "$(tail -n 5 "$O/deb.log" 2>/dev/null | tr '\n' ' ')"
fi
finish
