/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/results/report_csv.c - the CSV report, with the columns of the Fortanix
 * SDKMS REST test bench (so its users' spreadsheets keep working), meaning
 * what they mean there: the bench is a JMeter plan, and JMeter counts a
 * failed sample like any other, so "total operations", "Throughput per sec"
 * and the latencies are every attempt's, failed ones included, and "Error %"
 * the errors of those attempts (issue 39, item 2).  After the bench's columns
 * p50 and p95 (attempts too), attempts, and hsmbench's own success-only
 * figures: successes, successes per sec, and the successes' average and p99
 * latency.  A document with a breakdown (a --mix, several tokens)
 * gets one more column, "class", empty on a run's own row, and after that
 * row one row per class ("type=rsa-pkcs-sign") with the class's figures;
 * a document without one is written as it always was.  RFC 4180: CRLF line ends, a field is quoted when it holds a
 * comma, a quote or a line break, and quotes inside are doubled.
 */
#include "bench/results/report_csv.h"
#include "bench/results/text.h"

#include "bench/results/model.h"

#include <string.h>

static const char *const header[] = {
    "operation", "threads", "duration(sec)", "total operations", "average latency(ms)",
    "p90 latency(ms)", "p99 latency(ms)", "min latency (ms)", "max latency (ms)", "Error %",
    "Throughput per sec", "capacity (kb/s)", "p50 latency(ms)", "p95 latency(ms)", "attempts",
    "successes", "successes per sec", "success average latency(ms)", "success p99 latency(ms)",
};
#define NCOLS (sizeof header / sizeof header[0])

void bench_csv_field(FILE *f, const char *s, int first)
{
    if (!first)
        fputc(',', f);
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

/* Whether runs of this test in the document differ in data size: then the
 * operation names its data size, or two rows could not be told apart. */
static int data_sizes_vary(const bench_doc_model *d, const bench_run_model *m)
{
    for (size_t i = 0; i < d->nruns; i++)
        if (strcmp(d->runs[i].test, m->test) == 0 && d->runs[i].data_size != m->data_size)
            return 1;
    return 0;
}

/* Whether any run of the document has a breakdown. */
static int any_breakdown(const bench_doc_model *d)
{
    for (size_t i = 0; i < d->nruns; i++)
        if (d->runs[i].has_breakdown)
            return 1;
    return 0;
}

/* A latency cell in ms, or NA when there is no such latency (0 would be a claim). */
static void lat_cell(char *cell, const bench_model_latency *lat, double us)
{
    if (lat && lat->count > 0)
        snprintf(cell, 64, "%.5f", us / 1000);
    else
        snprintf(cell, 64, "NA");
}

/* The figures of a run (or of one class of its breakdown: c != NULL,
 * bytes/s NA), as the run model has them. */
static void figures(char cells[][64], const bench_run_model *m, const bench_model_class *c)
{
    const bench_model_latency *ok = c ? &c->latency : &m->latency;
    const uint64_t errors = c ? c->errors : m->errors;
    /* Every attempt's latency: a class's only when none of it failed (the
     * file keeps no class's failed latencies); NA rather than the successes'. */
    const bench_model_latency *all = errors == 0 ? ok
                                     : !c && m->attempts_latency.present ? &m->attempts_latency : NULL;
    const double bps = c ? 0 : m->bytes_per_s;
    snprintf(cells[2], 64, "%.2f", m->duration_s);
    snprintf(cells[3], 64, "%llu", (unsigned long long)(c ? c->attempts : m->attempts));
    const struct { size_t col; double us; } lat_cells[] = {
        { 4, all ? all->mean : 0 }, { 5, all ? all->p90 : 0 }, { 6, all ? all->p99 : 0 },
        { 7, all ? all->min : 0 }, { 8, all ? all->max : 0 }, { 12, all ? all->p50 : 0 },
        { 13, all ? all->p95 : 0 },
    };
    for (size_t k = 0; k < sizeof lat_cells / sizeof lat_cells[0]; k++)
        lat_cell(cells[lat_cells[k].col], all, lat_cells[k].us);
    snprintf(cells[9], 64, "%.2f%%", c ? c->error_pct : m->error_pct);
    snprintf(cells[10], 64, "%.2f", c ? c->attempts_per_s : m->attempts_per_s);
    /* bytes_per_s is 0 for the tests that process no data (signatures);
     * KiB/s, as JMeter's "KB/sec" (bytes / 1024). */
    if (bps > 0)
        snprintf(cells[11], 64, "%.2f", bps / 1024);
    else
        snprintf(cells[11], 64, "NA");
    snprintf(cells[14], 64, "%llu", (unsigned long long)(c ? c->attempts : m->attempts));
    snprintf(cells[15], 64, "%llu", (unsigned long long)(c ? c->ops : m->ops));
    snprintf(cells[16], 64, "%.2f", c ? c->ops_per_s : m->ops_per_s);
    lat_cell(cells[17], ok, ok->mean);
    lat_cell(cells[18], ok, ok->p99);
}

static void row(FILE *f, const char *op, char cells[][64], int with_class, const char *cls)
{
    bench_csv_field(f, op, 1);
    for (size_t c = 1; c < NCOLS; c++)
        bench_csv_field(f, cells[c], 0);
    if (with_class)
        bench_csv_field(f, cls, 0);
    fputs("\r\n", f);
}

int bench_csv_write(FILE *f, const bench_doc_model *d)
{
    const int with_class = any_breakdown(d);
    for (size_t c = 0; c < NCOLS; c++)
        bench_csv_field(f, header[c], c == 0);
    if (with_class)
        bench_csv_field(f, "class", 0);
    fputs("\r\n", f);

    for (size_t i = 0; i < d->nruns; i++) {
        const bench_run_model *m = &d->runs[i];
        char cells[NCOLS][64];
        memset(cells, 0, sizeof cells);
        char op[256];
        if (data_sizes_vary(d, m))
            snprintf(op, sizeof op, "%s %llu B", m->name, (unsigned long long)m->data_size);
        else
            snprintf(op, sizeof op, "%s", m->name);
        snprintf(cells[1], sizeof cells[1], "%u", m->threads);
        if (m->measured)
            figures(cells, m, NULL);
        row(f, op, cells, with_class, "");
        for (size_t k = 0; m->measured && k < m->nby; k++) {
            const bench_model_breakdown *b = &m->by[k];
            for (size_t j = 0; j < b->n; j++) {
                char cls[256];
                snprintf(cls, sizeof cls, "%s=%s", b->dimension, b->classes[j].label);
                figures(cells, m, &b->classes[j]);
                row(f, op, cells, with_class, cls);
            }
        }
    }
    return ferror(f) ? -1 : 0;
}

int bench_csv_write_file(const char *path, const json_t *doc, const char *flag)
{
    return bench_results_write_model(path, doc, flag, bench_csv_write);
}
