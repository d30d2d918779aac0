#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_defects.sh - the smaller defects of issue 13 (item 8):
# find-objects searches what --key-label/--key-id name; HTTP 999 and a 200 KB
# header are named; --static-key DIR and --uri 'pkcs11:token=%00x' get clear
# lines; serve -v prints no libmicrohttpd complaint; a module with no slots
# says so.
# asan: yes (a 200 KB header line, HTTP 999, odd URIs and a module without slots)
. "$TOP/tests/e2e/lib.sh"

HOSTILE="$(dirname "$NULLP11")/libhsmbench-hostile.so"
srv=
trap 'if [ -n "$srv" ]; then kill -KILL "$srv" 2>/dev/null; fi; rm -rf "$T"' EXIT

# ---- find-objects honours --key-label and --key-id ------------------------------------
run "$HSMBENCH" keys create --type aes --label hsmbench-find </dev/null
check "an AES key to find" 0
run "$HSMBENCH" run --test find-objects --key-label hsmbench-find --iterations 20 --json "$T/find.json" </dev/null
check "find-objects --key-label: exit 0 (it finds the key named)" 0
json_check "find-objects --key-label: no NO_RESULT" "$T/find.json" 'runs[0]["errors"] == 0 and runs[0]["ops"] == 20'
softhsm_env
pkcs11-tool --module "$SOFTHSM" --token-label hsmbench-demo --login --pin "$(cat "$PINFILE")" \
    --keygen --key-type AES:32 --id c0ffee --label other-label >"$T/kg.out" 2>&1
run "$HSMBENCH" run --test find-objects --key-id c0ffee --iterations 20 --json "$T/findid.json" </dev/null
check "find-objects --key-id: exit 0" 0
json_check "find-objects --key-id: found by ID, no NO_RESULT" "$T/findid.json" 'runs[0]["errors"] == 0'

# ---- --static-key DIR, --uri with %00, no slots ---------------------------------------------
run "$HSMBENCH" run --module "$NULLP11" --test rsa-pkcs-sign --static-key "$T" --iterations 3 </dev/null
check_one_line_error "--static-key DIR says it is a directory" 2 'is a directory'
run "$HSMBENCH" run --module "$NULLP11" --uri 'pkcs11:token=%00x' --test sha256-digest --iterations 3 </dev/null
check_one_line_error "--uri with %00: a clear line, exit 2" 2 '%00 \(a NUL byte\) cannot be part of a PKCS#11 label'
run env HSMBENCH_HOSTILE=no-slots "$HSMBENCH" list slots --module "$HOSTILE" </dev/null
check "list slots, no slots: says so" 0 '^The module has no slots'
run env HSMBENCH_HOSTILE=no-slots "$HSMBENCH" run --module "$HOSTILE" --test sha256-digest --iterations 3 </dev/null
check_one_line_error "run on a module with no slots: says the module has no slots" 3 'has no slots, so no token'

# ---- serve -v: no libmicrohttpd complaint at start ------------------------------------------
run "$HSMBENCH" serve -v --module "$NULLP11" --listen 127.0.0.1:0 --plain-listen 127.0.0.1:0 \
    --tls-cert /nonexistent --max-seconds 1 </dev/null
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$T/k.pem" -out "$T/c.pem" -days 1 -subj /CN=127.0.0.1 \
    >/dev/null 2>&1
run "$HSMBENCH" serve -v --module "$NULLP11" --listen 127.0.0.1:0 --tls-cert "$T/c.pem" --tls-key "$T/k.pem" \
    --plain-listen 127.0.0.1:0 --max-seconds 1 </dev/null
check "serve -v with TLS and a plain listener starts and stops" 0
file_lacks "serve prints no libmicrohttpd logger line at start" "$T/err" 'libmicrohttpd'

# ---- HTTP 999 and a 200 KB response header ---------------------------------------------------
python3 - "$T/port" <<'PY' &
import os, socket, sys, threading
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 0))
s.listen(64)
open(sys.argv[1] + ".tmp", "w").write(str(s.getsockname()[1]))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
def serve(c):
    buf = b""
    try:
        while True:
            while b"\r\n\r\n" not in buf:
                d = c.recv(65536)
                if not d:
                    return
                buf += d
            head, buf = buf.split(b"\r\n\r\n", 1)
            path = head.split(b" ")[1]
            if path == b"/999":
                c.sendall(b"HTTP/1.1 999 Odd\r\nContent-Length: 2\r\n\r\n{}")
            else:
                c.sendall(b"HTTP/1.1 200 OK\r\nX-Big: " + b"a" * 200000 + b"\r\nContent-Length: 2\r\n\r\n{}")
    except OSError:
        pass
    finally:
        c.close()
while True:
    c, _ = s.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
PY
srv=$!
n=0
while [ ! -s "$T/port" ] && [ $n -lt 50 ]; do sleep 0.1; n=$((n + 1)); done
port=$(cat "$T/port")
run "$HSMBENCH" rest http --url "http://127.0.0.1:$port/999" --iterations 5 --json "$T/999.json" </dev/null
json_check "HTTP status 999 is counted as HTTP 999 (not code 1999)" "$T/999.json" \
    '"HTTP 999" in runs[0]["errors_by_code"] and not any("1999" in k for k in runs[0]["errors_by_code"])'
run "$HSMBENCH" rest http --url "http://127.0.0.1:$port/big" --iterations 5 --json "$T/big.json" </dev/null
json_check "a 200 KB response header is HEADER_TOO_LARGE (not CURLE_OUT_OF_MEMORY)" "$T/big.json" \
    '"HEADER_TOO_LARGE" in runs[0]["errors_by_code"] and "CURLE_OUT_OF_MEMORY" not in runs[0]["errors_by_code"]'
