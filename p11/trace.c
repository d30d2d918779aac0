/* SPDX-License-Identifier: Apache-2.0 */
/*
 * p11/trace.c - reading a recording of the call recorder (p11/trace.h).
 *
 * The file is mapped read-only and read in one pass, in the order the
 * calls entered the module: each thread's chunks hold its calls in order,
 * so the threads' streams are merged on their next entry time (a heap of
 * one cursor a thread).  A second heap holds the exit times of the calls
 * inside the module: before a call is counted in, every call that returned
 * before it entered is counted out, so the number inside at once is exact
 * at every entry, and memory grows with the threads and the concurrency,
 * not with the length of the recording.
 */
#include "p11/trace.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <p11-kit/pkcs11.h>
#include "bench/util/cli.h"
#include "p11/pkcs11_3x.h"

#define TRACE_MAX_GROUPS 4096

static const char *const fn_names[HSMBENCH_TRACE_FN_COUNT] = {
#define NAME(n) "C_" #n,
    HSMBENCH_TRACE_FUNCTIONS(NAME)
#undef NAME
};

const char *p11_trace_fn_name(unsigned fn)
{
    return fn < HSMBENCH_TRACE_FN_COUNT ? fn_names[fn] : "C_?";
}

/* What a call is to an operation. */
enum role { R_NONE, R_INIT, R_PART, R_QUERYABLE, R_SINGLE };

typedef struct fn_role {
    enum role role;
    unsigned  kind;     /* the operation's name: its one-shot function */
} fn_role;

static fn_role role_of(unsigned fn)
{
#define F(x) HSMBENCH_TRACE_FN_##x
    switch (fn) {
    case F(EncryptInit): return (fn_role){ R_INIT, F(Encrypt) };
    case F(EncryptUpdate): case F(DigestEncryptUpdate): case F(SignEncryptUpdate):
        return (fn_role){ R_PART, F(Encrypt) };
    case F(Encrypt): case F(EncryptFinal): return (fn_role){ R_QUERYABLE, F(Encrypt) };
    case F(DecryptInit): return (fn_role){ R_INIT, F(Decrypt) };
    case F(DecryptUpdate): case F(DecryptDigestUpdate): case F(DecryptVerifyUpdate):
        return (fn_role){ R_PART, F(Decrypt) };
    case F(Decrypt): case F(DecryptFinal): return (fn_role){ R_QUERYABLE, F(Decrypt) };
    case F(DigestInit): return (fn_role){ R_INIT, F(Digest) };
    case F(DigestUpdate): case F(DigestKey): return (fn_role){ R_PART, F(Digest) };
    case F(Digest): case F(DigestFinal): return (fn_role){ R_QUERYABLE, F(Digest) };
    case F(SignInit): return (fn_role){ R_INIT, F(Sign) };
    case F(SignUpdate): return (fn_role){ R_PART, F(Sign) };
    case F(Sign): case F(SignFinal): return (fn_role){ R_QUERYABLE, F(Sign) };
    case F(SignRecoverInit): return (fn_role){ R_INIT, F(SignRecover) };
    case F(SignRecover): return (fn_role){ R_QUERYABLE, F(SignRecover) };
    case F(VerifyInit): return (fn_role){ R_INIT, F(Verify) };
    case F(VerifyUpdate): return (fn_role){ R_PART, F(Verify) };
    case F(Verify): case F(VerifyFinal): return (fn_role){ R_QUERYABLE, F(Verify) };
    case F(VerifyRecoverInit): return (fn_role){ R_INIT, F(VerifyRecover) };
    case F(VerifyRecover): return (fn_role){ R_QUERYABLE, F(VerifyRecover) };
    case F(VerifySignatureInit): return (fn_role){ R_INIT, F(VerifySignature) };
    case F(VerifySignatureUpdate): return (fn_role){ R_PART, F(VerifySignature) };
    case F(VerifySignature): case F(VerifySignatureFinal):
        return (fn_role){ R_QUERYABLE, F(VerifySignature) };
    case F(EncryptMessage): case F(DecryptMessage): case F(SignMessage): case F(VerifyMessage):
    case F(WrapKey): case F(WrapKeyAuthenticated): case F(EncapsulateKey):
        return (fn_role){ R_QUERYABLE, fn };
    case F(GenerateKey): case F(GenerateKeyPair): case F(UnwrapKey): case F(DeriveKey):
    case F(GenerateRandom): case F(DecapsulateKey): case F(UnwrapKeyAuthenticated):
        return (fn_role){ R_SINGLE, fn };
    default:
        return (fn_role){ R_NONE, 0 };
    }
#undef F
}

static int data_call(unsigned fn);

unsigned p11_trace_fn_by_name(const char *name)
{
    for (unsigned fn = 0; fn < HSMBENCH_TRACE_FN_COUNT; fn++)
        if (strcmp(fn_names[fn], name) == 0)
            return fn;
    return HSMBENCH_TRACE_FN_COUNT;
}

p11_trace_role p11_trace_role_of(unsigned fn, unsigned *kind)
{
    const fn_role r = role_of(fn);
    *kind = r.kind;
    switch (r.role) {
    case R_INIT:      return P11_TRACE_INIT;
    case R_PART:      return P11_TRACE_PART;
    case R_QUERYABLE: return P11_TRACE_LAST;
    case R_SINGLE:    return P11_TRACE_SINGLE;
    case R_NONE:      break;
    }
    return P11_TRACE_NOT_OP;
}

int p11_trace_data_call(unsigned fn)
{
    return data_call(fn);
}

/* Does a one-call operation's in_len count data (a wrapped key, random bytes
 * asked for), rather than a template's attributes? */
static int data_call(unsigned fn)
{
    return fn == HSMBENCH_TRACE_FN_UnwrapKey || fn == HSMBENCH_TRACE_FN_GenerateRandom ||
           fn == HSMBENCH_TRACE_FN_DecapsulateKey || fn == HSMBENCH_TRACE_FN_UnwrapKeyAuthenticated ||
           fn == HSMBENCH_TRACE_FN_EncryptMessage || fn == HSMBENCH_TRACE_FN_DecryptMessage ||
           fn == HSMBENCH_TRACE_FN_SignMessage || fn == HSMBENCH_TRACE_FN_VerifyMessage;
}

/* Room for one more element in *p (n used of *cap, each size bytes),
 * doubling from `first`: 0, or -1 when out of memory (*p unchanged). */
static int grow(void *p, size_t n, size_t *cap, size_t size, size_t first)
{
    if (n < *cap)
        return 0;
    size_t c = *cap ? *cap * 2 : first;
    void *q = realloc(*(void **)p, c * size);
    if (!q)
        return -1;
    *(void **)p = q;
    *cap = c;
    return 0;
}

/* ---- small tables ---------------------------------------------------------------- */

static int add_code(p11_trace_code **codes, size_t *n, uint64_t rv)
{
    for (size_t i = 0; i < *n; i++)
        if ((*codes)[i].rv == rv) {
            (*codes)[i].count++;
            return 0;
        }
    p11_trace_code *c = realloc(*codes, (*n + 1) * sizeof **codes);
    if (!c)
        return -1;
    c[*n] = (p11_trace_code){ rv, 1 };
    *codes = c;
    (*n)++;
    return 0;
}

/* An operation under way in one session of one process; with kind
 * SESSION_SLOT, the slot the session was opened on (in start_ns). */
typedef struct op_state {
    uint64_t pid_session;        /* pid << 40 ^ session */
    unsigned kind;
    int      used, active;
    uint64_t start_ns, module_ns, data;
    uint64_t rv;                 /* a find's first failure (0: none) */
} op_state;
#define SESSION_SLOT HSMBENCH_TRACE_FN_OpenSession

typedef struct op_table {
    op_state *slot;
    size_t    cap, n;
} op_table;

static uint64_t op_hash(uint64_t key, unsigned kind)
{
    uint64_t h = (key ^ ((uint64_t)kind << 56)) * 0x9e3779b97f4a7c15ull;
    return h ^ (h >> 29);
}

/* The entry for key and kind, or NULL; never adds one (so never moves the
 * table under a pointer the caller holds). */
static const op_state *op_lookup(const op_table *t, uint64_t key, unsigned kind)
{
    if (t->cap == 0)
        return NULL;
    size_t j = op_hash(key, kind) & (t->cap - 1);
    while (t->slot[j].used) {
        if (t->slot[j].pid_session == key && t->slot[j].kind == kind)
            return &t->slot[j];
        j = (j + 1) & (t->cap - 1);
    }
    return NULL;
}

static op_state *op_find(op_table *t, uint64_t key, unsigned kind)
{
    if (t->n * 2 >= t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 256;
        op_state *s = calloc(cap, sizeof *s);
        if (!s)
            return NULL;
        for (size_t i = 0; i < t->cap; i++) {
            if (!t->slot[i].used)
                continue;
            size_t j = op_hash(t->slot[i].pid_session, t->slot[i].kind) & (cap - 1);
            while (s[j].used)
                j = (j + 1) & (cap - 1);
            s[j] = t->slot[i];
        }
        free(t->slot);
        t->slot = s;
        t->cap = cap;
    }
    size_t j = op_hash(key, kind) & (t->cap - 1);
    while (t->slot[j].used && !(t->slot[j].pid_session == key && t->slot[j].kind == kind))
        j = (j + 1) & (t->cap - 1);
    if (!t->slot[j].used) {
        t->slot[j] = (op_state){ key, kind, 1, 0, 0, 0, 0, 0 };
        t->n++;
    }
    return &t->slot[j];
}

/* ---- groups ------------------------------------------------------------------------ */

static p11_trace_group *group_of(p11_trace *t, unsigned kind, const hsmbench_trace_record *r,
                                 uint64_t data)
{
    uint64_t kt = (r->flags & HSMBENCH_TRACE_F_KEY) ? r->key_type : HSMBENCH_TRACE_NONE;
    uint32_t bits = (r->flags & HSMBENCH_TRACE_F_KEY) ? r->key_bits : 0;
    if (t->ngroups >= TRACE_MAX_GROUPS)
        data = UINT64_MAX;            /* too many sizes: the rest as "mixed" */
    for (size_t i = 0; i < t->ngroups; i++) {
        p11_trace_group *g = &t->groups[i];
        if (g->kind == kind && g->mechanism == r->mechanism && g->key_type == kt &&
            g->key_bits == bits && g->data == data)
            return g;
    }
    if (t->ngroups > TRACE_MAX_GROUPS)
        return NULL;
    p11_trace_group *gs = realloc(t->groups, (t->ngroups + 1) * sizeof *gs);
    if (!gs)
        return NULL;
    t->groups = gs;
    p11_trace_group *g = &gs[t->ngroups];
    memset(g, 0, sizeof *g);
    g->kind = kind;
    g->mechanism = r->mechanism;
    g->key_type = kt;
    g->key_bits = bits;
    g->data = data;
    g->time = bench_hist_new();
    g->failed = bench_hist_new();
    g->span = bench_hist_new();
    t->ngroups++;   /* counted before the check, so that p11_trace_free releases it */
    if (!g->time || !g->failed || !g->span)
        return NULL;
    return g;
}

static int group_thread(p11_trace_group *g, uint64_t who)
{
    for (size_t i = 0; i < g->nthread_seen; i++)
        if (g->thread_seen[i] == who)
            return 0;
    if (grow(&g->thread_seen, g->nthread_seen, &g->cap_thread_seen, sizeof *g->thread_seen, 8) != 0)
        return -1;
    g->thread_seen[g->nthread_seen++] = who;
    g->threads = (unsigned)g->nthread_seen;
    return 0;
}

/* The per-second samples: a second's p50 and p99 from its own histogram,
 * kept per group while the second is the group's latest. */
typedef struct second_acc {
    bench_hist *hist;
    size_t      at;          /* the second it holds; SIZE_MAX: none */
} second_acc;

static void second_close(p11_trace_group *g, second_acc *a)
{
    if (a->at == SIZE_MAX || a->at >= g->nseconds)
        return;
    g->seconds[a->at].p50_ns = bench_hist_percentile(a->hist, 50);
    g->seconds[a->at].p99_ns = bench_hist_percentile(a->hist, 99);
    bench_hist_reset(a->hist);
    a->at = SIZE_MAX;
}

/* Per-second figures kept at the most, over every group: 4 million (96 MiB),
 * a day and a half of 30 kinds of operation.  A recording past it (or a
 * damaged one whose times jump by years) is refused, not read into all of
 * the machine's memory. */
#define TRACE_SECONDS_BUDGET (4u << 20)

static p11_trace_sample *second_of(p11_trace_group *g, second_acc *a, size_t sec, size_t *budget,
                                   int *too_long)
{
    if (g->nseconds == 0)
        g->first_second = sec;
    sec = sec < g->first_second ? 0 : sec - g->first_second;   /* a damaged file's time going back */
    if (sec >= g->nseconds) {
        size_t more = sec + 1 - g->nseconds;
        if (more > *budget) {
            *too_long = 1;
            return NULL;
        }
        p11_trace_sample *s = realloc(g->seconds, (sec + 1) * sizeof *s);
        if (!s)
            return NULL;
        memset(s + g->nseconds, 0, more * sizeof *s);
        g->seconds = s;
        g->nseconds = sec + 1;
        *budget -= more;
    }
    if (a->at != sec) {
        second_close(g, a);
        a->at = sec;
    }
    return &g->seconds[sec];
}

/* ---- the merge ----------------------------------------------------------------------- */

typedef struct stream {
    uint32_t pid, thread;
    const uint32_t *chunks;       /* its chunks' indexes, in order */
    size_t   nchunks, ci, ri;
    const hsmbench_trace_record *cur;
} stream;

typedef struct chunk_ref {
    uint32_t pid, thread, index;
} chunk_ref;

static int chunk_cmp(const void *a, const void *b)
{
    const chunk_ref *x = a, *y = b;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    if (x->thread != y->thread)
        return x->thread < y->thread ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

#define RECS_PER_CHUNK \
    ((HSMBENCH_TRACE_CHUNK_SIZE - sizeof(hsmbench_trace_chunk)) / sizeof(hsmbench_trace_record))

static const hsmbench_trace_record *stream_next(stream *s, const unsigned char *base)
{
    while (s->ci < s->nchunks) {
        const unsigned char *c = base + HSMBENCH_TRACE_HEADER_SIZE +
                                 (size_t)s->chunks[s->ci] * HSMBENCH_TRACE_CHUNK_SIZE;
        const hsmbench_trace_record *recs =
            (const hsmbench_trace_record *)(c + sizeof(hsmbench_trace_chunk));
        if (s->ri < RECS_PER_CHUNK && recs[s->ri].t_enter != 0)
            return &recs[s->ri++];
        s->ci++;     /* an unused slot ends a chunk's records */
        s->ri = 0;
    }
    return NULL;
}

typedef struct exit_ev {
    uint64_t t;
    int32_t  group;     /* -1: not an operation's call */
    uint16_t fn;
} exit_ev;

typedef struct heaps {
    stream **s;          /* by the entry time of each stream's current record */
    size_t   ns;
    exit_ev *e;          /* by exit time */
    size_t   ne, cape;
} heaps;

static void s_down(heaps *h, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        if (l < h->ns && h->s[l]->cur->t_enter < h->s[m]->cur->t_enter)
            m = l;
        if (l + 1 < h->ns && h->s[l + 1]->cur->t_enter < h->s[m]->cur->t_enter)
            m = l + 1;
        if (m == i)
            return;
        stream *x = h->s[i];
        h->s[i] = h->s[m];
        h->s[m] = x;
        i = m;
    }
}

static int e_push(heaps *h, exit_ev ev)
{
    if (grow(&h->e, h->ne, &h->cape, sizeof *h->e, 64) != 0)
        return -1;
    size_t i = h->ne++;
    while (i > 0 && h->e[(i - 1) / 2].t > ev.t) {
        h->e[i] = h->e[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h->e[i] = ev;
    return 0;
}

static exit_ev e_pop(heaps *h)
{
    exit_ev top = h->e[0], last = h->e[--h->ne];
    size_t i = 0;
    for (;;) {
        size_t l = 2 * i + 1, m = l;
        if (l >= h->ne)
            break;
        if (l + 1 < h->ne && h->e[l + 1].t < h->e[l].t)
            m = l + 1;
        if (h->e[m].t >= last.t)
            break;
        h->e[i] = h->e[m];
        i = m;
    }
    if (h->ne)
        h->e[i] = last;
    return top;
}

/* ---- one call --------------------------------------------------------------------------- */

typedef struct reader {
    p11_trace *t;
    op_table   ops;
    heaps      h;
    second_acc *acc;            /* one per group */
    size_t     nacc;
    unsigned   inside, fn_inside[HSMBENCH_TRACE_FN_COUNT];
    size_t     seconds_budget;  /* per-second figures that may still be kept */
    int        too_long;        /* the budget ran out */
    p11_trace_event_fn ev_fn;   /* p11_trace_read_ex's listener, or NULL */
    void      *ev_ctx;
} reader;

/* Tell the listener of an operation that ended (op 1) or a call part of
 * none (op 0): r is its last call. */
static int tell(reader *rd, int op, unsigned fn, uint64_t who, const hsmbench_trace_record *r,
                uint64_t session, uint64_t start_ns, uint64_t data, uint64_t rv)
{
    if (!rd->ev_fn)
        return 0;
    const int key = (r->flags & HSMBENCH_TRACE_F_KEY) != 0;
    p11_trace_event ev = {
        .op = op, .fn = fn, .pid = (uint32_t)(who >> 32), .thread = (uint32_t)who,
        .session = session, .mechanism = r->mechanism,
        .key_type = key ? r->key_type : HSMBENCH_TRACE_NONE, .key_bits = key ? r->key_bits : 0,
        .in_len = data, .out_len = (r->flags & HSMBENCH_TRACE_F_OUT) ? r->out_len : UINT64_MAX,
        .start_ns = start_ns, .end_ns = r->t_exit, .rv = rv,
    };
    return rd->ev_fn(rd->ev_ctx, &ev);
}

/* An operation ended: r its last call, rv how. */
static int slot_count(p11_trace_group *g, uint64_t slot, int ok)
{
    size_t i = 0;
    while (i < g->nslots && g->slots[i].slot != slot)
        i++;
    if (i == g->nslots) {
        p11_trace_slot *s = realloc(g->slots, (g->nslots + 1) * sizeof *s);
        if (!s)
            return -1;
        g->slots = s;
        g->slots[g->nslots++] = (p11_trace_slot){ slot, 0, 0 };
    }
    if (ok)
        g->slots[i].ops++;
    else
        g->slots[i].errors++;
    return 0;
}

static int op_end(reader *rd, p11_trace_group *g, const hsmbench_trace_record *r, uint64_t who,
                  uint64_t start_ns, uint64_t module_ns, uint64_t data)
{
    p11_trace *t = rd->t;
    if (tell(rd, 1, g->kind, who, r, r->session, start_ns, data, r->rv) != 0)
        return -1;
    const op_state *opened = op_lookup(&rd->ops, (who >> 32) << 40 ^ r->session, SESSION_SLOT);
    if (slot_count(g, opened && opened->active ? opened->start_ns : HSMBENCH_TRACE_NONE,
                   r->rv == CKR_OK) != 0)
        return -1;
    if (rd->nacc < t->ngroups) {
        second_acc *a = realloc(rd->acc, t->ngroups * sizeof *a);
        if (!a)
            return -1;
        for (size_t i = rd->nacc; i < t->ngroups; i++)
            a[i] = (second_acc){ bench_hist_new(), SIZE_MAX };
        rd->acc = a;
        rd->nacc = t->ngroups;
        for (size_t i = 0; i < t->ngroups; i++)
            if (!a[i].hist)
                return -1;
    }
    second_acc *acc = &rd->acc[g - t->groups];
    p11_trace_sample *s = second_of(g, acc, (size_t)((r->t_enter - t->start_ns) / 1000000000ull),
                                    &rd->seconds_budget, &rd->too_long);
    if (!s || group_thread(g, who) != 0)
        return -1;
    if (g->ops + g->errors == 0 || start_ns < g->first_ns)
        g->first_ns = start_ns;
    if (r->t_exit > g->last_ns)
        g->last_ns = r->t_exit;
    if (r->rv == CKR_OK) {
        g->ops++;
        s->ops++;
        bench_hist_record(g->time, module_ns);
        bench_hist_record(g->span, r->t_exit - start_ns);
        bench_hist_record(acc->hist, module_ns);
    } else {
        g->errors++;
        s->errors++;
        bench_hist_record(g->failed, module_ns);
        if (add_code(&g->codes, &g->ncodes, r->rv) != 0)
            return -1;
    }
    return 0;
}

/* For the listener only: a session's C_FindObjectsInit .. C_FindObjectsFinal
 * as one operation (its first failure, if any, is how it ended), and each
 * call that is part of no operation. */
static int find_or_call(reader *rd, const stream *st, const hsmbench_trace_record *r, uint64_t who)
{
    const unsigned fn = r->function;
    const int find = fn == HSMBENCH_TRACE_FN_FindObjectsInit || fn == HSMBENCH_TRACE_FN_FindObjects ||
                     fn == HSMBENCH_TRACE_FN_FindObjectsFinal;
    if (!find) {
        if (role_of(fn).role != R_NONE)
            return 0;
        return tell(rd, 0, fn, who, r, fn == HSMBENCH_TRACE_FN_OpenSession ? r->object : r->session,
                    r->t_enter, 0, r->rv);
    }
    op_state *o = op_find(&rd->ops, (uint64_t)st->pid << 40 ^ r->session, HSMBENCH_TRACE_FN_FindObjects);
    if (!o)
        return -1;
    if (fn == HSMBENCH_TRACE_FN_FindObjectsInit) {
        o->active = r->rv == CKR_OK;
        o->start_ns = r->t_enter;
        o->rv = 0;
        if (r->rv != CKR_OK)
            return tell(rd, 1, HSMBENCH_TRACE_FN_FindObjects, who, r, r->session, r->t_enter, 0, r->rv);
        return 0;
    }
    if (!o->active)
        return tell(rd, 0, fn, who, r, r->session, r->t_enter, 0, r->rv);
    if (r->rv != CKR_OK && o->rv == 0)
        o->rv = r->rv;
    if (fn != HSMBENCH_TRACE_FN_FindObjectsFinal)
        return 0;
    o->active = 0;
    return tell(rd, 1, HSMBENCH_TRACE_FN_FindObjects, who, r, r->session, o->start_ns, 0,
                o->rv ? o->rv : r->rv);
}

static int one_call(reader *rd, const stream *st, const hsmbench_trace_record *r)
{
    p11_trace *t = rd->t;
    const uint64_t who = (uint64_t)st->pid << 32 | st->thread;
    if (r->function >= HSMBENCH_TRACE_FN_COUNT)
        return 1;    /* not a function this reader knows: a newer recorder's, or damage */
    while (rd->h.ne && rd->h.e[0].t <= r->t_enter) {
        exit_ev ev = e_pop(&rd->h);
        rd->inside--;
        rd->fn_inside[ev.fn]--;
        if (ev.group >= 0)
            t->groups[ev.group].inside--;
    }
    p11_trace_fn *f = &t->fn[r->function];
    if (!f->time && !(f->time = bench_hist_new()))     /* a function's first call */
        return -1;
    const int finished = r->t_exit != 0 && r->t_exit >= r->t_enter;
    const uint64_t dur = finished ? r->t_exit - r->t_enter : 0;
    const int query = (r->flags & HSMBENCH_TRACE_F_SIZE_QUERY) || r->rv == CKR_BUFFER_TOO_SMALL;
    t->calls++;
    f->calls++;
    if (t->start_ns == 0 || r->t_enter < t->start_ns)
        t->start_ns = r->t_enter;
    if (finished && r->t_exit > t->end_ns)
        t->end_ns = r->t_exit;
    if (!finished) {
        t->unfinished++;
        f->unfinished++;
    } else {
        bench_hist_record(f->time, dur);
        if (r->flags & HSMBENCH_TRACE_F_SIZE_QUERY)
            f->size_queries++;
        if (r->rv != CKR_OK && r->rv != CKR_BUFFER_TOO_SMALL) {
            f->errors++;
            if (add_code(&t->codes, &t->ncodes, r->rv) != 0)
                return -1;
        }
        if (r->function == HSMBENCH_TRACE_FN_OpenSession && r->rv == CKR_OK) {
            t->sessions++;
            op_state *o = op_find(&rd->ops, (uint64_t)st->pid << 40 ^ r->object, SESSION_SLOT);
            if (!o)
                return -1;
            o->active = 1;
            o->start_ns = r->session;      /* the slot */
        }
    }

    if (rd->ev_fn && finished && find_or_call(rd, st, r, who) != 0)
        return -1;

    /* the operation it belongs to */
    const fn_role ro = role_of(r->function);
    p11_trace_group *g = NULL;
    if (ro.role != R_NONE) {
        op_state *o = NULL;
        if (ro.role != R_SINGLE) {
            o = op_find(&rd->ops, (uint64_t)st->pid << 40 ^ r->session, ro.kind);
            if (!o)
                return -1;
        }
        if (ro.role == R_INIT) {
            o->active = finished && r->rv == CKR_OK;
            o->start_ns = r->t_enter;
            o->module_ns = dur;
            o->data = 0;
            if (finished && r->rv != CKR_OK) {
                g = group_of(t, ro.kind, r, 0);
                if (!g || op_end(rd, g, r, who, r->t_enter, dur, 0) != 0)
                    return -1;
            }
            g = NULL;    /* an Init is not counted inside as the operation's call */
        } else if (!finished) {
            /* still inside (or abandoned there): it ends nothing */
            if (o && (ro.role == R_QUERYABLE || ro.role == R_PART))
                g = group_of(t, ro.kind, r, o->active ? o->data + r->in_len : r->in_len);
            else if (ro.role == R_SINGLE)
                g = group_of(t, ro.kind, r, data_call(r->function) ? r->in_len : 0);
        } else if (ro.role == R_PART) {
            if (!o->active) {
                o->active = 1;
                o->start_ns = r->t_enter;
                o->module_ns = o->data = 0;
            }
            o->module_ns += dur;
            o->data += r->in_len;
            if (r->rv != CKR_OK && r->rv != CKR_BUFFER_TOO_SMALL) {
                g = group_of(t, ro.kind, r, o->data);
                if (!g || op_end(rd, g, r, who, o->start_ns, o->module_ns, o->data) != 0)
                    return -1;
                o->active = 0;
            }
            g = NULL;
        } else if (ro.role == R_QUERYABLE && o != NULL) {
            /* one-shot or Final of an Init-based operation */
            if (!o->active) {
                o->start_ns = r->t_enter;
                o->module_ns = o->data = 0;
            }
            o->active = 1;
            o->module_ns += dur;
            if (!query) {
                g = group_of(t, ro.kind, r, o->data + r->in_len);
                if (!g || op_end(rd, g, r, who, o->start_ns, o->module_ns, o->data + r->in_len) != 0)
                    return -1;
                o->active = 0;
            }
        } else if (!query) {
            /* a call that is an operation of its own; in_len is data only for these */
            g = group_of(t, ro.kind, r, data_call(r->function) ? r->in_len : 0);
            if (!g || op_end(rd, g, r, who, r->t_enter, dur, data_call(r->function) ? r->in_len : 0) != 0)
                return -1;
        }
    }
    /* counted inside until it returns */
    exit_ev ev = { finished ? r->t_exit : UINT64_MAX, g ? (int32_t)(g - t->groups) : -1,
                   r->function };
    if (e_push(&rd->h, ev) != 0)
        return -1;
    rd->inside++;
    if (rd->inside > t->max_inside)
        t->max_inside = rd->inside;
    if (++rd->fn_inside[r->function] > f->max_inside)
        f->max_inside = rd->fn_inside[r->function];
    if (g) {
        g->inside++;
        if (g->inside > g->max_inside)
            g->max_inside = g->inside;
    }
    return 0;
}

/* ---- the file ------------------------------------------------------------------------- */

static int check_header(const hsmbench_trace_header *h, size_t size, const char *path, char *err,
                        size_t errlen)
{
    if (size < HSMBENCH_TRACE_HEADER_SIZE || memcmp(h->magic, HSMBENCH_TRACE_MAGIC, 8) != 0) {
        bench_seterr(err, errlen, "%s: not a recording of hsmbench's call recorder "
                     "(libhsmbench-trace.so)", path);
        return -1;
    }
    if (h->byte_order != HSMBENCH_TRACE_BYTE_ORDER) {
        bench_seterr(err, errlen, "%s: recorded on a machine of the other byte order", path);
        return -1;
    }
    if (h->version != HSMBENCH_TRACE_VERSION || h->header_size != HSMBENCH_TRACE_HEADER_SIZE ||
        h->chunk_size != HSMBENCH_TRACE_CHUNK_SIZE ||
        h->record_size != sizeof(hsmbench_trace_record) ||
        h->chunk_header_size != sizeof(hsmbench_trace_chunk)) {
        bench_seterr(err, errlen, "%s: a recording of format %u (this hsmbench reads %u) or with "
                     "sizes it does not know", path, h->version, HSMBENCH_TRACE_VERSION);
        return -1;
    }
    return 0;
}

int p11_trace_read(const char *path, p11_trace *t, char *err, size_t errlen)
{
    return p11_trace_read_ex(path, t, NULL, NULL, err, errlen);
}

int p11_trace_read_ex(const char *path, p11_trace *t, p11_trace_event_fn fn, void *ctx, char *err,
                      size_t errlen)
{
    int rc = -1;
    reader rd;
    memset(t, 0, sizeof *t);
    memset(&rd, 0, sizeof rd);
    rd.t = t;
    rd.ev_fn = fn;
    rd.ev_ctx = ctx;
    rd.seconds_budget = TRACE_SECONDS_BUDGET;
    chunk_ref *refs = NULL;
    uint32_t *order = NULL;
    stream *streams = NULL;
    void *map = MAP_FAILED;
    size_t size = 0;

    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        bench_seterr(err, errlen, "%s: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        goto cleanup;
    }
    if (!S_ISREG(st.st_mode)) {
        bench_seterr(err, errlen, "%s: not a regular file", path);
        close(fd);
        goto cleanup;
    }
    size = (size_t)st.st_size;
    if (size >= HSMBENCH_TRACE_HEADER_SIZE)
        map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (size < HSMBENCH_TRACE_HEADER_SIZE) {
        (void)check_header(NULL, size, path, err, errlen);
        goto cleanup;
    }
    if (map == MAP_FAILED) {
        bench_seterr(err, errlen, "%s: cannot map it: %s", path, strerror(errno));
        goto cleanup;
    }
    const unsigned char *base = map;
    const hsmbench_trace_header *h = map;
    if (check_header(h, size, path, err, errlen) != 0)
        goto cleanup;
    memcpy(t->module, h->module, sizeof t->module);
    t->module[sizeof t->module - 1] = '\0';
    t->pid = h->pid;
    t->real_start_ns = h->real_start_ns;
    t->mono_start_ns = h->mono_start_ns;

    /* the chunks, by process, thread and order of claim */
    size_t nchunks = (size - HSMBENCH_TRACE_HEADER_SIZE) / HSMBENCH_TRACE_CHUNK_SIZE, nref = 0;
    refs = malloc((nchunks ? nchunks : 1) * sizeof *refs);
    order = malloc((nchunks ? nchunks : 1) * sizeof *order);
    streams = calloc(nchunks ? nchunks : 1, sizeof *streams);
    rd.h.s = malloc((nchunks ? nchunks : 1) * sizeof *rd.h.s);
    if (!refs || !order || !streams || !rd.h.s) {
        bench_seterr(err, errlen, "%s: out of memory", path);
        goto cleanup;
    }
    for (size_t k = 0; k < nchunks; k++) {
        const hsmbench_trace_chunk *c =
            (const void *)(base + HSMBENCH_TRACE_HEADER_SIZE + k * HSMBENCH_TRACE_CHUNK_SIZE);
        if (c->magic == HSMBENCH_TRACE_CHUNK_MAGIC)
            refs[nref++] = (chunk_ref){ c->pid, c->thread, (uint32_t)k };
        else if (c->magic != 0) {
            bench_seterr(err, errlen, "%s: chunk %zu is damaged", path, k);
            goto cleanup;
        }
    }
    qsort(refs, nref, sizeof *refs, chunk_cmp);
    size_t nstreams = 0;
    uint32_t last_pid = 0;
    for (size_t k = 0; k < nref; k++) {
        order[k] = refs[k].index;
        if (k == 0 || refs[k].pid != refs[k - 1].pid || refs[k].thread != refs[k - 1].thread) {
            streams[nstreams++] = (stream){ refs[k].pid, refs[k].thread, &order[k], 0, 0, 0, NULL };
            if (k == 0 || refs[k].pid != last_pid)
                t->processes++;
            last_pid = refs[k].pid;
        }
        streams[nstreams - 1].nchunks++;
    }
    t->threads = (unsigned)nstreams;
    for (size_t i = 0; i < nstreams; i++) {
        streams[i].cur = stream_next(&streams[i], base);
        if (streams[i].cur)
            rd.h.s[rd.h.ns++] = &streams[i];
    }
    for (size_t i = rd.h.ns; i-- > 0;)
        s_down(&rd.h, i);
    while (rd.h.ns) {
        stream *s = rd.h.s[0];
        int r = one_call(&rd, s, s->cur);
        if (r < 0 && rd.too_long) {
            bench_seterr(err, errlen, "%s: its operations span more seconds than hsmbench keeps "
                         "per-second figures for (%u million over every kind of operation): a "
                         "recording of days, or a damaged one", path, TRACE_SECONDS_BUDGET >> 20);
            goto cleanup;
        }
        if (r < 0) {
            bench_seterr(err, errlen, "%s: out of memory", path);
            goto cleanup;
        }
        if (r > 0) {
            bench_seterr(err, errlen, "%s: a record names function %u, which this hsmbench does "
                         "not know (a newer recorder's file, or a damaged one)", path,
                         (unsigned)s->cur->function);
            goto cleanup;
        }
        s->cur = stream_next(s, base);
        if (!s->cur)
            rd.h.s[0] = rd.h.s[--rd.h.ns];
        s_down(&rd.h, 0);
    }
    for (size_t i = 0; i < t->ngroups && i < rd.nacc; i++)
        second_close(&t->groups[i], &rd.acc[i]);
    rc = 0;
cleanup:
    for (size_t i = 0; i < rd.nacc; i++)
        bench_hist_free(rd.acc[i].hist);
    free(rd.acc);
    free(rd.ops.slot);
    free(rd.h.s);
    free(rd.h.e);
    free(streams);
    free(order);
    free(refs);
    if (map != MAP_FAILED)
        (void)munmap(map, size);
    if (rc != 0)
        p11_trace_free(t);
    return rc;
}

void p11_trace_free(p11_trace *t)
{
    for (unsigned i = 0; i < HSMBENCH_TRACE_FN_COUNT; i++)
        bench_hist_free(t->fn[i].time);
    for (size_t i = 0; i < t->ngroups; i++) {
        p11_trace_group *g = &t->groups[i];
        bench_hist_free(g->time);
        bench_hist_free(g->failed);
        bench_hist_free(g->span);
        free(g->codes);
        free(g->slots);
        free(g->seconds);
        free(g->thread_seen);
    }
    free(t->groups);
    free(t->codes);
    memset(t, 0, sizeof *t);
}
