#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_licence.sh - the licence is stated where people and tools look
# for it: LICENSE is the Apache License 2.0's text, every tracked source file
# (C, headers, scripts, Python, the completion, manual pages, Markdown, YAML,
# the Makefile, the Containerfile, debian/rules) has its SPDX line near the
# top, debian/copyright names Apache-2.0 in Debian's machine-readable format
# (DEP-5), and the README says so.
# Plain build only: nothing here depends on how the binary was compiled.
# early: no check depends on the cores it gets (the tree's files)
. "$TOP/tests/e2e/lib.sh"
[ "$VARIANT" = plain ] || exit 0

# ---- LICENSE: the licence's text, unchanged -------------------------------
# Debian ships the same text in base-files; without it, its SHA-256.
apache_sha256=cfc7749b96f63bd31c3c42b5c471bf756814053e847c10f3eb003417bc523d30
common=/usr/share/common-licenses/Apache-2.0
if [ -f "$common" ] && cmp -s "$TOP/LICENSE" "$common"; then
    pass "LICENSE is $common, byte for byte"
elif [ "$(sha256sum <"$TOP/LICENSE" | cut -d' ' -f1)" = "$apache_sha256" ]; then
    pass "LICENSE is the Apache License 2.0's text (SHA-256)"
else
    fail "LICENSE is the Apache License 2.0's text" "$(head -n 3 "$TOP/LICENSE" | tr -s ' \n' ' ')"
fi

# ---- an SPDX line near the top of every source file --------------------------
# The files git tracks (every file of the tree outside build/ when this is
# not a git checkout); a script without an extension is known by its "#!".
if git -C "$TOP" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git -C "$TOP" ls-files >"$T/files"
else
    (cd "$TOP" && find . -path ./build -prune -o -type f -print | sed 's|^\./||') >"$T/files"
fi
n=0 miss=
while IFS= read -r f; do
    p="$TOP/$f"
    [ -f "$p" ] || continue
    case $f in
        *.c | *.h | *.sh | *.py | *.md | *.yaml | *.yml | *.bash | man/*.[1-9] | completion/* | \
            Makefile | */Makefile | Containerfile | debian/rules) ;;
        *) head -c 2 "$p" | grep -q '^#!' || continue ;;
    esac
    n=$((n + 1))
    head -n 3 "$p" | grep -q 'SPDX-License-Identifier: Apache-2\.0' || miss="$miss $f"
done <"$T/files"
if [ "$n" -lt 100 ]; then
    fail "every source file has an SPDX line" "only $n source files found under $TOP"
elif [ -z "$miss" ]; then
    pass "every source file ($n) has 'SPDX-License-Identifier: Apache-2.0' in its first 3 lines"
else
    fail "every source file has an SPDX line in its first 3 lines" "missing in:$miss"
fi

# ---- debian/copyright: DEP-5, Apache-2.0 ---------------------------------------
# Paragraphs are separated by blank lines; a field's continuation lines start
# with a space.  The header names the format; "Files: *" is Apache-2.0; a
# stand-alone "License: Apache-2.0" paragraph points at common-licenses.
if python3 - "$TOP/debian/copyright" >"$T/dep5" 2>&1 <<'EOF'
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
paras = []
for block in re.split(r"\n\s*\n", text.strip()):
    fields, last = {}, None
    for line in block.split("\n"):
        if line.startswith((" ", "\t")) and last:
            fields[last] += "\n" + line.strip()
        else:
            key, sep, val = line.partition(":")
            if not sep or not re.fullmatch(r"[A-Za-z][A-Za-z0-9-]*", key):
                sys.exit(f"not a DEP-5 field line: {line!r}")
            last = key.lower()
            fields[last] = val.strip()
    paras.append(fields)
errs = []
head = paras[0]
if head.get("format") != "https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/":
    errs.append(f"header Format: {head.get('format')!r}")
if head.get("upstream-name") != "hsmbench":
    errs.append("header Upstream-Name is not hsmbench")
files = [p for p in paras[1:] if "files" in p]
star = [p for p in files if p["files"].split() == ["*"]]
if len(star) != 1:
    errs.append("no single 'Files: *' paragraph")
for p in files:
    if not p.get("copyright"):
        errs.append(f"Files: {p['files']}: no Copyright")
    if p.get("license", "").split("\n")[0] != "Apache-2.0":
        errs.append(f"Files: {p['files']}: License {p.get('license', '').split(chr(10))[0]!r}, expected Apache-2.0")
lic = [p for p in paras[1:] if "files" not in p and p.get("license", "").split("\n")[0] == "Apache-2.0"]
if len(lic) != 1:
    errs.append("no stand-alone 'License: Apache-2.0' paragraph")
elif "/usr/share/common-licenses/Apache-2.0" not in lic[0]["license"]:
    errs.append("the License: Apache-2.0 paragraph does not point at /usr/share/common-licenses/Apache-2.0")
if re.search(r"all rights reserved|no licen[cs]e", text, re.I):
    errs.append("still says no licence was granted")
print("; ".join(errs) if errs else f"{len(paras)} paragraphs")
sys.exit(1 if errs else 0)
EOF
then pass "debian/copyright: DEP-5, Files: * under Apache-2.0 ($(cat "$T/dep5"))"
else fail "debian/copyright: DEP-5, Files: * under Apache-2.0" "$(tr '\n' ' ' <"$T/dep5")"; fi

# ---- the README says it ---------------------------------------------------------
file_has "README.md names the licence and links LICENSE" "$TOP/README.md" 'Apache License 2\.0 \(\[LICENSE\]\(LICENSE\)\)'
