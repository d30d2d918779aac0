/* SPDX-License-Identifier: Apache-2.0 */
/*
 * p11/replay_model.c - the replay model: which reader a file needs, the
 * scenario reader, what every reader shares, and the model as it is
 * printed and written.
 *
 * A scenario's arrivals are made here, ahead of the run, from its seed:
 * the run then replays them exactly as it replays a recording's, so the
 * same file and seed give the same transactions at the same times, and a
 * replay's --speed means the same thing for both.
 */
#include "p11/replay_int.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "bench/core/stages.h"
#include "bench/results/stats.h"
#include "bench/util/cli.h"
#include "p11/traceformat.h"

/* ---- what the readers share -------------------------------------------- */

int p11_replay_add_arrival(p11_replay_model *m, uint64_t at_ns, uint32_t kind, uint32_t thread,
                           char *err, size_t errlen)
{
    if (m->narrivals >= P11_REPLAY_MAX_ARRIVALS) {
        snprintf(err, errlen, "%s: more than %llu transactions; replay a part of it", m->path,
                 (unsigned long long)P11_REPLAY_MAX_ARRIVALS);
        return -1;
    }
    /* Grow by doubling: the capacity is the next power of two at or above
     * the count, so it need not be stored. */
    const size_t n = m->narrivals;
    if (n == 0 || (n & (n - 1)) == 0) {
        const size_t cap = n ? n * 2 : 64;
        if (n == 0 || cap > 64) {
            p11_replay_arrival *a = realloc(m->arrivals, cap * sizeof *a);
            if (!a) {
                snprintf(err, errlen, "%s: out of memory for %zu transactions", m->path, cap);
                return -1;
            }
            m->arrivals = a;
        }
    }
    m->arrivals[n] = (p11_replay_arrival){ at_ns, kind, thread };
    m->narrivals = n + 1;
    return 0;
}

void p11_replay_not_replayed(p11_replay_model *m, const char *what, const char *why, uint64_t n)
{
    for (unsigned i = 0; i < m->nskipped; i++)
        if (strcmp(m->skipped[i].what, what) == 0 && m->skipped[i].why == why) {
            m->skipped[i].count += n;
            return;
        }
    p11_replay_skip *s = &m->skipped[m->nskipped < P11_REPLAY_MAX_SKIPPED ? m->nskipped
                                                                          : P11_REPLAY_MAX_SKIPPED - 1];
    if (m->nskipped == P11_REPLAY_MAX_SKIPPED) {
        /* The last line collects the rest. */
        if (strcmp(s->what, "other calls") != 0) {
            snprintf(s->what, sizeof s->what, "other calls");
            s->why = "not listed one by one";
        }
        s->count += n;
        return;
    }
    m->nskipped++;
    snprintf(s->what, sizeof s->what, "%s", what);
    s->why = why;
    s->count = n;
}

void p11_replay_limit(p11_replay_model *m, const char *sentence)
{
    for (unsigned i = 0; i < m->nlimits; i++)
        if (m->limits[i] == sentence || strcmp(m->limits[i], sentence) == 0)
            return;
    if (m->nlimits < sizeof m->limits / sizeof m->limits[0])
        m->limits[m->nlimits++] = sentence;
}

static int by_time(const void *a, const void *b)
{
    const p11_replay_arrival *x = a, *y = b;
    return (x->at_ns > y->at_ns) - (x->at_ns < y->at_ns);
}

/* The most arrivals in any window of w ns (a sliding window over sorted times). */
static uint64_t most_in_window(const p11_replay_arrival *a, size_t n, uint64_t w)
{
    uint64_t most = 0;
    for (size_t lo = 0, hi = 0; hi < n; hi++) {
        while (a[hi].at_ns - a[lo].at_ns >= w)
            lo++;
        if (hi - lo + 1 > most)
            most = hi - lo + 1;
    }
    return most;
}

int p11_replay_finish(p11_replay_model *m, char *err, size_t errlen)
{
    if (m->narrivals == 0 || m->nkinds == 0) {
        snprintf(err, errlen, "%s: no transaction to replay in it%s", m->path,
                 m->nskipped ? " (what it holds is listed as not replayed: see --model-only)" : "");
        return -1;
    }
    qsort(m->arrivals, m->narrivals, sizeof *m->arrivals, by_time);
    const uint64_t t0 = m->arrivals[0].at_ns;
    for (size_t i = 0; i < m->narrivals; i++)
        m->arrivals[i].at_ns -= t0;
    if (m->span_ns >= t0)
        m->span_ns -= t0;
    const uint64_t last = m->arrivals[m->narrivals - 1].at_ns;
    if (m->span_ns < last)
        m->span_ns = last;
    for (unsigned k = 0; k < m->nkinds; k++)
        m->kinds[k].count = 0;
    for (size_t i = 0; i < m->narrivals; i++)
        if (m->arrivals[i].kind < m->nkinds)
            m->kinds[m->arrivals[i].kind].count++;
    for (unsigned k = 0; k < m->nkinds; k++)
        m->kinds[k].share = (double)m->kinds[k].count / (double)m->narrivals;
    /* One transaction alone has no rate: its span is 0.  A span shorter
     * than the source's resolution is taken as one resolution step. */
    const uint64_t span = m->span_ns > m->resolution_ns ? m->span_ns
                        : (m->resolution_ns ? m->resolution_ns : 1);
    m->rate = (double)m->narrivals / ((double)span / 1e9);
    const uint64_t w = 100000000ULL;   /* 100 ms */
    m->peak_rate = span >= w ? (double)most_in_window(m->arrivals, m->narrivals, w) * 10.0 : m->rate;
    if (m->peak_rate < m->rate)
        m->peak_rate = m->rate;
    if (m->threads == 0)
        m->threads = 1;
    if (m->concurrency == 0)
        m->concurrency = 1;
    return 0;
}

void p11_replay_model_free(p11_replay_model *m)
{
    free(m->arrivals);
    m->arrivals = NULL;
    m->narrivals = 0;
}

/* ---- the scenario reader ------------------------------------------------ */

typedef struct scn {
    p11_replay_model *m;
    const char       *path;
    unsigned          line;
    char             *err;
    size_t            errlen;
    /* the arrival process */
    int               have_arrivals;
    int               poisson;
    double            rate;            /* constant rate, or 0 with stages */
    uint64_t          length_ns;
    bench_stages      stages;
    int               have_stages;
    uint64_t          think_next;      /* a think line's pause, for the next step */
    int               think_pending;
    int               have_seed;
} scn;

__attribute__((format(printf, 2, 3)))
static int scn_fail(scn *s, const char *fmt, ...)
{
    char why[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    snprintf(s->err, s->errlen, "%s:%u: %s", s->path, s->line, why);
    return -1;
}

/* The next word of *p (blank-separated), NUL-terminated in place; NULL at the end. */
static char *word(char **p)
{
    char *a = *p;
    while (*a == ' ' || *a == '\t')
        a++;
    if (!*a)
        return NULL;
    char *b = a;
    while (*b && *b != ' ' && *b != '\t')
        b++;
    if (*b)
        *b++ = '\0';
    *p = b;
    return a;
}

static int scn_u64(scn *s, const char *what, const char *text, uint64_t min, uint64_t max,
                   uint64_t *out)
{
    char *end = NULL;
    errno = 0;
    if (!text || !isdigit((unsigned char)*text))
        return scn_fail(s, "%s needs a whole number from %llu to %llu", what,
                        (unsigned long long)min, (unsigned long long)max);
    const unsigned long long v = strtoull(text, &end, 10);
    if (errno || *end || v < min || v > max)
        return scn_fail(s, "%s %s: a whole number from %llu to %llu", what, text,
                        (unsigned long long)min, (unsigned long long)max);
    *out = v;
    return 0;
}

static int scn_duration(scn *s, const char *what, const char *text, uint64_t min_ns, uint64_t max_ns,
                        uint64_t *out)
{
    char why[200];
    if (!text)
        return scn_fail(s, "%s needs a duration (500us, 2ms, 30s)", what);
    if (bench_duration_of(text, min_ns, max_ns, out, why, sizeof why) != 0)
        return scn_fail(s, "%s: %s", what, why);
    return 0;
}

/* "50/s", "50": transactions per second, above 0, at most 1e6. */
static int scn_rate(scn *s, const char *text, double *out)
{
    char buf[64];
    if (!text || strlen(text) >= sizeof buf)
        return scn_fail(s, "arrivals: give a rate (50/s)");
    snprintf(buf, sizeof buf, "%s", text);
    char *slash = strstr(buf, "/s");
    if (slash && slash[2] == '\0')
        *slash = '\0';
    char *end = NULL;
    const double r = bench_strtod(buf, &end);
    if (!*buf || !end || *end || !isfinite(r) || r <= 0 || r > 1e6)
        return scn_fail(s, "arrivals %s: a rate above 0 and at most 1000000 a second (50/s)", text);
    *out = r;
    return 0;
}

/* arrivals constant|poisson RATE/s for DURATION
 * arrivals constant|poisson stages PROFILE */
static int scn_arrivals(scn *s, char *rest)
{
    if (s->have_arrivals)
        return scn_fail(s, "arrivals is given twice; give one arrival process");
    const char *how = word(&rest);
    if (!how || (strcmp(how, "constant") != 0 && strcmp(how, "poisson") != 0))
        return scn_fail(s, "arrivals: say constant or poisson (arrivals poisson 50/s for 30s)");
    s->poisson = strcmp(how, "poisson") == 0;
    const char *a = word(&rest);
    if (a && strcmp(a, "stages") == 0) {
        const char *profile = word(&rest);
        char flag[128];
        if (!profile)
            return scn_fail(s, "arrivals %s stages: give a profile (10s:20,30s:100,5s:0)", how);
        snprintf(flag, sizeof flag, "%s:%u: arrivals %s stages", s->path, s->line, how);
        if (bench_stages_parse(flag, profile, 1e6, &s->stages) != 0) {
            /* bench_stages_parse printed why, naming the file and line */
            snprintf(s->err, s->errlen, "%s:%u: the profile is not one (see above)", s->path,
                     s->line);
            return -1;
        }
        s->have_stages = 1;
        s->length_ns = bench_stages_total_ns(&s->stages);
        if (bench_stages_peak(&s->stages) <= 0)
            return scn_fail(s, "arrivals %s stages %s: the rate never rises above 0", how, profile);
    } else {
        if (scn_rate(s, a, &s->rate) != 0)
            return -1;
        const char *f = word(&rest);
        if (!f || strcmp(f, "for") != 0)
            return scn_fail(s, "arrivals %s %s: say for how long (arrivals %s %s for 30s)", how, a,
                            how, a);
        if (scn_duration(s, "arrivals ... for", word(&rest), 1000000ULL, 86400ULL * 1000000000ULL,
                         &s->length_ns) != 0)
            return -1;
    }
    if (word(&rest))
        return scn_fail(s, "arrivals: unexpected words after the process");
    s->have_arrivals = 1;
    return 0;
}

static int scn_transaction(scn *s, char *rest)
{
    p11_replay_model *m = s->m;
    const char *name = word(&rest);
    if (!name)
        return scn_fail(s, "transaction needs a name (transaction jwe-decrypt weight 70)");
    if (strlen(name) >= sizeof m->kinds[0].name)
        return scn_fail(s, "transaction %.40s...: a name of at most %zu characters", name,
                        sizeof m->kinds[0].name - 1);
    for (const char *c = name; *c; c++)
        if (!isalnum((unsigned char)*c) && !strchr("-_.+", *c))
            return scn_fail(s, "transaction %s: a name of letters, digits and - _ . +", name);
    for (unsigned k = 0; k < m->nkinds; k++)
        if (strcmp(m->kinds[k].name, name) == 0)
            return scn_fail(s, "transaction %s is given twice", name);
    if (m->nkinds == P11_REPLAY_MAX_KINDS)
        return scn_fail(s, "at most %d transactions in a scenario", P11_REPLAY_MAX_KINDS);
    const char *w = word(&rest);
    double weight = 1;
    if (w) {
        if (strcmp(w, "weight") != 0)
            return scn_fail(s, "transaction %s %s: only a weight may follow the name", name, w);
        const char *wt = word(&rest);
        char *end = NULL;
        weight = wt ? bench_strtod(wt, &end) : 0;
        if (!wt || !end || *end || !isfinite(weight) || weight <= 0 || weight > 1e9)
            return scn_fail(s, "transaction %s weight %s: a positive number", name, wt ? wt : "");
        if (word(&rest))
            return scn_fail(s, "transaction %s: unexpected words after the weight", name);
    }
    p11_replay_kind *k = &m->kinds[m->nkinds++];
    memset(k, 0, sizeof *k);
    snprintf(k->name, sizeof k->name, "%s", name);
    k->share = weight;   /* normalised once every transaction is read */
    s->think_pending = 0;
    return 0;
}

/* step TEST [key BITS|CURVE] [data BYTES] [hash NAME] [aad BYTES] */
static int scn_step(scn *s, char *rest)
{
    p11_replay_model *m = s->m;
    if (m->nkinds == 0)
        return scn_fail(s, "step before any transaction; start one with: transaction NAME");
    p11_replay_kind *k = &m->kinds[m->nkinds - 1];
    if (k->nsteps == P11_REPLAY_MAX_STEPS)
        return scn_fail(s, "transaction %s: at most %d steps", k->name, P11_REPLAY_MAX_STEPS);
    const char *tname = word(&rest);
    const p11_test_def *def = tname ? p11_test_find(tname) : NULL;
    if (!tname)
        return scn_fail(s, "step needs a test (see: hsmbench list tests)");
    if (!def)
        return scn_fail(s, "step %s: unknown test (see: hsmbench list tests)", tname);
    p11_test_params in;
    memset(&in, 0, sizeof in);
    in.keys = P11_KEYS_GENERATE;
    for (const char *key = word(&rest); key; key = word(&rest)) {
        const char *val = word(&rest);
        uint64_t v = 0;
        if (!val)
            return scn_fail(s, "step %s: %s needs a value", tname, key);
        if (strcmp(key, "key") == 0) {
            if (def->key == KEYS_EC && !isdigit((unsigned char)*val)) {
                /* a curve by name: its size, which resolve turns back into
                 * the catalogue's own name for it */
                in.key_bits = strncmp(val, "P-", 2) == 0 ? keys_curve_bits(val) : 0;
                if (!in.key_bits)
                    return scn_fail(s, "step %s key %.20s: not a curve (P-256, P-384, P-521)",
                                    tname, val);
            } else {
                if (scn_u64(s, "key", val, 1, 65536, &v) != 0)
                    return -1;
                in.key_bits = (unsigned)v;
            }
        } else if (strcmp(key, "data") == 0) {
            if (def->data_max == 0)
                return scn_fail(s, "step %s takes no data size", tname);
            if (scn_u64(s, "data", val, def->data_min ? def->data_min : 1, def->data_max, &v) != 0)
                return -1;
            in.data_size = v;
        } else if (strcmp(key, "hash") == 0) {
            in.hash = p11_hash_by_name(val);
            if (in.hash == P11_HASH_NONE || !(def->hashes & P11_H(in.hash)))
                return scn_fail(s, "step %s hash %s: not a hash this test takes (hsmbench list tests)",
                                tname, val);
        } else if (strcmp(key, "aad") == 0) {
            if (scn_u64(s, "aad", val, 0, 65536, &v) != 0)
                return -1;
            in.aad_size = v;
        } else {
            return scn_fail(s, "step %s: %s is not key, data, hash or aad", tname, key);
        }
    }
    p11_replay_step *st = &k->steps[k->nsteps];
    /* p11_test_resolve names the flag it would have been on the command
     * line; the line here says where. */
    if (p11_test_resolve(def, &in, &st->params) != 0)
        return scn_fail(s, "step %s: the values do not fit the test (see above)", tname);
    st->def = def;
    st->think_ns = s->think_pending ? s->think_next : 0;
    if (k->nsteps == 0 && s->think_pending)
        return scn_fail(s, "transaction %s: think before its first step; the pause between "
                           "transactions comes from the arrivals", k->name);
    s->think_pending = 0;
    k->nsteps++;
    return 0;
}

static int scn_line(scn *s, char *text)
{
    char *hash = strchr(text, '#');
    if (hash)
        *hash = '\0';
    char *rest = text;
    const char *kw = word(&rest);
    if (!kw)
        return 0;
    if (strcmp(kw, "arrivals") == 0)
        return scn_arrivals(s, rest);
    if (strcmp(kw, "transaction") == 0)
        return scn_transaction(s, rest);
    if (strcmp(kw, "step") == 0)
        return scn_step(s, rest);
    if (strcmp(kw, "think") == 0) {
        if (s->m->nkinds == 0)
            return scn_fail(s, "think before any transaction");
        if (scn_duration(s, "think", word(&rest), 0, 3600ULL * 1000000000ULL, &s->think_next) != 0)
            return -1;
        s->think_pending = 1;
        return word(&rest) ? scn_fail(s, "think: one duration") : 0;
    }
    if (strcmp(kw, "seed") == 0) {
        uint64_t v;
        if (scn_u64(s, "seed", word(&rest), 0, UINT64_MAX, &v) != 0)
            return -1;
        s->m->seed = v;
        s->have_seed = 1;
        return word(&rest) ? scn_fail(s, "seed: one number") : 0;
    }
    if (strcmp(kw, "concurrency") == 0) {
        uint64_t v;
        if (scn_u64(s, "concurrency", word(&rest), 1, 4096, &v) != 0)
            return -1;
        s->m->concurrency = (unsigned)v;
        return word(&rest) ? scn_fail(s, "concurrency: one number") : 0;
    }
    return scn_fail(s, "%s: not a scenario line (arrivals, transaction, step, think, seed, "
                       "concurrency)", kw);
}

/* An exponential gap of mean 1 (inverse transform of a 53-bit uniform in (0, 1]). */
static double exp1(bench_rng *r)
{
    const double u = ((double)(bench_rng_next(r) >> 11) + 1.0) * 0x1.0p-53;
    return -log(u);
}

/*
 * The arrivals of the process: due times where the integral of the rate
 * crosses each next whole number (constant), or a Poisson process of that
 * rate (exponential gaps; under a profile, thinned from its peak rate), the
 * kind of each drawn by weight from a second stream of the same seed.
 */
static int scn_make_arrivals(scn *s)
{
    p11_replay_model *m = s->m;
    bench_rng when, which;
    bench_rng_seed(&when, m->seed);
    bench_rng_seed(&which, m->seed ^ 0x5851f42d4c957f2dULL);
    double cum[P11_REPLAY_MAX_KINDS], total = 0;
    for (unsigned k = 0; k < m->nkinds; k++)
        total += m->kinds[k].share;
    for (unsigned k = 0; k < m->nkinds; k++) {
        cum[k] = (k ? cum[k - 1] : 0) + m->kinds[k].share / total;
    }
    cum[m->nkinds - 1] = 1.0;
    const double peak = s->have_stages ? bench_stages_peak(&s->stages) : s->rate;
    double t = 0;                 /* seconds */
    double owed = 0;              /* constant under a profile: the rate's integral so far */
    const double end = (double)s->length_ns / 1e9;
    const double step = 0.001;    /* a profile's rate is integrated by the millisecond */
    for (;;) {
        if (s->poisson) {
            t += exp1(&when) / peak;
            if (t >= end)
                break;
            if (s->have_stages) {
                const double r = bench_stages_at(&s->stages, (uint64_t)(t * 1e9));
                const double u = (double)(bench_rng_next(&when) >> 11) * 0x1.0p-53;
                if (u * peak >= r)
                    continue;
            }
        } else if (!s->have_stages) {
            t = (double)m->narrivals / s->rate;
            if (t >= end)
                break;
        } else {
            /* walk the profile a millisecond at a time until a whole
             * request more is owed */
            while (owed < 1.0 && t < end) {
                owed += bench_stages_at(&s->stages, (uint64_t)(t * 1e9)) * step;
                t += step;
            }
            if (owed < 1.0)
                break;
            owed -= 1.0;
        }
        const double u = (double)(bench_rng_next(&which) >> 11) * 0x1.0p-53;
        unsigned k = 0;
        while (k + 1 < m->nkinds && u >= cum[k])
            k++;
        if (p11_replay_add_arrival(m, (uint64_t)llround(t * 1e9), k, 0, s->err, s->errlen) != 0)
            return -1;
    }
    m->span_ns = s->length_ns;
    return 0;
}

int p11_replay_read_scenario(FILE *f, const char *path, p11_replay_model *m, char *err,
                             size_t errlen)
{
    scn s = { .m = m, .path = path, .err = err, .errlen = errlen };
    char *buf = NULL;
    size_t cap = 0;
    ssize_t got;
    int rc = -1;
    m->source = P11_REPLAY_SCENARIO;
    m->resolution_ns = 1;
    m->threads = 1;
    m->seed = 1;
    while ((got = getline(&buf, &cap, f)) >= 0) {
        s.line++;
        if (got > 1024) {
            scn_fail(&s, "a line longer than 1024 characters: not a scenario");
            goto cleanup;
        }
        if (strlen(buf) != (size_t)got) {
            scn_fail(&s, "a NUL byte: not a scenario");
            goto cleanup;
        }
        buf[strcspn(buf, "\r\n")] = '\0';
        if (scn_line(&s, buf) != 0)
            goto cleanup;
    }
    rc = 0;
cleanup:
    free(buf);
    if (rc != 0)
        return -1;
    if (ferror(f)) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    s.line++;
    if (m->nkinds == 0)
        return scn_fail(&s, "no transaction in the scenario (transaction NAME, then step TEST ...)");
    for (unsigned k = 0; k < m->nkinds; k++)
        if (m->kinds[k].nsteps == 0)
            return scn_fail(&s, "transaction %s has no step", m->kinds[k].name);
    if (s.think_pending)
        return scn_fail(&s, "think after the last step of transaction %s: the pause between "
                            "transactions comes from the arrivals", m->kinds[m->nkinds - 1].name);
    if (!s.have_arrivals)
        return scn_fail(&s, "no arrivals line (arrivals poisson 50/s for 30s)");
    if (!m->concurrency)
        m->concurrency = 1;
    if (scn_make_arrivals(&s) != 0)
        return -1;
    return 0;
}

/* ---- which reader ------------------------------------------------------- */

int p11_replay_load(const char *path, p11_replay_model *m, char *err, size_t errlen)
{
    char head[4096];
    int rc = -1;
    memset(m, 0, sizeof *m);
    snprintf(m->path, sizeof m->path, "%s", path);
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    const size_t n = fread(head, 1, sizeof head, f);
    if (ferror(f)) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        goto cleanup;
    }
    if (n >= 8 && memcmp(head, HSMBENCH_TRACE_MAGIC, 8) == 0) {
        rc = p11_replay_read_recording(path, m, err, errlen);
    } else {
        rewind(f);
        if (p11_replay_is_spy(head, n))
            rc = p11_replay_read_spy(f, path, m, err, errlen);
        else
            rc = p11_replay_read_scenario(f, path, m, err, errlen);
    }
    if (rc == 0)
        rc = p11_replay_finish(m, err, errlen);
cleanup:
    fclose(f);
    if (rc != 0)
        p11_replay_model_free(m);
    return rc;
}

/* ---- the model, printed and written ------------------------------------- */

static const char *source_name(p11_replay_source s)
{
    switch (s) {
    case P11_REPLAY_RECORDING: return "recording";
    case P11_REPLAY_SPY:       return "pkcs11-spy log";
    case P11_REPLAY_SCENARIO:  return "scenario";
    }
    return "?";
}

static const char *step_data(const p11_replay_step *st, char *buf, size_t len)
{
    if (st->def->data_max == 0 || st->params.data_size == 0)
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%llu B", (unsigned long long)st->params.data_size);
    return buf;
}

static const char *step_key(const p11_replay_step *st, char *buf, size_t len)
{
    p11_test_key_desc(st->def, &st->params, buf, len);
    if (st->def->hashes && st->params.hash != P11_HASH_NONE) {
        const size_t used = strlen(buf);
        snprintf(buf + used, len - used, "%s%s", strcmp(buf, "-") ? ", " : "",
                 p11_hash_name(st->params.hash));
        if (strncmp(buf, "-", 1) == 0 && buf[1] == ' ')
            memmove(buf, buf + 1, strlen(buf));
    }
    return buf;
}

void p11_replay_model_print(const p11_replay_model *m, FILE *out)
{
    char a[32], b[32];
    fprintf(out, "replay model of %s (%s)\n", m->path, source_name(m->source));
    fprintf(out, "  %zu transactions in %s: %.1f/s, at most %.1f/s in 100 ms; ", m->narrivals,
            bench_fmt_ns((double)m->span_ns, a, sizeof a), m->rate, m->peak_rate);
    if (m->source == P11_REPLAY_SCENARIO)
        fprintf(out, "concurrency %u (closed loop)\n", m->concurrency);
    else
        fprintf(out, "%u thread%s, at most %u under way at once\n", m->threads,
                m->threads == 1 ? "" : "s", m->concurrency);
    fprintf(out, "  %-28s %6s %9s  %-4s %-22s %-20s %9s %9s\n", "TRANSACTION", "SHARE", "COUNT",
            "STEP", "TEST", "KEY", "DATA", "THINK");
    for (unsigned k = 0; k < m->nkinds; k++) {
        const p11_replay_kind *kd = &m->kinds[k];
        for (unsigned i = 0; i < kd->nsteps; i++) {
            const p11_replay_step *st = &kd->steps[i];
            char key[64], data[32];
            if (i == 0)
                fprintf(out, "  %-28s %5.1f%% %9llu", kd->name, kd->share * 100.0,
                        (unsigned long long)kd->count);
            else
                fprintf(out, "  %-28s %6s %9s", "", "", "");
            fprintf(out, "  %-4u %-22s %-20s %9s %9s\n", i + 1, st->def->name,
                    step_key(st, key, sizeof key), step_data(st, data, sizeof data),
                    i ? bench_fmt_ns((double)st->think_ns, b, sizeof b) : "-");
        }
    }
    if (m->nskipped) {
        fprintf(out, "  not replayed:\n");
        for (unsigned i = 0; i < m->nskipped; i++)
            fprintf(out, "    %-40s %9llu  %s\n", m->skipped[i].what,
                    (unsigned long long)m->skipped[i].count, m->skipped[i].why);
    }
    for (unsigned i = 0; i < m->nlimits; i++)
        fprintf(out, "  note: %s\n", m->limits[i]);
}

json_t *p11_replay_model_json(const p11_replay_model *m)
{
    json_t *o = json_object(), *kinds = json_array(), *skipped = json_array(),
           *limits = json_array();
    if (!o || !kinds || !skipped || !limits)
        goto fail;
    json_object_set_new(o, "source", json_string(source_name(m->source)));
    json_object_set_new(o, "path", json_string(m->path));
    json_object_set_new(o, "transactions", json_integer((json_int_t)m->narrivals));
    json_object_set_new(o, "span_s", json_real((double)m->span_ns / 1e9));
    json_object_set_new(o, "rate", json_real(m->rate));
    json_object_set_new(o, "peak_rate_100ms", json_real(m->peak_rate));
    json_object_set_new(o, "threads", json_integer(m->threads));
    json_object_set_new(o, "concurrency", json_integer(m->concurrency));
    json_object_set_new(o, "resolution_ns", json_integer((json_int_t)m->resolution_ns));
    if (m->source == P11_REPLAY_SCENARIO)
        json_object_set_new(o, "seed", json_integer((json_int_t)m->seed));
    for (unsigned k = 0; k < m->nkinds; k++) {
        const p11_replay_kind *kd = &m->kinds[k];
        json_t *ko = json_object(), *steps = json_array();
        if (!ko || !steps || json_array_append_new(kinds, ko) != 0) {
            json_decref(steps);
            goto fail;
        }
        json_object_set_new(ko, "name", json_string(kd->name));
        json_object_set_new(ko, "share", json_real(kd->share));
        json_object_set_new(ko, "count", json_integer((json_int_t)kd->count));
        json_object_set_new(ko, "steps", steps);
        for (unsigned i = 0; i < kd->nsteps; i++) {
            const p11_replay_step *st = &kd->steps[i];
            char key[64];
            json_t *so = json_object();
            if (!so || json_array_append_new(steps, so) != 0)
                goto fail;
            json_object_set_new(so, "test", json_string(st->def->name));
            json_object_set_new(so, "key", json_string(p11_test_key_desc(st->def, &st->params, key,
                                                                         sizeof key)));
            if (st->def->hashes && st->params.hash != P11_HASH_NONE)
                json_object_set_new(so, "hash", json_string(p11_hash_name(st->params.hash)));
            if (st->def->data_max && st->params.data_size)
                json_object_set_new(so, "data_bytes",
                                    json_integer((json_int_t)st->params.data_size));
            json_object_set_new(so, "think_us", json_real((double)st->think_ns / 1e3));
        }
    }
    json_object_set_new(o, "kinds", kinds);
    kinds = NULL;
    for (unsigned i = 0; i < m->nskipped; i++) {
        json_t *so = json_pack("{s:s, s:I, s:s}", "what", m->skipped[i].what, "count",
                               (json_int_t)m->skipped[i].count, "why", m->skipped[i].why);
        if (!so || json_array_append_new(skipped, so) != 0)
            goto fail;
    }
    json_object_set_new(o, "not_replayed", skipped);
    skipped = NULL;
    for (unsigned i = 0; i < m->nlimits; i++)
        if (json_array_append_new(limits, json_string(m->limits[i])) != 0)
            goto fail;
    json_object_set_new(o, "limits", limits);
    return o;
fail:
    json_decref(kinds);
    json_decref(skipped);
    json_decref(limits);
    json_decref(o);
    return NULL;
}
