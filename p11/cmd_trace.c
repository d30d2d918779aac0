/* SPDX-License-Identifier: Apache-2.0 */
/*
 * p11/cmd_trace.c - "hsmbench trace RECORDING": what an application did at
 * the PKCS#11 module boundary, read from a recording of the call recorder
 * (libhsmbench-trace.so, hsmbench-trace(7)).
 *
 * Each kind of operation (with its mechanism, key and data size) becomes a
 * run element of an hsmbench.result/3 document, its latency the time the
 * operation spent inside the module, so the run model renders it as it
 * renders any run: the table below, --json, --csv, --html, and `compare`
 * of a recording against a run of hsmbench itself.  The document's "trace"
 * element adds what no run element holds: every function's calls, the
 * calls inside the module at once, the calls that never returned.
 */
#include "p11/cmd.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <p11-kit/pkcs11.h>
#include "bench/core/pool.h"
#include "bench/results/model.h"
#include "bench/results/report.h"
#include "bench/results/results.h"
#include "bench/results/text.h"
#include "bench/results/report_csv.h"
#include "bench/results/report_html.h"
#include "bench/results/target.h"
#include "bench/util/cli.h"
#include "bench/util/exit.h"
#include "p11/names.h"
#include "p11/tests.h"
#include "p11/trace.h"

static const char trace_usage[] =
    "Usage: hsmbench trace RECORDING [--json FILE] [--csv FILE] [--html FILE] [--quiet]\n"
    "\n"
    "What an application did at the PKCS#11 module boundary, from a recording of\n"
    "the call recorder libhsmbench-trace.so (hsmbench-trace(7)): operations by kind,\n"
    "mechanism, key and data size, with their time inside the module; every\n"
    "function's calls; the calls inside the module at once; errors by code.\n"
    "\n";

static const char trace_usage_tail[] =
    "\n"
    "Exit codes: 0 the recording was read (whatever the application's calls\n"
    "returned); 1 an output could not be written; 2 bad usage, or a file that is\n"
    "not a whole recording.\n";

enum { OPT_JSON = 3100, OPT_CSV, OPT_HTML, OPT_QUIET };

static const bench_option trace_rows[] = {
    { "json", 0, BENCH_ARG_REQUIRED, "FILE", OPT_JSON,
      "the recording as an hsmbench.result/3 file, one run per kind of operation\n"
      "(\"-\": stdout)", NULL },
    { "csv", 0, BENCH_ARG_REQUIRED, "FILE", OPT_CSV, "one CSV row per kind of operation (\"-\": stdout)",
      NULL },
    { "html", 0, BENCH_ARG_REQUIRED, "FILE", OPT_HTML, "one self-contained HTML page (\"-\": stdout)",
      NULL },
    { "quiet", 0, BENCH_ARG_NONE, NULL, OPT_QUIET, "print nothing but errors", NULL },
};
static const bench_opt_group trace_group = BENCH_OPT_OUTPUTS(NULL, trace_rows, NULL);
static const bench_opt_group *const trace_groups[] = { &trace_group, &bench_help_group, NULL };
const bench_cmd_opts p11_trace_options = { "trace", 0, trace_groups };

typedef struct trace_opts {
    const char *input, *json, *csv, *html;
    int         quiet;
} trace_opts;

/* Take one option, its value only stored: 1 taken, 0 not one of trace's. */
static int take_option(void *opts, int c, char *arg)
{
    trace_opts *o = opts;
    switch (c) {
    case OPT_JSON: o->json = arg; return 1;
    case OPT_CSV: o->csv = arg; return 1;
    case OPT_HTML: o->html = arg; return 1;
    case OPT_QUIET: o->quiet = 1; return 1;
    default: return 0;
    }
}

static const bench_cmd_help trace_help = { trace_usage, trace_usage_tail, NULL, NULL };

static int parse_args(int argc, char **argv, trace_opts *o)
{
    memset(o, 0, sizeof *o);
    bench_opts_parser parser;
    const int rc = bench_opts_take_all(&parser, &p11_trace_options, &trace_help, argc, argv, take_option, o);
    if (rc != 0)
        return rc;
    if (optind >= argc) {
        bench_error("trace: a recording is required (see: hsmbench trace --help)");
        return BENCH_EXIT_USAGE;
    }
    if (argc - optind > 1) {
        bench_error("%s: unexpected argument; trace reads one recording (see: hsmbench trace --help)",
                    argv[optind + 1]);
        return BENCH_EXIT_USAGE;
    }
    o->input = argv[optind];
    if (bench_opts_add_file(&parser, "the recording", o->input, 0) != 0 ||
        bench_opts_check_files(&parser) != 0)
        return BENCH_EXIT_USAGE;
    const char *const outs[3][2] = { { "--json", o->json }, { "--csv", o->csv }, { "--html", o->html } };
    int to_stdout = 0;
    for (int i = 0; i < 3; i++) {
        if (outs[i][1] == NULL)
            continue;
        if (strcmp(outs[i][1], "-") == 0)
            to_stdout++;
        else if (!bench_path_writable(outs[i][0], outs[i][1]))
            return BENCH_EXIT_USAGE;
    }
    if (to_stdout > 1) {
        bench_error("only one of --json, --csv and --html can go to standard output (\"-\")");
        return BENCH_EXIT_USAGE;
    }
    return 0;
}

/* The key as a run element holds it: type as the catalogue names it
 * ("RSA", "EC", "AES"), bits, the curve of an EC key of a known size. */
static void key_of(const p11_trace_group *g, bench_run_desc *d, char *type, size_t len)
{
    static const struct { CK_KEY_TYPE t; const char *name; } names[] = {
        { CKK_RSA, "RSA" }, { CKK_EC, "EC" }, { CKK_EC_EDWARDS, "EC_EDWARDS" },
        { 0x41, "EC_MONTGOMERY" }, { CKK_AES, "AES" }, { CKK_GENERIC_SECRET, "GENERIC_SECRET" },
        { CKK_DES3, "DES3" }, { CKK_DSA, "DSA" }, { CKK_DH, "DH" },
    };
    if (g->key_type == HSMBENCH_TRACE_NONE)
        return;
    snprintf(type, len, "CKK_0x%llx", (unsigned long long)g->key_type);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].t == g->key_type)
            snprintf(type, len, "%s", names[i].name);
    d->key_type = type;
    d->key_bits = g->key_bits;
    if (g->key_type == CKK_EC)
        d->curve = g->key_bits == 256 ? "P-256" : g->key_bits == 384 ? "P-384"
                 : g->key_bits == 521 ? "P-521" : g->key_bits == 224 ? "P-224"
                 : g->key_bits == 192 ? "P-192" : NULL;
    else if (g->key_type == CKK_EC_EDWARDS && g->key_bits == 255)
        d->curve = "Ed25519";
}

/* The catalogue's test of that operation and mechanism, so that `compare`
 * pairs a recording's operations with hsmbench's own runs of them; NULL
 * when the catalogue has none. */
static const char *catalogue_name(const p11_trace_group *g)
{
    if (g->mechanism == HSMBENCH_TRACE_NONE)
        return NULL;
    for (size_t i = 0; i < p11_test_count(); i++) {
        const p11_test_def *def = p11_test_at(i);
        const char *call = p11_op_call(def);
        if (!call || strcmp(call, p11_trace_fn_name(g->kind)) != 0)
            continue;
        for (unsigned h = 0; h < P11_HASH_COUNT; h++) {
            p11_test_params p;
            memset(&p, 0, sizeof p);
            p.hash = (p11_hash)h;
            if (h && !(def->hashes & P11_H(h)))
                continue;
            if (p11_test_mech(def, &p) == (CK_MECHANISM_TYPE)g->mechanism)
                return def->name;
        }
    }
    return NULL;
}

static const char *mech_text(uint64_t m, char *buf, size_t len)
{
    if (m == HSMBENCH_TRACE_NONE)
        return "";
    return p11_mech_name((CK_MECHANISM_TYPE)m, buf, len);
}

static void code_name(const void *ctx, bench_code code, char *buf, size_t len)
{
    (void)ctx;
    char rb[48];
    snprintf(buf, len, "%s", p11_rv_name((CK_RV)code, rb, sizeof rb));
}

static int err_cmp(const void *a, const void *b)
{
    const bench_err *x = a, *y = b;
    return x->count < y->count ? 1 : x->count > y->count ? -1 : 0;
}

static json_t *codes_json(const p11_trace_code *codes, size_t n);

/* One group as a run element, through the same writer a live run uses. */
static json_t *group_run(const p11_trace *t, const p11_trace_group *g)
{
    char mech[64], ktype[32], reason[160] = "";
    bench_run_desc d;
    memset(&d, 0, sizeof d);
    const char *name = catalogue_name(g);
    d.test = name ? name : p11_trace_fn_name(g->kind);
    d.mechanism = g->mechanism == HSMBENCH_TRACE_NONE ? NULL : mech_text(g->mechanism, mech, sizeof mech);
    d.mode = "recorded";
    key_of(g, &d, ktype, sizeof ktype);
    d.threads = g->threads;
    d.data_size = g->data == UINT64_MAX ? 0 : g->data;
    d.data_desc = g->data == UINT64_MAX ? "mixed data sizes" : NULL;
    d.duration_s = g->last_ns > g->first_ns ? (double)(g->last_ns - g->first_ns) / 1e9 : 0;

    bench_outcome o;
    memset(&o, 0, sizeof o);
    o.status = BENCH_RUN_OK;
    o.duration_s = d.duration_s;
    o.ops = g->ops + g->errors;
    o.errors = g->errors;
    o.hist = g->time;
    o.failed = g->failed;
    o.concurrency = g->max_inside;
    o.client_cpu = -1;
    o.measure_start_epoch_ms =
        (t->real_start_ns + (g->first_ns > t->mono_start_ns ? g->first_ns - t->mono_start_ns : 0)) / 1000000;
    bench_err *errs = calloc(g->ncodes ? g->ncodes : 1, sizeof *errs);
    bench_sample *samples = calloc(g->nseconds ? g->nseconds : 1, sizeof *samples);
    json_t *run = NULL;
    if (!errs || !samples)
        goto cleanup;
    for (size_t i = 0; i < g->ncodes; i++)
        errs[i] = (bench_err){ g->codes[i].rv, g->codes[i].count };
    qsort(errs, g->ncodes, sizeof *errs, err_cmp);
    o.errs = errs;
    o.nerrs = g->ncodes;
    /* the group's seconds from its first: second 1 is the one its first operation ended in */
    size_t n = 0;
    for (size_t s = 0; s < g->nseconds; s++, n++) {
        const p11_trace_sample *x = &g->seconds[s];
        samples[n] = (bench_sample){ .t = (uint32_t)(n + 1), .span_s = 1.0, .ops = x->ops + x->errors,
                                     .errors = x->errors, .p50_ns = x->p50_ns, .p99_ns = x->p99_ns };
    }
    o.samples = samples;
    o.nsamples = n;
    bench_workload w;
    memset(&w, 0, sizeof w);
    w.code_name = code_name;
    w.bytes_per_op = g->data == UINT64_MAX ? 0 : g->data;
    const char *status = "ok";
    if (g->errors) {
        char top[48];
        status = "failed";
        snprintf(reason, sizeof reason, "%llu of %llu operations failed (%s %llu)",
                 (unsigned long long)g->errors, (unsigned long long)(g->ops + g->errors),
                 p11_rv_name((CK_RV)errs[0].code, top, sizeof top), (unsigned long long)errs[0].count);
    }
    run = bench_report_run_json(&d, &o, &w, status, reason);
    /* Every code named here, whole, as the module returned it: the core's
     * code space keeps values of its own classes that a module's rv may
     * equal (a vendor's (CK_RV)-1). */
    if (run && json_object_set_new(run, "errors_by_code", codes_json(g->codes, g->ncodes)) != 0) {
        json_decref(run);
        run = NULL;
    }
    json_t *slots = json_array();
    for (size_t i = 0; slots && i < g->nslots; i++) {
        const p11_trace_slot *sl = &g->slots[i];
        json_t *one = sl->slot == HSMBENCH_TRACE_NONE
                          ? json_pack("{s:n,s:I,s:I}", "slot", "ops", (json_int_t)sl->ops, "errors",
                                      (json_int_t)sl->errors)
                          : json_pack("{s:I,s:I,s:I}", "slot", (json_int_t)sl->slot, "ops",
                                      (json_int_t)sl->ops, "errors", (json_int_t)sl->errors);
        if (json_array_append_new(slots, one) != 0) {
            json_decref(slots);
            slots = NULL;
        }
    }
    if (run && json_object_set_new(run, "trace",
                                   json_pack("{s:s,s:i,s:o,s:o}", "function", p11_trace_fn_name(g->kind),
                                             "max_inside", (int)g->max_inside,
                                             "span_us", bench_report_latency_json(g->span),
                                             "by_slot", slots)) != 0) {
        json_decref(run);
        run = NULL;
    }
cleanup:
    free(errs);
    free(samples);
    return run;
}

static json_t *codes_json(const p11_trace_code *codes, size_t n)
{
    json_t *by = json_object();
    for (size_t i = 0; by && i < n; i++) {
        char name[48];
        if (json_object_set_new(by, p11_rv_name((CK_RV)codes[i].rv, name, sizeof name),
                                json_integer((json_int_t)codes[i].count)) != 0) {
            json_decref(by);
            return NULL;
        }
    }
    return by;
}

static json_t *functions_json(const p11_trace *t)
{
    json_t *fns = json_object();
    for (unsigned i = 0; fns && i < HSMBENCH_TRACE_FN_COUNT; i++) {
        const p11_trace_fn *f = &t->fn[i];
        if (!f->calls)
            continue;
        json_t *one = json_pack("{s:I,s:I,s:I,s:I,s:i,s:o}", "calls", (json_int_t)f->calls, "errors",
                                (json_int_t)f->errors, "size_queries", (json_int_t)f->size_queries,
                                "unfinished", (json_int_t)f->unfinished, "max_inside",
                                (int)f->max_inside, "time_us", bench_report_latency_json(f->time));
        if (!one || json_object_set_new(fns, p11_trace_fn_name(i), one) != 0) {
            json_decref(fns);
            return NULL;
        }
    }
    return fns;
}

static json_t *trace_doc(const p11_trace *t, const char *path)
{
    const char *slash = strrchr(t->module, '/');
    json_t *env = json_pack("{s:o,s:{s:s,s:s},s:o}", "target",
                            bench_target_pkcs11_json(slash ? slash + 1 : t->module, t->module, NULL,
                                                     NULL, NULL),
                            "module", "name", slash ? slash + 1 : t->module, "path", t->module, "host",
                            bench_report_host_json());
    json_t *runs = json_array();
    json_t *tr = json_pack("{s:s,s:s,s:I,s:I,s:I,s:i,s:i,s:i,s:I,s:f,s:o,s:o}", "recording", path,
                           "module", t->module, "pid",
                           (json_int_t)t->pid, "calls", (json_int_t)t->calls, "unfinished",
                           (json_int_t)t->unfinished, "threads", (int)t->threads, "processes",
                           (int)t->processes, "max_inside", (int)t->max_inside, "sessions_opened",
                           (json_int_t)t->sessions, "duration_s",
                           t->end_ns > t->start_ns ? (double)(t->end_ns - t->start_ns) / 1e9 : 0.0,
                           "functions", functions_json(t), "errors_by_code",
                           codes_json(t->codes, t->ncodes));
    json_t *doc = NULL;
    if (!env || !runs || !tr)
        goto cleanup;
    for (size_t i = 0; i < t->ngroups; i++) {
        json_t *run = group_run(t, &t->groups[i]);
        if (!run || json_array_append_new(runs, run) != 0)
            goto cleanup;
    }
    char when[32];
    time_t secs = (time_t)(t->real_start_ns / 1000000000ull);
    struct tm tmv;
    if (!gmtime_r(&secs, &tmv) || strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tmv) == 0)
        snprintf(when, sizeof when, "1970-01-01T00:00:00Z");
    doc = json_pack("{s:s,s:{s:s},s:s,s:I,s:O,s:O,s:O}", "schema", BENCH_RESULT_SCHEMA, "tool",
                    "version", HSMBENCH_VERSION, "started_at", when, "started_at_epoch_ms",
                    (json_int_t)(t->real_start_ns / 1000000), "environment", env, "runs", runs,
                    "trace", tr);
cleanup:
    json_decref(env);
    json_decref(runs);
    json_decref(tr);
    return doc;
}

/* The operations from the run model of each run: what --json says. */
static void print_operations(FILE *f, const json_t *doc)
{
    const json_t *runs = json_object_get(doc, "runs");
    size_t i;
    const json_t *run;
    fprintf(f, "\n%-18s %-24s %-14s %8s %7s %10s %7s %11s %10s %10s %7s\n", "OPERATION", "MECHANISM",
            "KEY", "DATA", "THREADS", "OPS", "ERR%", "OPS/S", "P50", "P99", "INSIDE");
    json_array_foreach(runs, i, run) {
        bench_run_model m;
        if (bench_model_from_run(run, doc, &m) != 0)
            continue;
        char p50[24] = "-", p99[24] = "-", ops_s[32];
        if (m.latency.count) {
            bench_fmt_ns(m.latency.p50 * 1000, p50, sizeof p50);
            bench_fmt_ns(m.latency.p99 * 1000, p99, sizeof p99);
        }
        snprintf(ops_s, sizeof ops_s, "%.1f", m.ops_per_s);
        const json_t *tr = json_object_get(run, "trace");
        fprintf(f, "%-18s %-24s %-14s %8s %7u %10llu %7.2f %11s ", m.test,
                m.mechanism[0] ? m.mechanism : "-", m.key, m.data_text, m.threads,
                (unsigned long long)m.ops, m.error_pct, ops_s);
        bench_fput_cell(f, p50, 10, 1);
        fputc(' ', f);
        bench_fput_cell(f, p99, 10, 1);
        fprintf(f, " %7lld\n", (long long)json_integer_value(json_object_get(tr, "max_inside")));
        for (size_t c = 0; c < m.ncodes; c++)
            fprintf(f, "  %s %llu\n", m.codes[c].name, (unsigned long long)m.codes[c].count);
        bench_model_free(&m);
    }
}

/* A latency summary of the document (µs) as the table shows it: "-" when empty. */
static void print_us(FILE *f, int width, const json_t *lat, const char *which)
{
    char buf[24] = "-";
    if (json_integer_value(json_object_get(lat, "count")) > 0)
        bench_fmt_ns(json_number_value(json_object_get(lat, which)) * 1000, buf, sizeof buf);
    bench_fput_cell(f, buf, width, 1);
}

/* The recording's own figures, from the document's "trace" element: what
 * --json says, computed once (trace_doc). */
static void print_recording(FILE *f, const char *path, const json_t *tr)
{
    const long long threads = json_integer_value(json_object_get(tr, "threads"));
    const long long processes = json_integer_value(json_object_get(tr, "processes"));
    const long long unfinished = json_integer_value(json_object_get(tr, "unfinished"));
    fprintf(f, "%s: %s, pid %lld: %lld calls in %.3f s, %lld thread%s in %lld process%s, at most %lld "
            "inside the module at once", path, bench_json_str(tr, "module", "?"),
            json_integer_value(json_object_get(tr, "pid")), json_integer_value(json_object_get(tr, "calls")),
            json_number_value(json_object_get(tr, "duration_s")), threads, threads == 1 ? "" : "s",
            processes, processes == 1 ? "" : "es", json_integer_value(json_object_get(tr, "max_inside")));
    if (unfinished)
        fprintf(f, "; %lld call%s had not returned", unfinished, unfinished == 1 ? "" : "s");
    fputc('\n', f);
}

static void print_functions(FILE *f, const json_t *tr)
{
    const char *name;
    const json_t *fn, *count;
    fprintf(f, "\n%-24s %10s %8s %8s %10s %10s %10s %7s\n", "FUNCTION", "CALLS", "ERRORS", "QUERIES",
            "UNFINISHED", "P50", "P99", "INSIDE");
    json_object_foreach((json_t *)json_object_get(tr, "functions"), name, fn) {
        fprintf(f, "%-24s %10lld %8lld %8lld %10lld ", name,
                json_integer_value(json_object_get(fn, "calls")),
                json_integer_value(json_object_get(fn, "errors")),
                json_integer_value(json_object_get(fn, "size_queries")),
                json_integer_value(json_object_get(fn, "unfinished")));
        print_us(f, 10, json_object_get(fn, "time_us"), "p50");
        fputc(' ', f);
        print_us(f, 10, json_object_get(fn, "time_us"), "p99");
        fprintf(f, " %7lld\n", json_integer_value(json_object_get(fn, "max_inside")));
    }
    const json_t *codes = json_object_get(tr, "errors_by_code");
    if (json_object_size(codes)) {
        fputs("\nerrors by code (every call):", f);
        json_object_foreach((json_t *)codes, name, count)
            fprintf(f, " %s %lld", name, json_integer_value(count));
        fputc('\n', f);
    }
}

int p11_cmd_trace(int argc, char **argv, const bench_section *const *sections)
{
    trace_opts o;
    int rc = parse_args(argc, argv, &o);
    if (rc != 0)
        return rc < 0 ? BENCH_EXIT_OK : rc;
    p11_trace t;
    char err[512];
    if (p11_trace_read(o.input, &t, err, sizeof err) != 0) {
        bench_error("%s", err);
        return BENCH_EXIT_USAGE;
    }
    json_t *doc = trace_doc(&t, o.input);
    if (!doc) {
        bench_error("cannot build the results document (out of memory)");
        rc = BENCH_EXIT_FAILED;
        goto cleanup;
    }
    if (!o.quiet) {
        FILE *f = (o.json && !strcmp(o.json, "-")) || (o.csv && !strcmp(o.csv, "-")) ||
                          (o.html && !strcmp(o.html, "-")) ? stderr : stdout;
        const json_t *tr = json_object_get(doc, "trace");
        print_recording(f, o.input, tr);
        if (t.ngroups)
            print_operations(f, doc);
        else
            fputs("no operations (no encrypt, decrypt, digest, sign, verify or key call)\n", f);
        print_functions(f, tr);
        bench_flush(f);
    }
    if (o.json && bench_report_write(o.json, doc) != 0)
        rc = BENCH_EXIT_FAILED;
    if (o.csv && bench_csv_write_file(o.csv, doc, "--csv") != 0)
        rc = BENCH_EXIT_FAILED;
    if (o.html && bench_html_write_file(o.html, doc, "--html", NULL) != 0)
        rc = BENCH_EXIT_FAILED;
    if (bench_stdout_check("trace") != 0)
        rc = BENCH_EXIT_FAILED;
cleanup:
    json_decref(doc);
    p11_trace_free(&t);
    return rc;
}
