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
    # "could you also include what VM instance type you used": the results say
    # the CPU's model (and the firmware's product name: EC2's instance type).
    run "$HSMBENCH" rest http --url "$URL/hello" --insecure --iterations 5 --quiet --json "$T/host.json"
    check "seed 004: a run with --json: exit 0" 0
    if grep -q '^model name' /proc/cpuinfo; then
        json_check "seed 004: environment.host.cpu_model is /proc/cpuinfo's model name" "$T/host.json" \
            "doc['environment']['host'].get('cpu_model') == [l.split(':', 1)[1].strip() for l in open('/proc/cpuinfo') if l.startswith('model name')][0]"
    fi
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

# ---- seed 001: SDKMS_SSL_TRUST_STORE, a Java bench's Java keystore -------------------------
# "[Optional] SDKMS_SSL_TRUST_STORE= ... needed only for on-premises
# deployments": the bench is Java, its trust store a JKS (or JCEKS) file.
# Java reads a trust store's trusted certificates without its password (the
# digest is checked only with one); so does hsmbench.  The stores are made
# here in keytool's layout (a test needs no Java).
jks() {
    python3 - "$@" <<'PY'
import base64, hashlib, re, struct, sys
out, mode, pems = sys.argv[1], sys.argv[2], sys.argv[3:]
def utf(s): b = s.encode(); return struct.pack(">H", len(b)) + b
def der(p): return base64.b64decode("".join(re.search(r"-----BEGIN CERTIFICATE-----(.*?)-----END", open(p).read(), re.S).group(1).split()))
head = lambda tag, alias: struct.pack(">I", tag) + utf(alias) + struct.pack(">Q", 1733500000000)
ents = []
if mode == "keyfirst":   # a PrivateKeyEntry (its key bytes and chain are stepped over)
    c = der(pems[0])
    ents.append(head(1, "key") + struct.pack(">I", 9) + b"sealedkey" + struct.pack(">I", 1) + utf("X.509") + struct.pack(">I", len(c)) + c)
if mode == "secret":     # a JCEKS SecretKeyEntry: a serialised Java object
    ents.append(head(3, "aes") + b"\xac\xed\x00\x05sr\x00\x19javax.crypto.SealedObject")
for i, p in enumerate(pems):
    c = der(p)
    ents.append(head(2, "ca%d" % i) + utf("X.509") + struct.pack(">I", len(c)) + c)
magic = 0xCECECECE if mode == "secret" else 0xFEEDFEED
body = struct.pack(">III", magic, 2, len(ents)) + b"".join(ents)
body += hashlib.sha1("changeit".encode("utf-16-be") + b"Mighty Aphrodite" + body).digest()
open(out, "wb").write(body[:-60] if mode == "cut" else body)
PY
}
P1="$T/pki1"
mkdir -p "$T/tmp"
if make_certs "$P1"; then
    export SDKMS_API_KEY SERVER_API_KEY
    SDKMS_API_KEY=$(printf 'mig3-app:mig3-secret-%s' "$$" | base64)
    SERVER_API_KEY=$SDKMS_API_KEY
    if start_serve sdkms --tls-cert "$P1/server.pem" --tls-key "$P1/server.key" --api-key-env SERVER_API_KEY; then
        jks "$T/trust.jks" plain "$P1/rogue-ca.pem" "$P1/ca.pem"
        jks "$T/key.jks" keyfirst "$P1/ca.pem"
        jks "$T/secret.jceks" secret "$P1/ca.pem"
        jks "$T/cut.jks" cut "$P1/ca.pem"
        jks "$T/rogue.jks" plain "$P1/rogue-ca.pem"
        sdkms() {
            store=$1
            shift
            run env TMPDIR="$T/tmp" SDKMS_API_ENDPOINT="$URL" SDKMS_SSL_TRUST_STORE="$store" "$HSMBENCH" rest sdkms \
                --op keygen --iterations 5 "$@"
        }
        for e in lean libcurl; do
            sdkms "$T/trust.jks" --engine $e
            check "a JKS trust store (two trusted CAs), --engine $e: the CA trusted, exit 0" 0 '^ +status\.+: ok$' \
                "^hsmbench: SDKMS_SSL_TRUST_STORE .*trust\.jks: its CAs are trusted \(a JKS store"
        done
        sdkms "$T/key.jks"
        check "a JKS with a private key's entry before the CA: the key stepped over, exit 0" 0 '^ +status\.+: ok$'
        sdkms "$T/rogue.jks"
        check "a JKS whose CA did not sign the server: refused, exit 3" 3 '' 'SDKMS_SSL_TRUST_STORE'
        sdkms "$T/secret.jceks"
        check_one_line_error "a JCEKS store with a secret key: exit 2, one line, keytool's conversion" 2 \
            "^hsmbench: error: SDKMS_SSL_TRUST_STORE .*secret\.jceks: a Java keystore \(JCEKS\) hsmbench cannot read \(entry 1 of 2: a secret key.*keytool -importkeystore"
        sdkms "$T/cut.jks"
        check_one_line_error "a JKS cut short: exit 2, one line" 2 \
            "^hsmbench: error: SDKMS_SSL_TRUST_STORE .*cut\.jks: a Java keystore \(JKS\) hsmbench cannot read \(entry 1 of 1: cut short\)"
        if [ -z "$(ls -A "$T/tmp")" ]; then pass "the Java stores' PEM copies are removed at the end"
        else fail "the Java stores' PEM copies are removed at the end" "left: $(ls "$T/tmp")"; fi
        no_secret "SDKMS runs: the API key appears in no output" "$SDKMS_API_KEY" "$T/out" "$T/err"
    fi
fi

rest_stop_all
SERVERS=""
