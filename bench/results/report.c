/* SPDX-License-Identifier: Apache-2.0 */
/* bench/results/report.c - the summary people read, and the results file written out. */
#include "bench/results/report.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "bench/results/series.h"
#include "bench/util/cli.h"
#include "bench/util/outfile.h"
#include "bench/results/model.h"
#include "bench/results/text.h"

void bench_report_second(FILE *f, const bench_sample *s)
{
    /* pkpspeed prints the operations of a 1-second window as "N/1"; a
     * shorter last window says how long it was rather than pass for a second. */
    char span[16];
    if (s->span_s > 0.95 && s->span_s < 1.05)
        snprintf(span, sizeof span, "1");
    else
        snprintf(span, sizeof span, "%.2f", s->span_s);
    /* The second's successful operations, as pkpspeed counts them; its
     * failures beside them. */
    fprintf(f, "OPERATIONS/second%*s%llu/%s", 16, "", (unsigned long long)(s->ops - s->errors),
            span);
    if (s->errors)
        fprintf(f, "   errors %llu", (unsigned long long)s->errors);
    if (s->target > 0 || s->in_flight) {
        char a[32], b[32];
        fprintf(f, "   target %.0f   in flight %llu   p50 %s   p99 %s", s->target,
                (unsigned long long)s->in_flight, bench_fmt_ns((double)s->p50_ns, a, sizeof a),
                bench_fmt_ns((double)s->p99_ns, b, sizeof b));
    }
    fprintf(f, "%s\n", s->warmup ? "   (warm-up)" : "");
    bench_flush(f);
}

/* "data 32 B", or "block 256 B" for a raw operation on one modulus-sized block. */
static const char *data_text(const bench_run_desc *d, char *buf, size_t len)
{
    if (d->data_desc)
        snprintf(buf, len, "%s", d->data_desc);
    else if (d->block_size)
        snprintf(buf, len, "block %llu B", (unsigned long long)d->block_size);
    else
        snprintf(buf, len, "data %llu B", (unsigned long long)d->data_size);
    return buf;
}

void bench_report_header(FILE *f, const bench_run_desc *d)
{
    char data[48];
    char bound[64];
    if (d->duration_s > 0)
        snprintf(bound, sizeof bound, "%.4gs", d->duration_s);
    else
        snprintf(bound, sizeof bound, "%llu operations%s", (unsigned long long)d->iterations,
                 d->per_thread ? " a thread" : "");
    fprintf(f, "\nRunning %s (%s, %s, %s): %u thread%s, %s, %s", d->test,
            d->mechanism ? d->mechanism : "-", d->key_desc ? d->key_desc : "no key",
            data_text(d, data, sizeof data), d->threads, d->threads == 1 ? "" : "s", d->mode, bound);
    if (d->warmup_s > 0)
        fprintf(f, " after %.4gs warm-up", d->warmup_s);
    if (d->rate > 0)
        fprintf(f, ", %.6g ops/s scheduled", d->rate);
    if (d->inflight)
        fprintf(f, ", at most %u in flight", d->inflight);
    if (d->stages)
        fprintf(f, ", stages %s", d->stages);
    if (d->think_s > 0)
        fprintf(f, ", think %.4gs", d->think_s);
    if (d->ramp_up_s > 0)
        fprintf(f, ", ramp-up %.4gs", d->ramp_up_s);
    if (d->engine && d->slots)
        fprintf(f, " [%s, %u slot%s]", d->engine, d->slots, d->slots == 1 ? "" : "s");
    else if (d->engine)
        fprintf(f, " [%s]", d->engine);
    fprintf(f, "\n");
    bench_flush(f);
}

/* k6 pads metric names with dots to a fixed column. */
static void label(FILE *f, const char *name, int indent)
{
    int width = 26 - indent;
    int n = (int)strlen(name);
    fprintf(f, "%*s%s", indent, "", name);
    for (int i = n; i < width; i++)
        fputc('.', f);
    fputs(": ", f);
}

void bench_report_latency_line(FILE *f, int width, const char *name, const bench_model_latency *l,
                               const char *empty)
{
    char a[32], b[32], c[32], e[32], g[32], i[32], j[32], k[32], q[32];
    fprintf(f, "    %s", name);
    for (int pad = (int)strlen(name); pad < width; pad++)
        fputc('.', f);
    fputs(": ", f);
    if (!l->present || l->count == 0) {
        fprintf(f, "%s\n", empty);
        return;
    }
    fprintf(f, "avg=%s min=%s med=%s p(90)=%s p(95)=%s p(99)=%s p(99.9)=%s max=%s stddev=%s\n",
            bench_fmt_ns(l->mean * 1e3, a, sizeof a), bench_fmt_ns(l->min * 1e3, b, sizeof b),
            bench_fmt_ns(l->p50 * 1e3, c, sizeof c), bench_fmt_ns(l->p90 * 1e3, e, sizeof e),
            bench_fmt_ns(l->p95 * 1e3, g, sizeof g), bench_fmt_ns(l->p99 * 1e3, i, sizeof i),
            bench_fmt_ns(l->p999 * 1e3, j, sizeof j), bench_fmt_ns(l->max * 1e3, k, sizeof k),
            bench_fmt_ns(l->stddev * 1e3, q, sizeof q));
}

/* The summary's latency lines. */
static void latency_line(FILE *f, const char *name, const bench_model_latency *l)
{
    bench_report_latency_line(f, 22, name, l, "no successful operation");
}

/* A breakdown's table after the summary: one line per class. */
static void breakdown_table(FILE *f, const bench_model_breakdown *b)
{
    char title[128];
    snprintf(title, sizeof title, "by %s", b->dimension);
    int cw = bench_text_cols(title), weights = 0;
    for (size_t c = 0; c < b->n; c++) {
        if (bench_text_cols(b->classes[c].label) + 2 > cw)
            cw = bench_text_cols(b->classes[c].label) + 2;   /* labels are indented by 2 more */
        weights |= b->classes[c].has_weight;
    }
    fprintf(f, "\n    ");
    bench_fput_cell(f, title, cw, 0);
    fprintf(f, " %7s", "share");
    if (weights)
        fprintf(f, " %7s", "weight");
    fprintf(f, " %12s %10s %10s %7s  %s\n", "ops/s", "p50", "p99", "err%", "top error");
    for (size_t c = 0; c < b->n; c++) {
        const bench_model_class *x = &b->classes[c];
        char a[32], p[32];
        const int lat = x->latency.count > 0;
        fprintf(f, "      ");
        bench_fput_cell(f, x->label, cw - 2, 0);
        fprintf(f, " %6.2f%%", x->share_pct);
        if (weights)
            fprintf(f, " %6.2f%%", 100.0 * x->weight);
        fprintf(f, " %12.2f %10s %10s %7.2f  %s\n", x->ops_per_s,
                lat ? bench_fmt_ns(x->latency.p50 * 1e3, a, sizeof a) : "-",
                lat ? bench_fmt_ns(x->latency.p99 * 1e3, p, sizeof p) : "-", x->error_pct,
                *x->top_error ? x->top_error : "-");
    }
}

void bench_report_summary(FILE *f, const bench_run_desc *d, const bench_run_model *m)
{
    char a[32], b[32];

    fprintf(f, "\n  %s", d->test);
    if (d->mechanism)
        fprintf(f, " · %s", d->mechanism);
    if (d->key_desc && strcmp(d->key_desc, "-") != 0)
        fprintf(f, " · %s", d->key_desc);
    /* A mix of types names its types' data sizes (data_desc). */
    char data[64] = "", text[48];
    if (d->data_desc || d->block_size || d->data_size || m->nby == 0)
        snprintf(data, sizeof data, " · %s", data_text(d, text, sizeof text));
    fprintf(f, "%s · %u thread%s · %s\n\n", data, d->threads, d->threads == 1 ? "" : "s", d->mode);

    label(f, "status", 4);
    if (strcmp(m->status, "failed") == 0 || strcmp(m->status, "errors") == 0)
        fprintf(f, "%s: %s\n", m->status, m->reason);
    else
        fprintf(f, "%s\n", m->status);
    label(f, "duration", 4);
    fprintf(f, "%.2fs", m->duration_s);
    if (d->warmup_s > 0)
        fprintf(f, " (warm-up %.4gs excluded)", d->warmup_s);
    fprintf(f, "\n");
    /* Throughput is what succeeded; attempts are shown beside it when
     * some failed. */
    label(f, "operations", 4);
    fprintf(f, "%-10llu %.2f/s\n", (unsigned long long)m->ops, m->ops_per_s);
    if (m->errors) {
        label(f, "attempts", 4);
        fprintf(f, "%-10llu %.2f/s\n", (unsigned long long)m->attempts, m->attempts_per_s);
    }
    if (m->bytes_per_s > 0) {
        label(f, "data", 4);
        fprintf(f, "%-10s %s/s\n", bench_fmt_bytes(m->bytes, a, sizeof a),
                bench_fmt_bytes(m->bytes_per_s, b, sizeof b));
    }
    char stable[384];
    if (bench_model_stable_text(m, stable, sizeof stable)) {
        label(f, "stable", 4);
        fprintf(f, "%s\n", stable);
    }
    if (m->open_loop) {
        label(f, "schedule", 4);
        fprintf(f, "target %.2f/s achieved %.2f/s; %llu late, %llu dropped of %llu scheduled\n",
                m->target_ops_per_s, m->achieved_ops_per_s, (unsigned long long)m->late,
                (unsigned long long)m->dropped, (unsigned long long)m->scheduled);
    }
    latency_line(f, m->open_loop ? "latency (scheduled)" : "latency", &m->latency);
    if (m->open_loop) {
        latency_line(f, "service time", &m->service);
        latency_line(f, "queueing delay", &m->queue);
        /* The requests that never started, as wrk2 counts them: at least
         * from when each was due to the end; and every request with them. */
        if (m->dropped && m->unstarted.count) {
            latency_line(f, "unstarted, at least", &m->unstarted);
            latency_line(f, "all requests, at least", &m->scheduled_latency);
        }
    }

    label(f, "errors", 4);
    fprintf(f, "%.2f%%     %llu of %llu\n", m->error_pct, (unsigned long long)m->errors,
            (unsigned long long)m->attempts);
    for (size_t n = 0; n < m->ncodes; n++) {
        label(f, m->codes[n].name, 6);
        fprintf(f, "%llu\n", (unsigned long long)m->codes[n].count);
    }
    for (size_t k = 0; k < m->nby; k++)
        breakdown_table(f, &m->by[k]);
    bench_flush(f);
}

/* A document may hold runs read from a file (a resumed datasheet's), their
 * series compact: bench_series_dumpf writes them out, and the others as
 * json_dumpf does. */
static int dump_doc(FILE *f, const json_t *doc)
{
    if (bench_series_dumpf(doc, f) != 0 || fputc('\n', f) == EOF)
        return -1;
    return ferror(f) ? -1 : 0;
}

int bench_report_write(const char *path, json_t *doc)
{
    /* "-": standard output, checked, as --csv - and --html - */
    return bench_results_write_text(path, doc, "--json", dump_doc);
}
