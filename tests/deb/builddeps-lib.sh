# SPDX-License-Identifier: Apache-2.0
# tests/deb/builddeps-lib.sh - sourced by tests/e2e/test_builddeps.sh and
# tests/deb/fresh-build-deps.sh: what "make deb" should install, and what it
# should not.

# build_depends CONTROL: debian/control's Build-Depends, one a line, each
# line its alternatives ("pkgconf|pkg-config"); debhelper-compat, a virtual
# package, as debhelper, which provides it.
build_depends() {
    python3 - "$1" <<'PY'
import re, sys
text = open(sys.argv[1]).read().split("\n\n")[0]
m = re.search(r"^Build-Depends:(.*(?:\n[ \t].*)*)", text, re.M)
for dep in m.group(1).replace("\n", " ").split(","):
    alts = [re.sub(r"[\s(\[<].*", "", a.strip()) for a in dep.split("|")]
    alts = ["debhelper" if a == "debhelper-compat" else a for a in alts]
    if alts[0]:
        print("|".join(alts))
PY
}

# test_tools_in LIST: the test suite's tools (ci/install-deps.sh's, which no
# build needs) that the file LIST (package names, one a line) names.
test_tools_in() {
    for p in nginx chromium prometheus valgrind wrk clang softhsm2 lintian tmux opensc apache2-utils \
             python3-jsonschema python3-yaml gnutls-bin; do
        grep -qx "$p" "$1" && printf ' %s' "$p"
    done
    return 0
}
