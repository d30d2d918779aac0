/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/fuzz/fuzz_results.c - the results-file reader (what compare, report
 * and merge load): parse, screen and check a document; when it passes, write
 * its CSV and HTML reports, evaluate thresholds on its runs, match its runs,
 * and merge it with itself, whose result must pass the check too, and be
 * read back as merge -o writes it (its series held compactly, written out
 * by bench_series_dumpf).
 */
#include "tests/fuzz/fuzz.h"

#include <jansson.h>

#include "bench/results/model.h"
#include "bench/results/report_csv.h"
#include "bench/results/repeat.h"
#include "bench/results/report_html.h"
#include "bench/results/results.h"
#include "bench/results/scalability.h"
#include "bench/results/series.h"
#include "bench/results/threshold.h"
#include "rest/views/views.h"

static const char *const exprs[] = { "p99<50ms", "p(99.9)<1s", "avg<10ms", "rate>1000",
                                     "errors<0.1%", "med<=5ms", "max<2s", "min>1us" };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[512];
    json_t *doc = bench_results_parse("fuzz.json", (const char *)data, size, err, sizeof err);
    if (!doc)
        return 0;
    FILE *sink = fuzz_sink();
    if (sink) {
        bench_doc_model d;
        if (bench_doc_model_of(doc, &d) == 0) {
            (void)bench_csv_write(sink, &d);
            (void)bench_csv_tidy_write(sink, &d);
            (void)bench_html_write(sink, &d, rest_sections());
            /* The file's own sweeps, whatever it says of them, and the runs' repeat groups. */
            bench_scalability_print(sink, &d.sweeps);
            bench_repeats_print(sink, &d.repeats);
            bench_doc_model_free(&d);
        }
        /* The file's own repeat groups, whatever it says of them. */
        bench_repeat_groups reps;
        if (bench_repeat_groups_read(json_object_get(doc, "repeats"), &reps) == 0) {
            bench_repeats_print(sink, &reps);
            bench_repeat_groups_free(&reps);
        }
        /* The thread sweeps' analysis, as report makes it from the runs. */
        json_t *scal = bench_scalability(json_object_get(doc, "runs"));
        if (scal && json_object_set(doc, "scalability", scal) == 0 && bench_doc_model_of(doc, &d) == 0) {
            bench_scalability_print(sink, &d.sweeps);
            (void)bench_html_write(sink, &d, rest_sections());
            bench_doc_model_free(&d);
        }
        json_decref(scal);
    }
    json_t *runs = json_object_get(doc, "runs");
    size_t i;
    json_t *run;
    json_array_foreach(runs, i, run) {
        bench_run_model rm;
        const int modelled = bench_model_from_run(run, doc, &rm) == 0;
        for (size_t k = 0; modelled && k < sizeof exprs / sizeof exprs[0]; k++) {
            bench_threshold t;
            double observed = 0;
            char why[200];
            if (bench_threshold_parse(exprs[k], rest_sections(), &t, why, sizeof why) == 0)
                (void)bench_threshold_eval(&t, &rm, &observed);
        }
        if (modelled)
            bench_model_free(&rm);
        char why[200], key[64];
        (void)bench_run_same_setup(run, json_array_get(runs, 0), 0, why, sizeof why);
        (void)bench_run_key_desc(run, key, sizeof key);
    }
    json_t *const docs[2] = { doc, doc };
    const char *const names[2] = { "a.json", "b.json" };
    json_t *merged = bench_results_merge(docs, names, 2, rest_sections(), err, sizeof err);
    if (merged) {
        char why[512];
        if (bench_results_check(merged, why, sizeof why) != 0) {
            fprintf(stderr, "merged document fails its own check: %s\n", why);
            abort();
        }
        char *text = NULL;
        size_t n = 0;
        FILE *mem = open_memstream(&text, &n);
        if (mem) {
            const int rc = bench_series_dumpf(merged, mem);
            if (fclose(mem) == 0 && rc == 0) {
                json_t *back = bench_results_parse("merged.json", text, n, why, sizeof why);
                /* (a sum of rates may pass the 2^53 a file may hold: not a parse error) */
                if (!back && strstr(why, "bad JSON")) {
                    fprintf(stderr, "merged document, written, is not JSON: %s\n", why);
                    abort();
                }
                const json_t *mr = json_object_get(merged, "runs"), *br = json_object_get(back, "runs");
                for (size_t k = 0; back && k < json_array_size(mr); k++) {
                    bench_seconds a, b;
                    if (bench_run_seconds(json_array_get(mr, k), &a) == 0 &&
                        bench_run_seconds(json_array_get(br, k), &b) == 0 && a.n != b.n) {
                        fprintf(stderr, "merged run %zu: %zu seconds written, %zu read back\n", k, a.n, b.n);
                        abort();
                    }
                    bench_seconds_release(&a);
                    bench_seconds_release(&b);
                }
                json_decref(back);
            }
            free(text);
        }
        json_decref(merged);
    }
    json_decref(doc);
    return 0;
}
