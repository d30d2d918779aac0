#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_rest_http2.sh - --http2 against a real HTTP/2 server (nginx
# on the loopback, TLS with ALPN; hsmbench serve speaks HTTP/1.1 only): every
# request goes as HTTP/2, and the non-blocking engine's requests in flight
# share the thread's connection as streams instead of opening one each
# (nginx's access log names each request's protocol and connection).  Every
# run is bounded (--iterations, --duration 1), and so is nginx (timeout).
# tsan: yes (HTTP/2 streams of several transfers sharing one connection in the non-blocking engine)
# asan: yes (libcurl's HTTP/2 streams sharing one connection under the non-blocking engine, against nginx)
. "$TOP/tests/e2e/lib.sh"
REST_LIB_SOURCE=1 . "$TOP/tests/e2e/test_rest_lib.sh"

NGINX=$(command -v nginx 2>/dev/null || echo /usr/sbin/nginx)
if [ ! -x "$NGINX" ]; then
    skip "--http2 against nginx" "no nginx (ci/install-deps.sh installs it)"
    exit 0
fi
P="$T/pki"
if ! make_certs "$P"; then
    fail "test certificates" "$(tail -c 300 "$T/openssl.log")"
    exit 0
fi
export G_TOKEN="h2-token-$$"

# nginx on a free loopback port (a few tries: another process may take the
# port between the probe and nginx's bind), one process, its own files only.
N="$T/nginx"
mkdir -p "$N/tmp"
start_nginx() {
    H2PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    cat >"$N/nginx.conf" <<EOF
worker_processes 1;
master_process off;
daemon off;
pid $N/nginx.pid;
error_log $N/error.log warn;
events { worker_connections 1024; }
http {
    log_format proto '\$connection \$server_protocol \$status \$request_uri';
    access_log $N/access.log proto;
    # nginx ends a connection after 1000 requests by default (a GOAWAY in
    # HTTP/2): the connections counted below are the client's own choice.
    keepalive_requests 100000000;
    client_body_temp_path $N/tmp/body;
    proxy_temp_path $N/tmp/proxy;
    fastcgi_temp_path $N/tmp/fastcgi;
    uwsgi_temp_path $N/tmp/uwsgi;
    scgi_temp_path $N/tmp/scgi;
    server {
        listen 127.0.0.1:$H2PORT ssl http2;
        ssl_certificate $P/server.pem;
        ssl_certificate_key $P/server.key;
        location / {
            default_type application/json;
            return 200 '{"wrappedBlob":"QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVowMTIzNDU="}';
        }
    }
}
EOF
    timeout 120 "$NGINX" -p "$N" -c "$N/nginx.conf" >"$N/out" 2>&1 &
    NGINX_PID=$!
    i=0
    while [ $i -lt 50 ]; do
        python3 -c "import socket; socket.create_connection(('127.0.0.1', $H2PORT), 0.2)" 2>/dev/null &&
            return 0
        kill -0 "$NGINX_PID" 2>/dev/null || return 1
        sleep 0.1
        i=$((i + 1))
    done
    return 1
}
tries=0
until start_nginx; do
    kill "$NGINX_PID" 2>/dev/null
    wait "$NGINX_PID" 2>/dev/null
    tries=$((tries + 1))
    if [ $tries -ge 3 ]; then
        fail "nginx with HTTP/2 starts" "$(cat "$N/out" "$N/error.log" 2>/dev/null | head -c 300 | tr '\n' ' ')"
        exit 0
    fi
done
H2URL="https://127.0.0.1:$H2PORT"

# connections_and_protocols: of the access log's requests to /ekm/, how many
# connections they came on and which protocols, e.g. "16 HTTP/2.0"; then the
# log is emptied for the next case (nginx keeps writing to the same file).
connections_and_protocols() {
    awk '$4 ~ /^\/ekm\// { c[$1] = 1; p[$2] = 1 }
         END { n = 0; for (k in c) n++; s = ""; for (k in p) s = s " " k; print n s }' "$N/access.log"
    : >"$N/access.log"
}

# ---- non-blocking: the slots' requests are streams on one connection --------
run "$HSMBENCH" rest ekm --endpoint "$H2URL/ekm/k1" --op wrap --cacert "$P/ca.pem" \
    --token-env G_TOKEN --http2 --mode nonblocking --threads 1 --inflight 16 --duration 1 \
    --json "$T/h2nb.json"
check "--http2 --mode nonblocking --inflight 16 against nginx: exit 0" 0 '^OPERATIONS/second'
json_check "--http2 non-blocking: curl multi, every request a success" "$T/h2nb.json" \
    'runs[0]["settings"]["engine"] == "curl multi" and runs[0]["errors"] == 0 and runs[0]["ops"] >= 100'
got=$(connections_and_protocols)
# One connection for the thread's 16 streams, one more at most for the
# client's set-up request (made before the slots start); 16 streams are well
# under nginx's limit of 128 on a connection.
set -- $got
if [ "${2:-}" = HTTP/2.0 ] && [ $# -eq 2 ] && [ "$1" -ge 1 ] && [ "$1" -le 2 ]; then
    pass "--http2 non-blocking: 16 requests in flight as HTTP/2 streams over $1 connection(s)"
else
    fail "--http2 non-blocking: 16 requests in flight as HTTP/2 streams over at most 2 connections" \
        "connections and protocols seen by nginx: $got"
fi

# ---- blocking workers: HTTP/2 too, a connection a worker ----------------------
run "$HSMBENCH" rest ekm --endpoint "$H2URL/ekm/k1" --op wrap --cacert "$P/ca.pem" \
    --token-env G_TOKEN --http2 --threads 2 --iterations 100 --json "$T/h2b.json"
check "--http2 blocking, 2 threads against nginx: exit 0" 0 '^ +status\.+: ok'
json_check "--http2 blocking: every request a success" "$T/h2b.json" \
    'runs[0]["errors"] == 0 and runs[0]["ops"] == 100'
got=$(connections_and_protocols)
set -- $got
if [ "${2:-}" = HTTP/2.0 ] && [ $# -eq 2 ] && [ "$1" -le 3 ]; then
    pass "--http2 blocking: every request HTTP/2, $1 connection(s) for 2 workers"
else
    fail "--http2 blocking: every request HTTP/2, a connection a worker" "connections and protocols seen by nginx: $got"
fi

# ---- without --http2: HTTP/1.1 on the same server (ALPN offers it) -----------
run "$HSMBENCH" rest ekm --endpoint "$H2URL/ekm/k1" --op wrap --cacert "$P/ca.pem" \
    --token-env G_TOKEN --mode nonblocking --threads 1 --inflight 4 --duration 1
check "no --http2 against the same server: exit 0 (the lean engine, HTTP/1.1)" 0 '^OPERATIONS/second'
got=$(connections_and_protocols)
set -- $got
if [ "${2:-}" = HTTP/1.1 ] && [ $# -eq 2 ]; then pass "no --http2: every request HTTP/1.1"
else fail "no --http2: every request HTTP/1.1" "connections and protocols seen by nginx: $got"; fi

kill "$NGINX_PID" 2>/dev/null
wait "$NGINX_PID" 2>/dev/null
exit 0
