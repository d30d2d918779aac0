/* SPDX-License-Identifier: Apache-2.0 */
/*
 * p11/replay_seg.c - what the recording and pkcs11-spy readers share: which
 * catalogue test makes an operation (p11_replay_map), and how a session's
 * operations become transactions (the segmentation rule, p11/replay_int.h).
 *
 * Operations are kept whole (a few dozen bytes each, no data) until the
 * source is read, since a session's operations can only be cut once its
 * first operation's signature is known; then they are sorted by session
 * lifetime and entry time, cut, and their kinds, think times, arrivals and
 * concurrency computed in one pass each.
 */
#include "p11/replay_int.h"

#include <stdlib.h>
#include <string.h>

#include "bench/util/cli.h"
#include "p11/names.h"
#include "p11/pkcs11_3x.h"
#include "p11/trace.h"

/* ---- the mapping ------------------------------------------------------------------------ */

/* Does an operation ending in fn run the test's call? */
static int same_call(const p11_test_def *def, unsigned fn)
{
    if (def->op == P11_OP_FIND)
        return fn == HSMBENCH_TRACE_FN_FindObjects;
    if (def->op == P11_OP_RANDOM)
        return fn == HSMBENCH_TRACE_FN_GenerateRandom;
    return strcmp(p11_op_call(def), p11_trace_fn_name(fn)) == 0;
}

/* How long what the module was given is under hash h, for a test that
 * hashes in software first (0: it hashes in the token, any length). */
static uint64_t given_len(const p11_test_def *def, p11_hash h)
{
    size_t plen = 0;
    if (def->input == P11_IN_HASH)
        return p11_hash_len(h);
    if (def->input == P11_IN_DIGESTINFO && p11_digestinfo_prefix(h, &plen))
        return plen + p11_hash_len(h);
    return 0;
}

/* The test whose call and mechanism the operation's are, with the hash
 * that names the mechanism (or that the length given says, when the
 * mechanism leaves it open); *hash_open when the length said none. */
static const p11_test_def *find_test(const p11_replay_op *op, p11_hash *hash, int *hash_open)
{
    *hash_open = 0;
    for (size_t i = 0; i < p11_test_count(); i++) {
        const p11_test_def *def = p11_test_at(i);
        if (!same_call(def, op->fn))
            continue;
        if (def->op == P11_OP_FIND || def->op == P11_OP_RANDOM) {
            *hash = P11_HASH_NONE;
            return def;
        }
        int matched = 0;
        for (unsigned h = def->hashes ? 1 : 0; h < P11_HASH_COUNT; h++) {
            p11_test_params p;
            memset(&p, 0, sizeof p);
            p.hash = (p11_hash)h;
            if (h && !(def->hashes & P11_H(h)))
                continue;
            if ((uint64_t)p11_test_mech(def, &p) != op->mechanism)
                continue;
            matched++;
            const uint64_t len = given_len(def, (p11_hash)h);
            if (len == 0 || len == op->in_len) {
                *hash = (p11_hash)h;
                return def;
            }
        }
        if (matched) {
            /* the mechanism leaves the hash open and the length names none */
            *hash = P11_HASH_NONE;
            *hash_open = 1;
            return def;
        }
    }
    return NULL;
}

static const char *curve_of(uint32_t bits)
{
    return bits == 256 ? "P-256" : bits == 384 ? "P-384" : bits == 521 ? "P-521" : NULL;
}

static int size_taken(const p11_test_def *def, unsigned bits)
{
    for (const unsigned *s = def->key_sizes; s && *s; s++)
        if (*s == bits)
            return 1;
    return 0;
}

/* The key size the output's length implies (0: none): an RSA signature or
 * ciphertext is as long as the modulus, a raw ECDSA signature twice the
 * field. */
static unsigned bits_from_output(const p11_test_def *def, const p11_replay_op *op)
{
    uint64_t n = 0;
    if (def->key == KEYS_RSA) {
        if (def->op == P11_OP_SIGN || def->op == P11_OP_ENCRYPT)
            n = op->out_len;
        else if (def->op == P11_OP_DECRYPT || def->op == P11_OP_UNWRAP)
            n = op->in_len;
        return n && n != UINT64_MAX && n <= 1024 ? (unsigned)n * 8 : 0;
    }
    if (def->key == KEYS_EC && def->op == P11_OP_SIGN && op->out_len != UINT64_MAX) {
        n = op->out_len;
        return n == 64 ? 256 : n == 96 ? 384 : n == 132 ? 521 : 0;
    }
    return 0;
}

/* The plaintext's length of a decryption: what it gave back when known,
 * else what the mode makes of the ciphertext's length. */
static uint64_t plain_len(const p11_test_def *def, const p11_replay_op *op)
{
    if (op->out_len != UINT64_MAX)
        return op->out_len;
    if (def->param == P11_PARAM_GCM)
        return op->in_len > 16 ? op->in_len - 16 : 0;
    if (def->mech == CKM_AES_CBC_PAD)
        return op->in_len ? op->in_len - 1 : 0;     /* one byte of padding: the same length */
    return op->in_len;
}

int p11_replay_map(const p11_replay_op *op, const p11_test_def **defp, p11_test_params *params,
                   int *guessed)
{
    p11_hash hash = P11_HASH_NONE;
    int hash_open = 0;
    *guessed = 0;
    const p11_test_def *def = find_test(op, &hash, &hash_open);
    if (!def)
        return 0;
    p11_test_params in;
    memset(&in, 0, sizeof in);
    in.keys = P11_KEYS_GENERATE;
    in.hash = hash;
    if (hash_open)
        *guessed |= 2;

    /* the key */
    unsigned bits = def->op == P11_OP_FIND ? 0 : op->key_bits;
    if (bits == 0 && def->op != P11_OP_FIND && def->key != KEYS_NONE && def->key != KEYS_ED25519) {
        bits = bits_from_output(def, op);
        *guessed |= 1;
    }
    if (def->key == KEYS_EC) {
        in.curve = curve_of(bits);
        if (bits && !in.curve && !(*guessed & 1))
            return 0;                  /* a curve the catalogue has no test of */
    } else if (def->key_sizes && bits) {
        if (!size_taken(def, bits)) {
            if (!(*guessed & 1))
                return 0;
            bits = 0;                  /* implied by a length that fits no size: the default */
        }
        in.key_bits = bits;
    }

    /* the data */
    if (def->data_max) {
        uint64_t n = def->op == P11_OP_DECRYPT ? plain_len(def, op) : op->in_len;
        if (def->input == P11_IN_HASH || def->input == P11_IN_DIGESTINFO) {
            /* the module is given a digest: the data hashed before is not known */
            if (n < def->data_min || n > def->data_max)
                n = 0;
        }
        if (n && (n < def->data_min || n > def->data_max ||
                  (def->data_multiple && n % def->data_multiple)))
            return 0;
        in.data_size = n;
    }
    char why[512];
    if (p11_test_resolve_why(def, &in, params, why, sizeof why) != 0)
        return 0;
    *defp = def;
    return 1;
}

/* ---- collecting -------------------------------------------------------------------------- */

typedef struct sig {
    const p11_test_def *def;
    p11_test_params     params;
} sig;

typedef struct item {
    uint64_t life;          /* the session lifetime it belongs to */
    uint64_t start_ns, end_ns;
    uint32_t sig;           /* index in sigs */
    uint32_t thread;        /* the source's thread, renumbered later */
    uint32_t pid;
} item;

/* A session lifetime: process, handle, and how many times that handle was
 * opened before in that process. */
typedef struct life {
    uint32_t pid;
    uint64_t session;
    uint64_t opened;        /* the generation */
} life;

struct p11_replay_seg {
    item  *items;
    size_t nitems, cap_items;
    sig   *sigs;
    size_t nsigs, cap_sigs;
    life  *lives;           /* the current generation of each (pid, session) seen */
    size_t nlives, cap_lives;
    size_t last_life;       /* the index life_of found last */
    int   guessed_key, guessed_hash, no_thread;
    p11_replay_model skip;  /* only its skipped[] is used, until finish */
};

static int grow(void *p, size_t n, size_t *cap, size_t size)
{
    if (n < *cap)
        return 0;
    size_t c = *cap ? *cap * 2 : 64;
    void *q = realloc(*(void **)p, c * size);
    if (!q)
        return -1;
    *(void **)p = q;
    *cap = c;
    return 0;
}

p11_replay_seg *p11_replay_seg_new(void)
{
    return calloc(1, sizeof(p11_replay_seg));
}

void p11_replay_seg_free(p11_replay_seg *s)
{
    if (!s)
        return;
    free(s->items);
    free(s->sigs);
    free(s->lives);
    free(s);
}

/* The lifetime of (pid, session): its index, and the generation (bumped by
 * a C_OpenSession that made it). */
static int64_t life_of(p11_replay_seg *s, uint32_t pid, uint64_t session, int opened)
{
    size_t i = s->last_life;     /* most operations are in the session of the one before */
    if (!(i < s->nlives && s->lives[i].pid == pid && s->lives[i].session == session))
        for (i = 0; i < s->nlives && !(s->lives[i].pid == pid && s->lives[i].session == session);)
            i++;
    s->last_life = i;
    if (i == s->nlives) {
        if (grow(&s->lives, s->nlives, &s->cap_lives, sizeof *s->lives) != 0)
            return -1;
        s->lives[s->nlives++] = (life){ pid, session, 0 };
    } else if (opened) {
        s->lives[i].opened++;
    }
    return (int64_t)((uint64_t)i << 24 | (s->lives[i].opened & 0xffffff));
}

static int same_params(const p11_test_params *a, const p11_test_params *b)
{
    return a->key_bits == b->key_bits && a->data_size == b->data_size && a->hash == b->hash &&
           ((a->curve == NULL && b->curve == NULL) ||
            (a->curve && b->curve && strcmp(a->curve, b->curve) == 0));
}

static int64_t sig_of(p11_replay_seg *s, const p11_test_def *def, const p11_test_params *p)
{
    for (size_t i = 0; i < s->nsigs; i++)
        if (s->sigs[i].def == def && same_params(&s->sigs[i].params, p))
            return (int64_t)i;
    if (grow(&s->sigs, s->nsigs, &s->cap_sigs, sizeof *s->sigs) != 0)
        return -1;
    s->sigs[s->nsigs] = (sig){ def, *p };
    return (int64_t)s->nsigs++;
}

/* Why a call that is part of no operation is not replayed. */
static const char *call_why(unsigned fn)
{
#define F(x) HSMBENCH_TRACE_FN_##x
    switch (fn) {
    case F(Initialize): case F(Finalize): case F(GetFunctionList): case F(GetInterfaceList):
    case F(GetInterface): case F(OpenSession): case F(CloseSession): case F(CloseAllSessions):
    case F(Login): case F(LoginUser): case F(Logout): case F(DestroyObject): case F(InitToken):
    case F(InitPIN): case F(SetPIN):
        return "the run's own set-up";
    case F(CreateObject): case F(CopyObject): case F(SetAttributeValue): case F(SeedRandom):
    case F(DigestKey): case F(GetOperationState): case F(SetOperationState):
        return "no catalogue test makes it";
    default:
        return "needs no replay";
    }
#undef F
}

/* "C_Sign CKM_SHA3_256_RSA_PKCS" */
static void op_what(const p11_replay_op *op, char *buf, size_t len)
{
    char mech[64];
    if (op->mechanism == HSMBENCH_TRACE_NONE)
        snprintf(buf, len, "%s", p11_trace_fn_name(op->fn));
    else
        snprintf(buf, len, "%s %s", p11_trace_fn_name(op->fn),
                 p11_mech_name((CK_MECHANISM_TYPE)op->mechanism, mech, sizeof mech));
}

int p11_replay_seg_add(p11_replay_seg *s, const p11_replay_op *op)
{
    char what[80];
    if (!op->op) {
        if (op->fn == HSMBENCH_TRACE_FN_OpenSession && op->rv == CKR_OK &&
            life_of(s, op->pid, op->session, 1) < 0)
            return -1;
        p11_replay_not_replayed(&s->skip, p11_trace_fn_name(op->fn), call_why(op->fn), 1);
        return 0;
    }
    const p11_test_def *def = NULL;
    p11_test_params params;
    int guessed = 0;
    if (!p11_replay_map(op, &def, &params, &guessed)) {
        op_what(op, what, sizeof what);
        p11_replay_not_replayed(&s->skip, what, op->rv == CKR_OK ? "no catalogue test makes it"
                                                          : "failed in the recording", 1);
        return 0;
    }
    if (op->rv != CKR_OK) {
        p11_replay_not_replayed(&s->skip, def->name, "failed in the recording", 1);
        return 0;
    }
    const int64_t lf = life_of(s, op->pid, op->session, 0);
    const int64_t sg = lf < 0 ? -1 : sig_of(s, def, &params);
    if (sg < 0 || grow(&s->items, s->nitems, &s->cap_items, sizeof *s->items) != 0)
        return -1;
    s->guessed_key |= guessed & 1;
    s->guessed_hash |= (guessed & 2) != 0;
    if (op->thread == P11_REPLAY_NO_THREAD)
        s->no_thread = 1;
    s->items[s->nitems++] = (item){ (uint64_t)lf, op->start_ns,
                                    op->end_ns >= op->start_ns ? op->end_ns : op->start_ns,
                                    (uint32_t)sg, op->thread, op->pid };
    return 0;
}

/* ---- cutting ------------------------------------------------------------------------------ */

static int item_cmp(const void *a, const void *b)
{
    const item *x = a, *y = b;
    if (x->life != y->life)
        return x->life < y->life ? -1 : 1;
    if (x->start_ns != y->start_ns)
        return x->start_ns < y->start_ns ? -1 : 1;
    return x->end_ns < y->end_ns ? -1 : x->end_ns > y->end_ns;
}

static int u64_cmp(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* A transaction: items [first, first + n) of the sorted list. */
typedef struct txn {
    size_t   first;
    unsigned n;
    uint32_t kind;
} txn;

/* Cut every lifetime at its first signature's occurrences (per_op: every
 * operation alone); *longest the most steps of one. */
static int cut(const p11_replay_seg *s, int per_op, txn **out, size_t *nout, unsigned *longest)
{
    txn *t = malloc((s->nitems ? s->nitems : 1) * sizeof *t);
    if (!t)
        return -1;
    size_t n = 0;
    *longest = 0;
    for (size_t i = 0; i < s->nitems; i++) {
        const int fresh = i == 0 || s->items[i].life != s->items[i - 1].life;
        if (per_op || fresh || s->items[i].sig == s->items[t[n - 1].first].sig) {
            t[n++] = (txn){ i, 0, 0 };
        }
        if (++t[n - 1].n > *longest)
            *longest = t[n - 1].n;
    }
    *out = t;
    *nout = n;
    return 0;
}

static int same_steps(const p11_replay_seg *s, const txn *a, const txn *b)
{
    if (a->n != b->n)
        return 0;
    for (unsigned k = 0; k < a->n; k++)
        if (s->items[a->first + k].sig != s->items[b->first + k].sig)
            return 0;
    return 1;
}

/* Give each transaction its kind (index of the first of its steps' list):
 * how many kinds, or -1 past P11_REPLAY_MAX_KINDS (kinds then unset). */
static int kinds_of(const p11_replay_seg *s, txn *t, size_t n, size_t *firsts)
{
    size_t nk = 0;
    for (size_t i = 0; i < n; i++) {
        size_t k = 0;
        while (k < nk && !same_steps(s, &t[firsts[k]], &t[i]))
            k++;
        if (k == nk) {
            if (nk == P11_REPLAY_MAX_KINDS)
                return -1;
            firsts[nk++] = i;
        }
        t[i].kind = (uint32_t)k;
    }
    return (int)nk;
}

static void kind_name(const p11_replay_model *m, p11_replay_kind *k)
{
    size_t at = 0;
    k->name[0] = '\0';
    for (unsigned i = 0; i < k->nsteps && at + 1 < sizeof k->name; i++)
        at += (size_t)snprintf(k->name + at, sizeof k->name - at, "%s%s", i ? "+" : "",
                               k->steps[i].def->name);
    /* two kinds of the same tests with other sizes: "ecdsa-sign#2" */
    char base[sizeof k->name];
    memcpy(base, k->name, sizeof base);
    for (unsigned dup = 2;; dup++) {
        unsigned j = 0;
        while (j < m->nkinds && (&m->kinds[j] == k || strcmp(m->kinds[j].name, k->name) != 0))
            j++;
        if (j == m->nkinds)
            return;
        char suffix[16];
        int sl = snprintf(suffix, sizeof suffix, "#%u", dup);
        size_t keep = strlen(base);
        if (keep + (size_t)sl >= sizeof k->name)
            keep = sizeof k->name - 1 - (size_t)sl;
        snprintf(k->name, sizeof k->name, "%.*s%s", (int)keep, base, suffix);
    }
}

typedef struct edge {
    uint64_t t;
    int      d;             /* +1 an arrival, -1 an end */
} edge;

static int edge_cmp(const void *a, const void *b)
{
    const edge *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return x->d - y->d;     /* an end before an arrival at the same time */
}

/* Thread numbers 0..n-1 in order of first use: (pid, thread), or the
 * lifetime when the source names no thread. */
typedef struct who {
    uint64_t a, b;
} who;

static int64_t thread_no(who **ws, size_t *n, size_t *cap, uint64_t a, uint64_t b)
{
    for (size_t i = 0; i < *n; i++)
        if ((*ws)[i].a == a && (*ws)[i].b == b)
            return (int64_t)i;
    if (grow(ws, *n, cap, sizeof **ws) != 0)
        return -1;
    (*ws)[*n] = (who){ a, b };
    return (int64_t)(*n)++;
}

int p11_replay_seg_finish(p11_replay_seg *s, p11_replay_model *m, const char *path, char *err,
                          size_t errlen)
{
    int rc = -1;
    txn *t = NULL;
    size_t nt = 0, firsts[P11_REPLAY_MAX_KINDS];
    uint64_t *gaps = NULL;
    edge *edges = NULL;
    who *ws = NULL;
    size_t nws = 0, capws = 0;
    unsigned longest = 0;

    /* what is not replayed, as added */
    for (unsigned i = 0; i < s->skip.nskipped; i++)
        p11_replay_not_replayed(m, s->skip.skipped[i].what, s->skip.skipped[i].why, s->skip.skipped[i].count);
    if (s->nitems == 0) {
        bench_seterr(err, errlen, "%s: no operation a catalogue test makes succeeded in it: "
                     "nothing to replay", path);
        goto cleanup;
    }
    qsort(s->items, s->nitems, sizeof *s->items, item_cmp);
    if (cut(s, 0, &t, &nt, &longest) != 0)
        goto oom;
    int nk = longest > P11_REPLAY_MAX_STEPS ? -1 : kinds_of(s, t, nt, firsts);
    if (nk < 0) {
        free(t);
        t = NULL;
        p11_replay_limit(m, "the sessions' patterns give transactions longer than 16 steps or "
                            "more than 32 kinds: every operation is replayed as a transaction "
                            "of its own");
        if (cut(s, 1, &t, &nt, &longest) != 0)
            goto oom;
        nk = kinds_of(s, t, nt, firsts);
        if (nk < 0) {
            bench_seterr(err, errlen, "%s: more than %d kinds of operation (test, key and data "
                         "size): more than a model holds", path, P11_REPLAY_MAX_KINDS);
            goto cleanup;
        }
    }
    if (s->guessed_key)
        p11_replay_limit(m, "some keys' sizes are in no attribute the source gives: from the "
                            "signature's or ciphertext's length, else the test's default");
    if (s->guessed_hash)
        p11_replay_limit(m, "some inputs to sign are of no digest's length: signed with the "
                            "test's default hash");
    if (s->no_thread)
        p11_replay_limit(m, "the source names no threads: each session is taken for a thread "
                            "of its own");

    /* the kinds, their steps and median think times */
    m->nkinds = (unsigned)nk;
    gaps = malloc(nt * sizeof *gaps);
    if (!gaps)
        goto oom;
    for (int k = 0; k < nk; k++) {
        p11_replay_kind *kd = &m->kinds[k];
        const txn *f = &t[firsts[k]];
        memset(kd, 0, sizeof *kd);
        kd->nsteps = f->n;
        for (unsigned st = 0; st < f->n; st++) {
            const sig *sg = &s->sigs[s->items[f->first + st].sig];
            kd->steps[st].def = sg->def;
            kd->steps[st].params = sg->params;
            if (st == 0)
                continue;
            size_t ng = 0;
            for (size_t i = 0; i < nt; i++) {
                if (t[i].kind != (uint32_t)k)
                    continue;
                const item *prev = &s->items[t[i].first + st - 1], *cur = &s->items[t[i].first + st];
                gaps[ng++] = cur->start_ns > prev->end_ns ? cur->start_ns - prev->end_ns : 0;
            }
            qsort(gaps, ng, sizeof *gaps, u64_cmp);
            kd->steps[st].think_ns = ng ? gaps[(ng - 1) / 2] : 0;
        }
    }
    for (int k = 0; k < nk; k++)
        kind_name(m, &m->kinds[k]);

    /* arrivals, threads, concurrency */
    edges = malloc(2 * nt * sizeof *edges);
    if (!edges)
        goto oom;
    for (size_t i = 0; i < nt; i++) {
        const item *a = &s->items[t[i].first];
        uint64_t end = a->end_ns;
        for (unsigned st = 1; st < t[i].n; st++)
            if (s->items[t[i].first + st].end_ns > end)
                end = s->items[t[i].first + st].end_ns;
        const int64_t th = a->thread == P11_REPLAY_NO_THREAD
                               ? thread_no(&ws, &nws, &capws, UINT64_MAX, a->life)
                               : thread_no(&ws, &nws, &capws, a->pid, a->thread);
        if (th < 0)
            goto oom;
        if (p11_replay_add_arrival(m, a->start_ns, t[i].kind, (uint32_t)th, err, errlen) != 0)
            goto cleanup;
        edges[2 * i] = (edge){ a->start_ns, 1 };
        edges[2 * i + 1] = (edge){ end, -1 };
    }
    qsort(edges, 2 * nt, sizeof *edges, edge_cmp);
    m->span_ns = edges[2 * nt - 1].t;     /* the last end (p11_replay_finish moves time 0) */
    int under = 0, most = 0;
    for (size_t i = 0; i < 2 * nt; i++) {
        under += edges[i].d;
        if (under > most)
            most = under;
    }
    m->threads = (unsigned)nws;
    m->concurrency = (unsigned)most;
    rc = p11_replay_finish(m, err, errlen);
    goto cleanup;
oom:
    bench_seterr(err, errlen, "%s: out of memory", path);
cleanup:
    free(t);
    free(gaps);
    free(edges);
    free(ws);
    return rc;
}
