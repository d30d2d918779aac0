/* SPDX-License-Identifier: Apache-2.0 */
/*
 * p11/replay_spy.c - the replay model of a log of OpenSC's pkcs11-spy, in
 * its text format as it is:
 *
 *   *************** OpenSC PKCS#11 spy *****************    a process loaded it
 *   12: C_SignInit                                         a call, numbered
 *   P:4242; T:0x139862 2026-12-06 19:20:52.727             its entry (OpenSC >= 0.24;
 *   2026-12-06 19:20:52.727                                 before: no process, thread)
 *   [in] hSession = 0x1                                    arguments given
 *   [in] pMechanism->type = CKM_ECDSA
 *   [in] pData[ulDataLen] 00007fff031ef400 / 32            a buffer: address / length,
 *       00000000  4D 41 52 ...                             then its bytes, dumped
 *   [out] pSignature[*pulSignatureLen] 00007f.. / 64       arguments given back (NULL
 *                                                          [size : ...]: a length query)
 *   Returned:  0 CKR_OK                                    its return
 *
 * Only the call's name, its time, the session, the mechanism, key handles,
 * the lengths of buffers and the few public attributes that give a key's
 * size (CKA_MODULUS_BITS, CKA_MODULUS's length, CKA_VALUE_LEN,
 * CKA_EC_PARAMS) are read.  A PIN, data, a signature, a label: their lines
 * are read past, a fixed buffer at a time, and never copied anywhere; an
 * error names the line by number, never by its text.  Operations are
 * rebuilt by the recorder's reader's rule (p11_trace_role_of), then cut into
 * transactions by replay_seg.c.
 *
 * What the log cannot give (said in the model's limits): return times
 * (a call's end is taken at its entry, so a think time holds the previous
 * step's time in the module), times finer than a millisecond, threads
 * before OpenSC 0.24, and a key's size when no attribute in the log says
 * it.  When threads' calls interleave, spy writes each call's lines a piece
 * at a time, and another thread's pieces come between them, even inside a
 * line; some lines are missing altogether.  Lines are then given to the
 * call they fit (owner_of, returning), and an operation some of whose lines
 * cannot be told from another call's is listed as not replayed rather than
 * rebuilt with another call's data or session.
 */
#include "p11/replay_int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "bench/util/cli.h"
#include "p11/names.h"
#include "p11/pkcs11_3x.h"
#include "p11/trace.h"

#define SPY_BANNER "*************** OpenSC PKCS#11 spy *****************"
#define SPY_LINE 512          /* read a line this much at a time */
#define SPY_OPEN_MAX 256      /* calls entered and not yet returned, at most */
#define NO_VALUE UINT64_MAX

/* ---- recognising it ---------------------------------------------------------------------- */

/* "12: C_SignInit": the number's end, the name in name (cut to len). */
static int call_line(const char *l, char *name, size_t len)
{
    const char *p = l;
    if (!isdigit((unsigned char)*p))
        return 0;
    while (isdigit((unsigned char)*p))
        p++;
    if (p - l > 12 || p[0] != ':' || p[1] != ' ' || p[2] != 'C' || p[3] != '_')
        return 0;
    p += 2;
    size_t n = 0;
    while (isalnum((unsigned char)p[n]) || p[n] == '_')
        n++;
    if (n < 3 || n >= len)
        return 0;
    for (size_t k = n; p[k]; k++)
        if (!isspace((unsigned char)p[k]))
            return 0;
    memcpy(name, p, n);
    name[n] = '\0';
    return 1;
}

static int digits(const char **p, unsigned n, unsigned *v)
{
    *v = 0;
    for (unsigned i = 0; i < n; i++, (*p)++) {
        if (!isdigit((unsigned char)**p))
            return 0;
        *v = *v * 10 + (unsigned)(**p - '0');
    }
    return 1;
}

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian). */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    const int64_t era = (y >= 0 ? y : y - 399) / 400;
    const unsigned yoe = (unsigned)(y - era * 400);
    const unsigned doy = (153 * (m + (m > 2 ? (unsigned)-3 : 9)) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

/* "[P:4242; T:0x139862 ]2026-12-06 19:20:52.727": 1 with the time in ns (the
 * log's local time, as it is), *pid and *tid when given (*has_who). */
static int time_line(const char *l, uint64_t *ns, uint64_t *pid, uint64_t *tid, int *has_who)
{
    const char *p = l;
    *has_who = 0;
    if (p[0] == 'P' && p[1] == ':') {
        char *end;
        *pid = strtoull(p + 2, &end, 10);
        if (end == p + 2 || end[0] != ';' || end[1] != ' ' || end[2] != 'T' || end[3] != ':')
            return 0;
        p = end + 4;
        if (p[0] == '0' && p[1] == 'x')
            p += 2;
        *tid = strtoull(p, &end, 16);
        if (end == p || *end != ' ')
            return 0;
        p = end + 1;
        *has_who = 1;
    }
    unsigned y, mo, d, h, mi, s, ms;
    if (!digits(&p, 4, &y) || *p++ != '-' || !digits(&p, 2, &mo) || *p++ != '-' ||
        !digits(&p, 2, &d) || *p++ != ' ' || !digits(&p, 2, &h) || *p++ != ':' ||
        !digits(&p, 2, &mi) || *p++ != ':' || !digits(&p, 2, &s) || *p++ != '.' ||
        !digits(&p, 3, &ms))
        return 0;
    while (*p && isspace((unsigned char)*p))
        p++;
    if (*p || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60 || y < 1970)
        return 0;
    const int64_t days = days_from_civil(y, mo, d);
    const uint64_t secs = (uint64_t)days * 86400u + h * 3600u + mi * 60u + s;
    *ns = secs * 1000000000ull + (uint64_t)ms * 1000000ull;
    return 1;
}

int p11_replay_is_spy(const char *head, size_t len)
{
    /* the banner, or a call line followed by its time line, anywhere in
     * the head: a log cut at its start may begin inside a call's dump */
    char buf[SPY_LINE], name[64];
    size_t at = 0;
    int saw_call = 0;
    while (at < len) {
        size_t n = 0;
        while (at + n < len && head[at + n] != '\n' && n + 1 < sizeof buf)
            n++;
        memcpy(buf, head + at, n);
        buf[n] = '\0';
        at += n + 1;
        if (n && buf[n - 1] == '\r')
            buf[n - 1] = '\0';
        uint64_t ns, pid, tid;
        int who;
        if (strcmp(buf, SPY_BANNER) == 0 || (saw_call && time_line(buf, &ns, &pid, &tid, &who))) {
            memset(buf, 0, sizeof buf);
            return 1;
        }
        saw_call = call_line(buf, name, sizeof name);
    }
    memset(buf, 0, sizeof buf);
    return 0;
}

/* ---- reading ------------------------------------------------------------------------------ */

/* A call entered and not yet returned. */
typedef struct call {
    unsigned fn;            /* HSMBENCH_TRACE_FN_COUNT: one this reader does not know */
    uint32_t pid, thread;
    uint64_t at_ns;
    uint64_t session, mech, key;      /* NO_VALUE: not in the log */
    uint64_t in_len, out_len;         /* out_len NO_VALUE: none given back */
    int      query;                   /* the output was a length only */
    int      timed;                   /* its time line was read */
    uint64_t made[2];                 /* handles it made (a session, keys); NO_VALUE */
    uint32_t bits;                    /* a key's size its template gave */
    unsigned got;                     /* the F_* fields read for it */
    uint64_t seq;                     /* its place among the log's calls */
} call;

/* The fields of a call the reader takes, one line each.  When threads' calls
 * interleave (pkcs11-spy before OpenSC 0.24 names no thread, and writes a
 * call's lines a piece at a time), a field's line goes to an open call that
 * takes that field and has not had it yet (owner_of), and a return to a
 * call that has had every field it takes (returning): a signature's data
 * line never lands on the call beside it, whose own data it would double. */
enum { F_SESSION = 1, F_MECH = 2, F_KEY = 4, F_IN = 8, F_OUT = 16, F_MADE = 32, F_ANY = 63 };

/* The fields fn's call takes (F_ANY: a function this reader does not
 * follow field by field); *before_return: the fields a call that succeeded
 * has had read before its return. */
static unsigned fields_of(unsigned fn, unsigned *before_return)
{
#define F(x) HSMBENCH_TRACE_FN_##x
    unsigned kind = 0;
    const p11_trace_role role = fn < HSMBENCH_TRACE_FN_COUNT ? p11_trace_role_of(fn, &kind) : P11_TRACE_NOT_OP;
    unsigned f = F_ANY, ret = 0;
    if (role == P11_TRACE_INIT) {
        f = fn == F(DigestInit) ? F_SESSION | F_MECH : F_SESSION | F_MECH | F_KEY;
        ret = f;
    } else if (fn == F(EncryptFinal) || fn == F(DecryptFinal) || fn == F(DigestFinal) || fn == F(SignFinal)) {
        f = F_SESSION | F_OUT;
        ret = f;
    } else if (fn == F(VerifyFinal) || fn == F(VerifySignatureFinal)) {
        f = ret = F_SESSION;
    } else if (fn == F(Sign) || fn == F(Encrypt) || fn == F(Decrypt) || fn == F(Digest) ||
               fn == F(SignRecover) || fn == F(VerifyRecover) || fn == F(EncryptUpdate) ||
               fn == F(DecryptUpdate)) {
        f = ret = F_SESSION | F_IN | F_OUT;
    } else if (fn == F(SignUpdate) || fn == F(VerifyUpdate) || fn == F(DigestUpdate) || fn == F(Verify) ||
               fn == F(VerifySignatureUpdate) || fn == F(VerifySignature)) {
        f = ret = F_SESSION | F_IN;
    } else if (fn == F(OpenSession)) {
        f = F_MADE;
        ret = F_MADE;
    }
    *before_return = ret;
    return f;
#undef F
}

/* The call a field's line belongs to: the call the previous line went to,
 * when it takes the field and lacks it (a thread writes its call's lines in
 * order, and is most often not interrupted between two of them); else the
 * earliest open one that takes it and lacks it (the one that entered first
 * is most often ahead), a session being the first line of a call; else
 * NULL: the line is nobody's that can be told. */
static call *owner_of(call *open, unsigned nopen, unsigned field, uint64_t last_seq)
{
    unsigned ret;
    for (unsigned i = 0; i < nopen; i++)
        if (open[i].seq == last_seq && (fields_of(open[i].fn, &ret) & field) && !(open[i].got & field))
            return &open[i];
    if (field == F_SESSION)
        for (unsigned i = 0; i < nopen; i++)
            if (open[i].timed && open[i].got == 0 && (fields_of(open[i].fn, &ret) & field))
                return &open[i];
    for (unsigned i = 0; i < nopen; i++)
        if ((fields_of(open[i].fn, &ret) & field) && !(open[i].got & field))
            return &open[i];
    /* of one, it unless it has had this field and takes it once (the line
     * is then another call's, whose own lines are lost); of several, none */
    if (nopen == 1 && (field == F_KEY || !(open[0].got & field) || fields_of(open[0].fn, &ret) == F_ANY))
        return &open[0];
    return NULL;
}

/* The call a return belongs to: of the open calls that have given back what
 * they give (their module call is over), the one the previous line went to,
 * else the earliest; else likewise of those that have had every field they
 * take; else the latest; and of two calls of one session (one thread's),
 * the earlier. */
static call *returning(call *open, unsigned nopen, uint64_t last_seq)
{
    unsigned ret;
    call *c = NULL;
    for (int pass = 0; pass < 2 && !c; pass++)
        for (unsigned i = 0; i < nopen; i++) {
            (void)fields_of(open[i].fn, &ret);
            if ((pass == 0 && !(ret & F_OUT)) || (open[i].got & ret) != ret)
                continue;
            if (!c || open[i].seq == last_seq)
                c = &open[i];
        }
    if (!c)
        c = &open[nopen - 1];
    for (unsigned i = 0; &open[i] < c; i++)
        if ((open[i].got & F_SESSION) && (c->got & F_SESSION) && open[i].session == c->session)
            return &open[i];
    return c;
}

typedef struct pending {
    uint32_t pid;
    uint64_t session;
    unsigned kind;
    int      active;
    uint64_t start_ns, data, mech, key, rv;
} pending;

/* What the log said of a key: its size. */
typedef struct keyfact {
    uint32_t pid;
    uint64_t handle;
    uint32_t bits;
} keyfact;

/* Threads by (pid, tid), numbered in order of appearance. */
typedef struct thread_id {
    uint64_t pid, tid;
} thread_id;

/* Which attribute a template line names, for the key's size. */
enum attr { A_NONE, A_MODULUS_BITS, A_MODULUS, A_VALUE_LEN, A_EC_PARAMS };

typedef struct spy {
    const char   *path;
    p11_replay_seg *seg;
    p11_replay_model *m;
    call          open[SPY_OPEN_MAX];
    unsigned      nopen;
    pending      *pend;
    size_t        npend, cap_pend;
    keyfact      *keys;
    size_t        nkeys, cap_keys;
    thread_id    *threads;
    size_t        nthreads, cap_threads;
    uint32_t      process;            /* banners seen: the process when the log names none */
    int           interleaved, dropped;
    uint64_t      calls;              /* call lines read */
    int           started, cut;       /* a line read; the first was inside a call */
    uint64_t      last_ns;            /* the latest time line's */
    uint32_t      last_pid, last_thread;
    uint64_t      last_seq;           /* the call the latest line went to */
    uint64_t      float_session;      /* a session line whose call is not yet known */
    int           floating;
    enum attr     want;               /* the next dump line's bytes hold this attribute */
    uint32_t      bits;               /* the key size of the template being read */
} spy;

static int grow(void *p, size_t n, size_t *cap, size_t size)
{
    if (n < *cap)
        return 0;
    size_t c = *cap ? *cap * 2 : 32;
    void *q = realloc(*(void **)p, c * size);
    if (!q)
        return -1;
    *(void **)p = q;
    *cap = c;
    return 0;
}

static int64_t thread_of(spy *s, uint64_t pid, uint64_t tid)
{
    for (size_t i = 0; i < s->nthreads; i++)
        if (s->threads[i].pid == pid && s->threads[i].tid == tid)
            return (int64_t)i;
    if (s->nthreads >= UINT32_MAX - 1 ||
        grow(&s->threads, s->nthreads, &s->cap_threads, sizeof *s->threads) != 0)
        return -1;
    s->threads[s->nthreads] = (thread_id){ pid, tid };
    return (int64_t)s->nthreads++;
}

static keyfact *key_of(spy *s, uint32_t pid, uint64_t handle)
{
    for (size_t i = 0; i < s->nkeys; i++)
        if (s->keys[i].pid == pid && s->keys[i].handle == handle)
            return &s->keys[i];
    return NULL;
}

static int key_note(spy *s, uint32_t pid, uint64_t handle, uint32_t bits)
{
    if (handle == NO_VALUE || bits == 0)
        return 0;
    keyfact *k = key_of(s, pid, handle);
    if (!k) {
        if (grow(&s->keys, s->nkeys, &s->cap_keys, sizeof *s->keys) != 0)
            return -1;
        k = &s->keys[s->nkeys++];
        k->pid = pid;
        k->handle = handle;
    }
    k->bits = bits;
    return 0;
}

static pending *pending_of(spy *s, uint32_t pid, uint64_t session, unsigned kind)
{
    for (size_t i = 0; i < s->npend; i++)
        if (s->pend[i].pid == pid && s->pend[i].session == session && s->pend[i].kind == kind)
            return &s->pend[i];
    if (grow(&s->pend, s->npend, &s->cap_pend, sizeof *s->pend) != 0)
        return NULL;
    pending *p = &s->pend[s->npend++];
    memset(p, 0, sizeof *p);
    p->pid = pid;
    p->session = session;
    p->kind = kind;
    return p;
}

/* Hand one operation (op 1) or call (op 0) to the segmentation. */
static int give(spy *s, int op, unsigned fn, const call *c, uint64_t start_ns, uint64_t mech,
                uint64_t key, uint64_t in_len, uint64_t out_len, uint64_t rv, uint64_t session)
{
    const keyfact *k = key == NO_VALUE ? NULL : key_of(s, c->pid, key);
    const p11_replay_op o = {
        .op = op, .fn = fn, .pid = c->pid, .thread = c->thread, .session = session,
        .mechanism = mech == NO_VALUE ? HSMBENCH_TRACE_NONE : mech,
        .key_bits = k ? k->bits : c->bits, .in_len = in_len, .out_len = out_len,
        .start_ns = start_ns, .end_ns = c->at_ns, .rv = rv,
    };
    return p11_replay_seg_add(s->seg, &o);
}

/* A call returned rv: what it is to an operation, by the recorder's rule. */
static int returned(spy *s, call *c, uint64_t rv)
{
    if (c->fn >= HSMBENCH_TRACE_FN_COUNT)
        return 0;        /* a function this reader does not know (counted when it entered) */
    unsigned kind = 0;
    const p11_trace_role role = p11_trace_role_of(c->fn, &kind);
    const unsigned fn = c->fn;
    if (fn == HSMBENCH_TRACE_FN_GenerateKey || fn == HSMBENCH_TRACE_FN_GenerateKeyPair) {
        for (int i = 0; i < 2; i++)
            if (key_note(s, c->pid, c->made[i], c->bits) != 0)
                return -1;
    }
    const int find = fn == HSMBENCH_TRACE_FN_FindObjectsInit || fn == HSMBENCH_TRACE_FN_FindObjects ||
                     fn == HSMBENCH_TRACE_FN_FindObjectsFinal;
    unsigned need;
    (void)fields_of(fn, &need);
    if (rv != CKR_OK)
        need &= ~(unsigned)F_OUT;     /* nothing is given back */
    if (s->interleaved && role != P11_TRACE_NOT_OP && (c->got & need) != need) {
        /* some of its lines went where they cannot be told from another
         * call's: its operation is not rebuilt (said at its end) */
        pending *p = pending_of(s, c->pid, c->session, kind);
        if (!p)
            return -1;
        p->active = 0;
        if (role == P11_TRACE_LAST || role == P11_TRACE_SINGLE)
            p11_replay_not_replayed(s->m, p11_trace_fn_name(fn),
                                    "its lines are not all in the log (threads' lines interleave)", 1);
        return 0;
    }
    if (role == P11_TRACE_NOT_OP && !find) {
        const uint64_t session = fn == HSMBENCH_TRACE_FN_OpenSession ? c->made[0] : c->session;
        return give(s, 0, fn, c, c->at_ns, NO_VALUE, NO_VALUE, 0, NO_VALUE, rv, session);
    }
    if (role == P11_TRACE_SINGLE) {
        uint64_t in = 0;
        if (fn == HSMBENCH_TRACE_FN_GenerateRandom)
            in = c->out_len == NO_VALUE ? 0 : c->out_len;
        else if (p11_trace_data_call(fn))
            in = c->in_len;
        const uint64_t key = (fn == HSMBENCH_TRACE_FN_GenerateKey || fn == HSMBENCH_TRACE_FN_GenerateKeyPair)
                                 ? c->made[0] : c->key;
        return give(s, 1, fn, c, c->at_ns, c->mech, key, in, NO_VALUE, rv, c->session);
    }
    if (find)
        kind = HSMBENCH_TRACE_FN_FindObjects;
    pending *p = pending_of(s, c->pid, c->session, kind);
    if (!p)
        return -1;
    const int part_ok = rv == CKR_OK || rv == CKR_BUFFER_TOO_SMALL;
    if (role == P11_TRACE_INIT || fn == HSMBENCH_TRACE_FN_FindObjectsInit) {
        p->active = rv == CKR_OK;
        p->start_ns = c->at_ns;
        p->data = 0;
        p->rv = 0;
        p->mech = c->mech;
        p->key = c->key;
        if (rv != CKR_OK)
            return give(s, 1, kind, c, c->at_ns, c->mech, c->key, 0, NO_VALUE, rv, c->session);
        return 0;
    }
    if (find) {
        if (!p->active)
            return give(s, 0, fn, c, c->at_ns, NO_VALUE, NO_VALUE, 0, NO_VALUE, rv, c->session);
        if (rv != CKR_OK && p->rv == 0)
            p->rv = rv;
        if (fn != HSMBENCH_TRACE_FN_FindObjectsFinal)
            return 0;
        p->active = 0;
        return give(s, 1, kind, c, p->start_ns, NO_VALUE, NO_VALUE, 0, NO_VALUE, p->rv ? p->rv : rv,
                    c->session);
    }
    /* a call that is an operation of its own names its mechanism (a wrap);
     * a message call's is its session's (C_MessageEncryptInit) */
    const int own = fn == HSMBENCH_TRACE_FN_WrapKey || fn == HSMBENCH_TRACE_FN_WrapKeyAuthenticated ||
                    fn == HSMBENCH_TRACE_FN_EncapsulateKey || fn == HSMBENCH_TRACE_FN_EncryptMessage ||
                    fn == HSMBENCH_TRACE_FN_DecryptMessage || fn == HSMBENCH_TRACE_FN_SignMessage ||
                    fn == HSMBENCH_TRACE_FN_VerifyMessage;
    if (!p->active && !own && c->mech == NO_VALUE) {
        /* a part or the end of an operation whose Init is not in the log: its
         * lines went to another thread's call, or the log began after it */
        if (role == P11_TRACE_LAST && !c->query && rv != CKR_BUFFER_TOO_SMALL)
            p11_replay_not_replayed(s->m, p11_trace_fn_name(fn),
                                    "its Init is not in the log (threads' lines interleave)", 1);
        return 0;
    }
    if (!p->active) {
        /* a one-shot call that is its own operation (a wrap, a message call:
         * their own mechanism) */
        p->active = 1;
        p->start_ns = c->at_ns;
        p->data = 0;
        p->mech = c->mech;
        p->key = c->key;
    }
    p->data += c->in_len;
    if (role == P11_TRACE_PART) {
        if (!part_ok) {
            p->active = 0;
            return give(s, 1, kind, c, p->start_ns, p->mech, p->key, p->data, NO_VALUE, rv, c->session);
        }
        return 0;
    }
    if (c->query || rv == CKR_BUFFER_TOO_SMALL) {
        p->data -= c->in_len;     /* asked again with the buffer: counted then */
        return 0;
    }
    p->active = 0;
    return give(s, 1, kind, c, p->start_ns, p->mech, p->key, p->data, c->out_len, rv, c->session);
}

/* "NAME ADDR / N", "NAME NULL [size : 0x40 (64)]", "NAME EMPTY": the length (*null
 * when no buffer was given). */
static int buffer_len(const char *rest, uint64_t *n, int *null)
{
    *null = 0;
    const char *slash = strstr(rest, " / ");
    if (slash) {
        char *end;
        *n = strtoull(slash + 3, &end, 10);
        return end != slash + 3;
    }
    const char *size = strstr(rest, "NULL [size : ");
    if (size) {
        const char *paren = strchr(size, '(');
        char *end;
        if (!paren)
            return 0;
        *n = strtoull(paren + 1, &end, 10);
        *null = 1;
        return end != paren + 1;
    }
    if (strstr(rest, "EMPTY")) {
        *n = 0;
        return 1;
    }
    return 0;
}

static int ulong_value(const char *l, const char *prefix, uint64_t *v)
{
    const size_t n = strlen(prefix);
    if (strncmp(l, prefix, n) != 0)
        return 0;
    char *end;
    const char *p = l + n;
    *v = strtoull(p, &end, 16);
    return end != p;
}

/* The bytes of a dump line "    00000010  4D 41 ..." into b (at most 16): how many. */
static size_t dump_bytes(const char *l, unsigned char *b)
{
    const char *p = l;
    while (*p == ' ')
        p++;
    for (int i = 0; i < 8; i++, p++)
        if (!isxdigit((unsigned char)*p))
            return 0;
    if (p[0] != ' ' || p[1] != ' ')
        return 0;
    p += 2;
    size_t n = 0;
    while (n < 16 && isxdigit((unsigned char)p[0]) && isxdigit((unsigned char)p[1]) && p[2] == ' ') {
        char hex[3] = { p[0], p[1], 0 };
        b[n++] = (unsigned char)strtoul(hex, NULL, 16);
        p += 3;
    }
    return n;
}

/* The size an attribute's first dump line gives. */
static uint32_t attr_bits(enum attr a, const unsigned char *b, size_t n)
{
    static const unsigned char p256[] = { 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07 };
    static const unsigned char p384[] = { 0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x22 };
    static const unsigned char p521[] = { 0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x23 };
    if (a == A_MODULUS_BITS || a == A_VALUE_LEN) {
        /* a CK_ULONG in the machine's order: little-endian on the machines spy runs on */
        uint64_t v = 0;
        for (size_t i = n < 8 ? n : 8; i-- > 0;)
            v = v << 8 | b[i];
        if (a == A_VALUE_LEN)
            v *= 8;
        return v > 0 && v <= 65536 ? (uint32_t)v : 0;
    }
    if (a == A_EC_PARAMS) {
        if (n >= sizeof p256 && memcmp(b, p256, sizeof p256) == 0)
            return 256;
        if (n >= sizeof p384 && memcmp(b, p384, sizeof p384) == 0)
            return 384;
        if (n >= sizeof p521 && memcmp(b, p521, sizeof p521) == 0)
            return 521;
    }
    return 0;
}

/* A template line "    CKA_MODULUS_BITS      00007fff / 8": which attribute. */
static enum attr attr_line(const char *l, uint64_t *len)
{
    const char *p = l;
    while (*p == ' ')
        p++;
    static const struct { const char *name; enum attr a; } tab[] = {
        { "CKA_MODULUS_BITS ", A_MODULUS_BITS }, { "CKA_MODULUS ", A_MODULUS },
        { "CKA_VALUE_LEN ", A_VALUE_LEN }, { "CKA_EC_PARAMS ", A_EC_PARAMS },
    };
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++) {
        const size_t n = strlen(tab[i].name);
        if (strncmp(p, tab[i].name, n) == 0) {
            int null;
            if (!buffer_len(p + n, len, &null))
                *len = 0;
            return tab[i].a;
        }
    }
    return A_NONE;
}

/* The oldest n open calls never return in the log: each said in the model,
 * by its function. */
static void never_returned(spy *s, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        p11_replay_not_replayed(s->m, s->open[i].fn < HSMBENCH_TRACE_FN_COUNT ? p11_trace_fn_name(s->open[i].fn)
                                                                           : "a function PKCS#11 3.2 does not name",
                                "no return of it in the log can be told apart (its process or the log ended, or threads' lines interleave)", 1);
    memmove(&s->open[0], &s->open[n], (s->nopen - n) * sizeof s->open[0]);
    s->nopen -= n;
    s->dropped += n != 0;
}

/* The open call field's line belongs to, marked as having had it.  A
 * session whose call is not plain (several calls await their first line)
 * floats until the call's next line says whose it is: a mechanism is an
 * Init's, data a data call's. */
static call *field_owner(spy *s, unsigned field);

/* Calls awaiting their first field's line, the session; the last touched
 * when it is one of them, else the earliest; NULL when none. */
static call *awaiting_session(spy *s, unsigned *n)
{
    unsigned ret;
    call *first = NULL, *last = NULL;
    *n = 0;
    for (unsigned i = 0; i < s->nopen; i++)
        if (s->open[i].got == 0 && (fields_of(s->open[i].fn, &ret) & F_SESSION)) {
            (*n)++;
            if (!first)
                first = &s->open[i];
            if (s->open[i].seq == s->last_seq)
                last = &s->open[i];
        }
    return last ? last : first;
}

/* A floating session settles on the likeliest call awaiting one. */
static void settle(spy *s)
{
    if (!s->floating)
        return;
    s->floating = 0;
    unsigned n;
    call *c = awaiting_session(s, &n);
    if (!c && s->nopen)
        c = owner_of(s->open, s->nopen, F_SESSION, s->last_seq);
    if (c && !(c->got & F_SESSION)) {
        c->session = s->float_session;
        c->got |= F_SESSION;
    }
}

static call *field_owner(spy *s, unsigned field)
{
    if (field == F_SESSION) {
        settle(s);
        unsigned n;
        if (awaiting_session(s, &n) && n > 1) {
            s->floating = 1;
            return NULL;
        }
    }
    call *c = owner_of(s->open, s->nopen, field, s->last_seq);
    if (!c) {
        s->interleaved = 1;       /* a line of a call whose other lines are lost */
        return NULL;
    }
    if (s->floating) {
        unsigned ret;
        if (!(c->got & F_SESSION) && (fields_of(c->fn, &ret) & F_SESSION)) {
            c->session = s->float_session;
            c->got |= F_SESSION;
            s->floating = 0;
        } else {
            settle(s);
        }
    }
    c->got |= field;
    s->last_seq = c->seq;
    return c;
}

/* One line of the log (at most SPY_LINE - 1 bytes of it, newline gone);
 * 0, or -1 with err set. */
static int one_line(spy *s, char *l, unsigned long long lineno, uint64_t *pending_time,
                    char *err, size_t errlen)
{
    char name[64];
    call *c = s->nopen ? &s->open[s->nopen - 1] : NULL;

    uint64_t ns = 0, pid = 0, tid = 0;
    int who = 0;
    if (*pending_time && time_line(l, &ns, &pid, &tid, &who)) {
        /* a call's time: the earliest call without one (threads' lines interleave) */
        call *u = NULL;
        settle(s);
        for (unsigned i = 0; i < s->nopen; i++)
            if (!s->open[i].timed && (!u || s->open[i].seq == s->last_seq))
                u = &s->open[i];
        if (!u) {
            *pending_time = 0;      /* cannot be: counted with the calls */
            return 0;
        }
        u->timed = 1;
        s->last_seq = u->seq;
        u->at_ns = s->last_ns = ns;
        u->pid = s->process;
        u->thread = P11_REPLAY_NO_THREAD;
        if (who) {
            const int64_t t = thread_of(s, pid, tid);
            if (t < 0)
                goto oom;
            u->pid = (uint32_t)pid;
            u->thread = (uint32_t)t;
        }
        s->last_pid = u->pid;
        s->last_thread = u->thread;
        *pending_time -= 1;
        return 0;
    }
    if (*pending_time && s->nopen == 1 && !s->interleaved && l[0] != '\0' && !call_line(l, name, sizeof name)) {
        /* one call alone, and no time after it: not a spy log's order (when
         * threads interleave, its time may have gone to another call) */
        bench_seterr(err, errlen, "%s: line %llu: a call's line is not followed by its time "
                     "(YYYY-MM-DD HH:MM:SS.mmm): not a pkcs11-spy log, or a damaged one",
                     s->path, lineno);
        return -1;
    }
    if (!s->started && l[0] != '\0') {
        s->started = 1;
        s->cut = strcmp(l, SPY_BANNER) != 0 && !call_line(l, name, sizeof name);
    }
    if (strcmp(l, SPY_BANNER) == 0) {
        /* a process (re)loaded spy: what was open there never returns */
        never_returned(s, s->nopen);
        *pending_time = 0;
        s->npend = 0;
        s->process++;
        s->want = A_NONE;
        return 0;
    }
    if (call_line(l, name, sizeof name)) {
        settle(s);
        if (s->nopen == SPY_OPEN_MAX) {
            if (!s->open[0].timed)
                *pending_time -= 1;
            never_returned(s, 1);
        }
        if (s->nopen)
            s->interleaved = 1;
        c = &s->open[s->nopen++];
        s->calls++;
        memset(c, 0, sizeof *c);
        c->fn = p11_trace_fn_by_name(name);
        c->seq = s->last_seq = s->calls;
        c->session = c->mech = c->key = NO_VALUE;
        c->out_len = NO_VALUE;
        c->made[0] = c->made[1] = NO_VALUE;
        s->bits = 0;
        s->want = A_NONE;
        *pending_time += 1;
        if (c->fn >= HSMBENCH_TRACE_FN_COUNT)
            p11_replay_not_replayed(s->m, "a function pkcs11-spy names that PKCS#11 3.2 does not",
                                "needs no replay", 1);
        return 0;
    }
    if (strncmp(l, "Returned:", 9) == 0) {
        char *end;
        const char *p = l + 9;
        while (*p == ' ')
            p++;
        uint64_t rv = strtoull(p, &end, 10);
        if (end == p) {
            bench_seterr(err, errlen, "%s: line %llu: a return without its value", s->path, lineno);
            return -1;
        }
        if (!c && !s->calls)
            return 0;       /* a call from before the log's start (cut inside a call) */
        if (!c && (s->cut || s->interleaved)) {
            /* its call's line went into another line, or before the log's start */
            p11_replay_not_replayed(s->m, "a call whose line is not in the log",
                                    "its return is (threads' lines interleave, or the log was cut)", 1);
            return 0;
        }
        if (!c) {
            bench_seterr(err, errlen, "%s: line %llu: a return with no call before it: not a "
                         "pkcs11-spy log, or a damaged one", s->path, lineno);
            return -1;
        }
        settle(s);
        const size_t at = (size_t)(returning(s->open, s->nopen, s->last_seq) - s->open);
        call done = s->open[at];
        memmove(&s->open[at], &s->open[at + 1], (s->nopen - 1 - at) * sizeof s->open[0]);
        s->nopen--;
        c = &done;
        s->want = A_NONE;
        if (!c->timed) {
            /* its time line lost among other threads' lines: the latest time */
            c->timed = 1;
            c->at_ns = s->last_ns;
            c->pid = s->last_pid;
            c->thread = s->last_thread;
            *pending_time -= 1;
            s->interleaved = 1;
        }
        if (returned(s, c, rv) != 0)
            goto oom;
        return 0;
    }
    if (!c)
        return 0;
    if (s->want != A_NONE) {
        unsigned char b[16];
        const size_t n = dump_bytes(l, b);
        const uint32_t bits = n ? attr_bits(s->want, b, n) : 0;
        memset(b, 0, sizeof b);
        if (bits)
            s->bits = bits;
        s->want = A_NONE;
        if (bits && c->fn == HSMBENCH_TRACE_FN_GetAttributeValue && key_note(s, c->pid, c->key, bits))
            goto oom;
        if (bits && (c->fn == HSMBENCH_TRACE_FN_GenerateKey || c->fn == HSMBENCH_TRACE_FN_GenerateKeyPair))
            c->bits = bits;
        return 0;
    }
    uint64_t v, n;
    int null;
    if (ulong_value(l, "[in] hSession = 0x", &v)) {
        s->float_session = v;
        c = field_owner(s, F_SESSION);
        if (c)
            c->session = v;
    } else if (ulong_value(l, "[in] hKey = 0x", &v) || ulong_value(l, "[in] hWrappingKey = 0x", &v) ||
               ulong_value(l, "[in] hUnwrappingKey = 0x", &v) || ulong_value(l, "[in] hBaseKey = 0x", &v) ||
               ulong_value(l, "[in] hObject = 0x", &v)) {
        c = field_owner(s, F_KEY);
        if (c)
            c->key = v;
    } else if (ulong_value(l, "[out] *phSession = 0x", &v) || ulong_value(l, "[out] hKey = 0x", &v) ||
               ulong_value(l, "[out] hPrivateKey = 0x", &v)) {
        c = field_owner(s, F_MADE);
        if (c)
            c->made[0] = v;
    } else if (ulong_value(l, "[out] hPublicKey = 0x", &v))
        c->made[1] = v;
    else if (strncmp(l, "[in] pMechanism->type = ", 24) == 0) {
        c = field_owner(s, F_MECH);
        char mech[64];
        size_t k = 0;
        const char *p = l + 24;
        while ((isalnum((unsigned char)p[k]) || p[k] == '_') && k + 1 < sizeof mech) {
            mech[k] = p[k];
            k++;
        }
        mech[k] = '\0';
        CK_MECHANISM_TYPE mt;
        if (c)
            c->mech = p11_mech_by_name(mech, &mt) == 0 ? (uint64_t)mt : NO_VALUE;
    } else if (strncmp(l, "[in] ", 5) == 0) {
        static const char *const data_in[] = { "pData[", "pPart[", "pEncryptedData[", "pEncryptedPart[",
                                               "pWrappedKey[" };
        for (size_t i = 0; i < sizeof data_in / sizeof data_in[0]; i++)
            if (strncmp(l + 5, data_in[i], strlen(data_in[i])) == 0) {
                const char *rest = strchr(l + 5, ' ');
                c = field_owner(s, F_IN);
                if (c && rest && buffer_len(rest, &n, &null))
                    c->in_len += n;
                break;
            }
    } else if (strncmp(l, "[out] ", 6) == 0) {
        const char *rest = strchr(l + 6, ' ');
        if (rest && strchr(l + 6, '[') && strchr(l + 6, '[') < rest && buffer_len(rest, &n, &null)) {
            c = field_owner(s, F_OUT);
            if (c) {
                c->out_len = n;
                c->query = null;
            }
        } else if (strncmp(l + 6, "pul", 3) == 0) {
            c = field_owner(s, F_OUT);
            if (c)
                c->query = 1;    /* CKR_BUFFER_TOO_SMALL: the length it needs */
        }
    } else {
        uint64_t len = 0;
        enum attr a = attr_line(l, &len);
        if (a == A_MODULUS && len > 0 && len <= 8192) {
            if (c->fn == HSMBENCH_TRACE_FN_GetAttributeValue && strstr(l, " / ") &&
                key_note(s, c->pid, c->key, (uint32_t)len * 8))
                goto oom;
        } else if (a != A_NONE && a != A_MODULUS) {
            s->want = a;
        }
    }
    return 0;
oom:
    bench_seterr(err, errlen, "%s: out of memory", s->path);
    return -1;
}

/* A dump line's width: "    00000010  " (14), 16 bytes "4D " (48), a space,
 * 16 characters; spy pads a short last line to it. */
#define SPY_DUMP_WIDTH 79

/* Where in line l another thread's piece begins, written into it before
 * its newline: pkcs11-spy writes a line in pieces (an argument's name, its
 * value; a dump's bytes; a time line with no newline before it).  After a
 * dump line's fixed width; in an argument's line, at "[in] ", "[out] ",
 * "Returned:"; in either, at a time stamp ending the line.  NULL when none. */
static char *glued(char *l)
{
    const size_t len = strlen(l);
    unsigned char b[16];
    if (len > SPY_DUMP_WIDTH && dump_bytes(l, b) > 0) {
        memset(b, 0, sizeof b);
        return l + SPY_DUMP_WIDTH;
    }
    memset(b, 0, sizeof b);
    if (strncmp(l, "[in] ", 5) != 0 && strncmp(l, "[out] ", 6) != 0)
        return NULL;
    static const char *const starts[] = { "[in] ", "[out] ", "Returned:" };
    char *first = NULL;
    for (size_t i = 0; i < sizeof starts / sizeof starts[0]; i++) {
        char *p = strstr(l + 1, starts[i]);
        if (p && (!first || p < first))
            first = p;
    }
    /* "... / 322026-12-06 19:20:52.727" or "... / 32P:4242; T:0x1 2026-...": a
     * time line has the end of the line to itself */
    uint64_t ns, pid, tid;
    int who;
    for (char *p = l + 1; *p && (!first || p < first); p++)
        if ((*p == 'P' && p[1] == ':') || (isdigit((unsigned char)*p) && len - (size_t)(p - l) >= 23 &&
                                           p[4] == '-' && p[7] == '-' && p[10] == ' '))
            if (time_line(p, &ns, &pid, &tid, &who))
                return p;
    return first;
}

int p11_replay_read_spy(FILE *f, const char *path, p11_replay_model *m, char *err, size_t errlen)
{
    int rc = -1;
    spy s;
    memset(&s, 0, sizeof s);
    s.path = path;
    s.m = m;
    s.seg = p11_replay_seg_new();
    char line[SPY_LINE];
    unsigned long long lineno = 0;
    uint64_t pending_time = 0;
    int continued = 0;
    if (!s.seg) {
        bench_seterr(err, errlen, "%s: out of memory", path);
        goto cleanup;
    }
    while (fgets(line, sizeof line, f)) {
        size_t n = strlen(line);
        const int whole = n > 0 && line[n - 1] == '\n';
        const int skip = continued;
        continued = !whole && !feof(f);
        if (skip)
            continue;        /* the rest of a long line: a dump, a label */
        lineno++;
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            line[--n] = '\0';
        /* a line another thread's piece was written into the middle of: each
         * piece on its own */
        char *piece = line, *next;
        while ((next = glued(piece)) != NULL) {
            const char keep = *next;
            *next = '\0';
            const int r = one_line(&s, piece, lineno, &pending_time, err, errlen);
            *next = keep;
            if (r != 0)
                goto cleanup;
            piece = next;
        }
        if (one_line(&s, piece, lineno, &pending_time, err, errlen) != 0)
            goto cleanup;
    }
    never_returned(&s, s.nopen);
    if (ferror(f)) {
        bench_seterr(err, errlen, "%s: cannot read it", path);
        goto cleanup;
    }
    m->source = P11_REPLAY_SPY;
    m->resolution_ns = 1000000;
    p11_replay_limit(m, "times are to the millisecond: think times under 1 ms read as 0");
    p11_replay_limit(m, "the log has no return times: a call ends when it entered, so a step's "
                        "think time holds the previous step's time in the module");
    if (s.interleaved)
        p11_replay_limit(m, "calls of several threads interleave in the log: each line is taken for "
                            "the call it fits, and an operation whose lines cannot all be told apart "
                            "is not replayed (said above)");
    if (s.dropped)
        p11_replay_limit(m, "calls that never returned in the log are left out");
    rc = p11_replay_seg_finish(s.seg, m, path, err, errlen);
cleanup:
    memset(line, 0, sizeof line);
    p11_replay_seg_free(s.seg);
    free(s.pend);
    free(s.keys);
    free(s.threads);
    return rc;
}
