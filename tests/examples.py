#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""tests/examples.py FILE... - the examples of the README and the manual pages,
one per block, for tests/e2e/test_examples.sh.

Prints, for each example, a line "@@ FILE:LINE FIRST-COMMAND" and then the
example's shell text, as a user would paste it.  What counts as an example:

  README.md (Markdown): every line of an indented (4 spaces) block that
      starts with "$ " (the prompt), with its continuation lines (those after
      a line ending in a backslash); the other lines of the block are output.
      The lines of one block are one example.
  man/*.1, man/*.7: every .EX ... .EE block of the EXAMPLES section, whole;
      groff's escapes are undone (\\- -, \\e \\, \\(aq ', \\& \\| nothing, \\~ space).
"""
import re
import sys


def unroff(line):
    line = line.replace("\\(aq", "'").replace("\\(dq", '"').replace("\\-", "-")
    line = line.replace("\\&", "").replace("\\|", "").replace("\\~", " ")
    return line.replace("\\e", "\\")


def first_command(text):
    for line in text.splitlines():
        s = line.strip()
        if s and not s.startswith("#"):
            return " ".join(s.split())[:70]
    return "?"


def markdown(path):
    lines = open(path, encoding="utf-8").read().split("\n")
    out = []
    i, fence = 0, False
    while i < len(lines):
        if lines[i].startswith("```"):
            fence = not fence
            i += 1
            continue
        if fence or not lines[i].startswith("    ") or (i and lines[i - 1].strip()):
            i += 1
            continue
        start, block, cont = i + 1, [], False
        while i < len(lines) and (lines[i].startswith("    ") or not lines[i].strip()):
            body = lines[i][4:]
            if cont or body.startswith("$ "):
                text = body[2:] if body.startswith("$ ") and not cont else body
                block.append(text.strip() if cont else text)
                cont = body.rstrip().endswith("\\")
            i += 1
        if block:
            out.append((start, "\n".join(block)))
    return out


def manpage(path):
    out, section, block, start = [], "", None, 0
    for n, line in enumerate(open(path, encoding="utf-8"), 1):
        line = line.rstrip("\n")
        if line.startswith(".SH"):
            section = line[3:].strip().strip('"')
        elif section == "EXAMPLES" and line.startswith(".EX"):
            block, start = [], n + 1
        elif block is not None and line.startswith(".EE"):
            out.append((start, "\n".join(block)))
            block = None
        elif block is not None:
            block.append(unroff(line))
    return out


def main(paths):
    for path in paths:
        examples = markdown(path) if path.endswith(".md") else manpage(path)
        name = re.sub(r".*/(man/|)", r"\1", path)
        for start, text in examples:
            print("@@ %s:%d %s" % (name, start, first_command(text)))
            print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
