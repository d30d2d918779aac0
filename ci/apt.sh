# SPDX-License-Identifier: Apache-2.0
# ci/apt.sh - sourced by ci/install-deps.sh and ci/build-deps.sh: how to run
# apt-get here.  ci_sudo NAME WHAT sets SUDO to "" as root, "sudo" when there
# is one, else says "NAME: not root and no sudo; please install: WHAT" and
# returns 1.
ci_sudo() {
    if [ "$(id -u)" -eq 0 ]; then
        SUDO=""
    elif command -v sudo >/dev/null 2>&1; then
        SUDO="sudo"
    else
        echo "$1: not root and no sudo; please install:$2" >&2
        return 1
    fi
    export DEBIAN_FRONTEND=noninteractive
}
