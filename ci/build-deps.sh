#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# ci/build-deps.sh - install what "make deb" needs and nothing else: the
# Build-Depends of debian/control (and build-essential, which Debian policy
# makes an implicit build dependency of every package), with apt-get
# build-dep on the source tree, so the list lives in one place.  The
# test-only tools of ci/install-deps.sh (nginx, chromium, valgrind, ...) are
# not wanted to build the package.
#
#   ci/build-deps.sh                     install what is missing (nothing when
#                                        dpkg-checkbuilddeps is satisfied)
#   ci/build-deps.sh --simulate [OPT...] print, one a line, the packages it
#                                        would install (apt-get -s, no root
#                                        needed); OPT are apt-get options, as
#                                        -o Dir::State::status=FILE
# Exit status: 0 done, 1 apt-get failed or no way to become root.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

if [ "${1:-}" = --simulate ]; then
    shift
    # "Inst NAME (VERSION ...)" for each package apt would unpack.
    out=$(apt-get -s --no-install-recommends "$@" build-dep ./) || exit 1
    printf '%s\n' "$out" | sed -n 's/^Inst \([^ ]*\) .*/\1/p'
    exit 0
fi

# Satisfied already: nothing to ask of apt (and no root needed).
if command -v dpkg-checkbuilddeps >/dev/null 2>&1 && dpkg-checkbuilddeps >/dev/null 2>&1 &&
    dpkg-query -W -f='${Status}' build-essential 2>/dev/null | grep -q "install ok installed"; then
    exit 0
fi

. "$top/ci/apt.sh"
ci_sudo ci/build-deps.sh " the Build-Depends of debian/control (apt-get build-dep ./)" || exit 1
echo "ci/build-deps.sh: installing debian/control's Build-Depends (apt-get build-dep ./)"
$SUDO apt-get update -qq
$SUDO apt-get build-dep -y -qq --no-install-recommends ./
