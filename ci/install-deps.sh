#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# ci/install-deps.sh - install what hsmbench needs to build, test and demo,
# from Debian's archive.  Installs only what is missing; safe to re-run.
# As root it uses apt-get directly, otherwise sudo when there is one.
set -eu

# build: compiler, pkg-config and the libraries (p11-kit, OpenSSL, libcurl, jansson, and
#        http_parser, the lean HTTP/1.1 engine's response parser);
#        clang and its runtimes for the libFuzzer harnesses (make fuzz, make check)
# run/test: SoftHSMv2 (the demo and test token), opensc (pkcs11-tool), python3 (JSON checks),
#           gnutls-bin (p11tool: an application of another family the call recorder records),
#           p11-kit-modules (p11-kit-trust, a module with no mechanism: test_json's skipped run),
#           tmux (terminal tests), libmicrohttpd + GnuTLS (the REST emulator and its mTLS),
#           openssl (test certificates), nginx, wrk, apache2-utils (ab), valgrind (callgrind's
#           instructions per request) (tests/bench/rest-bench.sh)
#           chromium and a font (the HTML report opened in a headless browser), groff and
#           man-db (manual page checks), prometheus (promtool checks --metrics-listen's output and
#           the dashboard's queries; a real Prometheus scrapes a local fleet: test_fleet),
#           prometheus-pushgateway (--metrics-push pushes to it, Prometheus scrapes it: test_metrics_push),
#           python3-yaml, python3-jsonschema (the Kubernetes manifests checked offline: test_fleet),
#           curl (the command --token-cmd runs in test_token_cmd, as a user's would fetch a token)
# package:  debhelper, dpkg-dev, lintian (make check-deb; make deb itself installs only
#           debian/control's Build-Depends: ci/build-deps.sh)
# fleet:    podman, runc, mmdebstrap (make check-fleet: the image on a Debian 12 base, its pods)
# fuzzing:  clang, libclang-rt-14-dev (libFuzzer, make fuzz and make check's short runs)
# Every test that needs one of these says SKIP without it, and under CI
# (CI=true) a skip fails make check: this list is what CI needs to skip nothing.
PKGS="gcc clang libclang-rt-14-dev make pkg-config libp11-kit-dev p11-kit libssl-dev libcurl4-openssl-dev libjansson-dev libhttp-parser-dev
libmicrohttpd-dev libgnutls28-dev softhsm2 opensc gnutls-bin python3 p11-kit-modules tmux procps openssl nginx wrk apache2-utils valgrind
chromium fonts-dejavu-core groff-base man-db prometheus prometheus-pushgateway python3-yaml python3-jsonschema curl debhelper dpkg-dev lintian
podman runc mmdebstrap"

missing=""
for p in $PKGS; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done
[ -z "$missing" ] && exit 0

echo "ci/install-deps.sh: installing:$missing"
. "$(dirname "$0")/apt.sh"
ci_sudo ci/install-deps.sh "$missing" || exit 1
# Packages such as nginx start their service on install, listening on every
# address.  The tests start their own servers on loopback; keep the
# package's from starting (policy-rc.d, the Debian way), unless the machine
# already has a policy of its own.
policy=""
if [ ! -e /usr/sbin/policy-rc.d ]; then
    policy=/usr/sbin/policy-rc.d
    printf '#!/bin/sh\nexit 101\n' | $SUDO tee "$policy" >/dev/null
    $SUDO chmod 755 "$policy"
fi
rc=0
$SUDO apt-get update -qq || rc=$?
# shellcheck disable=SC2086
[ $rc -ne 0 ] || $SUDO apt-get install -y -qq --no-install-recommends $missing || rc=$?
[ -z "$policy" ] || $SUDO rm -f "$policy"
exit $rc
