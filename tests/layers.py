#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""tests/layers.py - the house's floors, checked from the code itself.

Every source file belongs to a floor; a file may include headers of its own
floor or of a lower one, never of a higher one; two folders never include
each other; within a floor, no two files include each other, directly or
in a longer circle (x.c and x.h count as one file); and, from the built
static libraries, no floor's objects call a function another floor defines
above it.  Prints one line per violation and
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
LIBS = ["util", "core", "results", "driver", "p11", "rest", "serve"]
# Circles of includes still left in a floor, each until its fix lands: the
# units of the circle (none now).
CIRCLES_LEFT = set()
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def folder_of(path):
    d = os.path.dirname(path)
    return d if any(d == f for f, _ in FLOORS) else None


def rank(folder):
    return dict(FLOORS)[folder]


def circle(graph):
    """One circle of the graph {unit: {unit, ...}} as a list that ends where
    it starts, or None when it has none (a depth-first search, in name
    order so that the circle named is always the same)."""
    state = {}
    for start in sorted(graph):
        if state.get(start):
            continue
        path, todo = [start], [iter(sorted(graph[start]))]
        state[start] = 1
        while todo:
            nxt = next(todo[-1], None)
            if nxt is None:
                state[path.pop()] = 2
                todo.pop()
            elif state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            elif not state.get(nxt):
                state[nxt] = 1
                path.append(nxt)
                todo.append(iter(sorted(graph.get(nxt, ()))))
    return None


def floor_circles(folder, units):
    """Lines naming the circles of includes among a floor's files: one
    circle at a time, its edges taken out, until none is left.  A module's
    internal header (x_int.h: the pool's, shared by the files of one
    module and by no one else) is part of those files, not a file of its own."""
    graph = {u: {t for t in to if not t.endswith("_int")}
             for u, to in units.items() if not u.endswith("_int")}
    found = []
    while True:
        c = circle(graph)
        if c is None:
            return found
        if (folder, frozenset(c)) not in CIRCLES_LEFT:
            found.append("%s: %s include each other in a circle" % (folder, " -> ".join(c)))
        for a, b in zip(c, c[1:]):
            graph[a].discard(b)


def main():
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    os.chdir(top)
    bad = []
    edges = set()
    for folder, _ in FLOORS:
        units = {}
        for name in sorted(os.listdir(folder)):
            if not name.endswith((".c", ".h")):
                continue
            path = os.path.join(folder, name)
            with open(path, encoding="utf-8") as f:
                text = f.read()
            unit = name[:-2]
            units.setdefault(unit, set())
            for inc in INCLUDE.findall(text):
                to = folder_of(inc)
                if to == folder and inc.endswith(".h"):
                    other = os.path.basename(inc)[:-2]
                    if other != unit:
                        units[unit].add(other)
                if to is None or to == folder:
                    continue
                edges.add((folder, to))
                if rank(to) > rank(folder):
                    bad.append("%s includes %s: a higher floor (%s over %s)" % (path, inc, to, folder))
                elif (folder, to) in APART:
                    bad.append("%s includes %s: %s and %s stand apart" % (path, inc, folder, to))
        bad.extend(floor_circles(folder, units))
    for a, b in sorted(edges):
        if (b, a) in edges and a < b:
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
