# SPDX-License-Identifier: Apache-2.0
# tests/e2e/jsoncheck.py - lib.sh's json_check, one interpreter a script.
#
# usage: python3 -S jsoncheck.py REQUEST_FIFO ANSWER_FIFO SHELL_PID
#
# A request is three NUL-terminated fields, the shell's working directory,
# the file and the expression; the answer one line, "PASS", or "FAIL why".
# The expression sees doc (the file's JSON) and runs (doc["runs"], or []).
#
# It ends within a second of the script's shell (SHELL_PID) or of the FIFO
# (the script's directory removed), so it needs no one to stop it: lib.sh
# starts it detached, where a script's bare "wait" does not wait for it.
import errno
import json
import os
import select
import sys
import time

REQ, ANS, PID = sys.argv[1], sys.argv[2], int(sys.argv[3])
# HSMBENCH_JSONCHECK_HOLD=S (test_json): keep each answer's FIFO open S
# seconds after writing it, the window in which a shell that opens the FIFO
# again at once finds the last answer's writer still there.
# A value that is not a number fails every check, naming it (the shell
# waits on this process: it must answer, never end early).
HOLD, BAD = 0.0, None
try:
    HOLD = float(os.environ.get("HSMBENCH_JSONCHECK_HOLD") or 0)
except ValueError:
    BAD = "FAIL HSMBENCH_JSONCHECK_HOLD=%r is not a number of seconds" % os.environ["HSMBENCH_JSONCHECK_HOLD"]


def alive():
    try:
        os.kill(PID, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return os.path.exists(REQ)


def judge(cwd, path, expr):
    if BAD:
        return BAD
    try:
        with open(os.path.join(cwd, path), "rb") as f:
            doc = json.load(f)
        ok = eval(expr, {"doc": doc, "runs": doc.get("runs", [])})
    except Exception as e:  # the check fails, saying why; the server goes on
        return "FAIL %s: %s" % (type(e).__name__, str(e).replace("\n", " ")[:300])
    return "PASS" if ok else "FAIL"


def answer(line):
    # The shell opens the answer FIFO once its request is written; a shell
    # gone meanwhile (killed by its time bound) is not waited for.
    while True:
        try:
            fd = os.open(ANS, os.O_WRONLY | os.O_NONBLOCK)
            break
        except OSError as e:
            if e.errno not in (errno.ENXIO, errno.EINTR) or not alive():
                return
            time.sleep(0.002)
    try:
        os.write(fd, (line + "\n").encode())
        if HOLD > 0:
            time.sleep(HOLD)
    finally:
        os.close(fd)


def main():
    # Read and write: a FIFO this process holds open for writing never reads
    # as ended between one request and the next.
    fd = os.open(REQ, os.O_RDWR | os.O_NONBLOCK)
    buf = b""
    while True:
        ready, _, _ = select.select([fd], [], [], 1.0)
        if not ready:
            if not alive():
                return
            continue
        try:
            buf += os.read(fd, 65536)
        except BlockingIOError:
            continue
        while buf.count(b"\0") >= 3:
            cwd, path, expr, buf = buf.split(b"\0", 3)
            answer(judge(cwd.decode(), path.decode(), expr.decode()))


main()
