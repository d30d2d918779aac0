#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_migrating3.sh - issue 39's closing replay: docs/migrating.md's
# translations of the seeds' command lines run as the page writes them, the
# seed's host, port and files swapped for the test's: JMeter's against the
# PR's self-signed server (seed 004), OPA's TLS tests one to four and their
# comparison (seed 003), the EKM package's .env sourced (seed 000); and the
# SDKMS bench's Java trust store read as Java reads it (seed 001).
# asan: yes (a Java keystore parsed from its bytes: whole, cut short, with key entries)
. "$TOP/tests/e2e/lib.sh"
REST_LIB_SOURCE=1 . "$TOP/tests/e2e/test_rest_lib.sh"
trap 'rest_stop_all; rm -rf "$T"' EXIT

DOC="$TOP/docs/migrating.md"
# doc_cmd ERE: the first command of docs/migrating.md's indented blocks that
# matches ERE, its continuation lines joined.
doc_cmd() {
    awk -v pat="$1" '
        /^    / { l = $0; sub(/^ +/, "", l); c = sub(/ *\\$/, "", l); s = s (s ? " " : "") l
                  if (!c) { if (s ~ pat) { print s; exit }; s = "" }; next }
        { s = "" }
    ' "$DOC"
}
# doc_run NAME CMD: runs the documented CMD in $T (its files land there);
# "hsmbench" is the binary under test.
doc_run() {
    if [ -z "$2" ]; then
        fail "$1" "docs/migrating.md has no such command"
        : >"$T/out"; : >"$T/err"; rc=255
        return
    fi
    printf '%s\n' "$2" >"$T/doc.cmd"
    run sh -c "cd '$T' && HSMBENCH='$HSMBENCH'; hsmbench() { \"\$HSMBENCH\" \"\$@\"; }; $2"
}

# ---- seed 004: JMeter against the PR's self-signed https://localhost:8082/hello ----------
# "a simple GO server that works using a self signed SSL certificate";
# JMeter's HTTP sampler trusts any certificate, hsmbench verifies.
S="$T/self"
mkdir -p "$S"
if openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$S/key.pem" \
    -out "$S/cert.pem" -days 2 -subj /CN=localhost -addext subjectAltName=DNS:localhost,IP:127.0.0.1 \
    >"$T/openssl.log" 2>&1 && start_serve self --tls-cert "$S/cert.pem" --tls-key "$S/key.pem"; then
    cmd=$(doc_cmd '^hsmbench rest http -n --url https://localhost:8082/hello ')
    doc_run "seed 004: docs/migrating.md's JMeter line" \
        "$(printf '%s' "$cmd" | sed "s|https://localhost:8082|$URL|; s|--iterations 12000|--iterations 200|")"
    check "seed 004: the page's JMeter line, against a self-signed server: exit 0" 0 \
        '^summary = +200 in [0-9:]+ = .* Err: +0 \(0\.00%\)$' '--insecure'
    file_has "seed 004: its CSV written, 200 requests" "$T/results.csv" '^http-get,4,[0-9.]+,200,'
    stop_serve self
fi

# ---- seed 003: OPA's four TLS tests, and the differences they were run for ---------------
# "k6 run --no-vu-connection-reuse --no-connection-reuse --duration 5s": no
# TLS; TLS under certstrap's CA (out/CertAuth.crt); mutual TLS with
# out/client.crt and out/client.key; then the figures side by side.
if make_certs "$T/pki" && start_serve opa --tls-cert "$T/pki/server.pem" --tls-key "$T/pki/server.key" \
    --client-ca "$T/pki/ca.pem" --client-cert-optional --plain-listen 127.0.0.1:0; then
    PLAIN=$(sed -n 's/^hsmbench serve: plain HTTP on \([^ ]*\).*/\1/p' "$T/opa.out")
    opa() {
        printf '%s' "$1" | sed "s|http://localhost:8181/v1/data|$PLAIN/hello|; s|https://localhost:8181/v1/data|$URL/hello|;
            s|out/CertAuth.crt|$T/pki/ca.pem|; s|out/client.crt|$T/pki/client.pem|; s|out/client.key|$T/pki/client.key|;
            s|--duration 5s|--iterations 20|"
    }
    for f in plain tls mtls; do
        doc_run "seed 003: docs/migrating.md's OPA $f line" "$(opa "$(doc_cmd "^hsmbench rest http --url .*--json $f.json")")"
        check "seed 003: the page's OPA line for $f.json: exit 0" 0 '^running \([0-9.]+s\), 0/1 VUs, 20 complete'
    done
    json_check "seed 003: test 1 plain, test 2 TLS verified under the CA, tests 3-4 mutual TLS" "$T/plain.json" \
        'doc["environment"]["endpoint"]["scheme"] == "http" and runs[0]["ops"] == 20'
    json_check "seed 003: tls.json verified the server under the CA, no client certificate" "$T/tls.json" \
        '(lambda t: t["verify"] and t["custom_ca"] and not t["client_cert"])(doc["environment"]["endpoint"]["tls"]) and runs[0]["ops"] == 20'
    json_check "seed 003: mtls.json sent the client certificate" "$T/mtls.json" \
        'doc["environment"]["endpoint"]["tls"]["client_cert"] and runs[0]["ops"] == 20'
    doc_run "seed 003: docs/migrating.md's comparison" "$(doc_cmd '^hsmbench compare plain.json ')"
    check "seed 003: the page's compare of the three: exit 0, the TLS handshake's share named" 0 \
        'http tls_handshaking +from 0'
fi

# ---- seed 000: the set-up's .env, sourced --------------------------------------------------
# "Above command would generate Google token and EKM endpoint URL as below
# environment variables: G_TOKEN ENDPOINT_URL ... source .env"; k6 got them
# through -e.  A .env of plain assignments, as a set-up script writes one.
export EKM_SERVER_TOKEN="env-$$-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
if start_serve ekm --ekm-token-env EKM_SERVER_TOKEN; then
    printf 'G_TOKEN=%s\nENDPOINT_URL=%s/ekm/k1\n' "$EKM_SERVER_TOKEN" "$URL" >"$T/.env"
    src=$(grep -o 'set -a; \. \./\.env; set +a' "$DOC" | head -n 1)
    run env -u G_TOKEN -u ENDPOINT_URL sh -c "cd '$T' && . ./.env && \"\$0\" rest ekm --iterations 5" "$HSMBENCH"
    check "seed 000: '. ./.env' alone: the variables are the shell's, not hsmbench's: exit 2" 2 '' 'ENDPOINT_URL'
    if [ -n "$src" ]; then
        run env -u G_TOKEN -u ENDPOINT_URL sh -c "cd '$T' && $src && \"\$0\" rest ekm --iterations 5" "$HSMBENCH"
        check "seed 000: docs/migrating.md's '$src': rest ekm reads them, exit 0" 0 '^ +status\.+: ok$'
        no_secret "seed 000: the token from .env is in no output" "$EKM_SERVER_TOKEN" "$T/out" "$T/err"
    else
        fail "seed 000: docs/migrating.md says how to export .env" "no 'set -a; . ./.env; set +a'"
    fi
fi

rest_stop_all
SERVERS=""
