#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""tests/e2e/views.py - the cross-view test's extractors and checks (python3,
standard library only).  tests/e2e/test_views.sh makes the corpus and calls

    views.py scrape ERRFILE RESULTS.json OUT   the last Prometheus scrape of a run
    views.py check CORPUS TOP                  every view of every run: PASS/FAIL lines
    views.py dump RUNDIR                       what the extractors read from one run (by hand)

Each corpus run is a directory: out, err, rc (the command's), r.json, r.csv,
r.html, prom (the last scrape), report.out, compare.out (the file compared
with itself) and truth (KEY=VALUE lines: what the run is by construction).

THE RUN MODEL'S FIGURES (the names used below, and in every message)

    successes       operations that succeeded                     ("ops")
    attempts        successes + errors
    errors          failed operations; errors_by_code their split
    error_pct       errors / attempts, in %
    ops_per_s       successes / duration_s
    attempts_per_s  attempts / duration_s
    duration_s      the measured part
    lat_min lat_mean p50 p90 p95 p99 p999 lat_max   latency of successes, in µs
    bytes_per_s     successes x data size / duration_s
    per-second successes/s@K, errors/s@K   second K of the run (JSON per_second)
    per-second p50@K, p99@K                the K-th second with a success
    threads, status

WHICH LABEL OF WHICH VIEW IS WHICH FIGURE (LABELS below is the table the code
reads; change a label there when a view's wording changes)

    terminal summary (stdout of run/rest, one block a run, "  TEST · ..." header):
        "operations....: N R/s"   successes, ops_per_s
        "attempts......: N R/s"   attempts, attempts_per_s
        "duration......: Xs"      duration_s
        "errors........: P% E of A"  error_pct, errors, attempts
        "data..........: TOTAL RATE/s"  bytes_per_s
        "  CODE........: n"       errors_by_code[CODE]
        "latency.......: avg= min= med= p(90)= p(95)= p(99)= p(99.9)= max="
        "by type" / "by token" tables (columns by header): ops/s, p50, p99, err%
    closing table (stdout, after several runs; columns by header):
        OPS successes, ATTEMPTS attempts, OPS/S ops_per_s, P50, P99, ERR% error_pct,
        THREADS, STATUS
    capacity (stdout): "step K: offered R/s achieved A/s p50 X p99 Y errors E %" and
        the STEP table (probe row = the run with capacity_step 0): ACHIEVED/S ops_per_s
    JSON (r.json): hsmbench.result/3: ops successes, attempts; /2: ops is attempts,
        successes = ops - errors; error_pct, ops_per_s, attempts_per_s, duration_s,
        latency_us{min,mean,p50,p90,p95,p99,p999,max}, errors_by_code, threads, status;
        breakdown[DIM][].ops the same way (class rows)
    CSV (--csv; columns by header): the SDKMS bench's as JMeter counts them:
        "total operations" attempts, "attempts", "Error %" error_pct,
        "Throughput per sec" attempts_per_s, "duration(sec)", "average
        latency(ms)", "pNN latency(ms)", "min/max latency (ms)" every attempt's
        (attempts_latency_us; latency_us when none failed); "successes",
        "successes per sec" ops_per_s, "success average/p99 latency(ms)";
        threads, "capacity (kb/s)" bytes_per_s / 1024; a "class" column names
        breakdown rows
    HTML (--html): the Runs table (columns by header: operations successes,
        attempts, ops/s, p50, p99, errors error_pct, threads, status); each run's
        section (th/td pairs: duration, operations successes, attempts, rate
        ops_per_s, errors, error rate error_pct, latency min/avg/p50/.../max,
        data bytes_per_s); its "by type"/"by token" tables; its charts (CHARTS: the
        dots' titles "operations/s 1s: N", "errors/s" (its own chart), "p50", "p99" of each second,
        "Errors by code"); the environment table (TLS, token(s))
    report (hsmbench report FILE; columns by header): OPS successes, ATTEMPTS,
        OPS/S, P50, P99, ERRORS error_pct, THREADS, STATUS
    compare (hsmbench compare A A; each side's row "A ..."/"B ..."): ops/s, p50,
        p99, errors error_pct; blocks in the runs' order
    Prometheus (last scrape; counters add up over the runs of one test name):
        hsmbench_operations_total successes, hsmbench_attempts_total attempts,
        hsmbench_errors_total{code} errors_by_code, hsmbench_latency_seconds_count
        successes (the latency of successes)
    k6 (rest ekm/sdkms summary, --summary k6): http_reqs attempts (one request an
        operation in this corpus), iterations attempts, http_req_failed
        "P% E of A" error_pct/errors/attempts, checks "status ✓ S ✗ E",
        http_status counts (add up to attempts)
    JMeter (rest http --summary jmeter): "summary =  N in T =  R/s Avg: Min: Max:
        Err: E (P%)": N attempts (JMeter counts every sample), R attempts_per_s,
        E errors, P error_pct; Avg/Min/Max include the failed samples

The cases named in issue 21 (each its own PASS/FAIL line) come first in
check(); every other figure of every view is checked by one case a view a
corpus run, whose message names the first disagreeing figure and both values.
"""
import csv
import html.parser
import io
import json
import os
import re
import sys
import time
import urllib.request

# ---- the label table ----------------------------------------------------------
LABELS = {
    # terminal summary "LABEL....: COUNT RATE/s" lines
    "summary": {"operations": ("successes", "ops_per_s"), "ops": ("successes", "ops_per_s"),
                "successes": ("successes", "ops_per_s"), "attempts": ("attempts", "attempts_per_s")},
    "summary_latency": {"avg": "lat_mean", "min": "lat_min", "med": "p50", "p(90)": "p90",
                        "p(95)": "p95", "p(99)": "p99", "p(99.9)": "p999", "max": "lat_max"},
    # header label (case-insensitive) -> figure, for the column tables
    "closing": {"ops": "successes", "operations": "successes", "attempts": "attempts",
                "ops/s": "ops_per_s", "p50": "p50", "p99": "p99", "err%": "error_pct",
                "threads": "threads", "status": "status"},
    "capacity": {"achieved/s": "ops_per_s", "p50": "p50", "p99": "p99", "err%": "error_pct"},
    "summary_class": {"ops/s": "ops_per_s", "p50": "p50", "p99": "p99", "err%": "error_pct",
                      "ops": "successes", "attempts": "attempts"},
    "csv": {"total operations": "attempts", "successes": "successes",
            "attempts": "attempts", "total attempts": "attempts", "error %": "error_pct",
            "throughput per sec": "attempts_per_s", "successes per sec": "ops_per_s",
            "duration(sec)": "duration_s",
            "average latency(ms)": "lat_mean (all)", "p50 latency(ms)": "p50 (all)",
            "p90 latency(ms)": "p90 (all)", "p95 latency(ms)": "p95 (all)", "p99 latency(ms)": "p99 (all)",
            "min latency (ms)": "lat_min (all)", "max latency (ms)": "lat_max (all)",
            "success average latency(ms)": "lat_mean", "success p99 latency(ms)": "p99",
            "threads": "threads"},
    "html_runs": {"operations": "successes", "ops": "successes", "attempts": "attempts", "ops/s": "ops_per_s",
                  "p50": "p50", "p99": "p99", "errors": "error_pct", "threads": "threads",
                  "status": "status"},
    "html_run": {"duration": "duration_s", "operations": "successes", "ops": "successes",
                 "attempts": "attempts",
                 "rate": "ops_per_s", "errors": "errors", "error rate": "error_pct", "data rate": "bytes_per_s",
                 "latency min": "lat_min", "latency avg": "lat_mean", "latency p50": "p50",
                 "latency p90": "p90", "latency p95": "p95", "latency p99": "p99",
                 "latency p99.9": "p999", "latency max": "lat_max"},
    "html_class": {"operations": "successes", "attempts": "attempts", "ops/s": "ops_per_s",
                   "p50": "p50", "p99": "p99", "errors": "error_pct"},
    "report": {"ops": "successes", "operations": "successes", "attempts": "attempts", "ops/s": "ops_per_s", "p50": "p50",
               "p99": "p99", "errors": "error_pct", "threads": "threads", "status": "status"},
    "compare": {"ops/s": "ops_per_s", "p50": "p50", "p99": "p99", "errors": "error_pct"},
    "prom": {"hsmbench_operations_total": "successes", "hsmbench_attempts_total": "attempts",
             "hsmbench_latency_seconds_count": "successes"},
}
# The figure each view prints as "operations"/"ops": the named cases.
OPS_CASE = "successes"


# ---- numbers as printed -------------------------------------------------------
class Fig:
    """A printed figure: its value and half its last digit (the rounding)."""
    __slots__ = ("v", "res", "raw")

    def __init__(self, v, res=0.0, raw=None):
        self.v, self.res, self.raw = v, res, raw if raw is not None else v

    def __repr__(self):
        return str(self.raw)


def half_digit(s):
    s = s.strip()
    m = re.match(r"^-?\d+(?:\.(\d+))?", s)
    if not m:
        return 0.0
    return 0.5 * 10 ** -(len(m.group(1)) if m.group(1) else 0)


UNIT_US = {"ns": 1e-3, "us": 1.0, "µs": 1.0, "ms": 1e3, "s": 1e6, "m": 60e6}


def dur_us(s):
    """'1.098ms', '215.8µs', '0s', '5s' -> Fig in µs; None when not a time."""
    s = s.strip()
    m = re.match(r"^(-?\d+(?:\.\d+)?)(ns|us|µs|ms|s|m)$", s)
    if not m:
        return None
    k = UNIT_US[m.group(2)]
    return Fig(float(m.group(1)) * k, half_digit(m.group(1)) * k, s)


# hsmbench's views write binary units (1.5 KiB); k6's summary, as k6, decimal (1.5 kB).
BYTES = {"B": 1, "kB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12,
         "KiB": 1024, "MiB": 1024 ** 2, "GiB": 1024 ** 3, "TiB": 1024 ** 4}


def bytes_of(s):
    """'1.6 MiB/s', '370.7 KiB', k6's '1.6 MB/s' -> Fig in bytes; None when not one."""
    m = re.match(r"^(\d+(?:\.\d+)?) ?(B|kB|MB|GB|TB|KiB|MiB|GiB|TiB)(/s)?$", s.strip())
    if not m:
        return None
    k = BYTES[m.group(2)]
    return Fig(float(m.group(1)) * k, half_digit(m.group(1)) * k, s.strip())


def num(s):
    """'1598.04', '9.50%', '1598.04/s', '1 002' -> Fig; None when not a number."""
    s = s.strip().rstrip("%").replace("/s", "").strip()
    if re.match(r"^\d{1,3}( \d{3})+$", s):
        s = s.replace(" ", "")
    try:
        return Fig(float(s), half_digit(s), s)
    except ValueError:
        return None


def value(fig, s):
    """A cell's text as the figure it is."""
    if fig == "status":
        return Fig(s.strip().split(":")[0].strip(), 0, s.strip())
    if fig in ("p50", "p90", "p95", "p99", "p999", "lat_min", "lat_mean", "lat_max"):
        return dur_us(s)
    if fig == "bytes_per_s":
        return bytes_of(s)
    if fig == "duration_s":
        d = dur_us(s)
        return Fig(d.v / 1e6, d.res / 1e6, s) if d else num(s)
    return num(s)


LAT = ("p50", "p90", "p95", "p99", "p999", "lat_min", "lat_mean", "lat_max")


def kind(fig):
    """The figure a name stands for, as far as rounding goes."""
    base = fig.split("@")[0].split(" (")[0]
    if base.startswith("per-second "):
        return "p50" if base.endswith(("p50", "p99")) else "ops_per_s"
    return base


def agree(a, b, fig):
    fig = kind(fig)
    if isinstance(a.v, str) or isinstance(b.v, str):
        return a.v == b.v
    tol = a.res + b.res + 1e-9 * max(abs(a.v), abs(b.v))
    if fig in ("p50", "p90", "p95", "p99", "p999", "lat_min", "lat_mean", "lat_max"):
        tol += 0.005 * max(abs(a.v), abs(b.v))      # three significant digits, as drawn
    if fig in ("ops_per_s", "attempts_per_s", "bytes_per_s"):
        tol += 0.002 * max(abs(a.v), abs(b.v))
    return abs(a.v - b.v) <= tol


# ---- the views ----------------------------------------------------------------
def read(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return None


def columns(header, row, labels):
    """A table row as {figure: Fig}, by header label (case-insensitive)."""
    out = {}
    for h, c in zip(header, row):
        fig = labels.get(h.strip().lower())
        if fig and c.strip() not in ("", "-", "NA"):
            v = value(fig, c)
            if v is not None:
                out[fig] = v
    return out


def spans(line):
    return [(m.start(), m.end(), m.group()) for m in re.finditer(r"\S+", line)]


def by_header(header_line, row):
    """A row's cells under a header of labels separated by spaces: each word of the
    row goes to the label it overlaps most (the nearest when none), so right- and
    left-aligned columns and cells of two words ("1024 B") land where they belong."""
    labels = spans(header_line)
    cells = [[] for _ in labels]
    for s, e, w in spans(row):
        best = max(range(len(labels)), key=lambda i: (min(e, labels[i][1]) - max(s, labels[i][0]),
                                                      -min(abs(s - labels[i][1]), abs(e - labels[i][0]))))
        cells[best].append(w)
    return [l[2] for l in labels], [" ".join(c) for c in cells]


def ws_table(lines, labels, first):
    """A whitespace table: the header line (its first label `first`), then rows
    until a blank line.  [(first cell, {figure: Fig})]."""
    rows = []
    for i, line in enumerate(lines):
        if re.match(r"^\s*" + re.escape(first) + r"\s", line):
            for row in lines[i + 1:]:
                if not row.strip():
                    break
                header, cells = by_header(line, row)
                rows.append((cells[0], columns(header, cells, labels)))
            break
    return rows


def summary_blocks(text):
    """The terminal summary: one block a run, from its '  TEST · ...' header."""
    blocks, cur = [], None
    for line in text.splitlines():
        if re.match(r"^  \S.* · .*", line) and not line.startswith("   "):
            cur = [line]
            blocks.append(cur)
        elif cur is not None:
            if re.match(r"^\S", line):          # a closing table or a note: the block ends
                cur = None
            else:
                cur.append(line)
    return blocks


def parse_summary(block):
    f, codes, classes = {}, {}, {}
    in_errors = False
    for i, line in enumerate(block):
        m = re.match(r"^ {4}(\S[^.]*?)\.{2,}: (.*)$", line)
        m2 = re.match(r"^ {6}(\S[^.]*?)\.{2,}: (\d+)$", line)
        if m2 and in_errors:
            codes[m2.group(1)] = int(m2.group(2))
            continue
        if not m:
            if re.match(r"^ {4}by (type|token)\b", line):
                dim = line.split()[1]
                rows = [re.sub(r"^( {4}by) ", r"\1_", block[i])] + block[i + 1:]
                for name, figs in ws_table(rows, LABELS["summary_class"], "by_" + dim):
                    classes[(dim, name)] = figs
            continue
        label, rest = m.group(1).strip(), m.group(2)
        in_errors = label == "errors"
        if label in LABELS["summary"]:
            p = rest.split()
            if len(p) >= 2 and num(p[0]) and num(p[1]):
                count, rate = LABELS["summary"][label]
                f[count], f[rate] = num(p[0]), num(p[1])
        elif label == "data":
            mm = re.match(r"^(\S+ \S+)\s+(\S+ \S+/s)$", rest.strip())
            if mm:
                f["bytes_per_s"] = bytes_of(mm.group(2))
        elif label == "duration":
            f["duration_s"] = value("duration_s", rest.split()[0])
        elif label == "status":
            f["status"] = value("status", rest)
        elif label == "errors":
            mm = re.match(r"^([\d.]+)%\s+(\d+) of (\d+)", rest)
            if mm:
                f["error_pct"], f["errors"] = num(mm.group(1)), Fig(int(mm.group(2)))
                f["attempts@errors"] = Fig(int(mm.group(3)))
        elif label == "latency":
            for k, v in re.findall(r"(\S+?)=(\S+)", rest):
                fig = LABELS["summary_latency"].get(k)
                if fig and dur_us(v):
                    f[fig] = dur_us(v)
    if codes:
        f["errors_by_code"] = Fig(codes)
    return f, classes


def k6_block(text):
    """k6's figures, from the summary's k6 lines: {figure: Fig} (attempts-side)."""
    f = {}
    for line in text.splitlines():
        m = re.match(r"^ +(http_reqs|iterations)\.{2,}: (\d+)\s+([\d.]+)/s", line)
        if m:
            f["k6 " + m.group(1)] = Fig(int(m.group(2)))
        m = re.match(r"^ +http_req_failed\.{2,}: ([\d.]+)% +(\d+) of (\d+)", line)
        if m:
            f["k6 http_req_failed %"] = num(m.group(1))
            f["k6 http_req_failed count"] = Fig(int(m.group(2)))
            f["k6 http_req_failed of"] = Fig(int(m.group(3)))
        m = re.match(r"^ +checks\.{2,}:.*\(status ✓ (\d+) ✗ (\d+)\)", line)
        if m:
            f["k6 checks status ✓"], f["k6 checks status ✗"] = Fig(int(m.group(1))), Fig(int(m.group(2)))
        m = re.match(r"^ +http_status\.{2,}: (.*)$", line)
        if m:
            st = dict((k, int(v)) for k, v in re.findall(r"(\d+)=(\d+)", m.group(1)))
            f["k6 http_status total"] = Fig(sum(st.values()))
            f["k6 http_status non-2xx"] = Fig(sum(v for k, v in st.items() if not k.startswith("2")))
    return f


def jmeter_line(text):
    # JMeter's layout: the figures right-aligned in their columns.
    m = re.search(r"^summary = +(\d+) in (\d\d):(\d\d):(\d\d) = +([\d.]+)/s Avg: +(\d+) Min: +(\d+) "
                  r"Max: +(\d+) Err: +(\d+) \(([\d.]+)%\)$", text, re.M)
    if not m:
        return None
    g = m.groups()
    return {"attempts": Fig(int(g[0])), "attempts_per_s": num(g[4]), "errors": Fig(int(g[8])),
            "error_pct": num(g[9]), "avg": int(g[5]), "min": int(g[6]), "max": int(g[7]),
            "line": m.group(0)}


def capacity_lines(text):
    """step K lines and the STEP table: {capacity_step: {figure: Fig}}."""
    out = {}
    for m in re.finditer(r"^step (\d+): offered (\d+)/s +achieved (\d+)/s +p50 (\S+) +p99 (\S+) +"
                         r"errors ([\d.]+) %", text, re.M):
        out.setdefault(("line", int(m.group(1))), {}).update(
            {"ops_per_s": Fig(float(m.group(3)), 0.5 + 0.002 * float(m.group(3))),
             "p50": dur_us(m.group(4)), "p99": dur_us(m.group(5)), "error_pct": num(m.group(6))})
    for first, figs in ws_table(text.splitlines(), LABELS["capacity"], "STEP"):
        k = 0 if first == "probe" else int(first) if first.isdigit() else None
        if k is not None:
            if "ops_per_s" in figs:
                figs["ops_per_s"].res += 0.002 * figs["ops_per_s"].v
            out[("table", k)] = figs
    return out


def closing_table(text):
    return [figs for _, figs in ws_table(text.splitlines(), LABELS["closing"], "TEST")]


def report_table(text):
    return [figs for _, figs in ws_table(text.splitlines(), LABELS["report"], "TEST")]


def compare_blocks(text):
    """Each block of compare (one a matched run): {'A': figs, 'B': figs}."""
    blocks, header, cur = [], None, None
    for line in text.splitlines():
        if re.match(r"^ +ops/s\s", line):
            header = ["side"] + line.split()
            cur = {}
            blocks.append(cur)
        elif cur is not None and re.match(r"^  ([A-Z])\s", line):
            cells = line.split()
            side = cells[0]
            # the change columns are empty on A: values are the cells that are not changes
            vals = [c for c in cells[1:] if not re.match(r"^[+-]", c)]
            labels = [h for h in header[1:] if h != "change"]
            cur[side] = columns(labels, vals, LABELS["compare"])
        elif not line.strip() and cur:
            cur = None
    return [b for b in blocks if b]


def prom_parse(text):
    out = {}
    for line in (text or "").splitlines():
        if not line or line.startswith("#"):
            continue
        m = re.match(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$', line)
        if m:
            labels = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', m.group(2) or ""))
            out.setdefault(m.group(1), []).append((labels, float(m.group(3))))
    return out


def prom_view(text):
    """{test name: {figure: Fig}} from the last scrape: the series of a test
    (one a thread count and mode) added up."""
    p, out = prom_parse(text), {}
    for metric, fig in LABELS["prom"].items():
        for labels, v in p.get(metric, []):
            if "test" in labels:
                key = fig if metric != "hsmbench_latency_seconds_count" else "successes (latency _count)"
                figs = out.setdefault(labels["test"], {})
                figs[key] = Fig(v + (figs[key].v if key in figs else 0))
    for labels, v in p.get("hsmbench_errors_total", []):
        if "test" in labels and "code" in labels:
            d = out.setdefault(labels["test"], {}).setdefault("errors_by_code", Fig({})).v
            d[labels["code"]] = d.get(labels["code"], 0) + int(v)
    return out


# ---- HTML ---------------------------------------------------------------------
class Node:
    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.parent, self.kids = tag, dict(attrs), parent, []

    def text(self):
        return "".join(k if isinstance(k, str) else k.text() for k in self.kids)

    def find(self, pred):
        for k in self.kids:
            if isinstance(k, Node):
                if pred(k):
                    yield k
                yield from k.find(pred)

    def all(self, tag):
        return list(self.find(lambda n: n.tag == tag))


VOID = {"br", "meta", "link", "img", "input", "hr", "col", "wbr", "source"}


class Tree(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = self.cur = Node("root", [], None)

    def handle_starttag(self, tag, attrs):
        n = Node(tag, attrs, self.cur)
        self.cur.kids.append(n)
        if tag not in VOID:
            self.cur = n

    def handle_startendtag(self, tag, attrs):
        self.cur.kids.append(Node(tag, attrs, self.cur))

    def handle_endtag(self, tag):
        n = self.cur
        while n is not None and n.tag != tag:
            n = n.parent
        if n is not None and n.parent is not None:
            self.cur = n.parent

    def handle_data(self, data):
        self.cur.kids.append(data)


def norm(s):
    return re.sub(r"\s+", " ", s).strip()


def table_rows(t):
    """A table's rows, each a list of (tag, text)."""
    return [[(c.tag, norm(c.text())) for c in tr.kids if isinstance(c, Node) and c.tag in ("th", "td")]
            for tr in t.all("tr")]


def kv_pairs(t):
    out = {}
    for row in table_rows(t):
        for (a, x), (b, y) in zip(row[::2], row[1::2]):
            if a == "th" and b == "td" and x:
                out[x] = y
    return out


def header_table(t, labels):
    """[(first cell, {figure: Fig}, {header: cell})] of a table whose first row is headers."""
    rows = table_rows(t)
    if not rows or any(tag != "th" for tag, _ in rows[0]):
        return []
    header = [x for _, x in rows[0]]
    return [(r[0][1] if r else "", columns(header, [x for _, x in r], labels), dict(zip(header, [x for _, x in r])))
            for r in rows[1:]]


def parse_html(text):
    t = Tree()
    t.feed(text or "")
    root = t.root
    page = {"text": norm(root.text()), "runs_table": [], "sections": [], "environment": {}}
    for sec in root.find(lambda n: n.tag == "section"):
        sid, cls = sec.attrs.get("id", ""), sec.attrs.get("class", "")
        if sid == "environment":
            for tb in sec.all("table"):
                page["environment"].update(kv_pairs(tb))
        elif sid == "runs":
            for tb in sec.all("table"):
                page["runs_table"] = header_table(tb, LABELS["html_runs"])
                break
        elif "run" in cls.split():
            h2 = sec.all("h2")
            figs, classes = {}, {}
            tables = sec.all("table")
            for tb in tables:
                if "kv" in (tb.attrs.get("class") or "").split():
                    for k, v in kv_pairs(tb).items():
                        fig = LABELS["html_run"].get(k)
                        if fig and v not in ("", "-"):
                            val = value(fig, v)
                            if val is not None:
                                figs.setdefault(fig, val)
                    break
            for h3 in sec.all("h3"):
                m = re.match(r"^by (\w+)", norm(h3.text()))
                if not m:
                    continue
                sib = h3.parent.kids[h3.parent.kids.index(h3) + 1:]
                tb = next((k for k in sib if isinstance(k, Node) and k.tag == "table"), None)
                if tb is not None:
                    for name, cf, _ in header_table(tb, LABELS["html_class"]):
                        classes[(m.group(1), name)] = cf
            charts = []
            for svg in sec.all("svg"):
                title = next((norm(x.text()) for x in svg.kids if isinstance(x, Node) and x.tag == "title"), "")
                lines = [len(re.findall(r"[-\d.]+,[-\d.]+", p.attrs.get("points", "")))
                         for p in svg.all("polyline")]
                dots = [norm(x.text()) for x in svg.find(lambda n: n.tag == "title" and n.parent.tag != "svg")]
                fig_el = svg.parent
                while fig_el is not None and fig_el.tag not in ("figure", "section"):
                    fig_el = fig_el.parent
                around = norm(fig_el.text()) if fig_el is not None and fig_el.tag == "figure" else ""
                charts.append({"title": title, "points": lines, "text": norm(svg.text()), "dots": dots,
                               "around": around})
            page["sections"].append({"id": sid, "h2": norm(h2[0].text()) if h2 else "", "figs": figs,
                                     "classes": classes, "charts": charts, "text": norm(sec.text())})
    return page


# The run section's charts: their dots' titles ("operations/s 1s: 1002").
CHARTS = {"Operations per second": {"operations/s": "per-second successes/s"},
          "Errors per second": {"errors/s": "per-second errors/s"},
          "Latency per second": {"p50": "per-second p50", "p99": "per-second p99"}}


def html_charts(charts):
    figs, codes = {}, {}
    for ch in charts:
        series = CHARTS.get(ch["title"])
        if series:
            count = {}
            for dot in ch["dots"]:
                m = re.match(r"^(\S+) \S+: (\S+)$", dot)
                if m and m.group(1) in series:
                    n = count[m.group(1)] = count.get(m.group(1), 0) + 1
                    fig = series[m.group(1)]
                    figs[f"{fig}@{n}"] = dur_us(m.group(2)) if fig.endswith(("p50", "p99")) else num(m.group(2))
        elif ch["title"] == "Errors by code":
            for dot in ch["dots"]:
                m = re.match(r"^(.+): (\d+)$", dot)
                if m:
                    codes[m.group(1)] = int(m.group(2))
    if codes:
        figs["errors_by_code"] = Fig(codes)
    return figs


def parse_csv(text):
    """[(class or '', {figure: Fig})] in the file's order."""
    rows = list(csv.reader(io.StringIO(text or "")))
    if not rows:
        return []
    header = rows[0]
    ci = next((i for i, h in enumerate(header) if h.strip().lower() == "class"), None)
    out = []
    for r in rows[1:]:
        figs = columns(header, r, LABELS["csv"])
        for k in ("p50", "p90", "p95", "p99", "lat_min", "lat_max", "lat_mean", "p50 (all)", "p90 (all)",
                  "p95 (all)", "p99 (all)", "lat_min (all)", "lat_max (all)", "lat_mean (all)"):
            i = next((j for j, h in enumerate(header) if LABELS["csv"].get(h.strip().lower()) == k), None)
            if i is not None and i < len(r) and num(r[i]):
                n = num(r[i])
                figs[k] = Fig(n.v * 1e3, n.res * 1e3, r[i] + "ms")
        ki = next((j for j, h in enumerate(header) if h.strip().lower() == "capacity (kb/s)"), None)
        if ki is not None and ki < len(r) and num(r[ki]):
            n = num(r[ki])
            figs["bytes_per_s"] = Fig(n.v * 1024, n.res * 1024, r[ki] + " KiB/s")
        out.append(((r[ci] if ci is not None and ci < len(r) else ""), figs))
    return out


# ---- the JSON, as the model -----------------------------------------------------
def model_of(run, schema):
    """The JSON's figures for a run (or a breakdown class), as Figs."""
    f = {}
    err = run.get("errors", 0)
    if schema.endswith("/2") or "attempts" not in run and schema.endswith("/1"):
        att = run.get("attempts", run.get("ops", 0))
        f["successes"], f["attempts"] = Fig(run.get("ops", 0) - err), Fig(att)
    else:
        f["successes"] = Fig(run.get("ops", 0))
        f["attempts"] = Fig(run.get("attempts", run.get("ops", 0) + err))
    f["errors"] = Fig(err)
    for k in ("error_pct", "ops_per_s", "attempts_per_s", "duration_s", "threads", "bytes_per_s", "data_size"):
        if isinstance(run.get(k), (int, float)):
            f[k] = Fig(float(run[k]), 0.005 if k != "threads" else 0)
    # A mix processes each type's own data size: its bytes are the sum over
    # the types of their successes times their size.
    if isinstance(run.get("mix"), list) and (run.get("breakdown") or {}).get("type"):
        size = {t.get("test"): t.get("data_size", 0) for t in run["mix"]}
        f["data_bytes"] = Fig(float(sum(c.get("ops", 0) * size.get(c.get("class"), 0)
                                        for c in run["breakdown"]["type"])))
    if "status" in run:
        f["status"] = Fig(run["status"])
    lat = run.get("latency_us") or {}
    for k, fig in (("min", "lat_min"), ("mean", "lat_mean"), ("p50", "p50"), ("p90", "p90"),
                   ("p95", "p95"), ("p99", "p99"), ("p999", "p999"), ("max", "lat_max")):
        if isinstance(lat.get(k), (int, float)):
            f[fig] = Fig(float(lat[k]), 0.005)
    # Every attempt's latency (the CSV's bench columns, as JMeter counts):
    # the successes' when none failed; none to compare when the file lacks it.
    alat = run.get("attempts_latency_us") or (lat if err == 0 else {})
    for k, fig in (("min", "lat_min"), ("mean", "lat_mean"), ("p50", "p50"), ("p90", "p90"),
                   ("p95", "p95"), ("p99", "p99"), ("max", "lat_max")):
        if isinstance(alat.get(k), (int, float)):
            f[fig + " (all)"] = Fig(float(alat[k]), 0.005)
    if "errors_by_code" in run:
        f["errors_by_code"] = Fig(dict(run["errors_by_code"]))
    ok = 0
    for k, ps in enumerate(run.get("per_second") or []):
        span = ps.get("span_s") or 1.0
        succ = ps.get("ops", 0) - (ps.get("errors", 0) if schema.endswith("/2") else 0)
        f[f"per-second successes/s@{k + 1}"] = Fig(succ / span, 0.0)
        f[f"per-second errors/s@{k + 1}"] = Fig(ps.get("errors", 0) / span, 0.0)
        if succ > 0:
            ok += 1
            for q in ("p50", "p99"):
                if isinstance(ps.get(q + "_us"), (int, float)):
                    f[f"per-second {q}@{ok}"] = Fig(float(ps[q + "_us"]), 0.005)
    return f


def model_refs(doc):
    """{run key: the model's figures}: (i,) a run, (i, DIM, CLASS) a breakdown class."""
    schema, refs = doc.get("schema", ""), {}
    for i, run in enumerate(doc.get("runs", [])):
        refs[(i,)] = model_of(run, schema)
        for dim, classes in (run.get("breakdown") or {}).items():
            for cl in classes:
                refs[(i, dim, cl.get("class"))] = model_of(cl, schema)
    return refs


def json_ops(run, schema):
    """The JSON's own 'ops': successes under /3 (the named case)."""
    return Fig(run.get("ops")), Fig(run.get("attempts", run.get("ops", 0)) - run.get("errors", 0))


# ---- checks -----------------------------------------------------------------------
class Cases:
    def __init__(self):
        self.n_fail = 0

    def case(self, name, problems):
        problems = [p for p in problems if p]
        if problems:
            self.n_fail += 1
            print(f"FAIL {name}: {'; '.join(problems)[:600]}")
        else:
            print(f"PASS {name}")


def load_truth(d):
    t = {}
    for line in (read(os.path.join(d, "truth")) or "").splitlines():
        if "=" in line:
            k, v = line.split("=", 1)
            t[k.strip()] = v.strip()
    return t


def diff(view, figs, ref, skip=()):
    """The first figure of view that disagrees with ref: a message, or None."""
    for fig, v in figs.items():
        if fig in skip or fig.startswith("k6 "):
            continue
        base = fig.split("@")[0].split(" (")[0]
        r = ref.get(fig, ref.get(base))
        if fig.startswith("per-second ") and r is None:
            return f"{view} {fig} {v!r}: the model has no such second"
        if r is None or v is None:
            continue
        if base == "errors_by_code":
            if {k: int(x) for k, x in v.v.items()} != {k: int(x) for k, x in r.v.items()}:
                return f"{view} {fig} {v.v} vs model {r.v}"
            continue
        if not agree(v, r, base):
            unit = "µs" if kind(fig) in LAT else " B/s" if base == "bytes_per_s" else ""
            return f"{view} {fig} {v!r} vs model {r.v:g}{unit}"
    return None


def truth_problems(name, ref, truth):
    """The model's own figures against what the run is by construction."""
    p = []
    s, a, e = ref["successes"].v, ref["attempts"].v, ref["errors"].v
    if "attempts" in truth and a != int(truth["attempts"]):
        p.append(f"attempts {a}, but --iterations {truth['attempts']}")
    if s + e != a:
        p.append(f"successes {s} + errors {e} != attempts {a}")
    rate = truth.get("error_rate")
    if rate is not None:
        r = float(rate)
        if r == 0 and e:
            p.append(f"errors {e}, none injected")
        elif r == 1 and e != a:
            p.append(f"errors {e} of {a}, every request fails")
        elif 0 < r < 1 and not (0 < e < a):
            p.append(f"errors {e} of {a}, about {r * 100:.0f} % injected")
    if "codes" in truth and e:
        codes = set((ref.get("errors_by_code") or Fig({})).v)
        if not codes or not codes <= set(truth["codes"].split(",")):
            p.append(f"errors_by_code {sorted(codes)}, injected {truth['codes']}")
    if "errors_by_code" in ref and sum(ref["errors_by_code"].v.values()) != e:
        p.append(f"errors_by_code add up to {sum(ref['errors_by_code'].v.values())}, errors {e}")
    if a and "error_pct" in ref and abs(ref["error_pct"].v - 100.0 * e / a) > 0.006:
        p.append(f"error_pct {ref['error_pct'].v} != errors/attempts {100.0 * e / a:.3f}")
    d = ref.get("duration_s")
    if d and d.v > 0 and "ops_per_s" in ref and abs(ref["ops_per_s"].v - s / d.v) > 0.01 + 0.002 * s / d.v:
        p.append(f"ops_per_s {ref['ops_per_s'].v} != successes/duration {s / d.v:.2f}")
    b, ds = ref.get("bytes_per_s"), ref.get("data_size")
    if b and "data_bytes" in ref and d and d.v > 0:
        if abs(b.v - ref["data_bytes"].v / d.v) > 1 + 0.002 * b.v:
            p.append(f"bytes_per_s {b.v:g} != the types' successes x data sizes / duration "
                     f"{ref['data_bytes'].v / d.v:.0f}")
    elif b and ds and b.v > 0 and d and d.v > 0 and abs(b.v - s * ds.v / d.v) > 1 + 0.002 * b.v:
        p.append(f"bytes_per_s {b.v:g} != successes x data_size / duration {s * ds.v / d.v:.0f}")
    if "min_latency_us" in truth and s and "lat_min" in ref and ref["lat_min"].v < 0.99 * float(truth["min_latency_us"]):
        p.append(f"latency min {ref['lat_min'].v} µs below the service time {truth['min_latency_us']} µs")
    return [f"{name}: {x}" for x in p]


def check(corpus, top):
    c = Cases()
    names = sorted(n for n in os.listdir(corpus) if os.path.isfile(os.path.join(corpus, n, "truth")))
    runs = {}
    for n in names:
        d = os.path.join(corpus, n)
        txt = read(os.path.join(d, "r.json"))
        try:
            doc = json.loads(txt)
        except (TypeError, ValueError) as e:
            c.case(f"views: {n}: the results file", [f"r.json: {e}"])
            continue
        runs[n] = (d, doc, load_truth(d))

    # ---- the named cases of issue 21 ------------------------------------------
    # "ops" means successes in every view that prints it.
    per_view_ops = {v: [] for v in ("terminal summary", "closing table", "JSON", "CSV", "HTML",
                                    "report", "Prometheus")}
    views_of = {}
    for n, (d, doc, truth) in runs.items():
        views_of[n] = extract(d, doc)
        schema = doc.get("schema", "")
        refs = model_refs(doc)
        for i, run in enumerate(doc.get("runs", [])):
            ops, succ = json_ops(run, schema)
            if not schema.endswith("/3") or ops.v != succ.v:
                per_view_ops["JSON"].append(f"{n} run {i + 1}: schema {schema} ops {ops.v}, successes {succ.v}")
            for view, key, figs in views_of[n]:
                group = "HTML" if view.startswith("HTML") else view
                ref = refs.get(key)
                if key[0] != i or group not in per_view_ops or ref is None:
                    continue
                for fig in ("successes", "successes (latency _count)", "attempts"):
                    if fig in figs and fig in ref and not isinstance(figs[fig].v, dict):
                        if figs[fig].v != ref[fig.split(" (")[0]].v and view != "Prometheus":
                            per_view_ops[group].append(
                                f"{n} {label(key)}: {'operations' if fig == 'successes' else fig} "
                                f"{figs[fig]!r}, {fig.split(' (')[0]} {ref[fig.split(' (')[0]].v}")
        # Prometheus counts every run of a test name together
        pv = prom_view(read(os.path.join(d, "prom")))
        for test, figs in pv.items():
            want = {}
            for run in doc.get("runs", []):
                if run.get("test") == test:
                    m = model_of(run, schema)
                    for k in ("successes", "attempts"):
                        want[k] = want.get(k, 0) + m[k].v
            for fig in ("successes", "successes (latency _count)", "attempts"):
                base = fig.split(" (")[0]
                if fig in figs and base in want and figs[fig].v != want[base]:
                    metric = {"successes": "hsmbench_operations_total", "attempts": "hsmbench_attempts_total",
                              "successes (latency _count)": "hsmbench_latency_seconds_count"}[fig]
                    per_view_ops["Prometheus"].append(f"{n}: {metric} {figs[fig].v:g}, {base} {want[base]}")
    for view, probs in per_view_ops.items():
        probs = list(dict.fromkeys(probs))
        probs.sort(key=lambda p: "successes" in p and p.split("ops ")[-1].split(",")[0] == p.split("successes ")[-1])
        c.case(f"views: ops means successes in {view}", probs[:3])

    # A run without a successful operation has no latency: no view prints one (0 is a claim).
    probs = []
    for n, (d, doc, truth) in runs.items():
        zero = {i for i, r in enumerate(doc.get("runs", [])) if model_of(r, doc.get("schema", ""))["successes"].v == 0}
        for view, key, figs in views_of[n]:
            if key[0] in zero and len(key) == 1:
                lat = [f"{k}={v!r}" for k, v in figs.items()
                       if k in ("p50", "p90", "p95", "p99", "p999", "lat_min", "lat_mean", "lat_max")]
                if lat:
                    probs.append(f"{n} {view}: {', '.join(lat[:2])}")
    if not any(model_of(r, doc.get("schema", ""))["successes"].v == 0
               for _, doc, _ in runs.values() for r in doc.get("runs", [])):
        probs.append("no run without a success: the corpus does not test this")
    c.case("views: no view prints a latency for a run without a successful operation",
           list(dict.fromkeys(probs))[:4])

    # A REST run over http:// makes no TLS claim; over https, a verified one.
    for n, (d, doc, truth) in runs.items():
        if "tls" not in truth:
            continue
        page = parse_html(read(os.path.join(d, "r.html")))
        tls_html = page["environment"].get("TLS", "")
        tls_json = (doc.get("environment", {}).get("endpoint") or {}).get("tls")
        if truth["tls"] == "none":
            c.case(f"views: {n}: no TLS verification claim over http:// in HTML",
                   [f"environment TLS says '{tls_html}'" if re.search(r"verif", tls_html) else None])
            c.case(f"views: {n}: no TLS verification claim over http:// in JSON",
                   [f"environment.endpoint.tls is {json.dumps(tls_json)}"
                    if isinstance(tls_json, dict) and tls_json.get("verify") else None])
        elif truth["tls"] == "verified":
            c.case(f"views: {n}: TLS verified over https, in HTML and JSON",
                   [None if re.search(r"verified: yes", tls_html) else f"HTML TLS '{tls_html}'",
                    None if isinstance(tls_json, dict) and tls_json.get("verify") is True
                    else f"JSON tls {json.dumps(tls_json)}"])

    # Two tokens: the HTML environment names both.
    for n, (d, doc, truth) in runs.items():
        if "tokens" not in truth:
            continue
        page = parse_html(read(os.path.join(d, "r.html")))
        env = page["environment"]
        rows = " | ".join(v for k, v in env.items() if k.startswith("token"))
        missing = [t for t in truth["tokens"].split(",") if not re.search(r"\b" + re.escape(t) + r"\b", rows)]
        c.case(f"views: {n}: the HTML environment table names both tokens",
               [f"token rows '{rows}' lack {', '.join(missing)}" if missing else None])

    # Capacity: failed steps not "ok", the probe not step 1, no one-dot charts.
    for n, (d, doc, truth) in runs.items():
        if "capacity" not in truth:
            continue
        cap = doc.get("capacity") or {}
        steps = cap.get("steps") or []
        page = parse_html(read(os.path.join(d, "r.html")))
        rt, rs = page["runs_table"], doc.get("runs", [])
        probs, failed = [], 0
        for i, run in enumerate(rs):
            k = run.get("capacity_step", 0)
            if k >= 1 and k <= len(steps) and not steps[k - 1].get("pass", True):
                failed += 1
                st = rt[i][2].get("status", "") if i < len(rt) else "(no row)"
                if st.strip() == "ok":
                    probs.append(f"step {k} (failed: {steps[k - 1].get('why', '')[:60]}) shows status '{st}'")
        if not failed:
            probs.append("no step failed its objective: the corpus does not test this")
        c.case(f"views: {n}: capacity steps that failed their objective do not show ok (HTML runs table)",
               probs[:2])
        probs = []
        for i, run in enumerate(rs):
            k = run.get("capacity_step")
            if k is None or i >= len(rt):
                continue
            first = rt[i][0]
            sec = page["sections"][i]["h2"] if i < len(page["sections"]) else ""
            m = re.search(r"\d+", first)
            got = int(m.group()) if m and re.fullmatch(r"(step )?\d+", first.strip()) else None
            if k == 0 and got is not None and got >= 1:
                probs.append(f"the probe is row '{first}' ({sec})")
            elif k >= 1 and got != k:
                probs.append(f"step {k} is row '{first}' ({sec})")
        if not any(r.get("capacity_step") == 0 for r in rs):
            probs.append("no probe: the corpus does not test this")
        c.case(f"views: {n}: the probe is not numbered as step 1 (HTML)", probs[:2])
        probs = []
        for i, run in enumerate(rs):
            if run.get("capacity_step", 0) < 1 or i >= len(page["sections"]):
                continue
            for ch in page["sections"][i]["charts"]:
                if "per second" in ch["title"] and ch["points"] and max(ch["points"]) <= 1:
                    probs.append(f"step {run['capacity_step']} ({run.get('duration_s')} s): "
                                 f"chart '{ch['title']}' of one dot")
                    break
        c.case(f"views: {n}: a 1 s capacity step has no per-second charts of one dot (HTML)", probs[:2])

    # JMeter: Avg/Min/Max include failed samples.
    for n, (d, doc, truth) in runs.items():
        if "jmeter" not in truth:
            continue
        j = jmeter_line(read(os.path.join(d, "out")) or "")
        if j is None:
            c.case(f"views: {n}: JMeter's summary line", ["no 'summary = ' line on stdout"])
            continue
        if truth.get("error_rate") == "1":
            c.case(f"views: {n}: JMeter's line when every request failed does not say Avg: 0 Min: 0 Max: 0",
                   [f"'{j['line']}' (the server answers after {truth.get('latency_ms', '?')} ms)"
                    if j["avg"] == 0 and j["min"] == 0 and j["max"] == 0 else None])
        lat = float(truth.get("latency_ms", 0))
        if truth.get("error_rate") == "1":
            continue
        c.case(f"views: {n}: JMeter's Avg/Min/Max (ms) are at least the server's latency",
               [f"'{j['line']}', the server answers after {lat:g} ms"
                if lat and (j["min"] < lat - 1 or j["avg"] < lat - 1) else None])

    # A mix with aes-gcm-encrypt does not say data 0 B on its page.
    for n, (d, doc, truth) in runs.items():
        if "mix" not in truth:
            continue
        page = parse_html(read(os.path.join(d, "r.html")))
        probs = []
        if re.search(r"\bdata 0 B\b", page["text"]):
            probs.append("the page says 'data 0 B'")
        for _, _, cells in page["runs_table"]:
            if cells.get("data", "").strip() == "0 B":
                probs.append("the runs table's data is '0 B'")
        c.case(f"views: {n}: a mix with {truth['mix']} does not say data 0 B (HTML)", probs)

    # A merged page's per-second p99 is labelled an upper bound.
    for n, (d, doc, truth) in runs.items():
        if "merged_from" not in truth:
            continue
        page = parse_html(read(os.path.join(d, "r.html")))
        probs = []
        charts = [ch for s in page["sections"] for ch in s["charts"]
                  if "per second" in ch["title"] and "p99" in (ch["text"] + ch["title"])]
        if not charts:
            probs.append("no per-second chart with a p99")
        for ch in charts:
            if not re.search(r"upper bound|at most|≤", ch["around"] + " " + ch["text"] + " " + ch["title"]):
                probs.append(f"chart '{ch['title']}' labels it '{'p99' if 'p99' in ch['text'] else '?'}'")
                break
        c.case(f"views: {n}: the merged page's per-second p99 is labelled an upper bound", probs)

    # --json - writes the document to standard output.
    js = os.path.join(corpus, "json-stdout")
    if os.path.isdir(js):
        probs = []
        out = read(os.path.join(js, "stdout")) or ""
        try:
            doc = json.loads(out)
            if not str(doc.get("schema", "")).startswith("hsmbench.result/"):
                probs.append("stdout is JSON but not a results document")
        except ValueError:
            probs.append(f"stdout is not the document: '{out[:80]}'")
        if os.path.exists(os.path.join(js, "-")):
            probs.append("a file named '-' was written")
        if (read(os.path.join(js, "rc")) or "").strip() != "0":
            probs.append(f"exit {(read(os.path.join(js, 'rc')) or '').strip()}")
        c.case("views: --json - writes the document to standard output", probs)

    # docs/results-schema.md names the schema the files carry.
    schemas = sorted({doc.get("schema") for _, doc, _ in runs.values()})
    md = read(os.path.join(top, "docs", "results-schema.md")) or ""
    places = [("title", r"^# .*?`(hsmbench\.result/\d+)`"),
              ("the schema field's row", r"^\| `schema` \|[^|]*\|[^|]*?\"(hsmbench\.result/\d+)\""),
              ("the checks before use", r"`schema` must be\s+`\"(hsmbench\.result/\d+)\"`"),
              ("Versions", r"carries a major version: `(hsmbench\.result/\d+)`")]
    probs = [] if len(schemas) == 1 else [f"the corpus files carry {schemas}"]
    for where, rx in places:
        m = re.search(rx, md, re.M)
        if m and schemas and m.group(1) != schemas[-1]:
            probs.append(f"{where} says {m.group(1)}, the files {schemas[-1]}")
    if not re.search(places[0][1], md, re.M):
        probs.append("no schema in the title")
    c.case("views: docs/results-schema.md names the schema the files carry", probs)

    # ---- every other figure of every view, against the model and the truth ---------
    for n, (d, doc, truth) in runs.items():
        schema = doc.get("schema", "")
        rs = doc.get("runs", [])
        refs = model_refs(doc)
        # the truth, by construction
        probs = []
        if "runs" in truth and len(rs) != int(truth["runs"]):
            probs.append(f"{len(rs)} runs, expected {truth['runs']}")
        for i, run in enumerate(rs):
            if "capacity" in truth:
                t = {k: v for k, v in truth.items() if k == "min_latency_us"}
            else:
                t = truth
            probs += truth_problems(f"run {i + 1}", refs[(i,)], t)
            ps = run.get("per_second") or []
            if ps and (sum(x.get("ops", 0) for x in ps) != run.get("ops") or
                       sum(x.get("errors", 0) for x in ps) != run.get("errors")):
                probs.append(f"run {i + 1}: the per-second counts do not add up to the run's")
            if ps and abs(sum(x.get("span_s", 0) for x in ps) - run.get("duration_s", 0)) > 0.01:
                probs.append(f"run {i + 1}: the per-second spans do not add up to duration_s")
        if "merged_from" in truth:
            gens = [json.load(open(os.path.join(corpus, g, "r.json"))) for g in truth["merged_from"].split(",")]
            for k in ("successes", "attempts", "errors"):
                want = sum(model_of(g["runs"][0], g.get("schema", ""))[k].v for g in gens)
                if rs and refs[(0,)][k].v != want:
                    probs.append(f"merged {k} {refs[(0,)][k].v}, the generators' sum {want}")
        if os.path.exists(os.path.join(d, "rc")) and truth.get("rc") != "any":
            rc = (read(os.path.join(d, "rc")) or "").strip()
            want_rc = "1" if float(truth.get("error_rate", 0)) > 0 else "0"
            if rc != want_rc:
                probs.append(f"exit {rc}, expected {want_rc}")
        for f in ("err", "report.err", "compare.err", "merge.err", "html.err"):
            if re.search(r"ERROR: \w+Sanitizer|runtime error", read(os.path.join(d, f)) or ""):
                probs.append(f"a sanitizer report in {f}")
        c.case(f"views: {n}: the model's figures are what the run is by construction", probs)
        # each view against the model
        byview = {}
        for view, key, figs in views_of.get(n, []):
            byview.setdefault(view, [])
            ref = refs.get(key)
            if ref is None:
                byview[view].append(label(key) if key[0] < 0 else
                                    f"{view} {label(key)}: no such run in the results file")
                continue
            group = "HTML" if view.startswith("HTML") else view
            skip = {OPS_CASE, "attempts", "successes (latency _count)"} if group in per_view_ops else set()
            if "capacity" in truth:
                skip.add("status")
            msg = diff(view, figs, ref, skip)
            if msg:
                byview[view].append(f"{label(key)}: {msg}")
            for k6fig, want in (("k6 http_reqs", "attempts"), ("k6 iterations", "attempts"),
                                ("k6 http_req_failed count", "errors"), ("k6 http_req_failed of", "attempts"),
                                ("k6 http_req_failed %", "error_pct"), ("k6 checks status ✓", "successes"),
                                ("k6 checks status ✗", "errors"), ("k6 http_status total", "attempts"),
                                ("k6 http_status non-2xx", "errors")):
                if k6fig in figs and want in ref and not agree(figs[k6fig], ref[want], want):
                    byview[view].append(f"{label(key)}: {k6fig} {figs[k6fig]!r} vs model {want} {ref[want]!r}")
            if view == "terminal summary" and "attempts@errors" in figs and \
                    figs["attempts@errors"].v != ref["attempts"].v:
                byview[view].append(f"{label(key)}: errors 'E of A' A={figs['attempts@errors'].v} vs "
                                    f"attempts {ref['attempts'].v}")
            if view == "terminal summary" and "successes" in figs and "attempts" in figs and \
                    figs["successes"].v + figs.get("errors", Fig(0)).v != figs["attempts"].v:
                byview[view].append(f"{label(key)}: operations {figs['successes'].v} + errors "
                                    f"{figs.get('errors', Fig(0)).v} != attempts {figs['attempts'].v}")
        # Prometheus errors by code add up over the runs of a test
        pv = prom_view(read(os.path.join(d, "prom")))
        if os.path.exists(os.path.join(d, "prom")) or os.path.exists(os.path.join(d, "rc")):
            byview.setdefault("Prometheus", [])
            if not pv:
                byview["Prometheus"].append("no figures in the last scrape: " +
                                            (read(os.path.join(d, "scrape.log")) or "").strip()[:200])
            for test, figs in pv.items():
                want = {}
                for run in rs:
                    if run.get("test") == test:
                        for code, k in (run.get("errors_by_code") or {}).items():
                            # a label value has no space: HTTP 503 is HTTP_503
                            code = code.replace(" ", "_")
                            want[code] = want.get(code, 0) + k
                got = (figs.get("errors_by_code") or Fig({})).v
                if got != want:
                    byview["Prometheus"].append(f"{test}: hsmbench_errors_total {got} vs model {want}")
        for view in sorted(byview):
            c.case(f"views: {n}: {view} agrees with the model", byview[view][:2])
        # The HTTP block of a REST run's summary (and --summary k6's) renders
        # the run's "http" object: every trend, byte count and vus figure.
        if any("http" in r for r in rs):
            c.case(f"views: {n}: the summary's HTTP block is the run's http object",
                   http_block_problems(read(os.path.join(d, "out")) or "", rs)[:3])
    return 0


# trend keys as the two HTTP blocks print them -> the JSON's members
TREND_KEYS = {"avg": "mean", "min": "min", "med": "p50", "p(90)": "p90", "p(95)": "p95",
              "p(99)": "p99", "p(99.9)": "p999", "max": "max"}


def http_trend(http, name):
    """The JSON distribution a block's trend line names."""
    k6 = http.get("k6") or {}
    if name.startswith("http_req_") and name[9:] in (http.get("phases_us") or {}):
        return http["phases_us"][name[9:]]
    if name.startswith("server_"):
        return (http.get("server_profile_us") or {}).get(name[7:])
    if name == "{ expected_response:true }":
        return k6.get("http_req_duration{expected_response:true}")
    return k6.get(name)


def http_lines_problems(lines, http, where):
    probs = []
    k6 = http.get("k6") or {}
    seen = 0
    for line in lines:
        m = re.match(r"^ {4,7}(\S.*?)\.{2,}: (.*)$", line)
        if not m:
            continue
        name, rest = m.group(1).strip(), m.group(2)
        if "=" in rest and (name.startswith(("http_req_", "server_")) or
                            name in ("iteration_duration", "{ expected_response:true }")):
            want = http_trend(http, name)
            if want is None:
                probs.append(f"{where}: {name}: no such distribution in the run's http object")
                continue
            seen += 1
            for k, v in re.findall(r"(\S+?)=(\S+)", rest):
                if k not in TREND_KEYS or dur_us(v) is None:
                    continue
                got, ref = dur_us(v), want.get(TREND_KEYS[k], 0) if want.get("count") else 0
                if not agree(got, Fig(float(ref), 0.005), "p50"):
                    probs.append(f"{where}: {name} {k}={v} vs JSON {TREND_KEYS[k]} {ref}")
        elif name in ("data_received", "data_sent"):
            seen += 1
            b = bytes_of(" ".join(rest.split()[:2]))
            want = (k6.get(name) or {}).get("count", -1)
            if b is None or not agree(b, Fig(float(want)), "bytes"):
                probs.append(f"{where}: {name} {rest!r} vs JSON count {want}")
        elif name in ("vus", "vus_max"):
            seen += 1
            mm = re.match(r"^(\d+)\s+min=(\d+) max=(\d+)", rest)
            want = k6.get(name) or {}
            if not mm or [int(x) for x in mm.groups()] != [want.get("value"), want.get("min"), want.get("max")]:
                probs.append(f"{where}: {name} {rest!r} vs JSON {want}")
    if not seen:
        probs.append(f"{where}: no HTTP block")
    return probs


def http_block_problems(text, rs):
    """Every figure of the REST runs' HTTP blocks against their http objects."""
    probs = []
    plain = [i for i, r in enumerate(rs) if "capacity_step" not in r and r.get("status") != "skipped"]
    blocks = summary_blocks(text)
    for i, b in zip(plain, blocks):
        http = rs[i].get("http")
        if http:
            # the summary's own block; --summary k6 prints k6's after it
            own = "\n".join(b).split("\n\n     ")
            probs += http_lines_problems(own[0].splitlines(), http, f"run {i + 1} summary")
            if len(own) > 1 and len(plain) == 1:
                probs += http_lines_problems("\n".join(own[1:]).splitlines(), http, f"run {i + 1} k6 block")
    return probs


def label(key):
    if key[0] == -1:
        return "the runs (a view shows another number of runs than the results file)"
    if key[0] == -2:
        return f"the runs (the results file has {key[1]}, the view {key[2]})"
    return f"run {key[0] + 1}" + (f" {key[1]} {key[2]}" if len(key) > 1 else "")


def extract(d, doc):
    """[(view, run key, {figure: Fig})] for every view of the corpus run in d."""
    out = []
    rs = doc.get("runs", [])
    keys_in_order = [(i,) for i in range(len(rs))]
    text = read(os.path.join(d, "out"))
    if text is not None:
        blocks = summary_blocks(text)
        cap = [i for i, r in enumerate(rs) if "capacity_step" in r]
        plain = [i for i, r in enumerate(rs) if "capacity_step" not in r and r.get("status") != "skipped"]
        for i, b in zip(plain, blocks):
            figs, classes = parse_summary(b)
            figs.update(k6_block("\n".join(b)))
            out.append(("terminal summary", (i,), figs))
            for (dim, name), cf in classes.items():
                out.append(("terminal summary", (i, dim, name), cf))
        if len(blocks) != len(plain):
            out.append(("terminal summary", (-1,), {}))
        if len(plain) > 1:
            rows = closing_table(text)
            if len(rows) != len(plain):
                out.append(("closing table", (-1,), {}))
            for i, figs in zip(plain, rows):
                out.append(("closing table", (i,), figs))
        if cap:
            lines = capacity_lines(text)
            for i in cap:
                k = rs[i]["capacity_step"]
                for where in ("line", "table"):
                    if (where, k) in lines:
                        out.append(("capacity " + ("step lines" if where == "line" else "table"), (i,),
                                    lines[(where, k)]))
        k6end = text.split("\n\n     ")  # --summary k6: k6's own block at the end (same figures)
        if len(k6end) > 1 and len(plain) == 1:
            f = {}
            for m in re.finditer(r"^ {5}(http_reqs|iterations)\.+: (\d+) ", text, re.M):
                f["k6 " + m.group(1)] = Fig(int(m.group(2)))
            m = re.search(r"^ {5}http_req_failed\.+: ([\d.]+)% ✓ (\d+) ✗ (\d+)", text, re.M)
            if m:   # k6's style: ✓ counts the failed requests
                f["k6 http_req_failed %"], f["k6 http_req_failed count"] = num(m.group(1)), Fig(int(m.group(2)))
                f["k6 http_req_failed of"] = Fig(int(m.group(2)) + int(m.group(3)))
            m = re.search(r"^ {5}checks\.+: [\d.]+% ✓ (\d+) ✗ (\d+)", text, re.M)
            if m:
                f["k6 checks status ✓"], f["k6 checks status ✗"] = Fig(int(m.group(1))), Fig(int(m.group(2)))
            out.append(("k6 summary", (plain[0],), f))
        j = jmeter_line(text)
        if j and len(plain) == 1:
            out.append(("JMeter line", (plain[0],), {k: v for k, v in j.items()
                                                     if k in ("attempts", "attempts_per_s", "errors", "error_pct")}))
    rows = parse_csv(read(os.path.join(d, "r.csv")))
    if rows:
        idx, keys = -1, []
        for cls, _ in rows:
            if not cls:
                idx += 1
                keys.append((idx,))
            else:
                dim, _, name = cls.partition("=")
                keys.append((idx, dim, name))
        for key, (_, figs) in zip(keys, rows):
            out.append(("CSV", key, figs))
        if idx + 1 != len(rs):
            out.append(("CSV", (-2, len(rs), idx + 1), {}))
    html_text = read(os.path.join(d, "r.html"))
    if html_text:
        page = parse_html(html_text)
        for i, (_, figs, _) in enumerate(page["runs_table"]):
            out.append(("HTML runs table", (i,), figs))
        for i, s in enumerate(page["sections"]):
            out.append(("HTML run section", (i,), s["figs"]))
            for (dim, name), cf in s["classes"].items():
                out.append(("HTML run section", (i, dim, name), cf))
            out.append(("HTML charts", (i,), html_charts(s["charts"])))
        if len(page["runs_table"]) != len(rs) or len(page["sections"]) != len(rs):
            out.append(("HTML", (-1,), {}))
    rep = read(os.path.join(d, "report.out"))
    if rep is not None:
        rows = report_table(rep)
        for i, figs in enumerate(rows):
            out.append(("report", (i,), figs))
        if len(rows) != len(rs):
            out.append(("report", (-1,), {}))
    cmp_ = read(os.path.join(d, "compare.out"))
    if cmp_ is not None:
        blocks = compare_blocks(cmp_)
        for i, b in enumerate(blocks):
            for side, figs in b.items():
                out.append(("compare", (i,), figs))
        if len(blocks) != len([r for r in rs if r.get("status") != "skipped"]):
            out.append(("compare", (-1,), {}))
    return out


# ---- scrape -------------------------------------------------------------------------
def scrape(errfile, jsonfile, outfile):
    """Wait for the metrics URL on stderr and for the results file, then scrape once
    (the listener lingers after the run): the final figures."""
    url = None
    for _ in range(600):
        if url is None:
            m = re.search(r"^hsmbench: metrics on (http\S+)$", read(errfile) or "", re.M)
            url = m.group(1) if m else None
        if url and os.path.exists(jsonfile) and os.path.getsize(jsonfile) > 0:
            time.sleep(0.2)
            try:
                with urllib.request.urlopen(url, timeout=5) as r:
                    with open(outfile, "w") as f:
                        f.write(r.read().decode())
                return 0
            except OSError as e:
                print(f"scrape {url}: {e}")
                return 1
        time.sleep(0.1)
    print(f"no metrics URL or no results file (url {url})")
    return 1


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "scrape":
        sys.exit(scrape(*sys.argv[2:5]))
    if len(sys.argv) == 3 and sys.argv[1] == "dump":     # what each view shows, by hand
        doc = json.load(open(os.path.join(sys.argv[2], "r.json")))
        for view, key, figs in extract(sys.argv[2], doc):
            print(view, label(key), figs)
        print("Prometheus", prom_view(read(os.path.join(sys.argv[2], "prom"))))
        sys.exit(0)
    if len(sys.argv) == 4 and sys.argv[1] == "check":
        sys.exit(check(sys.argv[2], sys.argv[3]))
    sys.exit("usage: views.py scrape ERRFILE RESULTS.json OUT | check CORPUS TOP")
