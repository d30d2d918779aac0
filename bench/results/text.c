/* SPDX-License-Identifier: Apache-2.0 */
/* bench/results/text.c - what every view writes with: a report to its file or standard output, the cells of a text table (text.h). */
#include "bench/results/text.h"

#include <string.h>

#include "bench/util/cli.h"
#include "bench/util/outfile.h"

/* ---- writing reports ---------------------------------------------------- */

typedef struct doc_job {
    const json_t *doc;
    bench_doc_writer write;
} doc_job;

static int write_job(FILE *f, const void *ctx)
{
    const doc_job *job = ctx;
    return job->write(f, job->doc);
}

int bench_results_write_ctx(const char *path, const char *flag, bench_ctx_writer write, const void *ctx)
{
    if (strcmp(path, "-") == 0) {
        char what[64];
        snprintf(what, sizeof what, "%s -", flag);
        const int failed = write(stdout, ctx) != 0;
        return bench_stdout_check(what) != 0 || failed ? -1 : 0;
    }
    return bench_out_write(flag, path, write, ctx);
}

int bench_results_write_text(const char *path, const json_t *doc, const char *flag,
                             bench_doc_writer write)
{
    const doc_job job = { doc, write };
    return bench_results_write_ctx(path, flag, write_job, &job);
}

typedef struct model_job {
    const bench_doc_model *d;
    bench_model_writer     write;
} model_job;

static int write_model_job(FILE *f, const void *ctx)
{
    const model_job *job = ctx;
    return job->write(f, job->d);
}

int bench_results_write_model(const char *path, const json_t *doc, const char *flag,
                              bench_model_writer write)
{
    bench_doc_model d;
    if (bench_doc_model_of(doc, &d) != 0) {
        bench_error("%s %s: out of memory", flag, path);
        return -1;
    }
    const model_job job = { &d, write };
    const int rc = bench_results_write_ctx(path, flag, write_model_job, &job);
    bench_doc_model_free(&d);
    return rc;
}

/* ---- text tables -------------------------------------------------------- */

int bench_text_cols(const char *s)
{
    int cols = 0;
    for (const char *p = s; *p; p++)
        cols += ((unsigned char)*p & 0xc0) != 0x80;   /* count code points, not bytes */
    return cols;
}

int bench_col_fit(int width, const char *s)
{
    int cols = bench_text_cols(s);
    return cols > width ? cols : width;
}

void bench_fput_cell(FILE *f, const char *s, int width, int right)
{
    int cols = bench_text_cols(s);
    if (right)
        for (int i = cols; i < width; i++)
            fputc(' ', f);
    fputs(s, f);
    if (!right)
        for (int i = cols; i < width; i++)
            fputc(' ', f);
}
