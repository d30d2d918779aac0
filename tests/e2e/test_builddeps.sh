#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_builddeps.sh - "make deb" installs debian/control's
# Build-Depends and nothing else (ci/build-deps.sh, apt-get build-dep ./):
# its recipe calls that script, not ci/install-deps.sh (the test suite's 35
# packages); on a fresh system (apt simulated with an empty dpkg status, no
# root needed) the script would install every Build-Depends and
# build-essential and none of the test-only tools; here, where all of them
# are installed, it installs nothing.
# Plain build only: nothing here depends on how the binary was compiled.
# early: no check depends on the cores it gets (debian/control and an apt simulation)
. "$TOP/tests/e2e/lib.sh"
[ "$VARIANT" = plain ] || exit 0

# ---- make deb's recipe -----------------------------------------------------------
make -C "$TOP" --no-print-directory -n deb >"$T/recipe" 2>&1
if grep -q 'ci/build-deps\.sh' "$T/recipe" && ! grep -q 'install-deps' "$T/recipe"; then
    pass "make deb runs ci/build-deps.sh, not ci/install-deps.sh"
else
    fail "make deb runs ci/build-deps.sh, not ci/install-deps.sh" "$(grep -E 'deps' "$T/recipe" | tr '\n' ' ')"
fi

# ---- what it would install on a fresh system ---------------------------------------
. "$TOP/tests/deb/builddeps-lib.sh"
build_depends "$TOP/debian/control" >"$T/bdeps"
if ! command -v apt-get >/dev/null 2>&1 || ! apt-cache show libjansson-dev >/dev/null 2>&1; then
    skip "ci/build-deps.sh --simulate on a fresh system" "apt-get has no package lists here (apt-get update)"
else
    : >"$T/empty-status"
    if sh "$TOP/ci/build-deps.sh" --simulate -o Dir::State::status="$T/empty-status" >"$T/would" 2>"$T/would.err"; then
        n=$(wc -l <"$T/would")
        miss=
        while IFS= read -r alts; do
            found=
            for a in $(echo "$alts" | tr '|' ' '); do grep -qx "$a" "$T/would" && found=1; done
            [ -n "$found" ] || miss="$miss $alts"
        done <"$T/bdeps"
        grep -qx build-essential "$T/would" || miss="$miss build-essential"
        if [ -z "$miss" ]; then pass "on a fresh system: every Build-Depends and build-essential ($n packages in all)"
        else fail "on a fresh system: every Build-Depends and build-essential" "not installed:$miss"; fi
        extra=$(test_tools_in "$T/would")
        if [ -z "$extra" ]; then pass "on a fresh system: none of the test suite's tools (nginx, chromium, lintian, ...)"
        else fail "on a fresh system: none of the test suite's tools" "would install:$extra"; fi
    else
        fail "ci/build-deps.sh --simulate on a fresh system" "$(tail -c 300 "$T/would.err" | tr '\n' ' ')"
    fi
fi

# ---- here, everything is installed: nothing to do ----------------------------------
if command -v dpkg-checkbuilddeps >/dev/null 2>&1 && (cd "$TOP" && dpkg-checkbuilddeps) >/dev/null 2>&1; then
    run sh "$TOP/ci/build-deps.sh"
    if [ "$rc" -eq 0 ] && [ ! -s "$T/out" ] && [ ! -s "$T/err" ]; then
        pass "Build-Depends satisfied: ci/build-deps.sh installs nothing and says nothing"
    else
        fail "Build-Depends satisfied: ci/build-deps.sh installs nothing" "exit $rc: $(head -c 200 "$T/out" "$T/err" | tr '\n' ' ')"
    fi
fi
