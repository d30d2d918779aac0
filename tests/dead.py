#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""tests/dead.py - no exported function without a user outside its file.

From the built objects (BUILD_DIR/obj/**/*.o, nm): every global function a
file defines must be called, or have its address taken, by another object
of the program, or be named by a test (tests/unit, tests/fuzz,
tests/hostile: a test that exercises it).  One used only inside its own
file belongs there as a static function; one used by nobody goes.  And
every function a header under bench/, p11/, keys/, rest/ or serve/ declares
is defined somewhere (no declaration outlives its function).  Prints one
line per finding and exits 1 when there is any (tests/e2e/test_dead.sh
runs it).

    python3 tests/dead.py BUILD_DIR [TOP]
"""
import os
import re
import subprocess
import sys

TESTS = ("tests/unit", "tests/fuzz", "tests/hostile")
HEADERS = ("bench", "p11", "keys", "rest", "serve")
PREFIX = r"(?:bench|p11|rest|keys|serve)_\w+"
# A declaration at the start of a line: a type, then a prefixed name and "(".
DECL = re.compile(r"^(?!static\b|typedef\b|#|return\b)[A-Za-z_][\w \t*]*?\b(" + PREFIX + r")\s*\(", re.M)
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)


def nm(path):
    out = subprocess.run(["nm", path], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3:
            yield parts[1], parts[2]
        elif len(parts) == 2:
            yield parts[0], parts[1]


def sources(folder, exts):
    for d, _, files in os.walk(folder):
        for f in sorted(files):
            if f.endswith(exts):
                yield os.path.join(d, f)


def main():
    if len(sys.argv) < 2:
        print("usage: tests/dead.py BUILD_DIR [TOP]")
        return 2
    build = os.path.abspath(sys.argv[1])
    top = sys.argv[2] if len(sys.argv) > 2 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    os.chdir(top)
    objdir = os.path.join(build, "obj")
    defined = {}      # function -> object
    symbols = set()   # every global symbol defined
    users = {}        # symbol -> objects that refer to it
    for obj in sources(objdir, (".o",)):
        # An object whose source is gone (a file moved or removed since the
        # build directory was made) is not part of the program.
        if not os.path.exists(os.path.relpath(obj, objdir)[:-2] + ".c"):
            continue
        for kind, sym in nm(obj):
            if kind == "T":
                defined[sym] = obj
            if kind in "TDBRC":
                symbols.add(sym)
            elif kind == "U":
                users.setdefault(sym, set()).add(obj)
    if not defined:
        print("%s: no objects (build first)" % objdir)
        return 1
    named = set()
    for folder in TESTS:
        if os.path.isdir(folder):
            for path in sources(folder, (".c", ".h")):
                with open(path, encoding="utf-8") as f:
                    named.update(re.findall(r"[A-Za-z_]\w*", COMMENT.sub("", f.read())))
    bad = []
    for sym, obj in sorted(defined.items()):
        if sym == "main" or users.get(sym, set()) - {obj} or sym in named:
            continue
        inside = os.path.relpath(obj, objdir)[:-2] + ".c"
        bad.append("%s: %s has no user outside its file (make it static, or remove it)" % (inside, sym))
    for folder in HEADERS:
        for path in sources(folder, (".h",)):
            with open(path, encoding="utf-8") as f:
                text = COMMENT.sub("", f.read())
            inline = set(re.findall(r"static\s+inline\b[^;{]*?\b(" + PREFIX + r")\s*\(", text))
            for name in sorted(set(DECL.findall(text))):
                if name not in symbols and name not in inline:
                    bad.append("%s: declares %s, defined nowhere" % (path, name))
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
