/*
 * bench/report_csv.c - the CSV report, with the columns of the Fortanix
 * SDKMS REST test bench (so its users' spreadsheets keep working) and p50 and
 * p95 appended.  RFC 4180: CRLF line ends, a field is quoted when it holds a
 * comma, a quote or a line break, and quotes inside are doubled.
 */
#include "bench/results.h"

#include <string.h>

static const char *const header[] = {
    "operation", "threads", "duration(sec)", "total operations", "average latency(ms)",
    "p90 latency(ms)", "p99 latency(ms)", "min latency (ms)", "max latency (ms)", "Error %",
    "Throughput per sec", "capacity (kb/s)", "p50 latency(ms)", "p95 latency(ms)",
};
#define NCOLS (sizeof header / sizeof header[0])

static void field(FILE *f, const char *s, int first)
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
static int data_sizes_vary(const json_t *runs, const json_t *run)
{
    size_t i;
    json_t *r;
    const char *test = bench_json_str(run, "test", "");
    long long size = bench_json_int(run, "data_size", 0);
    json_array_foreach(runs, i, r)
        if (strcmp(bench_json_str(r, "test", ""), test) == 0 && bench_json_int(r, "data_size", 0) != size)
            return 1;
    return 0;
}

int bench_csv_write(FILE *f, const json_t *doc)
{
    const json_t *runs = json_object_get(doc, "runs");
    for (size_t c = 0; c < NCOLS; c++)
        field(f, header[c], c == 0);
    fputs("\r\n", f);

    size_t i;
    json_t *run;
    json_array_foreach(runs, i, run) {
        char cells[NCOLS][64];
        const json_t *lat = json_object_get(run, "latency_us");
        memset(cells, 0, sizeof cells);
        const char *test = bench_json_str(run, "test", "");
        char op[256];
        if (data_sizes_vary(runs, run))
            snprintf(op, sizeof op, "%s %lld B", test, bench_json_int(run, "data_size", 0));
        else
            snprintf(op, sizeof op, "%s", test);
        snprintf(cells[1], sizeof cells[1], "%lld", bench_json_int(run, "threads", 0));
        if (bench_run_measured(run)) {
            double bps = bench_json_num(run, "bytes_per_s", 0);
            snprintf(cells[2], sizeof cells[2], "%.2f", bench_json_num(run, "duration_s", 0));
            snprintf(cells[3], sizeof cells[3], "%lld", bench_json_int(run, "ops", 0));
            snprintf(cells[4], sizeof cells[4], "%.5f", bench_json_num(lat, "mean", 0) / 1000);
            snprintf(cells[5], sizeof cells[5], "%.5f", bench_json_num(lat, "p90", 0) / 1000);
            snprintf(cells[6], sizeof cells[6], "%.5f", bench_json_num(lat, "p99", 0) / 1000);
            snprintf(cells[7], sizeof cells[7], "%.5f", bench_json_num(lat, "min", 0) / 1000);
            snprintf(cells[8], sizeof cells[8], "%.5f", bench_json_num(lat, "max", 0) / 1000);
            snprintf(cells[9], sizeof cells[9], "%.2f%%", bench_json_num(run, "error_pct", 0));
            snprintf(cells[10], sizeof cells[10], "%.2f", bench_json_num(run, "ops_per_s", 0));
            /* bytes_per_s is 0 for the tests that process no data (signatures). */
            if (bps > 0)
                snprintf(cells[11], sizeof cells[11], "%.2f", bps / 1024);
            else
                snprintf(cells[11], sizeof cells[11], "NA");
            snprintf(cells[12], sizeof cells[12], "%.5f", bench_json_num(lat, "p50", 0) / 1000);
            snprintf(cells[13], sizeof cells[13], "%.5f", bench_json_num(lat, "p95", 0) / 1000);
        }
        field(f, op, 1);
        for (size_t c = 1; c < NCOLS; c++)
            field(f, cells[c], 0);
        fputs("\r\n", f);
    }
    return ferror(f) ? -1 : 0;
}

int bench_csv_write_file(const char *path, const json_t *doc, const char *flag)
{
    return bench_results_write_text(path, doc, flag, bench_csv_write);
}
