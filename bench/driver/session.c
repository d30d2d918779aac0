/* SPDX-License-Identifier: Apache-2.0 */
/* bench/driver/session.c - the run driver: one lifecycle for every workload. */
#include "bench/driver/session.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/util/cli.h"
#include "bench/util/clock.h"
#include "bench/util/exit.h"
#include "bench/util/outfile.h"
#include "bench/util/signals.h"
#include "bench/util/url.h"
#include "bench/results/model.h"
#include "bench/results/report.h"
#include "bench/results/results.h"
#include "bench/results/text.h"
#include "bench/results/report_csv.h"
#include "bench/results/report_html.h"
#include "bench/results/repeat.h"
#include "bench/results/scalability.h"

int bench_session_init(bench_session *s, const bench_out_opts *out, const bench_flag *interrupt)
{
    memset(s, 0, sizeof *s);
    s->out = out;
    s->interrupt = interrupt;
    s->start_at_ms = out->start_at_ms;
    s->started = time(NULL);
    s->doc_fd = -1;
    if (!(s->runs = json_array())) {
        bench_error("out of memory");
        return -1;
    }
    if (bench_out_to_stdout(out)) {
        /* Keep standard output for the document; everything else printed
         * to it (by the driver, the workloads' hooks) goes to standard error. */
        bench_flush(stdout);
        if ((s->doc_fd = dup(STDOUT_FILENO)) < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
            bench_error("cannot keep standard output for the results: %s", strerror(errno));
            json_decref(s->runs);
            s->runs = NULL;
            return -1;
        }
    }
    if (out->jsonl) {
        const int to_stdout = strcmp(out->jsonl, "-") == 0;
        int fd = to_stdout ? dup(s->doc_fd) : -1;
        s->stream = to_stdout ? (fd >= 0 ? fdopen(fd, "w") : NULL)
                              : bench_out_open_stream("--out jsonl=", out->jsonl);
        if (!s->stream) {
            if (to_stdout)
                bench_error("--out jsonl=%s: %s", out->jsonl, strerror(errno));
            if (fd >= 0)
                close(fd);
            json_decref(s->runs);
            s->runs = NULL;
            return -1;
        }
    }
    if (out->jtl && !(s->jtl = bench_jtl_open("--out jtl=", out->jtl))) {
        if (s->stream)
            fclose(s->stream);
        s->stream = NULL;
        json_decref(s->runs);
        s->runs = NULL;
        return -1;
    }
    return 0;
}

/* Give the document its standard output back, or (back = 0) send what is
 * printed after it to standard error again. */
static int stdout_for_doc(bench_session *s, int back)
{
    if (s->doc_fd < 0)
        return 0;
    bench_flush(stdout);
    return dup2(back ? s->doc_fd : STDERR_FILENO, STDOUT_FILENO) < 0 ? -1 : 0;
}

void bench_session_free(bench_session *s)
{
    if (s->doc_fd >= 0) {
        bench_flush(stdout);
        if (dup2(s->doc_fd, STDOUT_FILENO) >= 0)
            close(s->doc_fd);
    }
    if (s->stream)
        fclose(s->stream);
    bench_jtl_close(s->jtl);
    json_decref(s->runs);
    json_decref(s->doc_extra);
    free(s->rows);
    memset(s, 0, sizeof *s);
}

static uint64_t epoch_ms_now(void);

/* The --out jsonl line of a second; a write error is said once and makes
 * the exit status 1, as a results file not written does. */
static void stream_second(bench_session *s, const bench_sample *smp)
{
    if (!s->stream || s->stream_failed)
        return;
    if (bench_stream_line(s->stream, &s->stream_run, smp, epoch_ms_now()) != 0) {
        if (errno == EPIPE && strcmp(s->out->jsonl, "-") == 0) {
            bench_signals_output_closed();   /* standard output's reader is gone: a stop */
            s->stream_failed = 1;
            return;
        }
        bench_error("--out jsonl=%s: cannot write: %s", s->out->jsonl, strerror(errno));
        s->stream_failed = 1;
        s->any_failed = 1;
    }
}

/* k6's abortOnFail: the thresholds with :abort judged on the run so far
 * (its own figures: latency from the merged histogram, rate, errors), from
 * their delay on; the first that fails stops the pool (bench_load.stop). */
static void judge_abort(bench_session *s, const bench_sample *smp)
{
    const bench_out_opts *o = s->out;
    if (!s->abort_test || smp->warmup || s->aborted_by)
        return;
    s->abort_ok += smp->ops - smp->errors;
    s->abort_errors += smp->errors;
    const double elapsed = s->progress_elapsed + smp->span_s;
    const uint64_t attempts = s->abort_ok + s->abort_errors;
    json_t *lat = smp->hist_so_far ? bench_report_latency_json(smp->hist_so_far) : json_object();
    json_t *run = lat ? json_pack("{s:s,s:s,s:f,s:I,s:I,s:f,s:f,s:o}", "test", s->abort_test, "status", "ok",
                                  "duration_s", elapsed, "ops", (json_int_t)s->abort_ok, "errors",
                                  (json_int_t)s->abort_errors, "error_pct",
                                  attempts ? 100.0 * (double)s->abort_errors / (double)attempts : 0.0,
                                  "ops_per_s", elapsed > 0 ? (double)s->abort_ok / elapsed : 0.0,
                                  "latency_us", lat) : NULL;
    /* The snapshot read into its run model, as a recorded run's (once a second). */
    bench_run_model m;
    if (!run || bench_model_from_run(run, NULL, &m) != 0) {
        json_decref(run);
        return;   /* out of memory: judged at the end as ever */
    }
    for (size_t i = 0; i < o->nthresholds; i++) {
        const bench_threshold *t = &o->thresholds[i];
        double v = 0;
        if (!t->abort || !bench_threshold_applies(t, s->abort_test) ||
            elapsed * 1e9 < (double)t->abort_delay_ns || bench_threshold_eval(t, &m, &v) != 0)
            continue;   /* holds, or no figure yet */
        s->aborted_by = t;
        s->aborted_at_s = elapsed;
        (void)bench_threshold_observed_text(t, v, s->aborted_why, sizeof s->aborted_why);
        s->abort_stop = 1;   /* _Atomic: a sequentially consistent store */
        break;
    }
    bench_model_free(&m);
    json_decref(run);
}

static void print_second(void *arg, const bench_sample *smp)
{
    bench_session *s = arg;
    judge_abort(s, smp);
    if (!smp->warmup && s->hooks && s->hooks->second)
        s->hooks->second(s->hooks->arg, smp);
    if (!smp->warmup && smp->span_s < BENCH_SLIVER_S)
        return;              /* the last sliver: in the totals, on no per-second line */
    bench_metrics_second(s->metrics, smp);
    stream_second(s, smp);
    bench_progress_clear(&s->progress);
    if (s->on_second)
        s->on_second(s->arg, smp);
    else if (!s->out->quiet && !s->brief)
        bench_report_second(stdout, smp);
    if (!smp->warmup) {
        s->progress_elapsed += smp->span_s;
        bench_progress_update(&s->progress, s->progress_elapsed,
                              smp->span_s > 0 ? (double)smp->ops / smp->span_s : 0);
    }
}

static uint64_t epoch_ms_now(void)
{
    struct timespec rt;
    clock_gettime(CLOCK_REALTIME, &rt);
    return (uint64_t)rt.tv_sec * 1000 + (uint64_t)rt.tv_nsec / 1000000;
}

/* --start-at: several generators begin together.  Ctrl-C still works.
 * Returns the seconds this generator joins late (0 on time), or -1 when it
 * missed the window (s->late_s says by how much). */
static double wait_for_start(bench_session *s)
{
    if (!s->start_at_ms)
        return 0;
    uint64_t now = epoch_ms_now();
    uint64_t at = s->start_at_ms;
    double late = 0;
    s->start_at_ms = 0;   /* only the first run waits */
    if (now > at) {
        s->late_s = (double)(now - at) / 1000.0;
        if (s->late_s > s->out->start_window_s) {
            s->gate = BENCH_GATE_MISSED;
            return -1;
        }
        /* the next whole second after the start, so that its seconds are the others' */
        late = ceil(s->late_s);
        at += (uint64_t)late * 1000;
        s->gate = BENCH_GATE_LATE;
        if (!s->out->quiet)
            printf("%.1f s late for --start-at: joining the others at +%.0f s\n", s->late_s, late);
    } else {
        s->gate = BENCH_GATE_ON_TIME;
        if (!s->out->quiet)
            printf("waiting %.1f s for --start-at\n", (double)(at - now) / 1000.0);
    }
    bench_flush(stdout);
    while ((now = epoch_ms_now()) < at && !*s->interrupt) {
        const uint64_t left = at - now;
        struct timespec ts = { 0, (long)((left < 100 ? left : 100) * 1000000) };
        nanosleep(&ts, NULL);
    }
    return late;
}

static bench_row *add_row(bench_session *s, const bench_run_desc *d, const char *status,
                          const char *reason, const bench_run_hooks *h)
{
    if (s->nrows == s->cap) {
        const size_t ncap = s->cap ? s->cap * 2 : 16;
        bench_row *nr = realloc(s->rows, ncap * sizeof *nr);
        if (!nr)
            return NULL;
        s->rows = nr;
        s->cap = ncap;
    }
    bench_row *row = &s->rows[s->nrows++];
    memset(row, 0, sizeof *row);
    snprintf(row->test, sizeof row->test, "%s", d->test);
    snprintf(row->key, sizeof row->key, "%s", d->key_desc ? d->key_desc : "-");
    snprintf(row->status, sizeof row->status, "%s", status);
    snprintf(row->reason, sizeof row->reason, "%s", reason ? reason : "");
    /* A raw RSA operation's input is one modulus-sized block (rsa-x509-*). */
    row->data_size = d->data_size ? d->data_size : d->block_size;
    row->threads = d->threads;
    row->deprecated = h && h->deprecated;
    return row;
}

/* The run element with the workload's fields, and its place in a --repeat
 * group; NULL (printed) when out of memory. */
static json_t *element(const bench_session *s, json_t *run, const bench_run_hooks *h, const bench_outcome *o)
{
    if (!run || (h && h->json && h->json(h->arg, run, o) != 0) ||
        (h && h->deprecated && json_object_set_new(run, "deprecated", json_true()) != 0) ||
        (s->repeat_of >= 2 &&
         json_object_set_new(run, "repeat", json_pack("{s:I,s:I}", "run", (json_int_t)s->repeat_run, "of",
                                                      (json_int_t)s->repeat_of)) != 0)) {
        json_decref(run);
        bench_error("out of memory while recording a run");
        return NULL;
    }
    return run;
}

/* Append a run element; a run that cannot be recorded is a failure of the
 * session. */
static void keep(bench_session *s, json_t *run)
{
    if (!run || json_array_append_new(s->runs, run) != 0)
        s->any_failed = 1;
}

void bench_session_not_run(bench_session *s, const bench_run_desc *d, const char *status,
                           const char *reason, const bench_run_hooks *h)
{
    keep(s, element(s, bench_report_run_json(d, NULL, NULL, status, reason), h, NULL));
    add_row(s, d, status, reason, h);
    if (strcmp(status, "failed") == 0)
        s->any_failed = 1;
    else if (strcmp(status, "interrupted") == 0)
        s->interrupted = 1;
}

int bench_session_run(bench_session *s, const bench_run_desc *d, const bench_workload *w,
                      const bench_load *load, const bench_run_hooks *h)
{
    const int quiet = s->out->quiet || s->brief;
    if (!quiet) {
        bench_report_header(stdout, d);
        if (s->repeat_of >= 2)
            printf("(run %u of %u of the same load: --repeat)\n", s->repeat_run, s->repeat_of);
        if (h && h->note)
            printf("%s\n", h->note);
    }
    const double late = wait_for_start(s);
    if (s->gate == BENCH_GATE_MISSED) {
        char why[200];
        snprintf(why, sizeof why, "missed the start window: ready %.1f s after --start-at, --start-window %g s",
                 s->late_s, s->out->start_window_s);
        if (!quiet)
            printf("%s\n", why);
        bench_session_not_run(s, d, "skipped", why, h);
        return -1;
    }
    /* Joined late: a run bounded by a duration ends with the others'. */
    bench_load lj = *load;
    if (late > 0 && lj.duration_ns && !lj.stages) {
        const uint64_t cut = (uint64_t)late * BENCH_NS_PER_S;
        lj.duration_ns = lj.duration_ns > cut ? lj.duration_ns - cut : 0;
        if (!lj.duration_ns) {
            s->gate = BENCH_GATE_MISSED;
            bench_session_not_run(s, d, "skipped", "missed the start window: joined after the others ended", h);
            return -1;
        }
    }
    /* thresholds with :abort for this test: judged each second */
    s->abort_test = NULL;
    s->aborted_by = NULL;
    s->abort_ok = s->abort_errors = 0;
    s->abort_stop = 0;
    for (size_t i = 0; i < s->out->nthresholds; i++)
        if (s->out->thresholds[i].abort && bench_threshold_applies(&s->out->thresholds[i], d->test))
            s->abort_test = d->test;
    if (s->abort_test)
        lj.stop = &s->abort_stop;
    load = &lj;
    s->stream_run = (bench_stream_run){ s->out->run_id, s->out->generator, h && h->series ? h->series : d->test,
                                        load->mode == BENCH_MODE_NONBLOCKING ? "nonblocking" : "blocking",
                                        load->threads, load->mode == BENCH_MODE_NONBLOCKING, load->stages != NULL };
    s->progress_elapsed = 0;
    bench_progress_begin(&s->progress, stderr, (double)load->duration_ns / 1e9,
                         !s->out->quiet && !s->on_second);
    bench_outcome out;
    bench_metrics_fleet(s->metrics, s->out->run_id, s->out->generator);
    bench_metrics_begin(s->metrics, h && h->series ? h->series : d->test, load, w);
    if (s->jtl && !(lj.sink = bench_jtl_begin(s->jtl, h && h->series ? h->series : d->test, load->threads)))
        s->any_failed = 1;   /* said; the run goes on without its lines */
    s->hooks = h;
    const int rc = bench_pool_run(w, load, s->interrupt, print_second, s, &out);
    s->hooks = NULL;
    if (lj.sink && bench_jtl_end(s->jtl) != 0)
        s->any_failed = 1;
    bench_progress_end(&s->progress);
    if (rc != 0) {
        bench_metrics_end(s->metrics, NULL);
        if (*s->interrupt) {
            /* Ctrl-C while the threads set up: nothing measured. */
            bench_session_not_run(s, d, "interrupted", "interrupted before the run started", h);
        } else {
            bench_error("%s: %s", d->test, out.reason);
            bench_session_not_run(s, d, "failed", out.reason, h);
        }
        bench_outcome_free(&out);
        return -1;
    }

    if (!s->first_epoch_ms)
        s->first_epoch_ms = out.measure_start_epoch_ms;
    /* The verdict and the run's figures, computed once: the run element,
     * then the run model every view of this run prints from. */
    char why[256];
    const char *status = bench_outcome_verdict(&out, w, why, sizeof why);
    if (out.status == BENCH_RUN_INTERRUPTED)
        snprintf(why, sizeof why, "interrupted (%s)%s%.160s", bench_signal_what(*s->interrupt),
                 out.stuck ? "; " : "", out.stuck ? out.reason : "");
    s->stuck += out.stuck;
    const int ok = strcmp(status, "ok") == 0;
    json_t *run = element(s, bench_report_run_json(d, &out, w, status, ok ? NULL : why), h, &out);
    if (run && out.status == BENCH_RUN_STOPPED && s->aborted_by) {
        /* k6's "aborted by a threshold": which, when, and its figure then */
        s->threshold_aborted = 1;
        if (json_object_set_new(run, "aborted_by_threshold",
                                json_pack("{s:s,s:f,s:s}", "threshold", s->aborted_by->expr, "at_s",
                                          round(s->aborted_at_s * 1000) / 1000, "observed",
                                          s->aborted_why)) != 0) {
            json_decref(run);
            run = NULL;
            bench_error("out of memory while recording a run");
        }
    }
    /* A finished run with failed operations is "errors", not ok: the run
     * model's word (bench_model_settle_status), here and in every view. */
    if (run && bench_model_settle_status(run) != 0) {
        bench_error("out of memory while recording a run");
        json_decref(run);
        run = NULL;
    }
    bench_run_model m;
    if (!run || bench_model_from_run(run, NULL, &m) != 0) {
        bench_metrics_end(s->metrics, NULL);
        if (run)
            bench_error("out of memory while recording a run");
        json_decref(run);
        s->any_failed = 1;
        bench_outcome_free(&out);
        return 0;
    }
    bench_metrics_end(s->metrics, &m);
    if (!quiet && out.status == BENCH_RUN_STOPPED && s->aborted_by)
        printf("stopped: threshold '%s' failed at %.0f s (%s): aborted by threshold, as k6's "
               "abortOnFail\n", s->aborted_by->expr, s->aborted_at_s, s->aborted_why);
    if (!quiet) {
        bench_report_summary(stdout, d, &m);
        if (h && h->summary)
            h->summary(h->arg, stdout, run, &m);
        bench_flush(stdout);
    }
    if (h && h->done && h->done(h->arg, run, &m) != 0)
        s->any_failed = 1;
    if (strcmp(status, "failed") == 0)
        s->any_failed = 1;
    keep(s, run);

    bench_row *row = add_row(s, d, m.status, *m.reason ? m.reason : NULL, h);
    if (row) {
        row->measured = 1;
        row->has_latency = m.latency.count > 0;
        row->ops_per_s = m.ops_per_s;
        row->p50_ns = m.latency.p50 * 1e3;
        row->p99_ns = m.latency.p99 * 1e3;
        row->error_pct = m.error_pct;
    }
    if (out.status == BENCH_RUN_INTERRUPTED)
        s->interrupted = 1;
    if (m.errors)
        s->any_errors = 1;
    bench_model_free(&m);
    bench_outcome_free(&out);
    return 0;
}

int bench_session_last_measured(const bench_session *s)
{
    return s->nrows > 0 && s->rows[s->nrows - 1].measured;
}

void bench_session_table(const bench_session *s, FILE *f)
{
    char a[32], b[32];
    /* The name columns as wide as their longest cell (at least the header's). */
    int tw = bench_text_cols("TEST"), kw = bench_text_cols("KEY");
    for (size_t i = 0; i < s->nrows; i++) {
        tw = bench_col_fit(tw, s->rows[i].test);
        kw = bench_col_fit(kw, s->rows[i].key);
    }
    fputc('\n', f);
    bench_fput_cell(f, "TEST", tw, 0);
    fputc(' ', f);
    bench_fput_cell(f, "KEY", kw, 0);
    fprintf(f, " %7s %7s %12s %10s %10s %7s  %s\n", "DATA", "THREADS", "OPS/S", "P50", "P99", "ERR%",
            "STATUS");
    for (size_t i = 0; i < s->nrows; i++) {
        const bench_row *row = &s->rows[i];
        const int measured = row->measured;
        char status[240];
        if (row->reason[0] && strcmp(row->status, "ok") != 0)
            snprintf(status, sizeof status, "%s: %s", row->status, row->reason);
        else
            snprintf(status, sizeof status, "%s%s", row->status, row->deprecated ? " (deprecated)" : "");
        bench_fput_cell(f, row->test, tw, 0);
        fputc(' ', f);
        bench_fput_cell(f, row->key, kw, 0);
        if (measured)
            /* Latency is of successful operations: none, none to show. */
            fprintf(f, " %7llu %7u %12.1f %10s %10s %7.2f  %s\n",
                    (unsigned long long)row->data_size, row->threads, row->ops_per_s,
                    row->has_latency ? bench_fmt_ns(row->p50_ns, a, sizeof a) : "-",
                    row->has_latency ? bench_fmt_ns(row->p99_ns, b, sizeof b) : "-",
                    row->error_pct, status);
        else
            fprintf(f, " %7llu %7u %12s %10s %10s %7s  %s\n", (unsigned long long)row->data_size,
                    row->threads, "-", "-", "-", "-", status);
    }
    bench_flush(f);
}

/* The results file's "fleet": who this generator is and how it met the
 * start gate (results-schema.md). */
static json_t *fleet_json(const bench_session *s)
{
    const bench_out_opts *o = s->out;
    json_t *f = json_pack("{s:s,s:s}", "run_id", o->run_id ? o->run_id : "-", "generator",
                          o->generator ? o->generator : "0");
    if (f && s->gate != BENCH_GATE_NONE &&
        (json_object_set_new(f, "start_at_epoch_ms", json_integer((json_int_t)s->out->start_at_ms)) != 0 ||
         json_object_set_new(f, "start_window_s", json_real(o->start_window_s)) != 0 ||
         json_object_set_new(f, "joined", json_boolean(s->gate != BENCH_GATE_MISSED)) != 0 ||
         json_object_set_new(f, "late_s", json_real(s->gate == BENCH_GATE_ON_TIME ? 0 : round(s->late_s * 1000) / 1000)) != 0)) {
        json_decref(f);
        return NULL;
    }
    return f;
}

/* The results document: JSON, CSV, HTML, as asked; scal, the analysis of
 * the thread sweeps, and reps, the intervals between repeated runs, when
 * they have any.  0, or -1 (printed). */
static int write_files(bench_session *s, json_t *environment, json_t *command, json_t *scal,
                       json_t *reps, int json_only)
{
    const bench_out_opts *o = s->out;
    char when[32];
    struct tm tmv;
    if (!gmtime_r(&s->started, &tmv) || strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tmv) == 0)
        snprintf(when, sizeof when, "1970-01-01T00:00:00Z");
    json_t *doc = json_pack("{s:s,s:{s:s},s:O?,s:s,s:I,s:O?,s:O}", "schema", BENCH_RESULT_SCHEMA,
                            "tool", "version", HSMBENCH_VERSION, "command", command,
                            "started_at", when, "started_at_epoch_ms",
                            (json_int_t)s->first_epoch_ms, "environment", environment, "runs",
                            s->runs);
    if (!doc || json_object_set_new(doc, "fleet", fleet_json(s)) != 0 ||
        (json_array_size(scal) && json_object_set(doc, "scalability", scal) != 0) ||
        (json_array_size(reps) && json_object_set(doc, "repeats", reps) != 0) ||
        (s->doc_extra && json_object_update(doc, s->doc_extra) != 0)) {
        json_decref(doc);
        bench_error("cannot build the results document (out of memory)");
        return -1;
    }
    int rc = 0;
    if (stdout_for_doc(s, 1) != 0) {
        bench_error("cannot give standard output back to the results: %s", strerror(errno));
        rc = -1;
    }
    if (o->json && bench_report_write(o->json, doc) != 0)
        rc = -1;
    else if (o->json)
        s->json_written = 1;
    if (!json_only && o->csv && bench_csv_write_file(o->csv, doc, "--csv") != 0)
        rc = -1;
    if (!json_only && o->html && bench_html_write_file(o->html, doc, "--html", o->sections) != 0)
        rc = -1;
    if (stdout_for_doc(s, 0) != 0)
        rc = -1;
    json_decref(doc);
    return rc;
}

int bench_session_checkpoint(bench_session *s, json_t *environment, json_t *command)
{
    if (!s->out->json || !json_array_size(s->runs))
        return 0;
    json_t *scal = bench_scalability(s->runs), *reps = bench_repeats(s->runs);
    int rc = -1;
    if (!scal || !reps)
        bench_error("out of memory while analysing the thread sweeps and repeated runs");
    else
        rc = write_files(s, environment, command, scal, reps, 1);
    json_decref(scal);
    json_decref(reps);
    if (rc != 0)
        s->checkpoint_failed = 1;
    return rc;
}

/* A measured run judged not ok: nothing has said so on standard error (a
 * run that could not take place has, in the line that failed it). */
static int unsaid(const bench_row *row)
{
    return row->measured && (strcmp(row->status, "errors") == 0 || strcmp(row->status, "failed") == 0);
}

/* With --quiet, the one line that says why the exit status is 1: the
 * measured runs whose status is not ok ("errors" or "failed"), with their
 * reasons.  A run that could not take place, and a results file not
 * written, have said so already. */
static void say_exit_failed(const bench_session *s)
{
    size_t bad = 0;
    for (size_t i = 0; i < s->nrows; i++)
        bad += unsaid(&s->rows[i]);
    if (!bad)
        return;
    fputs("hsmbench: exit 1: ", stderr);
    if (bad > 1)
        fprintf(stderr, "%zu runs not ok: ", bad);
    const char *sep = "";
    for (size_t i = 0; i < s->nrows; i++) {
        const bench_row *row = &s->rows[i];
        if (!unsaid(row))
            continue;
        fprintf(stderr, "%s%s, %u thread%s: %s%s%s", sep, row->test, row->threads,
                row->threads == 1 ? "" : "s", row->status, row->reason[0] ? ": " : "", row->reason);
        sep = "; ";
    }
    fputc('\n', stderr);
    bench_flush(stderr);
}

int bench_session_finish(bench_session *s, json_t *environment, json_t *command)
{
    const bench_out_opts *o = s->out;
    if (*s->interrupt)
        s->interrupted = 1;
    if (!o->quiet && (s->table ? json_array_size(s->runs) > 0 : s->nrows > 1)) {
        if (s->table)
            s->table(s->table_arg, stdout, s->runs);
        else
            bench_session_table(s, stdout);
    }
    /* The thread sweeps' analysis, after the table it reads (NULL: out of memory). */
    json_t *scal = bench_scalability(s->runs);
    bench_scal_sweeps sweeps = { 0 };
    if (!scal || bench_scal_sweeps_read(scal, NULL, &sweeps) != 0)
        bench_error("out of memory while analysing the thread sweeps");
    else if (!o->quiet)
        bench_scalability_print(stdout, &sweeps);
    bench_scal_sweeps_free(&sweeps);
    /* --repeat's answer, between runs, after the table of its runs: its
     * figures computed once, in the results floor (bench/results/repeat.c). */
    json_t *reps = bench_repeats(s->runs);
    bench_repeat_groups groups = { 0 };
    if (!reps || bench_repeat_groups_read(reps, &groups) != 0)
        bench_error("out of memory while analysing the repeated runs");
    else if (!o->quiet)
        bench_repeats_print(stdout, &groups);
    bench_repeat_groups_free(&groups);
    int thresholds_failed = 0;
    if (o->nthresholds) {
        const int nf = bench_thresholds_apply(o->thresholds, o->nthresholds, s->runs,
                                              o->quiet ? NULL : stdout, o->quiet ? stderr : NULL);
        thresholds_failed = nf != 0;
    }
    /* Nothing recorded (a set-up failure before any run): no results file. */
    const int write = (o->json || o->csv || o->html) && json_array_size(s->runs) && !s->checkpoint_failed;
    int write_failed = s->checkpoint_failed;
    if (write && write_files(s, environment, command, scal, reps, 0) != 0)
        write_failed = 1;
    json_decref(scal);
    json_decref(reps);
    json_decref(environment);
    json_decref(command);

    if (s->interrupted) {
        if (!o->quiet)
            fprintf(stderr, "hsmbench: interrupted; partial results %s\n",
                    write && !write_failed && o->json ? "written" : "shown above");
        return BENCH_EXIT_INTERRUPTED;
    }
    if (s->setup_failed)
        return BENCH_EXIT_MODULE;
    /* k6's 99 for thresholds, so a CI gate tells them from a run that
     * failed; a run that failed outright (nothing sound to judge) or
     * results not written come first, errors after (a threshold on the
     * errors is what judges them). */
    if (s->any_failed || write_failed) {
        if (o->quiet)
            say_exit_failed(s);
        return BENCH_EXIT_FAILED;
    }
    if (thresholds_failed || s->threshold_aborted)
        return BENCH_EXIT_THRESHOLD;
    if (s->any_errors) {
        if (o->quiet)
            say_exit_failed(s);
        return BENCH_EXIT_FAILED;
    }
    return BENCH_EXIT_OK;
}

/* ---- the command line ---- */

const char *bench_redact_marks(void *arg, int i, const char *word, char *buf, size_t len)
{
    const unsigned char *marks = arg;
    const char *cut;
    switch (marks[i]) {
    case BENCH_MARK_WHOLE:
        return "***";
    case BENCH_MARK_VALUE:
        cut = strchr(word, '=');
        if (!cut)
            return "***";
        snprintf(buf, len, "%.*s=***", (int)(cut - word), word);
        return buf;
    case BENCH_MARK_HEADER:
        cut = strchr(word, ':');
        if (!cut)
            return "***";
        snprintf(buf, len, "%.*s ***", (int)(cut - word + 1), word);
        return buf;
    case BENCH_MARK_URL:
        return bench_url_identity_of(word, buf, len, NULL);
    case BENCH_MARK_URL_VALUE: {
        char url[2048];
        cut = strchr(word, '=');
        if (!cut)
            return bench_url_identity_of(word, buf, len, NULL);
        snprintf(buf, len, "%.*s=%s", (int)(cut - word), word,
                 bench_url_identity_of(cut + 1, url, sizeof url, NULL));
        return buf;
    }
    default:
        return NULL;
    }
}

unsigned char bench_mark_of(const char *word, unsigned char mark)
{
    if (strncmp(word, "--", 2) != 0 || !strchr(word, '='))
        return mark;
    return mark == BENCH_MARK_WHOLE ? BENCH_MARK_VALUE : mark == BENCH_MARK_URL ? BENCH_MARK_URL_VALUE
                                                                                : mark;
}

json_t *bench_command_json(int argc, char *const *argv, bench_redact_fn redact, void *arg)
{
    json_t *arr = json_array();
    if (!arr || json_array_append_new(arr, json_string("hsmbench")) != 0) {
        json_decref(arr);
        return NULL;
    }
    for (int i = 0; i < argc; i++) {
        char buf[2048];
        const char *r = redact ? redact(arg, i, argv[i], buf, sizeof buf) : NULL;
        if (json_array_append_new(arr, json_string(r ? r : argv[i])) != 0) {
            json_decref(arr);
            return NULL;
        }
    }
    return arr;
}
