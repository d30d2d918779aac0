/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/results/model.h - the run model: every figure a view shows of one
 * run, computed once.
 *
 * A run is recorded once as a run element of an hsmbench.result/3 document
 * (a live run's by bench_report_run_json after the join, a saved file's by
 * bench_results_load, which upgrades /1 and /2 files); bench_model_from_run
 * reads that element, with the document it belongs to, into this struct.
 * Every view (the terminal summary and closing table, CSV, HTML, report,
 * compare, the final Prometheus counters, the k6 and JMeter summaries)
 * renders the model and computes none of these figures itself.
 *
 * The names are the file's: ops are the successful operations, attempts
 * the successes and the errors, error_pct the errors over the attempts,
 * ops_per_s the successes per second, attempts_per_s the attempts per
 * second, bytes_per_s the successes times the bytes an operation processes.
 */
#ifndef BENCH_MODEL_H
#define BENCH_MODEL_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "bench/core/hist.h"
#include "bench/core/pool.h"
#include "bench/results/capanswer.h"
#include "bench/results/codec.h"
#include "bench/results/dsfacts.h"
#include "bench/results/repeat.h"
#include "bench/results/scalability.h"
#include "bench/results/target.h"

#define BENCH_MODEL_NAME_MAX 96

/* A latency summary in µs (latency_us, service_us, queue_us). */
typedef struct bench_model_latency {
    int      present;     /* 0: the run has no such figures */
    double   min, mean, stddev, p50, p90, p95, p99, p999, max;
    uint64_t count;       /* the values it summarises (successes for latency) */
} bench_model_latency;

/* One error code and how often it occurred; a run's are most frequent first. */
typedef struct bench_model_code {
    char     name[BENCH_MODEL_NAME_MAX];   /* "CKR_DEVICE_ERROR", "HTTP 503" */
    uint64_t count;
} bench_model_code;

/* What a run's per-second target counts: the threads a blocking run's
 * --stages let run at the second's end (not a rate: a view draws it on an
 * axis of threads), or the requests a non-blocking run's schedule asked for
 * in the second (a rate, beside the operations per second); NONE when its
 * seconds have no target. */
typedef enum bench_model_target_kind {
    BENCH_MODEL_TARGET_NONE = 0, BENCH_MODEL_TARGET_THREADS, BENCH_MODEL_TARGET_REQUESTS
} bench_model_target_kind;

/* One class of a breakdown (a mix's operation type, a token). */
typedef struct bench_model_class {
    char     label[BENCH_MODEL_NAME_MAX];
    int      has_weight;
    double   weight;
    uint64_t ops, attempts, errors;
    double   error_pct, ops_per_s, attempts_per_s;
    double   share_pct;    /* of the run's attempts */
    bench_model_latency latency;
    char     top_error[BENCH_MODEL_NAME_MAX];   /* "" when none failed */
} bench_model_class;

typedef struct bench_model_breakdown {
    char               dimension[BENCH_MODEL_NAME_MAX];   /* "type", "token" */
    bench_model_class *classes;
    size_t             n;
} bench_model_breakdown;

/* A threshold judged on the run (its "thresholds" element: threshold.h). */
typedef struct bench_model_threshold {
    char  *expr;           /* "p99<50ms"; NULL when the file gives none */
    char  *unit;           /* the observed figure's unit; NULL when none */
    int    ok;
    int    has_observed;   /* 0: not measured */
    double observed;
} bench_model_threshold;

/* What a run's transport says of TLS. */
typedef enum bench_model_tls_kind {
    BENCH_TLS_UNKNOWN = 0,   /* not a REST run, or a file that does not say */
    BENCH_TLS_NONE,          /* plain http://: there is no TLS */
    BENCH_TLS_ON             /* https:// */
} bench_model_tls_kind;

typedef struct bench_model_tls {
    bench_model_tls_kind kind;
    char scheme[8];          /* "http", "https", "" */
    int  verified;           /* certificate verified (BENCH_TLS_ON only); -1 unknown */
    int  custom_ca;          /* -1 unknown */
    int  client_cert;        /* -1 unknown */
} bench_model_tls;

/* --until-stable's steady state: the run's "stable" (results-schema.md). */
typedef struct bench_model_stable {
    int      present;          /* 0: the run was not asked to stop when stable */
    double   target_pct;
    char     stopped[16];      /* "stable", "bound", "interrupted" */
    char     method[48];       /* "MSER-5 + batch means" */
    double   bound_s, warmup_s, batch_s, lag1;
    uint64_t batches;
    int      has_interval;     /* mean, low, high (two batches or more) */
    double   mean, low, high;  /* successes/s: the steady state's mean and 95 % interval */
    double   half_width_pct;   /* of the mean; < 0 unknown */
} bench_model_stable;

typedef struct bench_run_model {
    /* the element and its document the model was read from (borrowed: for
     * what a workload section draws of its own part, section.h) */
    const json_t *run, *doc;

    /* setup */
    char     test[BENCH_MODEL_NAME_MAX];
    /* rest http --tls-matrix's variant ("plain", "tls", "tls-no-reuse",
     * "mtls"); "" when the run is none: every variant has the same test */
    char     variant[24];
    /* the run's name in a table or a list: its test, and its variant when
     * it has one ("http-get tls-no-reuse") */
    char     name[BENCH_MODEL_NAME_MAX + 24];
    char     mechanism[BENCH_MODEL_NAME_MAX];   /* "" when none */
    char     mode[16];
    char     key[BENCH_MODEL_NAME_MAX];         /* "RSA 2048", "-" */
    unsigned threads;
    uint64_t data_size, block_size;
    /* The data a view names: "32 B"; a mix's one size its types share, or
     * "mixed" when they differ; "-" when no operation of it takes data. */
    char     data_text[24];
    double   warmup_s;

    /* verdict */
    char status[16];                     /* ok, errors, failed, interrupted, skipped */
    char reason[512];                    /* "" when ok */
    int  measured;                       /* the figures below hold a measurement */

    /* counts and rates */
    double   duration_s;
    uint64_t ops, attempts, errors;
    double   error_pct, ops_per_s, attempts_per_s;
    double   bytes, bytes_per_s;         /* 0 for a run that processes no data */
    double   client_cpu;                 /* < 0 when not known */

    /* latency of the successes; for open-loop runs its parts */
    bench_model_latency latency, service, queue;
    bench_model_latency attempts_latency;   /* every attempt, failed ones included (JMeter's
                                               Avg/Min/Max); absent in older files */
    bench_hist *hist;                    /* the histogram of latency (NULL: none) */
    int      open_loop;                  /* has a schedule */
    double   target_ops_per_s, achieved_ops_per_s;
    uint64_t scheduled, late, dropped;
    /* The requests that never started (dropped): their latency's lower
     * bounds (due to the end of the measured part), and every scheduled
     * request's latency with them at those bounds; absent in older files. */
    bench_model_latency unstarted, scheduled_latency;
    double   max_unstarted_pct;          /* the bound on dropped / scheduled; < 0 unknown */
    int      latency_complete;           /* 0: a schedule not kept, latency leaves out more
                                            requests than the bound (every latency threshold
                                            fails); 1 otherwise */

    bench_model_code *codes;             /* errors by code, most frequent first */
    size_t            ncodes;

    bench_model_second *seconds;
    size_t              nseconds;
    bench_model_target_kind target_kind;   /* what the seconds' target counts */
    int seconds_upper_bound;             /* p50/p99 per second are upper bounds (a merge) */

    bench_model_breakdown *by;
    size_t                 nby;
    int                    has_breakdown;   /* the element holds one (measured or not) */

    bench_model_stable stable;

    bench_model_threshold *thresholds;   /* as judged, in the file's order */
    size_t                 nthresholds;

    /* what was measured */
    bench_target target;
    char       **tokens;                 /* every token's label, when the run spans several */
    size_t       ntokens;
    bench_model_tls tls;

    /* a datasheet's step of a family (hsmbench datasheet): "" when none */
    char      ds_family[BENCH_MODEL_NAME_MAX];
    char      ds_step[16];                /* "latency", "threads", "data" */

    /* a capacity search's step: 0 the probe, k >= 1 step k, -1 not a step */
    long long capacity_step;
    int       step_judged;               /* the step has a verdict of the objectives */
    int       step_pass;
    char      step_why[256];
} bench_run_model;

/*
 * Read run (an element of doc's "runs", doc validated and upgraded as
 * bench_results_load leaves it) into m.  doc may be NULL (no target, TLS or
 * capacity facts then).  Returns 0, or -1 when out of memory (m is then
 * empty).  Release with bench_model_free.
 */
int  bench_model_from_run(const json_t *run, const json_t *doc, bench_run_model *m);

void bench_model_free(bench_run_model *m);

/*
 * A document's runs, each read once into its run model (bench_model_from_run
 * in the document's order): what a view of a whole document renders.  The
 * document is borrowed and must outlive the models.  Returns 0, or -1 when
 * out of memory (nothing to free then).
 */
/* The document's facts a page names (environment, command, provenance):
 * strings borrowed from the document, NULL where it does not say. */
typedef struct bench_doc_facts {
    int         has_module, has_token, has_host, has_endpoint, has_client;
    int         token_object;            /* environment.token is an object */
    const char *module_name, *module_path, *module_manufacturer, *library, *library_version,
               *cryptoki_version;
    const char *token_label, *token_manufacturer, *token_model, *token_serial, *token_firmware,
               *token_hardware;
    long long   token_slot;
    const char *hostname, *os, *kernel, *machine;
    long long   cpus;
    const char *url, *service, *plain_url, *http_version;
    int         connection_reuse;        /* -1 unknown */
    double      timeout_s;
    const char *libcurl, *tls_library;
    const char *started_at, *version;
    const char **command;                /* each word, NULL for one that is not a string */
    size_t       ncommand;
    int          has_command;
    const char **merged_from;
    size_t       nmerged_from;
    int          has_merged_from;
    int          datasheet;              /* the document is a datasheet's */
    int          has_environment;
    const char  *schema;                 /* the file's own schema: an upgraded file's original */
} bench_doc_facts;

/* A document's facts alone (no run models: for a view that reads its runs
 * one at a time, as report's table of a large file does).  Returns 0, or
 * -1 when out of memory.  Release with bench_doc_facts_free. */
int  bench_doc_facts_of(const json_t *doc, bench_doc_facts *x);
void bench_doc_facts_free(bench_doc_facts *x);

/* The document's runs one at a time: how many, and run i's model (as
 * bench_model_from_run; -1 when i is past the end or out of memory). */
size_t bench_doc_nruns(const json_t *doc);
int    bench_model_from_doc(const json_t *doc, size_t i, bench_run_model *m);

typedef struct bench_doc_model {
    const json_t    *doc;
    bench_run_model *runs;
    size_t           nruns;
    bench_doc_facts  facts;
    /* cap: the document's capacity search (capanswer.h) and a datasheet's
     * own facts (dsfacts.h); each absent (present 0) when it has none */
    bench_cap_answer capacity;
    bench_ds_facts   datasheet;
    /* scal: the thread sweeps as the document's "scalability" holds them
     * (report and the run put the analysis of the runs there), and
     * --repeat's groups, made from the runs as every view of them does */
    bench_scal_sweeps   sweeps;
    bench_repeat_groups repeats;
} bench_doc_model;
int  bench_doc_model_of(const json_t *doc, bench_doc_model *d);
void bench_doc_model_free(bench_doc_model *d);

/* The sweep the document's run m (an element of d->runs) belongs to, or NULL. */
const bench_scal_sweep *bench_doc_model_sweep(const bench_doc_model *d, const bench_run_model *m);

/*
 * The status word of a run that finished, decided here once: a run judged
 * ok (bench_outcome_verdict: it finished and at least half its operations
 * succeeded) whose operations partly failed is "errors", with its reason
 * ("10 of 2000 attempts failed (0.50 %): CKR_DEVICE_ERROR"), so that no
 * view says ok of a run that exits 1.  The run driver settles each run
 * element it records, merge each run it makes, and loading each run of a
 * file (files written before said ok); every view renders the element or
 * the model made from it.  Returns 0, or -1 when out of memory.
 */
int bench_model_settle_status(json_t *run);


/* A latency summary of a results file (latency_us and any object of the
 * same members, in µs: a workload's trends) into l; l->present is 0 when lat
 * is not an object. */
void bench_model_latency_of(const json_t *lat, bench_model_latency *l);

/* The TLS facts as people read them: "none (plain HTTP)", "certificate
 * verified: yes · own CA (--cacert): no · client certificate: no", or NULL
 * when unknown. */
const char *bench_model_tls_text(const bench_model_tls *t, char *buf, size_t len);
/* The TLS of a REST document's endpoint (its --url), whatever its runs'
 * own URLs (a --tls-matrix's plain variant): what the environment names. */
void bench_model_doc_tls(const json_t *doc, bench_model_tls *t);

/* The steady state as the summary says it: "1854.18/s ±0.40 % (95 %, 10
 * batch means of 0.5 s), no warm-up found (MSER-5); stopped: stable at 5.0 s
 * of 30 s", or NULL when m has none. */
const char *bench_model_stable_text(const bench_run_model *m, char *buf, size_t len);

/* How the steady state's last judgement stands against its target: within
 * it with the batches a stop needs, within it on too few batches, outside
 * it, or with no interval to judge (every view says it from this). */
typedef enum {
    BENCH_MODEL_STABLE_WITHIN, BENCH_MODEL_STABLE_TOO_SHORT, BENCH_MODEL_STABLE_OUTSIDE,
    BENCH_MODEL_STABLE_UNJUDGED,
} bench_model_stable_class;
bench_model_stable_class bench_model_stable_judge(const bench_model_stable *st);


#endif
