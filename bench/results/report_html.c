/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/results/report_html.c - the HTML report: one self-contained page.
 *
 * Everything is drawn here, in C, as inline SVG: no script runs, no font,
 * style sheet or image is fetched (the page's Content-Security-Policy forbids
 * it, so a mistake shows up as a console error in the tests rather than as a
 * page that silently phones home).  Every string from the results file is
 * escaped before it reaches the page.
 */
#include "bench/results/report_html.h"
#include "bench/results/text.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/results/capanswer.h"
#include "bench/results/codec.h"
#include "bench/results/html.h"
#include "bench/results/model.h"
#include "bench/util/cli.h"
#include "bench/core/hist.h"
#include "bench/results/report.h"
#include "bench/results/repeat.h"
#include "bench/results/scalability.h"
#include "bench/results/target.h"
#include "bench/results/usl.h"
#include "bench/results/threshold.h"

/* ---- escaping and formatting -------------------------------------------- */

/* Text or attribute content: & < > " ' escaped, control characters dropped
 * (jansson has already refused invalid UTF-8). */
static void esc(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        switch (c) {
        case '&':  fputs("&amp;", f); break;
        case '<':  fputs("&lt;", f); break;
        case '>':  fputs("&gt;", f); break;
        case '"':  fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default:
            if (c < 0x20 && c != '\t' && c != '\n')
                fputc(' ', f);
            else if (c == 0x7f)
                fputc(' ', f);
            else
                fputc(c, f);
        }
    }
}

/* A number for an axis or a table: 950, 12.5k, 3.2M. */
static const char *fmt_num(double v, char *buf, size_t len)
{
    double a = fabs(v);
    if (a >= 1e9)
        snprintf(buf, len, "%.3gG", v / 1e9);
    else if (a >= 1e6)
        snprintf(buf, len, "%.3gM", v / 1e6);
    else if (a >= 1e4)
        snprintf(buf, len, "%.3gk", v / 1e3);
    else
        snprintf(buf, len, "%.4g", v);
    return buf;
}

static const char *fmt_us(double us, char *buf, size_t len)
{
    return bench_fmt_ns(us * 1000.0, buf, (unsigned)len);
}

/* ---- charts ----------------------------------------------------------------- */

#define CW 560      /* chart width and height, in SVG units (= CSS px) */
#define CH 280
#define ML 70       /* margins: left (y labels), right, top (title, legend), bottom */
#define MR 40       /* room for half of "99.99999%" under the last tick */
#define MT 44
#define MB 46
#define MAX_TICKS 12

/* AX_LOG: lo and hi on the 1-2-5 ladder (log_axis), the values placed by
 * log10.  The rule of every chart: a latency axis is always logarithmic
 * (latency_axis), whatever the run's range, so that two runs' charts read
 * alike and a tail never flattens the body; a chart whose lines are
 * different tests (a datasheet family) has a logarithmic rate axis (see
 * ds_family); every other axis is linear from 0 and holds one quantity. */
enum { AX_LINEAR, AX_HDR, AX_CAT, AX_LOG };
enum { FMT_NUM, FMT_US, FMT_SEC, FMT_BYTES };

typedef struct axis {
    double lo, hi;
    int    kind;
    int    fmt;
    const char *label;
    const char *const *cat;     /* AX_CAT: a label per position 0..ncat-1 */
    size_t ncat;
} axis;

typedef struct series {
    const double *x, *y;
    size_t n;
    const char *name;
    const char *color;
    int dashed;
} series;

static const char *const palette[] = { "#1f6fb4", "#e8730c", "#2a9d3a", "#c0392b", "#7b4fa6" };

/* Where v falls between the axis' ends, 0 to 1 (log10 on a log axis; values
 * at or below 0 there sit on its lower end). */
static double frac(const axis *a, double v)
{
    if (a->kind == AX_LOG) {
        double lo = log10(a->lo);
        return v > a->lo ? (log10(v) - lo) / (log10(a->hi) - lo) : 0;
    }
    return (v - a->lo) / (a->hi - a->lo);
}

static double px(const axis *a, double v)
{
    return ML + frac(a, v) * (CW - ML - MR);
}

static double py(const axis *a, double v)
{
    return (CH - MB) - frac(a, v) * (CH - MT - MB);
}

/* 1, 2 or 5 times a power of ten, near range / want. */
static double nice_step(double range, int want)
{
    double raw = range / want;
    double mag = pow(10, floor(log10(raw)));
    double m = raw / mag;
    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * mag;
}

/* The 1-2-5 ladder: the largest of 1, 2, 5 x 10^k at or below v (up: the
 * smallest at or above). */
static double ladder(double v, int up)
{
    static const double m[] = { 1, 2, 5, 10 };
    const double mag = pow(10, floor(log10(v)));
    if (up) {
        for (size_t i = 0; i < 4; i++)
            if (m[i] * mag >= v * (1 - 1e-9))
                return m[i] * mag;
        return 10 * mag;
    }
    for (size_t i = 4; i-- > 0;)
        if (m[i] * mag <= v * (1 + 1e-9))
            return m[i] * mag;
    return mag;
}

/* A log axis from the smallest positive value lo to hi: its ends on the
 * 1-2-5 ladder, at least a step apart; label is the quantity, with "(log
 * scale)" after it so the page says so. */
static void log_axis(axis *a, double lo, double hi, const char *label)
{
    a->kind = AX_LOG;
    a->label = label;
    if (!(lo > 0) || !isfinite(lo))
        lo = hi > 0 && isfinite(hi) ? hi : 1;
    if (!(hi >= lo) || !isfinite(hi))
        hi = lo;
    if (a->fmt == FMT_BYTES) {    /* binary units: ends at powers of two */
        a->lo = exp2(floor(log2(lo)));
        a->hi = exp2(ceil(log2(hi)));
        if (!(a->hi > a->lo))
            a->hi = 2 * a->lo;
        return;
    }
    a->lo = ladder(lo, 0);
    a->hi = ladder(hi, 1);
    if (!(a->hi > a->lo))
        a->hi = ladder(a->lo * 1.5, 1);
}

/* The latency axis of every chart (µs): logarithmic, always. */
static void latency_axis(axis *a, double lo_us, double hi_us, const char *label)
{
    log_axis(a, lo_us, hi_us, label ? label : "latency (log scale)");
    a->fmt = FMT_US;
}

/* The smallest positive and the largest finite y of some series. */
static void y_range(const series *s, size_t ns, double *lo, double *hi)
{
    *lo = INFINITY;
    *hi = 0;
    for (size_t i = 0; i < ns; i++)
        for (size_t k = 0; k < s[i].n; k++) {
            const double v = s[i].y[k];
            if (isfinite(v) && v > 0) {
                *lo = fmin(*lo, v);
                *hi = fmax(*hi, v);
            }
        }
}

static size_t linear_ticks(const axis *a, double *out)
{
    double step = nice_step(a->hi - a->lo, 5);
    size_t n = 0;
    for (double v = ceil(a->lo / step) * step; v <= a->hi + step * 1e-9 && n < MAX_TICKS; v += step)
        out[n++] = fabs(v) < step * 1e-9 ? 0 : v;
    return n;
}

static const char *tick_label(const axis *a, double v, char *buf, size_t len)
{
    if (a->kind == AX_CAT) {
        size_t i = (size_t)llround(v);
        snprintf(buf, len, "%s", i < a->ncat ? a->cat[i] : "");
    } else if (a->kind == AX_HDR) {
        /* 0 -> 0%, 1 -> 90%, 2 -> 99%, 3 -> 99.9%, ... */
        int k = (int)llround(v);
        if (k <= 0)
            snprintf(buf, len, "0%%");
        else if (k == 1)
            snprintf(buf, len, "90%%");
        else if (k == 2)
            snprintf(buf, len, "99%%");
        else {
            char nines[16] = "";
            for (int i = 0; i < k - 2 && i < 12; i++)
                nines[i] = '9';
            snprintf(buf, len, "99.%s%%", nines);
        }
    } else if (a->fmt == FMT_US) {
        fmt_us(v, buf, len);
    } else if (a->fmt == FMT_SEC) {
        snprintf(buf, len, "%gs", v);
    } else if (a->fmt == FMT_BYTES) {     /* binary units, as the tables; the axis says "per second" */
        bench_fmt_bytes(v, buf, (unsigned)len);
    } else {
        fmt_num(v, buf, len);
    }
    return buf;
}

static size_t axis_ticks(const axis *a, double *out)
{
    size_t n = 0;
    if (a->kind == AX_CAT) {
        for (size_t i = 0; i < a->ncat && n < MAX_TICKS * 4; i++)
            out[n++] = (double)i;
        return n;
    }
    if (a->kind == AX_HDR) {
        for (double v = 0; v <= a->hi + 1e-9 && n < MAX_TICKS; v += 1)
            out[n++] = v;
        return n;
    }
    if (a->kind == AX_LOG && a->fmt == FMT_BYTES) {
        /* Powers of two, a few octaves apart: 1 KiB/s, 16 KiB/s, 256 KiB/s. */
        const double step = exp2(fmax(1, ceil(log2(a->hi / a->lo) / 6)));
        for (double v = a->lo; v <= a->hi * (1 + 1e-9) && n < MAX_TICKS; v *= step)
            out[n++] = v;
        return n;
    }
    if (a->kind == AX_LOG) {
        /* Over more than three decades each power of ten; over two or
         * three 1 and 3 times each; over fewer the 1-2-5 ladder; within
         * less than a step of it a finer one (some 4 to 9 labels). */
        static const double one[] = { 1 }, three[] = { 1, 3 }, coarse[] = { 1, 2, 5 },
                            fine[] = { 1, 1.5, 2, 3, 4, 5, 6, 8 };
        const double decades = log10(a->hi / a->lo);
        const double *m = decades > 3.2 ? one : decades > 1.8 ? three : decades >= 0.5 ? coarse : fine;
        const size_t nm = decades > 3.2 ? 1 : decades > 1.8 ? 2 : decades >= 0.5 ? 3 : sizeof fine / sizeof fine[0];
        for (double d = pow(10, floor(log10(a->lo))); d <= a->hi * (1 + 1e-9) && n < MAX_TICKS * 4; d *= 10)
            for (size_t i = 0; i < nm && n < MAX_TICKS * 4; i++)
                if (m[i] * d >= a->lo * (1 - 1e-9) && m[i] * d <= a->hi * (1 + 1e-9))
                    out[n++] = m[i] * d;
        return n;
    }
    return linear_ticks(a, out);
}

static void chart_begin(FILE *f, const char *title)
{
    fprintf(f, "<figure class=\"chart\"><svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" "
            "width=\"%d\" height=\"%d\" role=\"img\"><title>", CW, CH, CW, CH);
    esc(f, title);
    fprintf(f, "</title><rect class=\"bg\" x=\"0\" y=\"0\" width=\"%d\" height=\"%d\"/>"
            "<text class=\"ct\" x=\"%d\" y=\"18\">", CW, CH, ML);
    esc(f, title);
    fputs("</text>", f);
}

static void chart_end(FILE *f)
{
    fputs("</svg></figure>\n", f);
}

static void chart_empty(FILE *f, const char *title, const char *why)
{
    chart_begin(f, title);
    fprintf(f, "<text class=\"none\" x=\"%d\" y=\"%d\">", CW / 2, CH / 2);
    esc(f, why);
    fputs("</text>", f);
    chart_end(f);
}

static void axes(FILE *f, const axis *x, const axis *y)
{
    double t[MAX_TICKS * 4];
    char lab[48];
    size_t n = axis_ticks(y, t);
    for (size_t i = 0; i < n; i++) {
        double yy = py(y, t[i]);
        fprintf(f, "<line class=\"grid\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>", ML, yy, CW - MR, yy);
        fprintf(f, "<text class=\"yl\" x=\"%d\" y=\"%.1f\">", ML - 6, yy + 4);
        esc(f, tick_label(y, t[i], lab, sizeof lab));
        fputs("</text>", f);
    }
    n = axis_ticks(x, t);
    /* Thin the labels of a crowded categorical axis. */
    size_t every = x->kind == AX_CAT && n > 12 ? (n + 11) / 12 : 1;
    for (size_t i = 0; i < n; i++) {
        double xx = px(x, t[i]);
        fprintf(f, "<line class=\"tick\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>", xx, CH - MB, xx,
                CH - MB + 4);
        if (i % every)
            continue;
        fprintf(f, "<text class=\"xl\" x=\"%.1f\" y=\"%d\">", xx, CH - MB + 17);
        esc(f, tick_label(x, t[i], lab, sizeof lab));
        fputs("</text>", f);
    }
    fprintf(f, "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>", ML, CH - MB, CW - MR, CH - MB);
    fprintf(f, "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>", ML, MT - 6, ML, CH - MB);
    fprintf(f, "<text class=\"al\" x=\"%d\" y=\"%d\">", (ML + CW - MR) / 2, CH - 8);
    esc(f, x->label);
    fprintf(f, "</text><text class=\"al\" transform=\"translate(14 %d) rotate(-90)\">", (MT + CH - MB) / 2);
    esc(f, y->label);
    fputs("</text>", f);
}

static void legend(FILE *f, const series *s, size_t ns)
{
    double x = ML;
    for (size_t i = 0; i < ns; i++) {
        fprintf(f, "<line x1=\"%.1f\" y1=\"32\" x2=\"%.1f\" y2=\"32\" stroke=\"%s\" stroke-width=\"2.5\"%s/>", x,
                x + 18, s[i].color, s[i].dashed ? " stroke-dasharray=\"5 3\"" : "");
        fprintf(f, "<text class=\"lg\" x=\"%.1f\" y=\"36\">", x + 23);
        esc(f, s[i].name);
        fputs("</text>", f);
        x += 23 + 7.0 * (double)strlen(s[i].name) + 16;
    }
}

/* y axis from 0 to a little above the largest value. */
static double y_top(const series *s, size_t ns)
{
    double top = 0;
    for (size_t i = 0; i < ns; i++)
        for (size_t k = 0; k < s[i].n; k++)
            if (isfinite(s[i].y[k]) && s[i].y[k] > top)
                top = s[i].y[k];
    if (top <= 0)
        return 1;
    double step = nice_step(top * 1.08, 5);
    return ceil(top * 1.08 / step) * step;
}

/* Points of one series; a point is drawn as a dot when there are few. */
static void plot(FILE *f, const axis *x, const axis *y, const series *s, const axis *fmt_y)
{
    if (s->n == 0)
        return;
    fprintf(f, "<polyline class=\"ln\" stroke=\"%s\"%s points=\"", s->color,
            s->dashed ? " stroke-dasharray=\"5 3\"" : "");
    for (size_t k = 0; k < s->n; k++)
        if (isfinite(s->x[k]) && isfinite(s->y[k]))
            fprintf(f, "%s%.1f,%.1f", k ? " " : "", px(x, s->x[k]), py(y, s->y[k]));
    fputs("\"/>", f);
    if (s->n > 60)
        return;
    for (size_t k = 0; k < s->n; k++) {
        char xl[48], yl[48];
        if (!isfinite(s->x[k]) || !isfinite(s->y[k]))
            continue;
        fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.6\" fill=\"%s\"><title>", px(x, s->x[k]),
                py(y, s->y[k]), s->color);
        esc(f, s->name);
        fputs(" ", f);
        if (x->kind == AX_HDR)   /* a point between the ticks: its own percentile */
            snprintf(xl, sizeof xl, "p(%.5g)", 100.0 * (1.0 - pow(10, -s->x[k])));
        else
            tick_label(x, s->x[k], xl, sizeof xl);
        esc(f, xl);
        fputs(": ", f);
        esc(f, tick_label(fmt_y, s->y[k], yl, sizeof yl));
        fputs("</title></circle>", f);
    }
}

/* A vertical mark on a chart: the knee, the peak. */
typedef struct mark {
    double x;
    const char *label;
    const char *color;
} mark;

static void line_chart_marked(FILE *f, const char *title, axis *x, axis *y, const series *s, size_t ns,
                              const mark *mk, size_t nmk)
{
    size_t points = 0;
    for (size_t i = 0; i < ns; i++)
        points += s[i].n;
    if (points == 0) {
        chart_empty(f, title, "no data");
        return;
    }
    if (!(x->hi > x->lo))
        x->hi = x->lo + 1;
    if (y->kind == AX_LOG) {      /* a log axis spans the values, on the ladder */
        double lo, hi;
        y_range(s, ns, &lo, &hi);
        log_axis(y, lo, hi, y->label);
    } else {
        y->lo = 0;
        y->hi = y_top(s, ns);
    }
    chart_begin(f, title);
    axes(f, x, y);
    legend(f, s, ns);
    for (size_t i = 0; i < ns; i++)
        plot(f, x, y, &s[i], y);
    for (size_t i = 0; i < nmk; i++) {
        if (!isfinite(mk[i].x) || mk[i].x < x->lo || mk[i].x > x->hi)
            continue;
        const double xx = px(x, mk[i].x);
        fprintf(f, "<line class=\"mark\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\" "
                "stroke-dasharray=\"2 3\"/><text class=\"mk\" x=\"%.1f\" y=\"%d\" fill=\"%s\">",
                xx, CH - MB, xx, MT + 4, mk[i].color, xx + 3, MT + 4 + 12 * (int)(i + 1), mk[i].color);
        esc(f, mk[i].label);
        fputs("</text>", f);
    }
    chart_end(f);
}

static void line_chart(FILE *f, const char *title, axis *x, axis *y, const series *s, size_t ns)
{
    line_chart_marked(f, title, x, y, s, ns, NULL, 0);
}

/* The page's charts and units, stated where they are read: the footer. */
static const char axes_rule[] =
    " Each chart axis holds one quantity. Every latency axis is logarithmic (labelled log scale), "
    "whatever the run's range, so that charts of different runs read alike; a datasheet family's "
    "rate axes, a line a test, are logarithmic too; every other axis is linear from 0. Sizes and "
    "byte rates are in binary units (1 KiB = 1024 B).";

/* ---- document parts -------------------------------------------------------- */

static const char style[] =
    "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:24px auto;max-width:1180px;"
    "padding:0 16px;color:#1d2430;background:#fff}"
    "h1{font-size:1.6em;margin:0 0 4px}h2{font-size:1.25em;margin:28px 0 6px;border-bottom:1px solid #d5dae1;"
    "padding-bottom:4px}h3{font-size:1.05em;margin:18px 0 6px}"
    ".sub{color:#5a6473;margin:0 0 10px}"
    "table{border-collapse:collapse;margin:6px 0 12px;font-size:.92em}"
    "th,td{padding:4px 10px;border-bottom:1px solid #e3e7ec;text-align:left;vertical-align:top}"
    "td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}"
    "table.kv th{color:#5a6473;font-weight:normal}"
    "code{font-family:ui-monospace,monospace;font-size:.92em;word-break:break-all}"
    ".charts{display:flex;flex-wrap:wrap;gap:12px}"
    "figure.chart{margin:0;border:1px solid #e3e7ec;border-radius:6px}"
    "svg text{font-family:system-ui,sans-serif;font-size:11px;fill:#3a4453}"
    "svg .ct{font-size:13px;font-weight:600;fill:#1d2430}"
    "svg .yl{text-anchor:end}svg .xl{text-anchor:middle}svg .al{text-anchor:middle;fill:#5a6473}"
    "svg .none{text-anchor:middle;fill:#8a94a3;font-size:13px}"
    "svg .bg{fill:#fff}svg .grid{stroke:#eceff3}svg .axis,svg .tick{stroke:#9aa4b1}"
    "svg .ln{fill:none;stroke-width:2;stroke-linejoin:round}"
    "svg .mark{stroke-width:1.5}svg text.mk{font-size:11px}"
    "pre.scal{font-size:.88em;background:#f6f8fa;padding:8px 10px;border-radius:6px;white-space:pre-wrap}"
    "svg .bar{fill:#c0392b}svg .bar.good{fill:#2a9d3a}"
    ".ok{color:#2a7d34}.bad{color:#b3261e}.warn{color:#a15c00}"
    "ul.th{list-style:none;padding-left:4px}ul.th li{margin:2px 0}"
    "footer{margin-top:32px;color:#8a94a3;font-size:.85em}";

static void kv(FILE *f, const char *k, const char *v)
{
    if (!v)
        return;
    fputs("<tr><th>", f);
    esc(f, k);
    fputs("</th><td>", f);
    esc(f, v);
    fputs("</td></tr>\n", f);
}

/* A string of the document, or what stands for it when it does not say. */
static const char *said(const char *s, const char *dflt)
{
    return s ? s : dflt;
}

static const char *yes_no(int v)
{
    return v < 0 ? "?" : v ? "yes" : "no";
}

/* What was measured (environment.target, or derived for older files), and
 * for REST files the endpoint: URL, service, TLS and HTTP settings, client. */
static void target_rows(FILE *f, const bench_doc_model *d)
{
    const json_t *doc = d->doc;
    const bench_doc_facts *x = &d->facts;
    bench_target t;
    char buf[512];
    if (bench_target_of(doc, &t) >= 0) {
        fputs("<tr><th>target</th><td><b>", f);
        esc(f, t.name);
        fputs("</b> <span class=\"sub\">(", f);
        esc(f, strcmp(t.kind, "pkcs11") == 0 ? "PKCS#11" : strcmp(t.kind, "rest") == 0 ? "REST" : t.kind);
        fputs(")</span><br><code>", f);
        esc(f, t.id);
        fputs("</code></td></tr>\n", f);
    }
    if (x->has_endpoint) {
        fputs("<tr><th>endpoint</th><td><code>", f);
        esc(f, said(x->url, "?"));
        fputs("</code></td></tr>\n", f);
        kv(f, "service", x->service);
        kv(f, "plain URL", x->plain_url);
        bench_model_tls tls;
        bench_model_doc_tls(doc, &tls);
        kv(f, "TLS", bench_model_tls_text(&tls, buf, sizeof buf));
        snprintf(buf, sizeof buf, "HTTP %s · connection reuse: %s · timeout %gs", said(x->http_version, "?"),
                 yes_no(x->connection_reuse), x->timeout_s);
        kv(f, "HTTP", buf);
    }
    if (x->has_client) {
        const char *tl = said(x->tls_library, "");
        snprintf(buf, sizeof buf, "libcurl %s%s%s", said(x->libcurl, "?"), *tl ? " · " : "", tl);
        kv(f, "client", buf);
    }
}

static void environment(FILE *f, const bench_doc_model *d)
{
    const bench_doc_facts *x = &d->facts;
    char buf[256];

    /* The document's facts (TLS, tokens) as the model of its first run has them. */
    const bench_run_model *m = d->nruns ? &d->runs[0] : NULL;
    fputs("<section id=\"environment\"><h2>Environment</h2><table class=\"kv\">\n", f);
    target_rows(f, d);
    if (x->has_module) {
        snprintf(buf, sizeof buf, "%s (%s)", said(x->module_name, "?"), said(x->module_path, "?"));
        kv(f, "module", buf);
        snprintf(buf, sizeof buf, "%s · %s %s · Cryptoki %s", said(x->module_manufacturer, "?"),
                 said(x->library, "?"), said(x->library_version, "?"), said(x->cryptoki_version, "?"));
        kv(f, "library", buf);
    }
    if (x->has_token) {
        snprintf(buf, sizeof buf, "%s (slot %lld) · %s %s · serial %s", said(x->token_label, "?"), x->token_slot,
                 said(x->token_manufacturer, "?"), said(x->token_model, "?"), said(x->token_serial, "?"));
        kv(f, "token", buf);
    }
    if (m && m->ntokens > 1) {
        /* a run over several tokens: every one of them */
        fputs("<tr><th>tokens</th><td>", f);
        for (size_t k = 0; k < m->ntokens; k++) {
            if (k)
                fputs("<br>", f);
            esc(f, m->tokens[k]);
        }
        fputs("</td></tr>\n", f);
    }
    if (x->has_host) {
        snprintf(buf, sizeof buf, "%s · %s %s %s · %lld CPUs", said(x->hostname, "?"), said(x->os, "?"),
                 said(x->kernel, "?"), said(x->machine, "?"), x->cpus);
        kv(f, "host", buf);
    }
    if (x->has_command) {
        fputs("<tr><th>command</th><td><code>", f);
        for (size_t i = 0; i < x->ncommand; i++) {
            if (i)
                fputc(' ', f);
            esc(f, said(x->command[i], "?"));
        }
        fputs("</code></td></tr>\n", f);
    }
    kv(f, "started", x->started_at);
    if (x->has_merged_from) {
        fputs("<tr><th>merged from</th><td>", f);
        for (size_t i = 0; i < x->nmerged_from; i++) {
            if (i)
                fputs(", ", f);
            esc(f, said(x->merged_from[i], "?"));
        }
        fputs("</td></tr>\n", f);
    }
    kv(f, "hsmbench", x->version);
    fputs("</table></section>\n", f);
}

/* "rsa-pkcs-sign · CKM_SHA256_RSA_PKCS · RSA 2048 · data 32 B · 2 threads · blocking";
 * a run of several operations with no one data size (a mix) names none. */
static void run_title(const bench_run_model *m, char *buf, size_t len)
{
    char data[48] = "";
    if (m->block_size)
        snprintf(data, sizeof data, " · block %llu B", (unsigned long long)m->block_size);
    else if (strcmp(m->data_text, "-") != 0)
        snprintf(data, sizeof data, " · data %s", m->data_text);
    snprintf(buf, len, "%s%s%s%s%s%s · %u thread%s · %s", m->name, *m->mechanism ? " · " : "",
             m->mechanism, strcmp(m->key, "-") ? " · " : "", strcmp(m->key, "-") ? m->key : "", data,
             m->threads, m->threads == 1 ? "" : "s", m->mode);
}

/* A run's row label: "probe" and "step N" in a capacity search, else its number. */
static const char *row_label(const bench_run_model *m, size_t i, char *buf, size_t len)
{
    if (m->capacity_step == 0)
        snprintf(buf, len, "probe");
    else if (m->capacity_step > 0)
        snprintf(buf, len, "step %lld", m->capacity_step);
    else
        snprintf(buf, len, "%zu", i + 1);
    return buf;
}

/* A run's status; a capacity step's is the objectives' verdict on it (a
 * step whose run failed, say as saturated, failed them, and says why). */
static void status_text(FILE *f, const bench_run_model *m)
{
    if (m->step_judged && (bench_model_status_sound(m->status) || !m->step_pass)) {
        fprintf(f, "<span class=\"%s\">", m->step_pass ? "ok" : "bad");
        esc(f, m->step_pass ? "passed objectives" : "failed objectives");
        if (!m->step_pass && *m->step_why) {
            fputs(": ", f);
            esc(f, m->step_why);
        }
        fputs("</span>", f);
        return;
    }
    esc(f, m->status);
}

static void summary_table(FILE *f, const bench_doc_model *d)
{
    char a[48], b[48], c[48];
    fputs("<section id=\"runs\"><h2>Runs</h2><table><tr><th>#</th><th>test</th><th>key</th>"
          "<th class=\"n\">data</th><th class=\"n\">threads</th><th>status</th><th class=\"n\">operations</th>"
          "<th class=\"n\">ops/s</th><th class=\"n\">p50</th><th class=\"n\">p99</th><th class=\"n\">errors</th>"
          "</tr>\n", f);
    for (size_t i = 0; i < d->nruns; i++) {
        const bench_run_model *m = &d->runs[i];
        fprintf(f, "<tr><td>%s</td><td><a href=\"#run-%zu\">", row_label(m, i, a, sizeof a), i + 1);
        esc(f, m->name);
        fputs("</a></td><td>", f);
        esc(f, m->key);
        fputs("</td><td class=\"n\">", f);
        esc(f, m->data_text);
        fprintf(f, "</td><td class=\"n\">%u</td><td>", m->threads);
        status_text(f, m);
        if (m->measured) {
            fprintf(f, "</td><td class=\"n\">%llu</td><td class=\"n\">%.2f</td><td class=\"n\">",
                    (unsigned long long)m->ops, m->ops_per_s);
            /* No success, no latency: 0 would be a claim. */
            esc(f, m->latency.count ? fmt_us(m->latency.p50, b, sizeof b) : "-");
            fputs("</td><td class=\"n\">", f);
            esc(f, m->latency.count ? fmt_us(m->latency.p99, c, sizeof c) : "-");
            fprintf(f, "</td><td class=\"n\">%.2f%%</td></tr>\n", m->error_pct);
        } else {
            fputs("</td><td colspan=\"5\">", f);
            esc(f, m->reason);
            fputs("</td></tr>\n", f);
        }
    }
    fputs("</table></section>\n", f);
}

/* --repeat's groups: the interval between runs, as the summary says it
 * (bench/results/repeat.c computes it, from the runs' marks). */
static void repeats_section(FILE *f, const bench_repeat_groups *reps)
{
    if (reps->n) {
        fputs("<section id=\"repeats\"><h2>Between runs</h2><p>Each test run several times in a row "
              "(--repeat): the mean of the runs and its 95 % Student t interval between them, "
              "the token's rate run to run (a run's own <em>stable</em> interval is of its steady "
              "state alone).</p><ul>\n", f);
        for (size_t i = 0; i < reps->n; i++) {
            char line[640];
            fputs("<li>", f);
            esc(f, bench_repeat_text(&reps->v[i], line, sizeof line));
            fputs("</li>\n", f);
        }
        fputs("</ul></section>\n", f);
    }
}


static void stats_table(FILE *f, const bench_run_model *m)
{
    const bench_model_latency *lat = &m->latency;
    char a[48], b[48];
    fputs("<table class=\"kv\">", f);
    fprintf(f, "<tr><th>duration</th><td class=\"n\">%.2fs</td><th>operations</th><td class=\"n\">%llu</td>"
            "<th>rate</th><td class=\"n\">%.2f/s</td></tr>\n", m->duration_s, (unsigned long long)m->ops,
            m->ops_per_s);
    fprintf(f, "<tr><th>errors</th><td class=\"n\">%llu</td><th>error rate</th><td class=\"n\">%.2f%%</td>"
            "<th>attempts</th><td class=\"n\">%llu (%.2f/s)</td></tr>\n", (unsigned long long)m->errors,
            m->error_pct, (unsigned long long)m->attempts, m->attempts_per_s);
    if (m->bytes_per_s > 0)
        fprintf(f, "<tr><th>data</th><td class=\"n\">%s</td><th>data rate</th><td class=\"n\">%s/s</td>"
                "<th></th><td></td></tr>\n", bench_fmt_bytes(m->bytes, a, sizeof a),
                bench_fmt_bytes(m->bytes_per_s, b, sizeof b));
    char stable[384];
    if (bench_model_stable_text(m, stable, sizeof stable)) {
        /* --until-stable's steady state, as the summary says it: this
         * run's, its line says so. */
        fputs("<tr><th>stable</th><td colspan=\"5\">", f);
        esc(f, stable);
        fputs("</td></tr>\n", f);
    }
    if (m->open_loop) {
        /* The schedule, and the requests that never started: their latency
         * at least (due to the end), and every request's with them. */
        fprintf(f, "<tr><th>scheduled</th><td class=\"n\">%llu (%.2f/s)</td><th>late</th><td class=\"n\">%llu</td>"
                "<th>never started</th><td class=\"n\">%llu</td></tr>\n", (unsigned long long)m->scheduled,
                m->target_ops_per_s, (unsigned long long)m->late, (unsigned long long)m->dropped);
        if (m->dropped && m->unstarted.count) {
            fputs("<tr><th>unstarted p50, at least</th><td class=\"n\">", f);
            esc(f, fmt_us(m->unstarted.p50, a, sizeof a));
            fputs("</td><th>unstarted p99, at least</th><td class=\"n\">", f);
            esc(f, fmt_us(m->unstarted.p99, a, sizeof a));
            fputs("</td><th>all requests p99, at least</th><td class=\"n\">", f);
            esc(f, fmt_us(m->scheduled_latency.p99, a, sizeof a));
            fputs("</td></tr>\n", f);
        }
        if (!m->latency_complete)
            fprintf(f, "<tr><th>latency incomplete</th><td colspan=\"5\">%llu of %llu scheduled requests never "
                    "started: the figures below leave out those that waited longest</td></tr>\n",
                    (unsigned long long)m->dropped, (unsigned long long)m->scheduled);
    }
    const struct { const char *name; double v; } keys[] = {
        { "min", lat->min }, { "avg", lat->mean }, { "stddev", lat->stddev }, { "p50", lat->p50 },
        { "p90", lat->p90 }, { "p95", lat->p95 }, { "p99", lat->p99 }, { "p99.9", lat->p999 },
        { "max", lat->max },
    };
    if (!lat->count) {
        fputs("<tr><th>latency</th><td colspan=\"5\">none: no operation succeeded</td></tr></table>\n", f);
        return;
    }
    fputs("<tr>", f);
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        if (k && k % 3 == 0)
            fputs("</tr>\n<tr>", f);
        fprintf(f, "<th>latency %s</th><td class=\"n\">", keys[k].name);
        esc(f, fmt_us(keys[k].v, b, sizeof b));
        fputs("</td>", f);
    }
    fputs("</tr></table>\n", f);
}

/* One table per breakdown of the run: a row per class. */
static void breakdown_tables(FILE *f, const bench_run_model *m)
{
    for (size_t k = 0; k < m->nby; k++) {
        const bench_model_breakdown *bd = &m->by[k];
        int weights = 0;
        for (size_t j = 0; j < bd->n; j++)
            weights |= bd->classes[j].has_weight;
        fputs("<h3>by ", f);
        esc(f, bd->dimension);
        fputs("</h3><table><tr><th>", f);
        esc(f, bd->dimension);
        fputs("</th><th class=\"n\">operations</th><th class=\"n\">share</th>", f);
        if (weights)
            fputs("<th class=\"n\">weight</th>", f);
        fputs("<th class=\"n\">ops/s</th><th class=\"n\">p50</th><th class=\"n\">p99</th>"
              "<th class=\"n\">errors</th><th>top error</th></tr>\n", f);
        for (size_t j = 0; j < bd->n; j++) {
            const bench_model_class *cl = &bd->classes[j];
            const int any = cl->latency.count > 0;
            char a[48], b[48];
            fputs("<tr><td>", f);
            esc(f, cl->label);
            fprintf(f, "</td><td class=\"n\">%llu</td><td class=\"n\">%.2f%%</td>",
                    (unsigned long long)cl->ops, cl->share_pct);
            if (weights)
                fprintf(f, "<td class=\"n\">%.2f%%</td>", 100.0 * cl->weight);
            fprintf(f, "<td class=\"n\">%.2f</td><td class=\"n\">", cl->ops_per_s);
            esc(f, any ? fmt_us(cl->latency.p50, a, sizeof a) : "-");
            fputs("</td><td class=\"n\">", f);
            esc(f, any ? fmt_us(cl->latency.p99, b, sizeof b) : "-");
            fprintf(f, "</td><td class=\"n\">%.2f%%</td><td>", cl->error_pct);
            esc(f, *cl->top_error ? cl->top_error : "-");
            fputs("</td></tr>\n", f);
        }
        fputs("</table>\n", f);
    }
}

/*
 * The per-second charts of a run, one quantity an axis: throughput
 * (successes per second, with a non-blocking run's target rate, the same
 * quantity); the threads of a blocking --stages run (its target is a thread
 * count, which on the ops/s axis was a flat line at 0); errors per second
 * when any failed (beside thousands of successes per second, 1 % of errors
 * lay on the axis).  Each is drawn against the same time axis.
 */
static void per_second_charts(FILE *f, const bench_run_model *m)
{
    const size_t n = m->nseconds;
    double *buf = calloc(n * 5 + 1, sizeof *buf);
    if (!buf) {
        chart_empty(f, "Operations per second", "out of memory");
        return;
    }
    double *t = buf, *rate = buf + n, *target = buf + 2 * n, *errs = buf + 3 * n, *threads = buf + 4 * n;
    double tmax = 0;
    for (size_t i = 0; i < n; i++) {
        const bench_model_second *s = &m->seconds[i];
        const double span = s->span_s > 0 ? s->span_s : 1.0;
        t[i] = s->t;
        tmax = fmax(tmax, t[i]);
        rate[i] = (double)s->ops / span;
        errs[i] = (double)s->errors / span;
        /* A second without a target (a ramp's end at 0, in older files) is 0. */
        target[i] = s->has_target ? s->target / span : 0;
        threads[i] = s->has_target ? s->target : 0;
    }
    axis x = { 0, tmax, AX_LINEAR, FMT_SEC, "time (seconds of the measured run)", NULL, 0 };
    series sr[2];
    size_t ns = 0;
    sr[ns++] = (series){ t, rate, n, "operations/s", palette[0], 0 };
    if (m->target_kind == BENCH_MODEL_TARGET_REQUESTS)
        sr[ns++] = (series){ t, target, n, "target", "#6b7683", 1 };
    axis y = { 0, 1, AX_LINEAR, FMT_NUM, "operations per second", NULL, 0 };
    line_chart(f, "Operations per second", &x, &y, sr, ns);
    if (m->target_kind == BENCH_MODEL_TARGET_THREADS) {
        series st = { t, threads, n, "threads (the stages' target)", palette[2], 1 };
        axis xt = x, yt = { 0, 1, AX_LINEAR, FMT_NUM, "threads", NULL, 0 };
        line_chart(f, "Threads (--stages)", &xt, &yt, &st, 1);
    }
    if (m->errors > 0) {
        series se = { t, errs, n, "errors/s", palette[3], 0 };
        axis xe = x, ye = { 0, 1, AX_LINEAR, FMT_NUM, "errors per second", NULL, 0 };
        line_chart(f, "Errors per second", &xe, &ye, &se, 1);
    }
    free(buf);
}

/* p50 and p99 of each second (seconds without a successful operation left
 * out); after a merge they are the largest of the inputs', and say so. */
static void latency_time_chart(FILE *f, const bench_run_model *m)
{
    const size_t n = m->nseconds;
    double *buf = calloc(n * 3 + 1, sizeof *buf);
    if (!buf) {
        chart_empty(f, "Latency per second", "out of memory");
        return;
    }
    double *t = buf, *p50 = buf + n, *p99 = buf + 2 * n, tmax = 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const bench_model_second *s = &m->seconds[i];
        tmax = fmax(tmax, s->t);
        if (s->ops == 0)
            continue;
        t[k] = s->t;
        p50[k] = s->p50_us;
        p99[k] = s->p99_us;
        k++;
    }
    const int ub = m->seconds_upper_bound;
    series sr[2] = {
        { t, p99, k, ub ? "\xe2\x89\xa4 p99 (upper bound: merged)" : "p99", palette[1], 0 },
        { t, p50, k, ub ? "\xe2\x89\xa4 p50 (upper bound: merged)" : "p50", palette[0], 0 },
    };
    axis x = { 0, tmax, AX_LINEAR, FMT_SEC, "time (seconds of the measured run)", NULL, 0 };
    axis y = { 0, 0, AX_LOG, FMT_US, "latency (log scale)", NULL, 0 };
    line_chart(f, ub ? "Latency per second (upper bounds: merged)" : "Latency per second", &x, &y, sr, 2);
    free(buf);
}

/* The HdrHistogram-style percentile curve: x = log10(1 / (1 - p)). */
static void percentile_chart(FILE *f, const bench_run_model *m)
{
    const char *title = "Latency by percentile";
    const bench_hist *h = m->hist;
    if (!h || bench_hist_count(h) == 0) {
        chart_empty(f, title, "no successful operation");
        return;
    }
    /* Beyond log10(count) the percentiles all resolve to the maximum. */
    double xmax = ceil(log10((double)bench_hist_count(h)));
    if (xmax < 1)
        xmax = 1;
    if (xmax > 7)
        xmax = 7;
    const double step = 0.05;
    size_t n = (size_t)(xmax / step) + 2;
    double *x = calloc(2 * n, sizeof *x);
    if (!x) {
        chart_empty(f, title, "out of memory");
        return;
    }
    double *y = x + n;
    size_t k = 0;
    for (size_t i = 0; k < n - 1 && (double)i * step <= xmax + 1e-9; i++) {
        double xv = (double)i * step;
        double p = 100.0 * (1.0 - pow(10, -xv));
        x[k] = xv;
        y[k] = (double)bench_hist_percentile(h, p) / 1000.0;
        k++;
    }
    x[k] = xmax;
    y[k] = (double)bench_hist_max(h) / 1000.0;
    k++;
    series s = { x, y, k, "latency", palette[0], 0 };
    axis ax = { 0, xmax, AX_HDR, FMT_NUM, "percentile (HdrHistogram: 1/(1\xe2\x88\x92p) on a log scale)", NULL, 0 };
    /* Always a log latency axis (the rule above AX_LOG): it switched with
     * the run's range before, linear below two decades and log above, so
     * two runs' curves did not read alike; from the fastest to the slowest
     * (11 µs to 36 ms) a linear one flattens all but the tail. */
    axis ay = { 0, 0, AX_LOG, FMT_US, "latency (log scale)", NULL, 0 };
    line_chart(f, title, &ax, &ay, &s, 1);
    free(x);
}

/* Counts by name (errors by code, requests by status) as horizontal bars,
 * each with its share of total; ok_class names a bar as good (a success
 * 3xx) rather than bad.  "none" is what an empty chart says. */
static void bars(FILE *f, const char *title, const char *const *names, const long long *counts, size_t n,
                 long long total, const char *none, const char *unit, int (*ok_class)(const char *name))
{
    if (n == 0) {
        chart_empty(f, title, none);
        return;
    }
    long long top = 0;
    for (size_t i = 0; i < n; i++)
        if (counts[i] > top)
            top = counts[i];
    if (top <= 0)
        top = 1;
    const size_t shown = n > 9 ? 9 : n;
    const int left = 190, right = CW - 150, row = 22;
    chart_begin(f, title);
    for (size_t i = 0; i < shown; i++) {
        const char *code = names[i];
        const long long c = counts[i];
        double w = (double)(right - left) * (double)c / (double)top;
        int yy = MT + (int)i * row;
        fprintf(f, "<text class=\"yl\" x=\"%d\" y=\"%d\">", left - 8, yy + 14);
        esc(f, code);
        fprintf(f, "</text><rect class=\"bar%s\" x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\"><title>",
                ok_class && ok_class(code) ? " good" : "", left, yy + 3, w < 1 ? 1 : w, row - 6);
        esc(f, code);
        fprintf(f, ": %lld</title></rect><text x=\"%.1f\" y=\"%d\">%lld (%.2f%%)</text>", c,
                left + (w < 1 ? 1 : w) + 6, yy + 14, c, total ? 100.0 * (double)c / (double)total : 0.0);
    }
    if (n > shown)
        fprintf(f, "<text x=\"%d\" y=\"%d\">and %zu more %s</text>", left, MT + (int)shown * row + 14,
                n - shown, unit);
    chart_end(f);
}

/* The same of an object of integers (a workload section's counts). */
static void count_bars(FILE *f, const char *title, const json_t *by, long long total, const char *none,
                       const char *unit, int (*ok_class)(const char *name))
{
    const size_t n = json_object_size(by);
    const char **names = calloc(n ? n : 1, sizeof *names);
    long long *counts = calloc(n ? n : 1, sizeof *counts);
    if (!names || !counts) {
        chart_empty(f, title, "out of memory");
        goto cleanup;
    }
    size_t i = 0;
    const char *code;
    json_t *v;
    json_object_foreach((json_t *)by, code, v) {
        if (i == n)
            break;
        names[i] = code;
        counts[i++] = (long long)json_integer_value(v);
    }
    bars(f, title, names, counts, i, total, none, unit, ok_class);
cleanup:
    free(names);
    free(counts);
}

/* Errors by code, as horizontal bars, each with its share of the attempts
 * (the run model's codes, most frequent first). */
static void errors_chart(FILE *f, const bench_run_model *m)
{
    const char **names = calloc(m->ncodes ? m->ncodes : 1, sizeof *names);
    long long *counts = calloc(m->ncodes ? m->ncodes : 1, sizeof *counts);
    if (!names || !counts) {
        chart_empty(f, "Errors by code", "out of memory");
        goto cleanup;
    }
    for (size_t i = 0; i < m->ncodes; i++) {
        names[i] = m->codes[i].name;
        counts[i] = (long long)m->codes[i].count;
    }
    bars(f, "Errors by code", names, counts, m->ncodes, (long long)m->attempts, "no errors", "codes", NULL);
cleanup:
    free(names);
    free(counts);
}

/* ---- for workload sections (html.h) ------------------------------------------ */

const char *bench_html_style(void)
{
    return style;
}

void bench_html_esc(FILE *f, const char *s)
{
    esc(f, s);
}

void bench_html_chart_empty(FILE *f, const char *title, const char *why)
{
    chart_empty(f, title, why);
}

void bench_html_count_bars(FILE *f, const char *title, const json_t *by, long long total, const char *none,
                           const char *unit, int (*ok_class)(const char *name))
{
    count_bars(f, title, by, total, none, unit, ok_class);
}

void bench_html_stacked_bars(FILE *f, const bench_html_stack *c)
{
    const size_t nseg = c->nseg, nrow = c->nrow;
    double top = 0;
    for (size_t r = 0; r < nrow; r++) {
        double sum = 0;
        for (size_t k = 0; k < nseg; k++)
            sum += c->value[r * nseg + k];
        top = fmax(top, fmax(sum, c->mark[r]));
    }
    if (top <= 0)
        top = 1;
    axis x = { 0, 1, AX_LINEAR, FMT_US, c->x_label, NULL, 0 };
    series probe = { NULL, &top, 1, "", "", 0 };
    x.hi = y_top(&probe, 1);
    chart_begin(f, c->title);
    /* legend */
    double lx = ML;
    for (size_t k = 0; k < nseg; k++) {
        fprintf(f, "<rect x=\"%.1f\" y=\"26\" width=\"12\" height=\"10\" fill=\"%s\"/><text class=\"lg\" "
                "x=\"%.1f\" y=\"35\">", lx, c->seg_color[k], lx + 16);
        esc(f, c->seg_name[k]);
        fputs("</text>", f);
        lx += 16 + 7.0 * (double)strlen(c->seg_name[k]) + 14;
    }
    fprintf(f, "<line x1=\"%.1f\" y1=\"25\" x2=\"%.1f\" y2=\"37\" stroke=\"#1d2430\" stroke-width=\"2\"/>"
            "<text class=\"lg\" x=\"%.1f\" y=\"35\">", lx + 2, lx + 2, lx + 8);
    esc(f, c->mark_name);
    fputs("</text>", f);
    /* x grid and labels */
    double t[MAX_TICKS];
    char lab[48];
    size_t nt = linear_ticks(&x, t);
    for (size_t i = 0; i < nt; i++) {
        double xx = px(&x, t[i]);
        fprintf(f, "<line class=\"grid\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>", xx, MT, xx, CH - MB);
        fprintf(f, "<text class=\"xl\" x=\"%.1f\" y=\"%d\">", xx, CH - MB + 17);
        esc(f, tick_label(&x, t[i], lab, sizeof lab));
        fputs("</text>", f);
    }
    fprintf(f, "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>", ML, CH - MB, CW - MR, CH - MB);
    fprintf(f, "<text class=\"al\" x=\"%d\" y=\"%d\">", (ML + CW - MR) / 2, CH - 8);
    esc(f, x.label);
    fputs("</text>", f);
    /* one bar a row */
    const double band = (double)(CH - MB - MT) / (double)nrow, bh = band * 0.62;
    for (size_t r = 0; r < nrow; r++) {
        double y0 = MT + band * (double)r + (band - bh) / 2, acc = 0;
        fprintf(f, "<text class=\"yl\" x=\"%d\" y=\"%.1f\">", ML - 6, y0 + bh / 2 + 4);
        esc(f, c->row_name[r]);
        fputs("</text>", f);
        for (size_t k = 0; k < nseg; k++) {
            double v = c->value[r * nseg + k];
            if (v <= 0)
                continue;
            char vl[48];
            fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>",
                    px(&x, acc), y0, px(&x, acc + v) - px(&x, acc), bh, c->seg_color[k]);
            esc(f, c->seg_name[k]);
            fputc(' ', f);
            esc(f, c->row_name[r]);
            fputs(": ", f);
            esc(f, fmt_us(v, vl, sizeof vl));
            fputs("</title></rect>", f);
            acc += v;
        }
        double d = c->mark[r];
        char dl[48];
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#1d2430\" stroke-width=\"2\">"
                "<title>", px(&x, d), y0 - 3, px(&x, d), y0 + bh + 3);
        esc(f, c->mark_name);
        fputc(' ', f);
        esc(f, c->row_name[r]);
        fputs(": ", f);
        esc(f, fmt_us(d, dl, sizeof dl));
        fputs("</title></line>", f);
    }
    chart_end(f);
}

static void thresholds_list(FILE *f, const bench_run_model *m, const bench_section *const *sections)
{
    if (m->nthresholds == 0)
        return;
    fputs("<h3>Thresholds</h3><ul class=\"th\">\n", f);
    for (size_t i = 0; i < m->nthresholds; i++) {
        const bench_model_threshold *t = &m->thresholds[i];
        const int ok = t->ok;
        fprintf(f, "<li class=\"%s\">%s <code>", ok ? "ok" : "bad", ok ? "\xe2\x9c\x93" : "\xe2\x9c\x97");
        esc(f, t->expr ? t->expr : "?");
        fputs("</code> ", f);
        bench_threshold th;
        char err[16], text[96];
        if (t->has_observed &&
            bench_threshold_parse(t->expr ? t->expr : "", sections, &th, err, sizeof err) == 0) {
            /* As the terminal shows it ("p(99)=5.591ms"), without the name. */
            bench_threshold_observed_text(&th, t->observed, text, sizeof text);
            const char *eq = strchr(text, '=');
            fputs("observed ", f);
            esc(f, eq ? eq + 1 : text);
        } else if (t->has_observed) {
            fprintf(f, "observed %.6g ", t->observed);
            esc(f, t->unit ? t->unit : "");
        } else {
            fputs("not measured", f);
        }
        fputs("</li>\n", f);
    }
    fputs("</ul>\n", f);
}

/* Runs shorter than this many seconds get no per-second charts: one or two
 * dots say nothing a table does not. */
#define PER_SECOND_CHARTS_MIN 3

static void run_section(FILE *f, const bench_run_model *m, size_t i, const bench_section *const *sections)
{
    char title[400], lbl[32];
    const json_t *run = m->run;
    run_title(m, title, sizeof title);
    row_label(m, i, lbl, sizeof lbl);
    fprintf(f, "<section class=\"run\" id=\"run-%zu\"><h2>%s · ", i + 1, lbl);
    esc(f, m->name);
    fputs("</h2><p class=\"sub\">", f);
    esc(f, title);
    fputs(" · status <b>", f);
    status_text(f, m);
    fputs("</b>", f);
    if (*m->reason) {
        fputs(" — ", f);
        esc(f, m->reason);
    }
    fputs("</p>\n", f);
    if (m->measured) {
        stats_table(f, m);
        breakdown_tables(f, m);
        fputs("<div class=\"charts\">\n", f);
        if (m->nseconds >= PER_SECOND_CHARTS_MIN) {
            per_second_charts(f, m);
            latency_time_chart(f, m);
        }
        percentile_chart(f, m);
        errors_chart(f, m);
        fputs("</div>\n", f);
        if (m->nseconds < PER_SECOND_CHARTS_MIN)
            fprintf(f, "<p class=\"sub\">No per-second charts: the run measured %zu second%s (they are "
                    "drawn from %d seconds on).</p>\n", m->nseconds, m->nseconds == 1 ? "" : "s",
                    PER_SECOND_CHARTS_MIN);
        else if (m->seconds_upper_bound)
            fputs("<p class=\"sub\">Per-second p50 and p99 of a merged run are the largest of its inputs' "
                  "(upper bounds): the files hold no per-second histograms to merge exactly.</p>\n", f);
        for (const bench_section *const *sec = sections; sec && *sec; sec++) {
            const json_t *obj = json_object_get(run, (*sec)->key);
            if (json_is_object(obj) && (*sec)->html)
                (*sec)->html(f, obj);
        }
    }
    thresholds_list(f, m, sections);
    fputs("</section>\n", f);
}

/* ---- sweeps ---------------------------------------------------------------- */

/* Same test, mode and key; and the same data size (a threads sweep) or the
 * same threads (a data-size sweep). */
static int sweep_peer(const bench_run_model *a, const bench_run_model *b, int by_threads)
{
    if (strcmp(a->test, b->test) != 0 || strcmp(a->mode, b->mode) != 0 || strcmp(a->key, b->key) != 0)
        return 0;
    return by_threads ? a->data_size == b->data_size : a->threads == b->threads;
}

typedef struct sweep_pt {
    long long x;
    const bench_run_model *run;
} sweep_pt;

static int cmp_pt(const void *a, const void *b)
{
    long long x = ((const sweep_pt *)a)->x, y = ((const sweep_pt *)b)->x;
    return (x > y) - (x < y);
}

/*
 * Throughput against threads on a linear axis, for a sweep with a fit (el,
 * an element of the document's "scalability"): the measured points, the
 * fitted curve, the knee and the predicted peak (when it lies within twice
 * the largest thread count measured); then the analysis as text.
 */
static void usl_chart(FILE *f, const bench_scal_sweep *sw)
{
    enum { NCURVE = 120 };
    const size_t n = sw->npoints;
    double *v = calloc(2 * n + 2 * NCURVE, sizeof *v);
    if (!v || n == 0) {
        free(v);
        return;
    }
    double *mx = v, *my = v + n, *cx = v + 2 * n, *cy = v + 2 * n + NCURVE;
    for (size_t i = 0; i < n; i++) {
        mx[i] = (double)sw->points[i].threads;
        my[i] = sw->points[i].ops_per_s;
    }
    const double nmax = sw->max_threads > 1 ? (double)sw->max_threads : 1;
    double hi = nmax;
    const double pn = sw->peak_threads;
    if (sw->has_peak && pn > hi && pn <= 2 * nmax)
        hi = pn;
    hi *= 1.05;
    const bench_usl_model m = { sw->lambda, sw->sigma, sw->kappa, 0, 0, 0 };
    for (size_t i = 0; i < NCURVE; i++) {
        cx[i] = 1 + (hi - 1) * (double)i / (NCURVE - 1);
        cy[i] = bench_usl_x(&m, cx[i]);
    }
    char title[120], lk[64], lp[64];
    if (sw->has_r2)
        snprintf(title, sizeof title, "Scalability: USL fit, R² %.3f", sw->r2);
    else
        snprintf(title, sizeof title, "Scalability: USL fit, no degrees of freedom, no R²");
    axis ax = { 0, hi, AX_LINEAR, FMT_NUM, "threads", NULL, 0 };
    axis ay = { 0, 1, AX_LINEAR, FMT_NUM, "operations per second", NULL, 0 };
    series s[2] = { { mx, my, n, "measured", palette[0], 0 }, { cx, cy, NCURVE, "USL fit", palette[1], 1 } };
    mark mk[2];
    size_t nmk = 0;
    if (sw->has_knee) {
        snprintf(lk, sizeof lk, "knee %lld", sw->knee_threads);
        mk[nmk++] = (mark){ (double)sw->knee_threads, lk, palette[2] };
    }
    if (sw->has_peak) {
        snprintf(lp, sizeof lp, "peak %.1f", pn);
        mk[nmk++] = (mark){ pn, lp, palette[3] };
    }
    line_chart_marked(f, title, &ax, &ay, s, 2, mk, nmk);
    free(v);
}

/* The analysis' own lines (bench_scal_sweep_print) under the charts. */
static void usl_text(FILE *f, const bench_scal_sweep *sw)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m)
        return;
    bench_scal_sweep_print(m, sw);
    if (fclose(m) == 0 && buf) {
        fputs("<pre class=\"scal\">", f);
        esc(f, buf);
        fputs("</pre>\n", f);
    }
    free(buf);
}

/* Charts of one sweep: the runs in pts[0..n), sorted, distinct x; sw, the
 * sweep's analysis (NULL: none). */
static void sweep_charts(FILE *f, const sweep_pt *pts, size_t n, int by_threads, const bench_scal_sweep *sw)
{
    double *v = calloc(4 * n, sizeof *v);
    char (*labels)[32] = calloc(n, sizeof *labels);
    const char **lp = calloc(n, sizeof *lp);
    if (!v || !labels || !lp) {
        free(v);
        free(labels);
        free(lp);
        return;
    }
    double *x = v, *rate = v + n, *p50 = v + 2 * n, *p99 = v + 3 * n;
    for (size_t i = 0; i < n; i++) {
        const bench_model_latency *lat = &pts[i].run->latency;
        x[i] = (double)i;
        rate[i] = pts[i].run->ops_per_s;
        /* A run without a success has no latency: no point on the log axis. */
        p50[i] = lat->p50 > 0 ? lat->p50 : NAN;
        p99[i] = lat->p99 > 0 ? lat->p99 : NAN;
        if (by_threads)
            snprintf(labels[i], sizeof labels[i], "%lld", pts[i].x);
        else
            bench_fmt_bytes((double)pts[i].x, labels[i], sizeof labels[i]);
        lp[i] = labels[i];
    }
    const char *what = by_threads ? "threads" : "data size";
    char title[300], t1[340], t2[340];
    const bench_run_model *r0 = pts[0].run;
    if (by_threads)
        snprintf(title, sizeof title, "%s · %s · data %llu B · %s", r0->test, r0->key,
                 (unsigned long long)r0->data_size, r0->mode);
    else
        snprintf(title, sizeof title, "%s · %s · %u thread%s · %s", r0->test, r0->key, r0->threads,
                 r0->threads == 1 ? "" : "s", r0->mode);
    fprintf(f, "<h3>");
    esc(f, title);
    fprintf(f, ": by %s</h3><div class=\"charts\">\n", what);
    snprintf(t1, sizeof t1, "Throughput by %s", what);
    snprintf(t2, sizeof t2, "Latency by %s", what);
    axis ax = { -0.5, (double)n - 0.5, AX_CAT, FMT_NUM, by_threads ? "threads" : "data size", lp, n };
    axis ay = { 0, 1, AX_LINEAR, FMT_NUM, "operations per second", NULL, 0 };
    series s1 = { x, rate, n, "operations/s", palette[0], 0 };
    if (by_threads && sw && sw->drawable)
        usl_chart(f, sw);
    else
        line_chart(f, t1, &ax, &ay, &s1, 1);
    axis ax2 = ax;
    axis ay2 = { 0, 0, AX_LOG, FMT_US, "latency (log scale)", NULL, 0 };
    series s2[2] = { { x, p99, n, "p99", palette[1], 0 }, { x, p50, n, "p50", palette[0], 0 } };
    line_chart(f, t2, &ax2, &ay2, s2, 2);
    fputs("</div>\n", f);
    if (by_threads && sw)
        usl_text(f, sw);
    free(v);
    free(labels);
    free(lp);
}

/* Find every sweep (two or more measured runs differing only in threads, or
 * only in data size) and draw it, a threads sweep with its analysis (the
 * model's sweeps); returns how many were drawn. */
static size_t sweeps(FILE *f, const bench_doc_model *d, int by_threads, size_t drawn)
{
    const size_t n = d->nruns;
    char *done = calloc(n ? n : 1, 1);
    sweep_pt *pts = calloc(n ? n : 1, sizeof *pts);
    if (!done || !pts) {
        free(done);
        free(pts);
        return drawn;
    }
    for (size_t i = 0; i < n; i++) {
        const bench_run_model *a = &d->runs[i];
        if (done[i] || !a->measured)
            continue;
        size_t k = 0;
        for (size_t j = i; j < n; j++) {
            const bench_run_model *b = &d->runs[j];
            if (done[j] || !b->measured || !sweep_peer(a, b, by_threads))
                continue;
            const long long xv = by_threads ? (long long)b->threads : (long long)b->data_size;
            int dup = 0;
            for (size_t m = 0; m < k; m++)
                dup |= pts[m].x == xv;
            done[j] = 1;
            if (!dup)
                pts[k++] = (sweep_pt){ xv, b };
        }
        if (k < 2)
            continue;
        qsort(pts, k, sizeof *pts, cmp_pt);
        if (drawn++ == 0)
            fputs("<section id=\"sweeps\"><h2>Sweeps</h2>\n", f);
        sweep_charts(f, pts, k, by_threads, by_threads ? bench_doc_model_sweep(d, a) : NULL);
    }
    free(done);
    free(pts);
    return drawn;
}

/* ---- capacity ------------------------------------------------------------ */

typedef struct cap_pt {
    double rate, p50, p99;
    int pass;
} cap_pt;

static int cmp_cap(const void *a, const void *b)
{
    const double x = ((const cap_pt *)a)->rate, y = ((const cap_pt *)b)->rate;
    return (x > y) - (x < y);
}

/* Latency (p50, p99; log scale) against the offered rate of each step, the
 * latency objectives as dashed lines, the answer (the knee) as a vertical
 * line; failing steps' points in red. */
static void capacity_chart(FILE *f, const bench_cap_answer *cap, const bench_section *const *sections)
{
    const size_t n = cap->nsteps;
    static const char title[] = "Latency by offered rate";
    if (n == 0) {
        chart_empty(f, title, "no step measured");
        return;
    }
    cap_pt *pt = calloc(n, sizeof *pt);
    double *v = calloc(3 * n, sizeof *v);
    if (!pt || !v) {
        free(pt);
        free(v);
        return;
    }
    size_t i, k = 0;
    for (i = 0; i < n; i++, k++) {
        const bench_cap_answer_step *st = &cap->steps[i];
        pt[k].rate = st->rate;
        pt[k].p50 = st->p50_us;
        pt[k].p99 = st->p99_us;
        pt[k].pass = st->pass;
    }
    qsort(pt, k, sizeof *pt, cmp_cap);
    double *x = v, *y50 = v + n, *y99 = v + 2 * n;
    double lo = INFINITY, hi = 0, xmax = 0;
    for (i = 0; i < k; i++) {
        x[i] = pt[i].rate;
        y50[i] = pt[i].p50 > 0 ? pt[i].p50 : NAN;
        y99[i] = pt[i].p99 > 0 ? pt[i].p99 : NAN;
        if (pt[i].p50 > 0 && pt[i].p50 < lo)
            lo = pt[i].p50;
        if (pt[i].p99 > hi)
            hi = pt[i].p99;
        if (pt[i].rate > xmax)
            xmax = pt[i].rate;
    }
    /* The latency objectives, in µs (errors have no place on this axis). */
    double lim[BENCH_CAP_MAX_OBJECTIVES];
    const char *lim_expr[BENCH_CAP_MAX_OBJECTIVES];
    size_t nlim = 0;
    for (i = 0; i < cap->nobjectives; i++) {
        const char *o = cap->objectives[i];
        bench_threshold t;
        char err[200];
        if (nlim == BENCH_CAP_MAX_OBJECTIVES || !o || bench_threshold_parse(o, sections, &t, err, sizeof err) != 0)
            continue;
        if (t.metric != BENCH_TM_AVG && t.metric != BENCH_TM_MED && t.metric != BENCH_TM_MAX &&
            t.metric != BENCH_TM_PCT && t.metric != BENCH_TM_MIN)
            continue;
        if (!(t.value > 0))
            continue;
        lim[nlim] = t.value;
        lim_expr[nlim++] = o;
        if (t.value > hi)
            hi = t.value;
        if (t.value < lo)
            lo = t.value;
    }
    if (!isfinite(lo) || !(hi > 0)) {
        chart_empty(f, title, "no latency measured");
        free(pt);
        free(v);
        return;
    }
    axis ax = { 0, 1, AX_LINEAR, FMT_NUM, "offered operations per second", NULL, 0 };
    if (xmax > 0)
        ax.hi = nice_step(xmax * 1.08, 5) * ceil(xmax * 1.08 / nice_step(xmax * 1.08, 5));
    if (!(ax.hi > ax.lo) || !isfinite(ax.hi))
        ax.hi = 1;
    axis ay;
    latency_axis(&ay, lo, hi, "latency (log scale, from the scheduled time)");
    series s[2] = { { x, y99, k, "p99", palette[1], 0 }, { x, y50, k, "p50", palette[0], 0 } };
    chart_begin(f, title);
    axes(f, &ax, &ay);
    legend(f, s, 2);
    for (i = 0; i < nlim; i++) {
        const double yy = py(&ay, lim[i]);
        fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#c0392b\" "
                "stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/><text x=\"%d\" y=\"%.1f\" "
                "style=\"text-anchor:end;fill:#c0392b\">objective ", ML, yy, CW - MR, yy,
                CW - MR, yy - 4);
        esc(f, lim_expr[i]);
        fputs("</text>", f);
    }
    const double answer = cap->ops_per_s;
    if (answer > 0) {
        char a[48];
        const double xx = px(&ax, answer);
        fprintf(f, "<line class=\"knee\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#2a9d3a\" "
                "stroke-width=\"1.5\"/><text x=\"%.1f\" y=\"%d\" style=\"fill:#2a7d34\">capacity ",
                xx, MT, xx, CH - MB, xx + 4, MT + 10);
        esc(f, fmt_num(answer, a, sizeof a));
        fputs("/s</text>", f);
    }
    for (size_t j = 0; j < 2; j++)
        plot(f, &ax, &ay, &s[j], &ay);
    /* The verdict of each step on its p99 point. */
    for (i = 0; i < k; i++)
        if (isfinite(y99[i]))
            fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"none\" stroke=\"%s\" "
                    "stroke-width=\"1.5\"><title>%.0f/s: %s</title></circle>", px(&ax, x[i]),
                    py(&ay, y99[i]), pt[i].pass ? "#2a9d3a" : "#c0392b", x[i],
                    pt[i].pass ? "pass" : "fail");
    chart_end(f);
    free(pt);
    free(v);
}

static void capacity_section(FILE *f, const bench_cap_answer *cap, const bench_section *const *sections)
{
    if (!cap->present)
        return;
    char line[1200], a[48], b[48];
    fputs("<section id=\"capacity\"><h2>Capacity</h2><p><b>", f);
    esc(f, bench_cap_answer_text(cap, line, sizeof line));
    fputs("</b>", f);
    const char *limited = cap->limited_by;
    if (limited) {
        fputs(" · limited by ", f);
        esc(f, limited);
    }
    fputs("</p>\n<div class=\"charts\">\n", f);
    capacity_chart(f, cap, sections);
    fputs("</div>\n<table><tr><th>#</th><th class=\"n\">offered/s</th><th class=\"n\">achieved/s</th>"
          "<th class=\"n\">p50</th><th class=\"n\">p99</th><th class=\"n\">errors</th>"
          "<th>verdict</th></tr>\n", f);
    for (size_t i = 0; i < cap->nsteps; i++) {
        const bench_cap_answer_step *st = &cap->steps[i];
        const int pass = st->pass;
        fprintf(f, "<tr><td>%zu</td><td class=\"n\">%.0f</td><td class=\"n\">%.0f</td><td class=\"n\">",
                i + 1, st->rate, st->achieved);
        esc(f, fmt_us(st->p50_us, a, sizeof a));
        fputs("</td><td class=\"n\">", f);
        esc(f, fmt_us(st->p99_us, b, sizeof b));
        fprintf(f, "</td><td class=\"n\">%.2f%%</td><td class=\"%s\">%s", st->error_pct,
                pass ? "ok" : "bad", pass ? "pass" : "fail");
        const char *why = st->why;
        if (why) {
            fputs(": ", f);
            esc(f, why);
        }
        fputs("</td></tr>\n", f);
    }
    fputs("</table></section>\n", f);
}

/* ---- the page ---------------------------------------------------------------- */

/* ---- a datasheet (hsmbench datasheet): a table and two charts a family ---- */

/* Same row of a family's table: the same test and key. */
static int ds_same_row(const bench_run_model *a, const bench_run_model *b)
{
    return strcmp(a->test, b->test) == 0 && strcmp(a->key, b->key) == 0;
}

static int ds_ok(const bench_run_model *m)
{
    return bench_model_status_sound(m->status);
}

/* The latency step's stability judgement (the run model's, as the summary
 * gives it): the 95 % interval's half-width when within the target, "not:
 * ±X %" when outside it, "too short" on too few batches, "-" without one. */
static void ds_stable_cell(FILE *f, const bench_run_model *m)
{
    const bench_model_stable *st = &m->stable;
    if (!st->present || st->target_pct <= 0) {
        fputs("-", f);
        return;
    }
    switch (bench_model_stable_judge(st)) {
    case BENCH_MODEL_STABLE_WITHIN:
        fprintf(f, "&#177;%.1f %%", st->half_width_pct);
        break;
    case BENCH_MODEL_STABLE_TOO_SHORT:
        fprintf(f, "too short (%llu batches)", (unsigned long long)st->batches);
        break;
    case BENCH_MODEL_STABLE_OUTSIDE:
        fprintf(f, "not: &#177;%.1f %%", st->half_width_pct);
        break;
    default:
        fputs("not judged", f);
    }
}

/* The run of row `row` at one thread and this data size (latency or data step), or NULL. */
static const bench_run_model *ds_at_size(const bench_doc_model *d, const bench_run_model *row, long long size)
{
    for (size_t i = 0; i < d->nruns; i++) {
        const bench_run_model *run = &d->runs[i];
        if (ds_same_row(run, row) && ds_ok(run) && run->threads == 1 && size >= 0 &&
            run->data_size == (uint64_t)size &&
            (strcmp(run->ds_step, "latency") == 0 || strcmp(run->ds_step, "data") == 0))
            return run;
    }
    return NULL;
}

/* The thread points of a row (latency and threads steps), sorted by threads; how many. */
static size_t ds_threads(const bench_doc_model *d, const bench_run_model *row, double *x, double *y, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < d->nruns; i++) {
        const bench_run_model *run = &d->runs[i];
        const char *st = run->ds_step;
        if (n == cap || !ds_same_row(run, row) || !ds_ok(run) ||
            (strcmp(st, "latency") != 0 && strcmp(st, "threads") != 0))
            continue;
        double xv = (double)run->threads, yv = run->ops_per_s;
        size_t k = n++;
        for (; k > 0 && x[k - 1] > xv; k--) {
            x[k] = x[k - 1];
            y[k] = y[k - 1];
        }
        x[k] = xv;
        y[k] = yv;
    }
    return n;
}

#define DS_MAX_ROWS   64
#define DS_MAX_POINTS 32

static void ds_family(FILE *f, const bench_doc_model *d, const char *family)
{
    const bench_run_model *rows[DS_MAX_ROWS];
    size_t nrows = 0;
    int has_data = 0;
    for (size_t i = 0; i < d->nruns; i++) {
        const bench_run_model *run = &d->runs[i];
        if (strcmp(run->ds_family, family) != 0)
            continue;
        has_data |= strcmp(run->ds_step, "data") == 0 || run->bytes_per_s > 0;
        if (strcmp(run->ds_step, "latency") != 0 || nrows == DS_MAX_ROWS)
            continue;
        rows[nrows++] = run;
    }
    if (!nrows)
        return;
    char a[48], b[48];
    fputs("<h3>", f);
    esc(f, family);
    fputs("</h3>\n<table class=\"ds\"><tr><th>test</th><th>key</th><th class=\"n\">p50 (1 thread)</th>"
          "<th class=\"n\">p99 (1 thread)</th><th class=\"n\">ops/s (1 thread)</th>"
          "<th class=\"n\">stable (1 thread)</th>"
          "<th class=\"n\">peak ops/s</th><th class=\"n\">at threads</th><th class=\"n\">knee (threads)</th>"
          "<th class=\"n\">USL peak</th>", f);
    const bench_ds_facts *ds = &d->datasheet;
    const char *objective = ds->objective;
    if (objective) {
        fputs("<th class=\"n\">capacity ", f);
        esc(f, objective);
        fputs("</th>", f);
    }
    size_t ns = has_data ? ds->ndata_sizes : 0;
    for (size_t k = 0; k < ns; k++) {
        bench_fmt_bytes((double)ds->data_sizes[k], a, sizeof a);
        fprintf(f, "<th class=\"n\">bytes/s %s</th>", a);
    }
    fputs("</tr>\n", f);
    for (size_t r = 0; r < nrows; r++) {
        const bench_run_model *row = rows[r];
        const char *key = row->key;
        fputs("<tr><td>", f);
        esc(f, row->test);
        fputs("</td><td>", f);
        esc(f, key);
        if (!ds_ok(row)) {
            fprintf(f, "</td><td colspan=\"%zu\">", 8 + ns + (objective != NULL));
            esc(f, row->status);
            fputs(": ", f);
            esc(f, row->reason);
            fputs("</td></tr>\n", f);
            continue;
        }
        fputs("</td><td class=\"n\">", f);
        esc(f, fmt_us(row->latency.p50, a, sizeof a));
        fputs("</td><td class=\"n\">", f);
        esc(f, fmt_us(row->latency.p99, b, sizeof b));
        double x[DS_MAX_POINTS], y[DS_MAX_POINTS], best = 0, at = 0;
        const size_t np = ds_threads(d, row, x, y, DS_MAX_POINTS);
        for (size_t k = 0; k < np; k++)
            if (y[k] > best) {
                best = y[k];
                at = x[k];
            }
        fprintf(f, "</td><td class=\"n\">%.1f</td><td class=\"n\">", row->ops_per_s);
        ds_stable_cell(f, row);
        fprintf(f, "</td><td class=\"n\">%.1f</td><td class=\"n\">%.0f</td>", best, at);
        const bench_scal_sweep *sw = bench_doc_model_sweep(d, row);
        if (sw && sw->has_knee)
            fprintf(f, "<td class=\"n\">%lld</td>", sw->knee_threads);
        else
            fputs("<td class=\"n\">-</td>", f);
        if (sw && sw->has_peak)
            fprintf(f, "<td class=\"n\">%.1f at %.1f</td>", sw->peak_ops_per_s, sw->peak_threads);
        else
            fputs("<td class=\"n\">-</td>", f);
        if (objective) {
            /* The capacity search of this test and key: its answer and how it ended. */
            const bench_cap_answer *answer = bench_ds_capacity_of(ds, row->test, key, 0);
            if (answer && answer->has_ops_per_s)
                fprintf(f, "<td class=\"n\">%.1f/s (%s)</td>", answer->ops_per_s,
                        answer->result ? answer->result : "?");
            else
                fputs("<td class=\"n\">-</td>", f);
        }
        for (size_t k = 0; k < ns; k++) {
            const bench_run_model *dr = ds_at_size(d, row, ds->data_sizes[k]);
            if (dr) {
                bench_fmt_bytes(dr->bytes_per_s, a, sizeof a);
                fprintf(f, "<td class=\"n\">%s/s</td>", a);
            } else {
                fputs("<td class=\"n\">-</td>", f);
            }
        }
        fputs("</tr>\n", f);
    }
    fputs("</table>\n<div class=\"charts\">\n", f);
    /* Throughput against threads, a line a test. */
    double (*tx)[DS_MAX_POINTS] = calloc(nrows, sizeof *tx), (*ty)[DS_MAX_POINTS] = calloc(nrows, sizeof *ty);
    double (*dx)[DS_MAX_POINTS] = calloc(nrows, sizeof *dx), (*dy)[DS_MAX_POINTS] = calloc(nrows, sizeof *dy);
    series *sr = calloc(nrows, sizeof *sr);
    char (*names)[2 * BENCH_MODEL_NAME_MAX] = calloc(nrows, sizeof *names);
    char (*cat)[32] = calloc(ns ? ns : 1, sizeof *cat);
    const char **catp = calloc(ns ? ns : 1, sizeof *catp);
    if (tx && ty && dx && dy && sr && names && cat && catp) {
        double xmax = 1;
        for (size_t r = 0; r < nrows; r++) {
            const char *key = rows[r]->key;
            snprintf(names[r], sizeof names[r], "%s%s%s", rows[r]->test, strcmp(key, "-") ? " " : "",
                     strcmp(key, "-") ? key : "");
            const size_t np = ds_threads(d, rows[r], tx[r], ty[r], DS_MAX_POINTS);
            if (np && tx[r][np - 1] > xmax)
                xmax = tx[r][np - 1];
            sr[r] = (series){ tx[r], ty[r], np, names[r], palette[r % 5], r >= 5 };
        }
        /* A line a test, and a family's tests differ by more than a decade
         * (RSA verifies ~30 times as fast as it signs): on one linear axis
         * the slower lines lay flat at 0.  A log axis, always (not switched
         * by the data), keeps every line readable and shows equal ratios
         * (doubling with the threads) as equal rises, which is what a
         * scaling curve is read for; small multiples would give a family
         * of a dozen tests a dozen charts and lose the side by side. */
        char title[160];
        snprintf(title, sizeof title, "%s: throughput by threads", family);
        axis ax = { 1, xmax, AX_LINEAR, FMT_NUM, "threads", NULL, 0 };
        axis ay = { 0, 0, AX_LOG, FMT_NUM, "operations per second (log scale)", NULL, 0 };
        line_chart(f, title, &ax, &ay, sr, nrows);
        if (ns) {
            for (size_t k = 0; k < ns; k++) {
                bench_fmt_bytes((double)ds->data_sizes[k], cat[k], sizeof cat[k]);
                catp[k] = cat[k];
            }
            for (size_t r = 0; r < nrows; r++) {
                for (size_t k = 0; k < ns && k < DS_MAX_POINTS; k++) {
                    const bench_run_model *dr = ds_at_size(d, rows[r], ds->data_sizes[k]);
                    dx[r][k] = (double)k;
                    dy[r][k] = dr ? dr->bytes_per_s : NAN;
                }
                sr[r] = (series){ dx[r], dy[r], ns < DS_MAX_POINTS ? ns : DS_MAX_POINTS, names[r],
                                  palette[r % 5], r >= 5 };
            }
            snprintf(title, sizeof title, "%s: bytes/s by data size (1 thread)", family);
            axis bx = { -0.5, (double)ns - 0.5, AX_CAT, FMT_NUM, "data size", catp, ns };
            axis by = { 0, 0, AX_LOG, FMT_BYTES, "bytes per second (log scale)", NULL, 0 };
            line_chart(f, title, &bx, &by, sr, nrows);
        }
    }
    fputs("</div>\n", f);
    if (names && nrows > 2) {
        /* More lines than a chart's legend holds: the key under the charts. */
        fputs("<p class=\"sub\">", f);
        for (size_t r = 0; r < nrows; r++) {
            fprintf(f, "%s<span style=\"color:%s\">%s</span> ", r ? " · " : "", palette[r % 5],
                    r >= 5 ? "┄┄" : "━━");
            esc(f, names[r]);
        }
        fputs("</p>\n", f);
    }
    free(tx);
    free(ty);
    free(dx);
    free(dy);
    free(sr);
    free(names);
    free(cat);
    free(catp);
}

/* The datasheet: its plan and time, then each family, in the order of the file. */
static void datasheet_section(FILE *f, const bench_doc_model *d)
{
    const bench_ds_facts *ds = &d->datasheet;
    const char *fams[64];
    size_t nf = 0;
    char a[48];
    for (size_t i = 0; i < d->nruns; i++) {
        const char *fam = d->runs[i].ds_family;
        int seen = !*fam;
        for (size_t k = 0; k < nf && !seen; k++)
            seen = strcmp(fams[k], fam) == 0;
        if (!seen && nf < sizeof fams / sizeof fams[0])
            fams[nf++] = fam;
    }
    fputs("<section id=\"datasheet\"><h2>Datasheet</h2><p class=\"sub\">", f);
    const bench_doc_facts *x = &d->facts;
    if (x->token_object) {
        /* The device the figures are of, as C_GetTokenInfo names it. */
        fputs("Token ", f);
        esc(f, said(x->token_label, "?"));
        fputs(" · ", f);
        esc(f, said(x->token_manufacturer, "?"));
        fputs(" ", f);
        esc(f, said(x->token_model, "?"));
        fputs(" · firmware ", f);
        esc(f, said(x->token_firmware, "?"));
        fputs(" · hardware ", f);
        esc(f, said(x->token_hardware, "?"));
        fputs(". ", f);
    }
    fprintf(f, "%zu steps of %s", ds->nplan_steps, fmt_num(ds->step_time_s, a, sizeof a));
    fprintf(f, " s, threads up to %lld; announced %.0f s", ds->max_threads, ds->announced_s);
    if (ds->has_took)
        fprintf(f, ", took %.0f s", ds->took_s);
    fputs(". Latency at one thread; stable: the 95 % interval of " BENCH_STABLE_COVERS " at one thread "
          "(batch means inside that one step, not the token's rate from run to run); peak: the best "
          "measured throughput of the thread sweep; knee and USL peak: the sweep's Universal Scalability "
          "Law analysis; bytes/s at one thread.</p>\n", f);
    for (size_t k = 0; k < nf; k++)
        ds_family(f, d, fams[k]);
    fputs("</section>\n", f);
}

int bench_html_write(FILE *f, const bench_doc_model *d, const bench_section *const *sections)
{
    const json_t *doc = d->doc;

    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
          "style-src 'unsafe-inline'; img-src data:\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<meta name=\"generator\" content=\"hsmbench ", f);
    esc(f, HSMBENCH_VERSION);
    fputs("\">\n<link rel=\"icon\" href=\"data:,\">\n<title>hsmbench report", f);
    if (d->facts.has_host) {
        fputs(" · ", f);
        esc(f, said(d->facts.hostname, "?"));
    }
    const char *started = d->facts.started_at;
    if (started) {
        fputs(" · ", f);
        esc(f, started);
    }
    fprintf(f, "</title>\n<style>%s</style>\n</head>\n<body>\n<header><h1>hsmbench %s</h1><p class=\"sub\">",
            style, d->facts.datasheet ? "datasheet" : "report");
    fprintf(f, "%zu run%s", d->nruns, d->nruns == 1 ? "" : "s");
    bench_target tg;
    if (bench_target_of(doc, &tg) >= 0) {
        fputs(" · ", f);
        esc(f, tg.name);
    }
    if (started) {
        fputs(" · started ", f);
        esc(f, started);
    }
    fputs("</p></header>\n", f);

    environment(f, d);
    if (d->facts.datasheet) {
        /* A datasheet's page: its tables and charts, the runs listed after. */
        datasheet_section(f, d);
        summary_table(f, d);
        fputs("<footer>Generated by hsmbench ", f);
        esc(f, HSMBENCH_VERSION);
        fputs(" from a datasheet (hsmbench datasheet).", f);
        fputs(axes_rule, f);
        fputs("</footer>\n</body></html>\n", f);
        return ferror(f) ? -1 : 0;
    }
    capacity_section(f, &d->capacity, sections);
    summary_table(f, d);
    repeats_section(f, &d->repeats);
    size_t drawn = sweeps(f, d, 1, 0);
    drawn = sweeps(f, d, 0, drawn);
    if (drawn)
        fputs("</section>\n", f);
    for (size_t i = 0; i < d->nruns; i++)
        run_section(f, &d->runs[i], i, sections);
    fputs("<footer>Generated by hsmbench ", f);
    esc(f, HSMBENCH_VERSION);
    fputs(" from a ", f);
    esc(f, BENCH_RESULT_SCHEMA);
    fputs(" document. Latency figures come from histograms with three significant digits; "
          "percentile curves use the HdrHistogram convention.", f);
    fputs(axes_rule, f);
    fputs("</footer>\n</body></html>\n", f);
    return ferror(f) ? -1 : 0;
}

typedef struct html_job {
    const bench_doc_model      *d;
    const bench_section *const *sections;
} html_job;

static int write_html_job(FILE *f, const void *ctx)
{
    const html_job *job = ctx;
    return bench_html_write(f, job->d, job->sections);
}

int bench_html_write_file(const char *path, const json_t *doc, const char *flag,
                          const bench_section *const *sections)
{
    bench_doc_model d;
    if (bench_doc_model_of(doc, &d) != 0) {
        bench_error("%s %s: out of memory", flag, path);
        return -1;
    }
    const html_job job = { &d, sections };
    const int rc = bench_results_write_ctx(path, flag, write_html_job, &job);
    bench_doc_model_free(&d);
    return rc;
}
