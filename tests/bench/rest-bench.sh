#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/bench/rest-bench.sh [BUILD] - how fast the REST client itself is.
#
# A private nginx on 127.0.0.1 answers every POST with a fixed EKM wrap
# response ({"wrappedBlob": ...}, which hsmbench's answer check accepts), so
# the server costs next to nothing and what is measured is the client:
#
#   1. keep-alive HTTP/1.1 at 1, 16, 64, 256 and 1024 connections
#      (REST_BENCH_CONNS; empty leaves them out): hsmbench rest ekm --op wrap beside the minimal
#      libcurl loop and wrk with a Lua script sending the same request.
#      Goals: hsmbench >= 0.95x the libcurl loop up to 256 connections; at
#      1024, >= 0.9x hsmbench's own rate at 64 (it must not fall with the
#      number of transfers a thread carries).
#   2. keep-alive HTTPS at 1, 64, 256 and 1024 connections
#      (REST_BENCH_TLS_KA_CONNS; an empty value leaves them out) beside the
#      loop and wrk over the same TLS connections.  Goal: >= 0.95x the loop.
#   3. a new connection and a full TLS handshake for every request at 1 and
#      16 connections (REST_BENCH_TLS_CONNS; hsmbench --no-connection-reuse;
#      nginx with no session cache or tickets) beside ab without -k.
#      Goal: hsmbench >= ab.
#   4. the lean HTTP/1.1 engine (--engine lean: one blocking thread at one
#      connection, else its epoll loop, --mode nonblocking --inflight C on
#      2 threads) keep-alive at 1, 64, 256 and 1024 connections
#      (REST_BENCH_LEAN_CONNS), plain and over TLS (REST_BENCH_LEAN_TLS_CONNS,
#      the same by default), beside the same loop and wrk.  Goals: >= 0.90x
#      wrk plain, >= 0.85x over TLS, and at 1024 connections >= 0.90x its
#      own rate at 64 and at most wrk's CPU time a request, plain and TLS
#      (a line each: cpu-us over oth-us).
#   5. HTTP/2 over TLS (REST_BENCH_H2_CONNS requests in flight, default 64
#      and 256): hsmbench --http2 (libcurl multi, the requests as streams
#      over a connection a thread) beside HTTP/1.1 over TLS with as many
#      connections (lean and libcurl), each with its own CPU time and
#      nginx's (its worker's /proc stat) per request: what HTTP/2 saves the
#      server, and what it costs the client.
#   6. instructions per request under callgrind, hsmbench against the loop
#      for REST_BENCH_CALLGRIND_SECONDS (default 8; REST_BENCH_CALLGRIND=0
#      leaves it out): the ratio the noise of a shared machine does not move.
#
# One connection is one blocking thread; more are hsmbench's non-blocking
# engine, --mode nonblocking --inflight C on 2 threads (curl multi handles:
# rows 1-3 force --engine libcurl),
# as wrk runs C connections on 2 threads.  Each row also runs the minimal
# libcurl loop (tests/bench/curlloop.c: the same request, the same libcurl,
# nothing else): hsmbench / that loop is hsmbench's own cost, and
# that loop / wrk is libcurl's.
#
# Each measurement runs REST_BENCH_SECONDS (default 5) seconds, and each row
# REST_BENCH_ROUNDS times (default 1), the tools taking turns to go first,
# medians shown; the figures are requests per second on this machine, the
# ratios are what to compare.  /libcurl and /other are the median of each
# round's own ratio: within a round the tools run back to back, so a change
# in what else loads the machine between rounds moves both sides of it.
# cpu-us is hsmbench's CPU time per successful request, oth-us wrk's or
# ab's (its children's rusage over the requests it counted).
# nginx is started here with its own configuration in a temporary directory
# and stopped (by its PID) at the end; nothing else is touched.
set -eu
BUILD=${1:-build}
SECS=${REST_BENCH_SECONDS:-5}
ROUNDS=${REST_BENCH_ROUNDS:-1}
CONNS=${REST_BENCH_CONNS-"1 16 64 256 1024"}
TLS_CONNS=${REST_BENCH_TLS_CONNS-"1 16"}
TLS_KA_CONNS=${REST_BENCH_TLS_KA_CONNS-"1 64 256 1024"}
LEAN_CONNS=${REST_BENCH_LEAN_CONNS-"1 64 256 1024"}
LEAN_TLS_CONNS=${REST_BENCH_LEAN_TLS_CONNS-"1 64 256 1024"}
H2_CONNS=${REST_BENCH_H2_CONNS-"64 256"}
HSMBENCH="$BUILD/hsmbench"
for tool in nginx wrk ab openssl python3; do
    if ! command -v "$tool" >/dev/null 2>&1 && [ ! -x "/usr/sbin/$tool" ]; then
        echo "rest-bench: skipped: $tool is not installed (sh ci/install-deps.sh installs it)"
        exit 0
    fi
done
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
[ -x "$HSMBENCH" ] || { echo "rest-bench: $HSMBENCH not built (make)" >&2; exit 2; }
CURLLOOP="$BUILD/tests/curlloop"
[ -x "$CURLLOOP" ] || { echo "rest-bench: $CURLLOOP not built (make)" >&2; exit 2; }

D=$(mktemp -d "${TMPDIR:-/tmp}/hsmbench-rest-bench.XXXXXX")
NGINX_PID=""
cleanup() {
    if [ -n "$NGINX_PID" ]; then
        kill -TERM "$NGINX_PID" 2>/dev/null || true
        i=0
        while kill -0 "$NGINX_PID" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
        kill -KILL "$NGINX_PID" 2>/dev/null || true
    fi
    rm -rf "$D"
}
# Interrupted, the script stops too (a trap that only cleaned up went on
# benchmarking without its nginx); the EXIT trap cleans up once.
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}
PORT=$(free_port)
TLS_PORT=$(free_port)
H2_PORT=$(free_port)

# The answer: a 44-byte blob, as the emulator would wrap 32 bytes... in base64.
BLOB="$(head -c 60 /dev/urandom | base64 | tr -d '\n')"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$D/key.pem" \
    -out "$D/cert.pem" -days 1 -subj "/CN=127.0.0.1" -addext "subjectAltName=IP:127.0.0.1" \
    >/dev/null 2>&1
mkdir -p "$D/tmp"
cat >"$D/nginx.conf" <<EOF
worker_processes 1;
daemon off;
pid $D/nginx.pid;
error_log $D/error.log warn;
events { worker_connections 4096; }
http {
    access_log off;
    client_body_temp_path $D/tmp/body;
    proxy_temp_path $D/tmp/proxy;
    fastcgi_temp_path $D/tmp/fastcgi;
    uwsgi_temp_path $D/tmp/uwsgi;
    scgi_temp_path $D/tmp/scgi;
    keepalive_requests 100000000;
    keepalive_timeout 60s;
    server {
        listen 127.0.0.1:$PORT;
        listen 127.0.0.1:$TLS_PORT ssl;
        listen 127.0.0.1:$H2_PORT ssl http2;
        ssl_certificate $D/cert.pem;
        ssl_certificate_key $D/key.pem;
        ssl_session_cache off;
        ssl_session_tickets off;
        location / {
            default_type application/json;
            return 200 '{"wrappedBlob":"$BLOB"}';
        }
    }
}
EOF
"$NGINX" -p "$D" -c "$D/nginx.conf" >"$D/nginx.out" 2>&1 &
NGINX_PID=$!
i=0
until python3 -c "import socket,sys; socket.create_connection(('127.0.0.1', $PORT), 0.2)" 2>/dev/null; do
    i=$((i + 1))
    if [ $i -gt 50 ] || ! kill -0 "$NGINX_PID" 2>/dev/null; then
        echo "rest-bench: nginx did not start: $(cat "$D/nginx.out" "$D/error.log" 2>/dev/null | head -c 400)" >&2
        exit 1
    fi
    sleep 0.1
done

# The request hsmbench sends for --op wrap with --data-size 32, with its
# header lines (its User-Agent among them): the libcurl loop, wrk and ab send
# the same.
UA=$("$HSMBENCH" --version | sed 's/^hsmbench /hsmbench\//')
export REST_BENCH_TOKEN="bench-token"
BODY=$(printf '{"plaintext":"%s","additionalContext":{"accessReasonContext":{"reason":"CUSTOMER_INITIATED_ACCESS"}}}' \
    "$(head -c 32 /dev/urandom | base64 | tr -d '\n')")
printf '%s' "$BODY" >"$D/body.json"
cat >"$D/post.lua" <<EOF
wrk.method = "POST"
wrk.body = '$BODY'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json"
wrk.headers["Authorization"] = "Bearer bench-token"
wrk.headers["User-Agent"] = "$UA"
EOF

hsmbench_rate() {  # URL CONNECTIONS [extra]: libcurl; one blocking thread, or non-blocking on 2
    url=$1 n=$2
    shift 2
    if [ "$n" -eq 1 ]; then hs_measure "$url" --engine libcurl --threads 1 "$@"
    else hs_measure "$url" --engine libcurl --threads 2 --mode nonblocking --inflight "$n" "$@"; fi
}

lean_rate() {  # URL CONNECTIONS: the lean engine; one blocking thread, or its epoll loop on 2
    if [ "$2" -eq 1 ]; then hs_measure "$1" --engine lean --threads 1
    else hs_measure "$1" --engine lean --threads 2 --mode nonblocking --inflight "$2"; fi
}

# hs_measure URL FLAGS...: hsmbench rest ekm's successful requests per
# second; also writes its CPU time per successful request (us) to $D/hs.cpu.
hs_measure() {
    url=$1
    shift
    rm -f "$D/hs.cpu"
    "$HSMBENCH" rest ekm --endpoint "$url" --op wrap --insecure --token-env REST_BENCH_TOKEN \
        --duration "$SECS" --quiet --json "$D/r.json" "$@" >/dev/null 2>"$D/hs.err" ||
        { echo "rest-bench: hsmbench $* failed: $(head -c 300 "$D/hs.err")" >&2; echo 0; return 0; }
    python3 - "$D/r.json" "$D/hs.cpu" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["runs"][0]
ok = r["ops"]  # the successful operations (errors are counted apart)
if ok > 0 and "client_cpu" in r:
    # The client's CPU time (user + system) per successful request, in us:
    # client_cpu is the CPUs it kept busy while measuring.
    open(sys.argv[2], "w").write("%.2f\n" % (r["client_cpu"] * r["duration_s"] / ok * 1e6))
# Requests that failed would flatter the rate: count only successful ones.
print(round(ok / r["duration_s"], 1) if r["duration_s"] else 0)
PY
}

curl_rate() {  # URL CONNECTIONS [--no-connection-reuse]
    # Also writes the loop's CPU time per successful request (us) to $D/cl.cpu.
    url=$1 n=$2
    shift 2
    t=$([ "$n" -ge 2 ] && echo 2 || echo 1)
    rm -f "$D/cl.cpu"
    "$CURLLOOP" "$url:wrap" "$D/body.json" "$SECS" "$n" "$t" "$@" >"$D/cl.out" 2>&1 ||
        echo "rest-bench: the libcurl loop saw errors: $(head -c 200 "$D/cl.out")" >&2
    sed -n 's/^requests \([0-9]*\) .* cpu \([0-9.]*\)$/\1 \2/p' "$D/cl.out" |
        awk '$1 > 0 { printf "%.2f\n", $2 / $1 * 1e6 }' >"$D/cl.cpu"
    sed -n 's/.* rate \([0-9.]*\).*/\1/p' "$D/cl.out"
}

# with_cpu CMD...: run CMD and write the CPU time (user + system, seconds)
# it took to $D/ot.cpu_s, for the other tool's CPU time per request.
with_cpu() {
    python3 -c 'import resource, subprocess, sys
subprocess.run(sys.argv[2:])
r = resource.getrusage(resource.RUSAGE_CHILDREN)
open(sys.argv[1], "w").write("%.4f\n" % (r.ru_utime + r.ru_stime))' "$D/ot.cpu_s" "$@"
}

wrk_rate() {  # CONNECTIONS [URL]
    c=$1 u=${2:-http://127.0.0.1:$PORT/ekm/k1:wrap}
    t=$([ "$c" -ge 2 ] && echo 2 || echo 1)
    with_cpu wrk -t "$t" -c "$c" -d "${SECS}s" -s "$D/post.lua" "$u" >"$D/wrk.out" 2>&1 || true
    if grep -q 'Non-2xx\|Socket errors' "$D/wrk.out"; then
        echo "rest-bench: wrk saw errors: $(grep 'Non-2xx\|Socket errors' "$D/wrk.out")" >&2
    fi
    sed -n 's/^Requests\/sec: *\([0-9.]*\).*/\1/p' "$D/wrk.out"
}

wrk_tls_rate() {  # CONNECTIONS: wrk keeping TLS connections alive
    wrk_rate "$1" "https://127.0.0.1:$TLS_PORT/ekm/k1:wrap"
}

ab_rate() {  # CONCURRENCY
    with_cpu ab -q -c "$1" -t "$SECS" -n 10000000 -p "$D/body.json" -T application/json \
        -H "Authorization: Bearer bench-token" -H "User-Agent: $UA" "https://127.0.0.1:$TLS_PORT/ekm/k1:wrap" \
        >"$D/ab.out" 2>&1 || true
    failed=$(sed -n 's/^Failed requests: *\([0-9]*\).*/\1/p' "$D/ab.out")
    [ "${failed:-0}" = 0 ] || echo "rest-bench: ab saw $failed failed requests" >&2
    sed -n 's/^Requests per second: *\([0-9.]*\).*/\1/p' "$D/ab.out"
}

ratio() {
    python3 -c 'import sys; a, b = float(sys.argv[1] or 0), float(sys.argv[2] or 0); print("%.2f" % (a / b) if b else "-")' "$1" "$2"
}

verdict() {  # RATIO GOAL
    python3 -c 'import sys; r, g = sys.argv[1], float(sys.argv[2]); print("goal met" if r != "-" and float(r) >= g else "below goal")' "$1" "$2"
}

median() {
    tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END {if (NR) print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'
}

# The median of ratios, leaving out the rounds without one ("-").
median_ratio() {
    r=$(tr ' ' '\n' | grep -v '^-$' | median)
    echo "${r:--}"
}

# row LABEL CONNS GOAL_TEXT GOAL_FN URL OTHER_FN [hsmbench and libcurl loop
# flags]: hsmbench measured by $HS_FN (hsmbench_rate unless set); interleaved rounds (each round in another order), medians of the
# rates and of each round's ratios; sets ROW_HS to hsmbench's median, ROW_RL
# and ROW_RO to the ratios to the loop and to the other tool.  GOAL_FN
# prints the ratio the goal is on.
row() {
    label=$1 c=$2 goal=$3 goalfn=$4 url=$5 other=$6
    shift 6
    hs="" cl="" ot="" rl="" ro="" hu="" rc="" ou="" i=0
    while [ $i -lt "$ROUNDS" ]; do
        rm -f "$D/ot.cpu_s"
        if [ $((i % 2)) -eq 0 ]; then
            hv=$(${HS_FN:-hsmbench_rate} "$url" "$c" "$@")
            cv=$(curl_rate "$url" "$c" "$@")
            ov=$($other "$c")
        else
            ov=$($other "$c")
            cv=$(curl_rate "$url" "$c" "$@")
            hv=$(${HS_FN:-hsmbench_rate} "$url" "$c" "$@")
        fi
        hc=$(cat "$D/hs.cpu" 2>/dev/null || true)
        # The other tool's CPU time per successful request, us (its rate
        # times the measured seconds: the requests it counted).
        oc=$(python3 -c 'import sys
try:
    cpu, rate, secs = float(open(sys.argv[1]).read()), float(sys.argv[2]), float(sys.argv[3])
    print("%.2f" % (cpu / (rate * secs) * 1e6) if rate > 0 else "")
except (OSError, ValueError):
    pass' "$D/ot.cpu_s" "${ov:-0}" "$SECS")
        ou="$ou $oc"
        cc=$(cat "$D/cl.cpu" 2>/dev/null || true)
        hs="$hs $hv" cl="$cl $cv" ot="$ot $ov" hu="$hu $hc"
        rl="$rl $(ratio "$hv" "$cv")" ro="$ro $(ratio "$hv" "$ov")" rc="$rc $(ratio "$cc" "$hc")"
        i=$((i + 1))
    done
    hs=$(echo "$hs" | median)
    cl=$(echo "$cl" | median)
    ot=$(echo "$ot" | median)
    ROW_HS=$hs
    ROW_RL=$(echo "$rl" | median_ratio)
    ROW_RO=$(echo "$ro" | median_ratio)
    ROW_RL=$(python3 -c 'import sys; print(sys.argv[1] if sys.argv[1] == "-" else "%.2f" % float(sys.argv[1]))' "$ROW_RL")
    ROW_RO=$(python3 -c 'import sys; print(sys.argv[1] if sys.argv[1] == "-" else "%.2f" % float(sys.argv[1]))' "$ROW_RO")
    hu=$(echo "$hu" | median)
    ou=$(echo "$ou" | median)
    ROW_RC=$(echo "$rc" | median_ratio)
    ROW_RC=$(python3 -c 'import sys; print(sys.argv[1] if sys.argv[1] == "-" else "%.2f" % float(sys.argv[1]))' "$ROW_RC")
    r=$($goalfn)
    printf '%-26s %5s %11s %11s %11s %8s %8s %7s %8s %7s  %s\n' "$label" "$c" "$hs" "${cl:-?}" "${ot:-?}" \
        "$ROW_RL" "$ROW_RO" "${hu:-?}" "$ROW_RC" "${ou:-?}" "$goal: $r, $(verdict "$r" "${goal##*>= }")"
}

# verdict_at_most RATIO GOAL: the goal met when RATIO is at most GOAL.
verdict_at_most() {
    awk -v r="$1" -v g="$2" 'BEGIN { print (r != "-" && r + 0 <= g + 0) ? "goal met" : "above goal" }'
}
vs_libcurl() { echo "$ROW_RL"; }
vs_other() { echo "$ROW_RO"; }
vs_own64() { ratio "$ROW_HS" "${HS64:-}"; }

echo "hsmbench $("$HSMBENCH" --version | cut -d' ' -f2): REST client throughput against nginx on 127.0.0.1"
echo "(fixed EKM wrap answer; ${SECS}s per measurement, ${ROUNDS} round(s), medians; successful requests per second)"
echo
printf '%-26s %5s %11s %11s %11s %8s %8s %7s %8s %7s  %s\n' MODE CONNS "hsmbench/s" "libcurl/s" "other/s" \
    "/libcurl" "/other" "cpu-us" "cpu-eff" "oth-us" "GOAL"
HS64=""
for c in $CONNS; do
    if [ "$c" -ge 1024 ] && [ -n "$HS64" ]; then
        row "keep-alive (other: wrk)" "$c" "/own 64 >= 0.90" vs_own64 "http://127.0.0.1:$PORT/ekm/k1" wrk_rate
    else
        row "keep-alive (other: wrk)" "$c" "/libcurl >= 0.95" vs_libcurl "http://127.0.0.1:$PORT/ekm/k1" wrk_rate
    fi
    [ "$c" -ne 64 ] || HS64=$ROW_HS
done
for c in $TLS_KA_CONNS; do
    row "TLS keep-alive (other: wrk)" "$c" "/libcurl >= 0.95" vs_libcurl "https://127.0.0.1:$TLS_PORT/ekm/k1" \
        wrk_tls_rate
done
HS_FN=lean_rate
LEAN64=""
for c in $LEAN_CONNS; do
    row "lean keep-alive (wrk)" "$c" "/other >= 0.90" vs_other "http://127.0.0.1:$PORT/ekm/k1" \
        wrk_rate
    [ "$c" -ne 64 ] || LEAN64=$ROW_HS
    [ "$c" -ne 1024 ] || LEAN1024=$ROW_HS
    [ "$c" -ne 1024 ] || [ -z "$hu" ] || [ -z "$ou" ] || LEAN_CPU=$(ratio "$hu" "$ou")
done
for c in $LEAN_TLS_CONNS; do
    row "lean TLS keep-alive (wrk)" "$c" "/other >= 0.85" vs_other \
        "https://127.0.0.1:$TLS_PORT/ekm/k1" wrk_tls_rate
    [ "$c" -ne 1024 ] || [ -z "$hu" ] || [ -z "$ou" ] || LEAN_TLS_CPU=$(ratio "$hu" "$ou")
done
if [ -n "$LEAN64" ] && [ -n "${LEAN1024:-}" ]; then
    r=$(ratio "$LEAN1024" "$LEAN64")
    printf '%-26s %5s %11s %11s %11s %8s %8s %7s %8s %7s  %s\n' "lean 1024 over lean 64" 1024 "$LEAN1024" \
        - - - - - - - "/own 64 >= 0.90: $r, $(verdict "$r" 0.90)"
fi
# The lean engine's CPU per request at 1024 connections over wrk's, plain
# and over TLS (cpu-us over oth-us of its rows): at most wrk's.
for lc in "plain ${LEAN_CPU:-}" "TLS ${LEAN_TLS_CPU:-}"; do
    set -- $lc
    [ -n "${2:-}" ] || continue
    printf '%-26s %5s %11s %11s %11s %8s %8s %7s %8s %7s  %s\n' "lean $1 cpu-us over wrk's" 1024 - - - - - - - - \
        "cpu/other <= 1.00: $2, $(verdict_at_most "$2" 1.00)"
done
HS_FN=hsmbench_rate
for c in $TLS_CONNS; do
    row "new TLS each (other: ab)" "$c" "/other >= 1.00" vs_other "https://127.0.0.1:$TLS_PORT/ekm/k1" ab_rate \
        --no-connection-reuse
done

# ---- HTTP/2 over TLS: the server's CPU time per request ----------------------
# nginx's worker (the master's one child): user + system clock ticks.
srv_ticks() {
    w=$(pgrep -P "$NGINX_PID" | head -1)
    awk '{print $14 + $15}' "/proc/${w:-0}/stat" 2>/dev/null || echo 0
}
h2_row() {  # LABEL CONNS URL FLAGS...: hsmbench/s, its cpu-us, nginx's us per request
    label=$1 c=$2 url=$3
    shift 3
    t0=$(srv_ticks)
    rate=$(hs_measure "$url" --threads 2 --mode nonblocking --inflight "$c" "$@")
    t1=$(srv_ticks)
    python3 - "$label" "$c" "$rate" "$(cat "$D/hs.cpu" 2>/dev/null)" "$t0" "$t1" "$SECS" "$(getconf CLK_TCK)" <<'PY'
import sys
label, c, rate, cpu, t0, t1, secs, hz = sys.argv[1:9]
rate = float(rate or 0)
srv = (float(t1) - float(t0)) / float(hz) / (rate * float(secs)) * 1e6 if rate > 0 else 0
print("%-26s %5s %11.1f %7s %7.2f" % (label, c, rate, cpu or "?", srv))
PY
}
if [ -n "$H2_CONNS" ]; then
    echo
    printf '%-26s %5s %11s %7s %7s\n' "HTTP/2 OVER TLS" CONNS "hsmbench/s" cpu-us srv-us
    for c in $H2_CONNS; do
        h2_row "HTTP/2 (libcurl multi)" "$c" "https://127.0.0.1:$H2_PORT/ekm/k1" --http2
        h2_row "HTTP/1.1 TLS (libcurl)" "$c" "https://127.0.0.1:$H2_PORT/ekm/k1" --engine libcurl
        h2_row "HTTP/1.1 TLS (lean)" "$c" "https://127.0.0.1:$H2_PORT/ekm/k1" --engine lean
    done
    echo "srv-us: nginx's CPU time (its worker's user + system) per successful request, microseconds;"
    echo "        with --http2 the C requests in flight are streams over a connection a thread."
fi
echo
echo "lean: hsmbench --engine lean, one blocking thread at 1 connection, else its epoll loop on 2 threads"
echo "      (--mode nonblocking --inflight C); hsmbench/s and cpu-us are its.  The other rows: --engine libcurl."
echo "libcurl/s: the minimal libcurl loop (same request, same libcurl, same connections and threads)."
echo "/libcurl, /other: the median of the rounds' own ratios (the tools of a round run back to back)."
echo "/own 64: hsmbench's rate at 1024 connections over its own at 64."
echo "cpu-us: hsmbench's CPU time (user + system) per successful request, microseconds."
echo "cpu-eff: the loop's CPU time per request over hsmbench's (median of the rounds; 1.00: as cheap)."
echo "oth-us: the other tool's (wrk's, ab's) CPU time per successful request, microseconds."
echo "The clients and nginx share this machine's CPUs; run it on an idle machine."

# ---- instructions per request (callgrind) -------------------------------------
# Throughput ratios move by several percent between rounds on a shared
# machine; instructions do not.  hsmbench --engine libcurl (one non-blocking thread, 32
# transfers) and the libcurl loop (one thread, 32 transfers) run at the same
# time under callgrind against hsmbench serve answering 5 ms after each
# request arrived: the pace of a real service, slow enough under valgrind
# that each pass over the transfers finds a few done, as against nginx at
# full speed.  The figure is the transfer thread's instructions (its
# function, inclusive) over the requests it completed.
if [ "${REST_BENCH_CALLGRIND:-1}" != 0 ] && command -v valgrind >/dev/null 2>&1 &&
    command -v callgrind_annotate >/dev/null 2>&1; then
    "$HSMBENCH" serve --listen 127.0.0.1:0 --max-seconds 120 --latency 5ms \
        --ekm-token-env REST_BENCH_TOKEN >"$D/serve.out" 2>"$D/serve.err" &
    SERVE_PID=$!
    i=0
    SURL=""
    while [ -z "$SURL" ] && [ $i -lt 100 ]; do
        sleep 0.1
        SURL=$(sed -n 's/^hsmbench serve: listening on \([^ ]*\).*/\1/p' "$D/serve.out")
        i=$((i + 1))
    done
    CG_SECS=${REST_BENCH_CALLGRIND_SECONDS:-8}
    valgrind --tool=callgrind --callgrind-out-file="$D/cg.hs" "$HSMBENCH" rest ekm \
        --endpoint "$SURL/ekm/k1" --op wrap --token-env REST_BENCH_TOKEN --threads 1 --engine libcurl \
        --mode nonblocking --inflight 32 --duration "$CG_SECS" --quiet --json "$D/cg.json" \
        >/dev/null 2>"$D/cg.hs.err" &
    cg_hs=$!
    valgrind --tool=callgrind --callgrind-out-file="$D/cg.cl" "$CURLLOOP" "$SURL/ekm/k1:wrap" \
        "$D/body.json" "$CG_SECS" 32 1 >"$D/cg.cl.out" 2>"$D/cg.cl.err"
    wait "$cg_hs" || true
    # The lean engine: one blocking thread, one connection, beside the loop
    # with one transfer.
    valgrind --tool=callgrind --callgrind-out-file="$D/cg.lean" "$HSMBENCH" rest ekm \
        --endpoint "$SURL/ekm/k1" --op wrap --token-env REST_BENCH_TOKEN --threads 1 --engine lean \
        --duration "$CG_SECS" --quiet --json "$D/cg.lean.json" >/dev/null 2>"$D/cg.lean.err" &
    cg_lean=$!
    # And its epoll loop: one thread, 32 slots, as the first pair.
    valgrind --tool=callgrind --callgrind-out-file="$D/cg.leannb" "$HSMBENCH" rest ekm \
        --endpoint "$SURL/ekm/k1" --op wrap --token-env REST_BENCH_TOKEN --threads 1 --engine lean \
        --mode nonblocking --inflight 32 --duration "$CG_SECS" --quiet --json "$D/cg.leannb.json" \
        >/dev/null 2>"$D/cg.leannb.err" &
    cg_leannb=$!
    valgrind --tool=callgrind --callgrind-out-file="$D/cg.cl1" "$CURLLOOP" "$SURL/ekm/k1:wrap" \
        "$D/body.json" "$CG_SECS" 1 1 >"$D/cg.cl1.out" 2>"$D/cg.cl1.err"
    wait "$cg_lean" || true
    wait "$cg_leannb" || true
    kill -TERM "$SERVE_PID" 2>/dev/null || true
    wait "$SERVE_PID" 2>/dev/null || true
    # ir FILE FUNCTION: the function's inclusive instructions.
    ir() {
        callgrind_annotate --inclusive=yes "$1" 2>/dev/null | grep -m1 ":$2 " | awk '{gsub(",", "", $1); print $1}'
    }
    hs_ops=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["runs"][0]["ops"])' "$D/cg.json" 2>/dev/null || echo 0)
    cl_ops=$(awk '{print $2}' "$D/cg.cl.out" 2>/dev/null)
    hs_ir=$(ir "$D/cg.hs" worker_main)
    cl_ir=$(ir "$D/cg.cl" run_multi)
    lean_ops=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["runs"][0]["ops"])' "$D/cg.lean.json" 2>/dev/null || echo 0)
    cl1_ops=$(awk '{print $2}' "$D/cg.cl1.out" 2>/dev/null)
    lean_ir=$(ir "$D/cg.lean" worker_main)
    cl1_ir=$(ir "$D/cg.cl1" run_easy)     # one transfer: the loop's easy-handle path
    leannb_ops=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["runs"][0]["ops"])' "$D/cg.leannb.json" 2>/dev/null || echo 0)
    leannb_ir=$(ir "$D/cg.leannb" worker_main)
    echo
    python3 - "${hs_ir:-0}" "${hs_ops:-0}" "${cl_ir:-0}" "${cl_ops:-0}" "${lean_ir:-0}" "${lean_ops:-0}" \
        "${cl1_ir:-0}" "${cl1_ops:-0}" "${leannb_ir:-0}" "${leannb_ops:-0}" <<'PY'
import sys
hi, hn, ci, cn = (float(x) for x in sys.argv[1:5])
if not (hi and hn and ci and cn):
    print("instructions per request (callgrind): not measured (a run failed)")
    sys.exit(0)
h, c = hi / hn, ci / cn
print("instructions per request (callgrind; 1 thread, 32 transfers, serve --latency 5ms):")
print("  hsmbench --engine libcurl %.0f (%d requests), libcurl loop %.0f (%d requests)" % (h, hn, c, cn))
print("  ir-eff (the loop's over hsmbench's) %.3f  goal >= 0.95: %s" % (c / h, "goal met" if c / h >= 0.95 else "below goal"))
li, ln, c1i, c1n = (float(x) for x in sys.argv[5:9])
if li and ln and c1i and c1n:
    l, c1 = li / ln, c1i / c1n
    print("  --engine lean, 1 thread: %.0f (%d requests), libcurl loop with 1 transfer %.0f (%d requests):"
          " the loop costs %.2fx the lean engine's instructions" % (l, ln, c1, c1n, c1 / l))
else:
    print("  --engine lean: not measured (a run failed)")
ni, nn = float(sys.argv[9]), float(sys.argv[10])
if ni and nn:
    print("  --engine lean, its epoll loop (1 thread, 32 slots): %.0f (%d requests):"
          " the loop with 32 transfers costs %.2fx its instructions" % (ni / nn, nn, c / (ni / nn)))
else:
    print("  --engine lean, epoll loop: not measured (a run failed)")
PY
fi
