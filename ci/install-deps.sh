#!/bin/sh
# ci/install-deps.sh - install what hsmbench needs to build, test and demo,
# from Debian's archive.  Installs only what is missing; safe to re-run.
# As root it uses apt-get directly, otherwise sudo when there is one.
set -eu

# build: compiler, pkg-config and the four libraries (p11-kit, OpenSSL, libcurl, jansson)
# run/test: SoftHSMv2 (the demo and test token), opensc (pkcs11-tool), python3 (JSON checks),
#           tmux (terminal tests), libmicrohttpd (the REST emulator)
PKGS="gcc make pkg-config libp11-kit-dev p11-kit libssl-dev libcurl4-openssl-dev libjansson-dev
libmicrohttpd-dev softhsm2 opensc python3 tmux procps"

missing=""
for p in $PKGS; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done
[ -z "$missing" ] && exit 0

echo "ci/install-deps.sh: installing:$missing"
if [ "$(id -u)" -eq 0 ]; then
    SUDO=""
elif command -v sudo >/dev/null 2>&1; then
    SUDO="sudo"
else
    echo "ci/install-deps.sh: not root and no sudo; please install:$missing" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing
