/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/results/report_tidy.c - the tidy CSV report (report --csv-layout
 * tidy): one row a run, one variable a column, for analysis tools (pandas,
 * R, a spreadsheet's pivot table).  The run's setting each in its own column
 * (test, its --tls-matrix variant, key, data size, threads, mode, status,
 * reason), and every figure a
 * plain number in the unit its header names: error_pct is 1.12, not
 * "1.12%"; bytes_per_s is bytes a second.  A cell with nothing to say (no
 * key, a run that was not measured, no data processed, no latency) is empty.
 * The latencies are every attempt's (failed ones included, as JMeter's and
 * the SDKMS layout's); the success_ columns are the successes' alone.
 * RFC 4180, as the SDKMS layout (report_csv.c).
 */
#include "bench/results/report_csv.h"
#include "bench/results/text.h"

#include "bench/results/model.h"

#include <string.h>

static const char *const tidy_header[] = {
    "test", "variant", "key", "data_size_bytes", "threads", "mode", "status", "reason",
    "duration_s", "attempts", "successes", "errors", "error_pct", "attempts_per_s", "successes_per_s",
    "bytes_per_s", "latency_mean_ms", "latency_min_ms", "latency_p50_ms", "latency_p90_ms",
    "latency_p95_ms", "latency_p99_ms", "latency_max_ms", "success_latency_mean_ms",
    "success_latency_p99_ms",
};
#define TIDY_NCOLS (sizeof tidy_header / sizeof tidy_header[0])
#define TIDY_CELL  64

/* A latency in ms (the model's are in µs), empty when there is none. */
static void ms_cell(char *cell, const bench_model_latency *lat, double us)
{
    if (lat && lat->count > 0)
        snprintf(cell, TIDY_CELL, "%.5f", us / 1000);
}

static void tidy_figures(char cells[][TIDY_CELL], const bench_run_model *m)
{
    const bench_model_latency *ok = &m->latency;
    const bench_model_latency *all = m->errors == 0 ? ok : m->attempts_latency.present ? &m->attempts_latency
                                                                                     : NULL;
    snprintf(cells[8], TIDY_CELL, "%.6f", m->duration_s);
    snprintf(cells[9], TIDY_CELL, "%llu", (unsigned long long)m->attempts);
    snprintf(cells[10], TIDY_CELL, "%llu", (unsigned long long)m->ops);
    snprintf(cells[11], TIDY_CELL, "%llu", (unsigned long long)m->errors);
    snprintf(cells[12], TIDY_CELL, "%.4f", m->error_pct);
    snprintf(cells[13], TIDY_CELL, "%.2f", m->attempts_per_s);
    snprintf(cells[14], TIDY_CELL, "%.2f", m->ops_per_s);
    if (m->bytes_per_s > 0)
        snprintf(cells[15], TIDY_CELL, "%.0f", m->bytes_per_s);
    const double us[] = { all ? all->mean : 0, all ? all->min : 0, all ? all->p50 : 0, all ? all->p90 : 0,
                          all ? all->p95 : 0, all ? all->p99 : 0, all ? all->max : 0 };
    for (size_t k = 0; k < sizeof us / sizeof us[0]; k++)
        ms_cell(cells[16 + k], all, us[k]);
    ms_cell(cells[23], ok, ok->mean);
    ms_cell(cells[24], ok, ok->p99);
}

int bench_csv_tidy_write(FILE *f, const bench_doc_model *d)
{
    for (size_t c = 0; c < TIDY_NCOLS; c++)
        bench_csv_field(f, tidy_header[c], c == 0);
    fputs("\r\n", f);

    for (size_t i = 0; i < d->nruns; i++) {
        const bench_run_model *m = &d->runs[i];
        char cells[TIDY_NCOLS][TIDY_CELL];
        memset(cells, 0, sizeof cells);
        snprintf(cells[3], TIDY_CELL, "%llu", (unsigned long long)m->data_size);
        snprintf(cells[4], TIDY_CELL, "%u", m->threads);
        if (m->measured)
            tidy_figures(cells, m);
        /* The run's words as the model has them ("-": no key, an empty cell). */
        const char *const words[8] = { m->test, m->variant, strcmp(m->key, "-") != 0 ? m->key : "", NULL,
                                       NULL, m->mode, m->status, m->reason };
        for (size_t c = 0; c < TIDY_NCOLS; c++)
            bench_csv_field(f, c < 8 && words[c] ? words[c] : cells[c], c == 0);
        fputs("\r\n", f);
    }
    return ferror(f) ? -1 : 0;
}

int bench_csv_tidy_write_file(const char *path, const json_t *doc, const char *flag)
{
    return bench_results_write_model(path, doc, flag, bench_csv_tidy_write);
}
