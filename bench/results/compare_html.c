/* SPDX-License-Identifier: Apache-2.0 */
/* bench/results/compare_html.c - the comparison as an HTML page (see compare_html.h). */
#include "bench/results/compare_html.h"

#include <math.h>
#include <string.h>

#include "bench/results/html.h"

static void esc(FILE *f, const char *s)
{
    bench_html_esc(f, s);
}

/* A verdict word's class: bad for slower and more errors, ok for faster
 * and fewer, warn for not comparable and mixed. */
static const char *verdict_class(const char *v)
{
    if (strcmp(v, "slower") == 0 || strcmp(v, "more errors") == 0 || strcmp(v, "fail") == 0)
        return "bad";
    if (strcmp(v, "faster") == 0 || strcmp(v, "fewer errors") == 0 || strcmp(v, "pass") == 0)
        return "ok";
    if (strncmp(v, "no change", 9) == 0)
        return "";
    return "warn";
}

/* A figure, or "-" when it is not a finite number (the document's null). */
static void num_cell(FILE *f, double v, const char *unit)
{
    fputs("<td class=\"n\">", f);
    if (isfinite(v))
        fprintf(f, strcmp(unit, "%") == 0 ? "%.2f%%" : "%.2f", v);
    else
        fputs("-", f);
    fputs("</td>", f);
}

static void figures(FILE *f, const bench_pair_cmp *p)
{
    static const char *const units[] = { "ops/s", "us", "%" };
    fputs("<table><tr><th>figure</th><th>unit</th><th class=\"n\">A</th><th class=\"n\">B</th>"
          "<th class=\"n\">change</th><th>verdict</th><th>test</th></tr>\n", f);
    for (size_t i = 0; i < p->n; i++) {
        const bench_fig_cmp *x = &p->figs[i];
        const char *unit = units[x->unit];
        fputs("<tr><td>", f);
        esc(f, x->label);
        fputs("</td><td>", f);
        esc(f, strcmp(unit, "us") == 0 ? "\xc2\xb5s" : unit);
        fputs("</td>", f);
        num_cell(f, x->a, unit);
        num_cell(f, x->b, unit);
        if (strcmp(unit, "%") == 0 && isfinite(x->delta))
            fprintf(f, "<td class=\"n\">%+.2fpp</td>", x->delta);
        else if (x->has_pct && isfinite(x->pct))
            fprintf(f, "<td class=\"n\">%+.2f%%</td>", x->pct);
        else
            fputs("<td class=\"n\">-</td>", f);
        const char *v = bench_change_word(x);
        fprintf(f, "<td class=\"%s\">", verdict_class(v));
        esc(f, v);
        fputs("</td><td>", f);
        esc(f, x->tested ? x->method : x->why);
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n", f);
}

static void rules(FILE *f, const bench_cmp_pair *p)
{
    static const char *const results[] = { "pass", "fail", "not judged" };
    if (!p->nrules)
        return;
    fputs("<ul class=\"th\">\n", f);
    for (size_t i = 0; i < p->nrules; i++) {
        fprintf(f, "<li class=\"%s\"><code>--fail-on ", verdict_class(results[p->rules[i].result]));
        esc(f, p->rules[i].rule);
        fputs("</code>: ", f);
        esc(f, p->rules[i].why);
        fputs("</li>\n", f);
    }
    fputs("</ul>\n", f);
}

static void files(FILE *f, const bench_compare *c)
{
    fputs("</p></header>\n<section id=\"files\"><h2>Files</h2><table><tr><th></th><th>file</th><th>target</th>"
          "<th>host</th><th>started</th></tr>\n", f);
    for (size_t i = 0; i < c->nfiles; i++) {
        const bench_cmp_file *x = &c->files[i];
        const char *cells[5] = { x->label, x->path, x->target.name, x->hostname, x->started_at ? x->started_at : "" };
        fputs("<tr>", f);
        for (int k = 0; k < 5; k++) {
            fputs("<td>", f);
            esc(f, cells[k]);
            fputs("</td>", f);
        }
        fputs("</tr>\n", f);
    }
    fputs("</table></section>\n", f);
}

static void pair(FILE *f, const bench_compare *c, const bench_cmp_pair *x)
{
    fputs("<h3>", f);
    esc(f, x->a->test);
    fprintf(f, " \xc2\xb7 %lld thread%s \xc2\xb7 ", (long long)x->a->threads, x->a->threads == 1 ? "" : "s");
    esc(f, x->a->mode);
    fputs(" \xc2\xb7 ", f);
    esc(f, c->files[x->run_file].label);
    fputs(" vs ", f);
    esc(f, c->files[x->base_file].label);
    fputs(": ", f);
    const int comparable = x->match == BENCH_CMP_COMPARED;
    const char *v = comparable ? x->verdict : "not comparable";
    fprintf(f, "<span class=\"%s\">", verdict_class(v));
    esc(f, v);
    fputs("</span></h3>\n", f);
    if (!comparable) {
        fputs("<p class=\"warn\">", f);
        esc(f, x->why);
        fputs("</p>\n", f);
        return;
    }
    if (x->different_target)
        fputs("<p class=\"warn\">\xe2\x9a\xa0 different target</p>\n", f);
    figures(f, &x->cmp);
    rules(f, x);
}

int bench_compare_html_write(FILE *f, const bench_compare *c)
{
    const char *version = HSMBENCH_VERSION;
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
          "style-src 'unsafe-inline'; img-src data:\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<meta name=\"generator\" content=\"hsmbench ", f);
    esc(f, version);
    fprintf(f, "\">\n<link rel=\"icon\" href=\"data:,\">\n<title>hsmbench compare</title>\n<style>%s</style>\n"
            "</head>\n<body>\n<header><h1>hsmbench compare</h1><p class=\"sub\">", bench_html_style());
    const long long failed = (long long)c->failed;
    fprintf(f, "%zu files \xc2\xb7 changes against A \xc2\xb7 significant at p &lt; %.2g, a verdict from a change "
            "of %.3g%%", c->nfiles, c->alpha, c->min_change_pct);
    if (c->nrules)
        fprintf(f, " \xc2\xb7 <span class=\"%s\">%lld rule check%s failed</span>", failed ? "bad" : "ok", failed,
                failed == 1 ? "" : "s");
    files(f, c);
    fputs("<section id=\"pairs\"><h2>Comparisons</h2>\n", f);
    for (size_t i = 0; i < c->npairs; i++)
        pair(f, c, &c->pairs[i]);
    fputs("</section>\n<footer>Generated by hsmbench ", f);
    esc(f, version);
    fputs(" from a " BENCH_COMPARE_SCHEMA " document. Latency quantiles are tested from the runs' histograms "
          "(three significant digits).</footer>\n</body></html>\n", f);
    return ferror(f) ? -1 : 0;
}
