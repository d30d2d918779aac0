#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""tests/layers.py - the house's floors, checked from the code itself.

Every source file belongs to a floor; a file may include headers of its own
floor or of a lower one, never of a higher one; two folders never include
each other, nor two files (one's code including the other's header and the
other way round); and, from the built static libraries, no floor's objects call a
function another floor defines above it.  Prints one line per violation and
exits 1 when there is any (tests/e2e/test_layers.sh runs it).

    python3 tests/layers.py [BUILD_DIR]
"""
import os
import re
import subprocess
import sys

# Lowest first.  A folder's rank: what it may include is its own rank or less.
FLOORS = [
    ("bench/util", 0),
    ("bench/core", 1),
    ("bench/results", 2),
    ("bench/driver", 3),
    ("keys", 4), ("p11", 5), ("rest/transport", 4), ("rest/views", 5), ("rest", 5),
    ("serve", 6),
    ("cli", 7),            # cli/main.c, the composition root
]
# Folders of one rank that must not see each other (workloads side by side).
APART = {("rest", "p11"), ("rest", "keys"), ("rest", "serve"), ("p11", "serve"),
         ("keys", "serve"), ("rest/transport", "p11"), ("rest/transport", "keys"),
         ("p11", "rest"), ("p11", "rest/transport"), ("serve", "rest"),
         ("serve", "rest/transport"), ("keys", "rest"), ("keys", "rest/transport"),
         ("rest/views", "p11"), ("rest/views", "keys"), ("rest/views", "serve"),
         ("p11", "rest/views"), ("keys", "rest/views"), ("serve", "rest/views")}
# Folders where no two files include each other (see main).
FILES_APART = {"rest", "rest/transport", "rest/views", "serve", "p11", "keys"}
LIBS = ["util", "core", "results", "driver", "p11", "rest", "serve"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def folder_of(path):
    d = os.path.dirname(path)
    return d if any(d == f for f, _ in FLOORS) else None


def rank(folder):
    return dict(FLOORS)[folder]


def main():
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    os.chdir(top)
    bad = []
    edges = set()
    uses = {}      # a file's stem ("rest/views/k6") -> the stems of the headers it includes
    for folder, _ in FLOORS:
        for name in sorted(os.listdir(folder)):
            if not name.endswith((".c", ".h")):
                continue
            path = os.path.join(folder, name)
            with open(path, encoding="utf-8") as f:
                text = f.read()
            for inc in INCLUDE.findall(text):
                if inc.endswith(".h"):
                    uses.setdefault(path[:-2], set()).add(inc[:-2])
                to = folder_of(inc)
                if to is None or to == folder:
                    continue
                edges.add((folder, to))
                if rank(to) > rank(folder):
                    bad.append("%s includes %s: a higher floor (%s over %s)" % (path, inc, to, folder))
                elif (folder, to) in APART:
                    bad.append("%s includes %s: %s and %s stand apart" % (path, inc, folder, to))
    for a, b in sorted(edges):
        if (b, a) in edges and a < b:
            bad.append("%s and %s include each other" % (a, b))
    # Nor two files: a.c (or a.h) including b.h while b.c (or b.h) includes a.h
    # (in the folders of FILES_APART: bench/'s floors still hold such pairs).
    for a in sorted(uses):
        for b in sorted(uses[a]):
            if a < b and a in uses.get(b, ()) and os.path.dirname(a) in FILES_APART:
                bad.append("%s and %s include each other" % (a, b))
    build = sys.argv[1] if len(sys.argv) > 1 else None
    if build:
        defined = {}
        undefined = {}
        for lib in LIBS:
            path = os.path.join(build, "libhsmbench-%s.a" % lib)
            out = subprocess.run(["nm", "-g", "--defined-only", path], capture_output=True,
                                 text=True, check=True).stdout
            for line in out.splitlines():
                parts = line.split()
                if len(parts) == 3 and parts[1] in "TDBRC":
                    defined.setdefault(parts[2], lib)
            out = subprocess.run(["nm", "-g", "--undefined-only", path], capture_output=True,
                                 text=True, check=True).stdout
            undefined[lib] = {l.split()[-1] for l in out.splitlines() if l.strip() and not l.endswith(":")}
        order = {lib: i for i, lib in enumerate(LIBS)}
        for lib in LIBS:
            for sym in sorted(undefined[lib]):
                owner = defined.get(sym)
                if owner and order[owner] > order[lib] and not (lib == "rest" and owner == "p11"):
                    bad.append("libhsmbench-%s.a calls %s, defined in libhsmbench-%s.a above it"
                               % (lib, sym, owner))
                if owner and ((lib, owner) in (("rest", "p11"), ("p11", "rest"))):
                    bad.append("libhsmbench-%s.a calls %s, defined in libhsmbench-%s.a beside it"
                               % (lib, sym, owner))
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
