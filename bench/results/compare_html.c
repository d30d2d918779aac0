/* SPDX-License-Identifier: Apache-2.0 */
/* bench/results/compare_html.c - the comparison as an HTML page (see compare_html.h). */
#include "bench/results/compare_html.h"

#include <string.h>

#include "bench/results/html.h"
#include "bench/results/codec.h"

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

static void num_cell(FILE *f, const json_t *v, const char *unit)
{
    fputs("<td class=\"n\">", f);
    if (json_is_number(v))
        fprintf(f, strcmp(unit, "%") == 0 ? "%.2f%%" : "%.2f", json_number_value(v));
    else
        fputs("-", f);
    fputs("</td>", f);
}

static void figures(FILE *f, const json_t *pair)
{
    const json_t *figs = json_object_get(pair, "figures");
    size_t i;
    json_t *x;
    fputs("<table><tr><th>figure</th><th>unit</th><th class=\"n\">A</th><th class=\"n\">B</th>"
          "<th class=\"n\">change</th><th>verdict</th><th>test</th></tr>\n", f);
    json_array_foreach(figs, i, x) {
        const char *unit = bench_json_str(x, "unit", "");
        fputs("<tr><td>", f);
        esc(f, bench_json_str(x, "label", "?"));
        fputs("</td><td>", f);
        esc(f, strcmp(unit, "us") == 0 ? "\xc2\xb5s" : unit);
        fputs("</td>", f);
        num_cell(f, json_object_get(x, "a"), unit);
        num_cell(f, json_object_get(x, "b"), unit);
        const json_t *pct = json_object_get(x, "change_pct"), *d = json_object_get(x, "delta");
        if (strcmp(unit, "%") == 0 && json_is_number(d))
            fprintf(f, "<td class=\"n\">%+.2fpp</td>", json_number_value(d));
        else if (json_is_number(pct))
            fprintf(f, "<td class=\"n\">%+.2f%%</td>", json_number_value(pct));
        else
            fputs("<td class=\"n\">-</td>", f);
        const char *v = bench_json_str(x, "verdict", "?");
        fprintf(f, "<td class=\"%s\">", verdict_class(v));
        esc(f, v);
        fputs("</td><td>", f);
        const json_t *t = json_object_get(x, "test");
        esc(f, json_is_object(t) ? bench_json_str(t, "method", "") : bench_json_str(x, "why", ""));
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n", f);
}

static void rules(FILE *f, const json_t *pair)
{
    const json_t *rs = json_object_get(pair, "rules");
    if (!json_array_size(rs))
        return;
    size_t i;
    json_t *r;
    fputs("<ul class=\"th\">\n", f);
    json_array_foreach(rs, i, r) {
        const char *res = bench_json_str(r, "result", "?");
        fprintf(f, "<li class=\"%s\"><code>--fail-on ", verdict_class(res));
        esc(f, bench_json_str(r, "rule", "?"));
        fputs("</code>: ", f);
        esc(f, bench_json_str(r, "why", ""));
        fputs("</li>\n", f);
    }
    fputs("</ul>\n", f);
}

int bench_compare_html_write(FILE *f, const json_t *cmp)
{
    const json_t *files = json_object_get(cmp, "files"), *pairs = json_object_get(cmp, "comparisons");
    const char *version = bench_json_str(json_object_get(cmp, "tool"), "version", "?");
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
          "style-src 'unsafe-inline'; img-src data:\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<meta name=\"generator\" content=\"hsmbench ", f);
    esc(f, version);
    fprintf(f, "\">\n<link rel=\"icon\" href=\"data:,\">\n<title>hsmbench compare</title>\n<style>%s</style>\n"
            "</head>\n<body>\n<header><h1>hsmbench compare</h1><p class=\"sub\">", bench_html_style());
    size_t nf = json_array_size(files);
    long long failed = json_integer_value(json_object_get(cmp, "failed_rules"));
    fprintf(f, "%zu files \xc2\xb7 changes against A \xc2\xb7 significant at p &lt; %.2g, a verdict from a change "
            "of %.3g%%", nf, json_number_value(json_object_get(cmp, "alpha")),
            json_number_value(json_object_get(cmp, "min_change_pct")));
    if (json_array_size(json_object_get(cmp, "rules")))
        fprintf(f, " \xc2\xb7 <span class=\"%s\">%lld rule check%s failed</span>", failed ? "bad" : "ok", failed,
                failed == 1 ? "" : "s");
    fputs("</p></header>\n<section id=\"files\"><h2>Files</h2><table><tr><th></th><th>file</th><th>target</th>"
          "<th>host</th><th>started</th></tr>\n", f);
    size_t i;
    json_t *x;
    json_array_foreach(files, i, x) {
        const char *cells[5] = { bench_json_str(x, "label", "?"), bench_json_str(x, "path", "?"),
                                 bench_json_str(x, "target", "?"), bench_json_str(x, "host", "?"),
                                 bench_json_str(x, "started_at", "") };
        fputs("<tr>", f);
        for (int k = 0; k < 5; k++) {
            fputs("<td>", f);
            esc(f, cells[k]);
            fputs("</td>", f);
        }
        fputs("</tr>\n", f);
    }
    fputs("</table></section>\n<section id=\"pairs\"><h2>Comparisons</h2>\n", f);
    json_array_foreach(pairs, i, x) {
        fputs("<h3>", f);
        esc(f, bench_json_str(x, "test", "?"));
        fprintf(f, " \xc2\xb7 %lld thread%s \xc2\xb7 ", (long long)json_integer_value(json_object_get(x, "threads")),
                json_integer_value(json_object_get(x, "threads")) == 1 ? "" : "s");
        esc(f, bench_json_str(x, "mode", "?"));
        fputs(" \xc2\xb7 ", f);
        esc(f, bench_json_str(x, "run", "?"));
        fputs(" vs ", f);
        esc(f, bench_json_str(x, "base", "?"));
        fputs(": ", f);
        int comparable = json_is_true(json_object_get(x, "comparable"));
        const char *v = comparable ? bench_json_str(x, "verdict", "?") : "not comparable";
        fprintf(f, "<span class=\"%s\">", verdict_class(v));
        esc(f, v);
        fputs("</span></h3>\n", f);
        if (!comparable) {
            fputs("<p class=\"warn\">", f);
            esc(f, bench_json_str(x, "why", ""));
            fputs("</p>\n", f);
            continue;
        }
        if (json_is_true(json_object_get(x, "different_target")))
            fputs("<p class=\"warn\">\xe2\x9a\xa0 different target</p>\n", f);
        figures(f, x);
        rules(f, x);
    }
    fputs("</section>\n<footer>Generated by hsmbench ", f);
    esc(f, version);
    fputs(" from a " BENCH_COMPARE_SCHEMA " document. Latency quantiles are tested from the runs' histograms "
          "(three significant digits).</footer>\n</body></html>\n", f);
    return ferror(f) ? -1 : 0;
}
