/* SPDX-License-Identifier: Apache-2.0 */
/*
 * mock/trace.c - libhsmbench-trace.so, the PKCS#11 call recorder: a module
 * that loads the real module, hands the application the same function
 * lists (2.40, 3.0, 3.2: C_GetFunctionList, C_GetInterfaceList,
 * C_GetInterface), forwards every call, and records each one at the module
 * boundary: thread, session, function, mechanism, key type and size, input
 * and output lengths, return value, entry and exit times.  hsmbench-trace(7)
 * is the manual; p11/traceformat.h is the file and the reasons for its shape.
 *
 *   HSMBENCH_TRACE_MODULE=/usr/lib/softhsm/libsofthsm2.so \
 *   HSMBENCH_TRACE_FILE=app.%p.trace  pkcs11-tool --module libhsmbench-trace.so ...
 *
 * It is an observer that is not hsmbench: nothing in it knows what the
 * application meant to do, so what `hsmbench trace` reads from the file is
 * what reached the module.
 *
 * Cost.  A call adds two clock reads, a store of one record into memory the
 * thread alone owns (no lock, no system call), and, for an operation, a
 * look-up of its session's operation under one of 64 striped mutexes.  A
 * key's facts are read from the key (C_GetAttributeValue on public
 * attributes) once per object handle, outside the timed part of the call,
 * and kept in a direct-mapped table.  Every 818 calls a thread maps its
 * next 64 KiB chunk of the file.  make bench states the cost per call.
 *
 * Memory is constant: one chunk mapped per thread, two fixed tables.  A
 * session or key that collides with another in its table loses its facts
 * (the record then says "unknown"), it never grows the table.
 *
 * Only C_GetFunctionList, C_GetInterfaceList and C_GetInterface are
 * exported.  Vendor interfaces of the real module (a name other than
 * "PKCS 11") are not offered: their layout is unknown, so they could not be
 * recorded.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <p11-kit/pkcs11.h>
#include "p11/pkcs11_3x.h"
#include "p11/traceformat.h"

#define TR_RECS_PER_CHUNK \
    ((HSMBENCH_TRACE_CHUNK_SIZE - sizeof(hsmbench_trace_chunk)) / sizeof(hsmbench_trace_record))
#define TR_SESS_SLOTS 4096u
#define TR_KEY_SLOTS  4096u
#define TR_STRIPES    64u
#define TR_MAX_IFACES 8u

_Static_assert(sizeof(hsmbench_trace_record) == 80, "record layout");
_Static_assert(sizeof(hsmbench_trace_chunk) == 64, "chunk header layout");
_Static_assert(sizeof(hsmbench_trace_header) <= HSMBENCH_TRACE_HEADER_SIZE, "header fits");

/* The operation kinds a session can have under way at once (PKCS#11 allows
 * digest and encrypt side by side, say), each with its mechanism and key. */
enum tr_op { TR_ENC, TR_DEC, TR_DIG, TR_SIGN, TR_VER, TR_SIGNREC, TR_VERREC, TR_MENC, TR_MDEC,
             TR_MSIGN, TR_MVER, TR_VERSIG, TR_NOPS };

typedef struct tr_opstate {
    uint64_t mech, key, key_type;
    uint32_t key_bits;
    uint16_t key_known;
} tr_opstate;

typedef struct tr_sess {
    uint64_t   handle;          /* HSMBENCH_TRACE_NONE: free */
    tr_opstate op[TR_NOPS];
} tr_sess;

typedef struct tr_keyfacts {
    uint64_t handle;            /* HSMBENCH_TRACE_NONE: free */
    uint64_t type;
    uint32_t bits;
} tr_keyfacts;

/* The recorder's state: one per loaded copy of this module. */
typedef struct tr_state {
    void                 *lib;          /* the real module */
    CK_FUNCTION_LIST_3_2  real;         /* its functions (NULL where it has none) */
    CK_VERSION            real_fl_version;
    int                   fd;
    hsmbench_trace_header *hdr;         /* the shared header mapping; NULL: not recording */
    char                  file[HSMBENCH_TRACE_PATH_MAX];
    CK_RV                 load_rv;      /* CKR_OK, or why the module cannot be used */
    pthread_key_t         tls_key;
    int                   tls_key_ok;
    pthread_mutex_t       stripe[TR_STRIPES];
    tr_sess               sess[TR_SESS_SLOTS];
    tr_keyfacts           keys[TR_KEY_SLOTS];
    CK_FUNCTION_LIST      list_240;
    CK_FUNCTION_LIST_3_2  lists[TR_MAX_IFACES];
    CK_INTERFACE          ifaces[TR_MAX_IFACES];
    CK_ULONG              nifaces;
} tr_state;

static tr_state tr;                     /* the module's one instance: PKCS#11 hands out
                                           plain function pointers, with no context */
static pthread_once_t tr_once = PTHREAD_ONCE_INIT;
static CK_UTF8CHAR tr_iface_name[] = "PKCS 11";

/* A thread's window: consecutive chunks of the file, mapped at once.  The
 * first is one chunk, each next one twice as many up to TR_WINDOW_MAX, so a
 * short-lived program's recording stays small and a long run maps (and
 * unmaps, which costs a TLB shoot-down on every processor the process runs
 * on) once every TR_WINDOW_MAX * 818 calls of a thread. */
#define TR_WINDOW_MAX 16u
typedef struct tr_thread {
    unsigned char        *window;       /* mapped, or NULL */
    size_t                nchunks;      /* chunks in it */
    size_t                chunk;        /* the chunk of it being written */
    size_t                used;         /* records written in that chunk */
    uint32_t              number;       /* the thread's number in the file, 1 + ...; 0: none yet */
    hsmbench_trace_record dummy;        /* where records go when nothing is recorded */
} tr_thread;
static __thread tr_thread tr_self;

static uint64_t tr_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void tr_warn(const char *what, const char *detail)
{
    /* one line, never a PIN or data: paths and system errors only */
    fprintf(stderr, "hsmbench-trace: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
}

/* ---- chunks ------------------------------------------------------------------------- */

static void tr_release_window(tr_thread *t)
{
    if (t->window) {
        (void)munmap(t->window, t->nchunks * HSMBENCH_TRACE_CHUNK_SIZE);
        t->window = NULL;
    }
    t->chunk = t->used = 0;
}

static void tr_thread_exit(void *arg)
{
    tr_release_window(arg);   /* the exiting thread's own tr_self */
}

/* Start writing chunk t->chunk of the window: its header says whose it is.
 * A chunk of a window never started keeps magic 0 and is read as empty. */
static void tr_start_chunk(tr_thread *t)
{
    hsmbench_trace_chunk *c = (hsmbench_trace_chunk *)(t->window + t->chunk * HSMBENCH_TRACE_CHUNK_SIZE);
    c->pid = (uint32_t)getpid();
    c->tid = (uint32_t)syscall(SYS_gettid);
    if (t->number == 0)
        t->number = 1 + (uint32_t)__atomic_fetch_add(&tr.hdr->next_thread, 1, __ATOMIC_RELAXED);
    c->thread = t->number - 1;
    __atomic_store_n(&c->magic, HSMBENCH_TRACE_CHUNK_MAGIC, __ATOMIC_RELEASE);
    t->used = 0;
}

/* Claim this thread's next window of the file: the counter lives in the
 * shared header, so processes forked from one another claim distinct ones. */
static int tr_claim_window(tr_thread *t)
{
    size_t n = t->nchunks ? t->nchunks * 2 : 1;
    if (n > TR_WINDOW_MAX)
        n = TR_WINDOW_MAX;
    tr_release_window(t);
    uint64_t k = __atomic_fetch_add(&tr.hdr->next_chunk, n, __ATOMIC_RELAXED);
    off_t off = (off_t)HSMBENCH_TRACE_HEADER_SIZE + (off_t)k * HSMBENCH_TRACE_CHUNK_SIZE;
    size_t len = n * HSMBENCH_TRACE_CHUNK_SIZE;
    /* posix_fallocate only ever grows the file: two processes growing it at
     * once cannot cut each other's chunks off, as ftruncate could. */
    if (posix_fallocate(tr.fd, off, (off_t)len) != 0)
        return -1;
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, tr.fd, off);
    if (p == MAP_FAILED)
        return -1;
#ifdef MADV_POPULATE_WRITE
    /* One system call makes every page writable, instead of two faults a
     * page (a read fault, then the write fault that marks it dirty) while
     * recording; a kernel without it (before 5.14) takes the faults. */
    (void)madvise(p, len, MADV_POPULATE_WRITE);
#endif
    t->window = p;
    t->nchunks = n;
    t->chunk = 0;
    tr_start_chunk(t);
    if (tr.tls_key_ok)
        (void)pthread_setspecific(tr.tls_key, t);   /* so that its exit unmaps it */
    return 0;
}

/* A fork's child has only the forking thread, whose window the parent keeps
 * writing into: the child takes windows of its own. */
static void tr_atfork_child(void)
{
    tr_self.window = NULL;  /* the parent's mapping: left alone (the child's copy is
                               unmapped when the child exits) */
    tr_self.nchunks = tr_self.chunk = tr_self.used = 0;
    tr_self.number = 0;     /* a thread of another process */
}

/* ---- records ------------------------------------------------------------------------ */

static hsmbench_trace_record *tr_slot(void)
{
    tr_thread *t = &tr_self;
    if (tr.hdr == NULL)
        return &t->dummy;
    if (t->window && t->used >= TR_RECS_PER_CHUNK && t->chunk + 1 < t->nchunks) {
        t->chunk++;
        tr_start_chunk(t);
    }
    if ((t->window == NULL || t->used >= TR_RECS_PER_CHUNK) && tr_claim_window(t) != 0) {
        tr_release_window(t);
        return &t->dummy;    /* the disk is full: calls go on, unrecorded */
    }
    hsmbench_trace_record *recs = (hsmbench_trace_record *)(t->window + t->chunk * HSMBENCH_TRACE_CHUNK_SIZE +
                                                            sizeof(hsmbench_trace_chunk));
    return &recs[t->used++];
}

typedef struct tr_keyinfo {
    uint64_t type;
    uint32_t bits;
    int      known;
} tr_keyinfo;

static hsmbench_trace_record *tr_enter(unsigned fn, uint64_t session, uint64_t mech,
                                       uint64_t object, uint64_t in_len, uint16_t flags,
                                       const tr_keyinfo *k)
{
    hsmbench_trace_record *r = tr_slot();
    r->t_exit = 0;
    r->session = session;
    r->mechanism = mech;
    r->object = object;
    r->key_type = k && k->known ? k->type : HSMBENCH_TRACE_NONE;
    r->key_bits = k && k->known ? k->bits : 0;
    r->rv = 0;
    r->in_len = in_len;
    r->out_len = 0;
    r->function = (uint16_t)fn;
    r->flags = (uint16_t)(flags | (k && k->known ? HSMBENCH_TRACE_F_KEY : 0));
    __atomic_store_n(&r->t_enter, tr_now(), __ATOMIC_RELEASE);
    return r;
}

static void tr_leave(hsmbench_trace_record *r, CK_RV rv, const CK_ULONG *out_len)
{
    uint64_t t = tr_now();
    r->rv = (uint64_t)rv;
    if (out_len && (rv == CKR_OK || rv == CKR_BUFFER_TOO_SMALL)) {
        r->out_len = *out_len;
        r->flags |= HSMBENCH_TRACE_F_OUT;
    }
    __atomic_store_n(&r->t_exit, t ? t : 1, __ATOMIC_RELEASE);
}

/* ---- sessions and keys --------------------------------------------------------------- */

static pthread_mutex_t *tr_stripe(uint64_t h)
{
    return &tr.stripe[(h * 0x9e3779b97f4a7c15ull) >> 58];
}

static tr_sess *tr_sess_of(uint64_t h)
{
    return &tr.sess[(h * 0x9e3779b97f4a7c15ull >> 32) % TR_SESS_SLOTS];
}

static tr_keyfacts *tr_key_of(uint64_t h)
{
    return &tr.keys[(h * 0xbf58476d1ce4e5b9ull >> 32) % TR_KEY_SLOTS];
}

/* The field size of a named curve from its DER OID (CKA_EC_PARAMS); 0 unknown. */
static uint32_t tr_curve_bits(const unsigned char *p, CK_ULONG n)
{
    static const struct { unsigned char oid[12]; unsigned char len; uint32_t bits; } curves[] = {
        { { 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07 }, 10, 256 },  /* P-256 */
        { { 0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x22 }, 7, 384 },                     /* P-384 */
        { { 0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x23 }, 7, 521 },                     /* P-521 */
        { { 0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x0a }, 7, 256 },                     /* secp256k1 */
        { { 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x01 }, 10, 192 },  /* P-192 */
        { { 0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x21 }, 7, 224 },                     /* P-224 */
        { { 0x06, 0x03, 0x2b, 0x65, 0x70 }, 5, 255 },                                 /* Ed25519 */
        { { 0x06, 0x03, 0x2b, 0x65, 0x71 }, 5, 448 },                                 /* Ed448 */
        { { 0x06, 0x03, 0x2b, 0x65, 0x6e }, 5, 255 },                                 /* X25519 */
        { { 0x06, 0x03, 0x2b, 0x65, 0x6f }, 5, 448 },                                 /* X448 */
    };
    for (size_t i = 0; i < sizeof curves / sizeof curves[0]; i++)
        if (n == curves[i].len && memcmp(p, curves[i].oid, n) == 0)
            return curves[i].bits;
    /* a printable curve name (Edwards keys in PKCS#11 3.0 may be given so) */
    if (n > 2 && p[0] == 0x13) {
        if (n >= 9 && memcmp(p + 2, "edwards25519", n - 2 < 12 ? n - 2 : 12) == 0)
            return 255;
        if (n >= 7 && memcmp(p + 2, "edwards448", n - 2 < 10 ? n - 2 : 10) == 0)
            return 448;
    }
    return 0;
}

/* Read a key's type and size from the key itself (public attributes only). */
static void tr_read_key(CK_SESSION_HANDLE s, CK_OBJECT_HANDLE h, tr_keyinfo *k)
{
    k->known = 0;
    if (tr.real.C_GetAttributeValue == NULL)
        return;
    CK_KEY_TYPE kt;
    CK_ATTRIBUTE a = { CKA_KEY_TYPE, &kt, sizeof kt };
    if (tr.real.C_GetAttributeValue(s, h, &a, 1) != CKR_OK || a.ulValueLen != sizeof kt)
        return;
    k->type = kt;
    k->bits = 0;
    k->known = 1;
    if (kt == CKK_RSA) {
        CK_ULONG bits = 0;
        CK_ATTRIBUTE b = { CKA_MODULUS_BITS, &bits, sizeof bits };
        if (tr.real.C_GetAttributeValue(s, h, &b, 1) == CKR_OK && b.ulValueLen == sizeof bits) {
            k->bits = (uint32_t)bits;
        } else {
            CK_ATTRIBUTE m = { CKA_MODULUS, NULL, 0 };   /* a private key: the length alone */
            if (tr.real.C_GetAttributeValue(s, h, &m, 1) == CKR_OK && m.ulValueLen != (CK_ULONG)-1)
                k->bits = (uint32_t)(m.ulValueLen * 8);
        }
    } else if (kt == CKK_EC || kt == CKK_EC_EDWARDS || kt == 0x41 /* CKK_EC_MONTGOMERY */) {
        unsigned char params[64];
        CK_ATTRIBUTE e = { CKA_EC_PARAMS, params, sizeof params };
        if (tr.real.C_GetAttributeValue(s, h, &e, 1) == CKR_OK && e.ulValueLen <= sizeof params)
            k->bits = tr_curve_bits(params, e.ulValueLen);
    } else {
        CK_ULONG len = 0;
        CK_ATTRIBUTE v = { CKA_VALUE_LEN, &len, sizeof len };
        if (tr.real.C_GetAttributeValue(s, h, &v, 1) == CKR_OK && v.ulValueLen == sizeof len)
            k->bits = (uint32_t)(len * 8);
    }
}

/* The facts of key h, read once per handle. */
static void tr_key_facts(CK_SESSION_HANDLE s, CK_OBJECT_HANDLE h, tr_keyinfo *k)
{
    tr_keyfacts *e = tr_key_of(h);
    pthread_mutex_t *mu = tr_stripe(h);
    pthread_mutex_lock(mu);
    int hit = e->handle == h;
    if (hit) {
        k->type = e->type;
        k->bits = e->bits;
        k->known = e->type != HSMBENCH_TRACE_NONE;
    }
    pthread_mutex_unlock(mu);
    if (hit)
        return;
    tr_read_key(s, h, k);
    pthread_mutex_lock(mu);
    e->handle = h;
    e->type = k->known ? k->type : HSMBENCH_TRACE_NONE;
    e->bits = k->bits;
    pthread_mutex_unlock(mu);
}

/* A handle the module may give again to another object. */
static void tr_key_forget(CK_OBJECT_HANDLE h)
{
    tr_keyfacts *e = tr_key_of(h);
    pthread_mutex_t *mu = tr_stripe(h);
    pthread_mutex_lock(mu);
    if (e->handle == h)
        e->handle = HSMBENCH_TRACE_NONE;
    pthread_mutex_unlock(mu);
}

/* Note session s's operation of kind op (an Init that succeeded). */
static void tr_op_set(CK_SESSION_HANDLE s, enum tr_op op, uint64_t mech, uint64_t key,
                      const tr_keyinfo *k)
{
    tr_sess *e = tr_sess_of(s);
    pthread_mutex_t *mu = tr_stripe(s);
    pthread_mutex_lock(mu);
    if (e->handle != s) {
        memset(e, 0, sizeof *e);
        for (int i = 0; i < TR_NOPS; i++)
            e->op[i].mech = e->op[i].key = HSMBENCH_TRACE_NONE;
        e->handle = s;
    }
    e->op[op].mech = mech;
    e->op[op].key = key;
    e->op[op].key_known = (uint16_t)(k && k->known);
    e->op[op].key_type = k && k->known ? k->type : HSMBENCH_TRACE_NONE;
    e->op[op].key_bits = k && k->known ? k->bits : 0;
    pthread_mutex_unlock(mu);
}

/* Session s's operation of kind op, as its Init left it. */
static void tr_op_get(CK_SESSION_HANDLE s, enum tr_op op, uint64_t *mech, uint64_t *key,
                      tr_keyinfo *k)
{
    tr_sess *e = tr_sess_of(s);
    pthread_mutex_t *mu = tr_stripe(s);
    *mech = *key = HSMBENCH_TRACE_NONE;
    k->known = 0;
    pthread_mutex_lock(mu);
    if (e->handle == s) {
        *mech = e->op[op].mech;
        *key = e->op[op].key;
        k->known = e->op[op].key_known;
        k->type = e->op[op].key_type;
        k->bits = e->op[op].key_bits;
    }
    pthread_mutex_unlock(mu);
}

static void tr_sess_forget(CK_SESSION_HANDLE s)
{
    tr_sess *e = tr_sess_of(s);
    pthread_mutex_t *mu = tr_stripe(s);
    pthread_mutex_lock(mu);
    if (e->handle == s)
        e->handle = HSMBENCH_TRACE_NONE;
    pthread_mutex_unlock(mu);
}

/* ---- loading the real module and opening the file ------------------------------------ */

/* name = value lines of a small config file; '#' starts a comment. */
static void tr_config(const char *path, char *module, size_t mlen, char *file, size_t flen)
{
    FILE *f = fopen(path, "re");
    if (f == NULL)
        return;
    char line[HSMBENCH_TRACE_PATH_MAX + 64];
    while (fgets(line, sizeof line, f)) {
        char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '#' || *p == '\n' || *p == '\0')
            continue;
        char *eq = strchr(p, '=');
        if (eq == NULL)
            continue;
        char *k_end = eq;
        while (k_end > p && (k_end[-1] == ' ' || k_end[-1] == '\t'))
            k_end--;
        char *v = eq + 1;
        while (*v == ' ' || *v == '\t')
            v++;
        size_t vl = strcspn(v, "\r\n");
        while (vl > 0 && (v[vl - 1] == ' ' || v[vl - 1] == '\t'))
            vl--;
        v[vl] = '\0';
        size_t kl = (size_t)(k_end - p);
        if (kl == 6 && strncmp(p, "module", 6) == 0 && module[0] == '\0')
            snprintf(module, mlen, "%s", v);
        else if (kl == 4 && strncmp(p, "file", 4) == 0 && file[0] == '\0')
            snprintf(file, flen, "%s", v);
    }
    fclose(f);
}

/* The output name with %p as the process id and %% as %. */
static int tr_expand(const char *pattern, char *out, size_t len)
{
    size_t o = 0;
    for (const char *p = pattern; *p; p++) {
        char tmp[24];
        const char *add = tmp;
        if (p[0] == '%' && p[1] == 'p') {
            snprintf(tmp, sizeof tmp, "%ld", (long)getpid());
            p++;
        } else if (p[0] == '%' && p[1] == '%') {
            tmp[0] = '%', tmp[1] = '\0';
            p++;
        } else {
            tmp[0] = *p, tmp[1] = '\0';
        }
        size_t n = strlen(add);
        if (o + n >= len)
            return -1;
        memcpy(out + o, add, n);
        o += n;
    }
    out[o] = '\0';
    return 0;
}

/* Make the file, or add to a recording already there; never write over
 * anything else. */
static int tr_open_file(const char *module)
{
    int fd = open(tr.file, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    int made = fd >= 0;
    if (fd < 0 && errno == EEXIST)
        fd = open(tr.file, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) {
        tr_warn("cannot make the recording", strerror(errno));
        return -1;
    }
    if (made && posix_fallocate(fd, 0, HSMBENCH_TRACE_HEADER_SIZE) != 0) {
        tr_warn("cannot write the recording", tr.file);
        goto fail;
    }
    void *p = mmap(NULL, HSMBENCH_TRACE_HEADER_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        tr_warn("cannot map the recording", strerror(errno));
        goto fail;
    }
    hsmbench_trace_header *h = p;
    if (!made) {
        /* A recording: this process's own (a module loaded again) or
         * another's, of an earlier run or one starting beside it (given a
         * moment to write its header): added to, its chunks claimed through
         * the same shared counter.  Anything else is never written to. */
        for (int i = 0; i < 50 && memcmp(h->magic, HSMBENCH_TRACE_MAGIC, 8) != 0; i++) {
            struct timespec ms = { 0, 10000000 };
            nanosleep(&ms, NULL);
        }
        if (memcmp(h->magic, HSMBENCH_TRACE_MAGIC, 8) != 0 ||
            h->version != HSMBENCH_TRACE_VERSION || h->chunk_size != HSMBENCH_TRACE_CHUNK_SIZE ||
            h->record_size != sizeof(hsmbench_trace_record)) {
            (void)munmap(p, HSMBENCH_TRACE_HEADER_SIZE);
            fprintf(stderr, "hsmbench-trace: %s exists and is not a recording of this recorder: "
                    "it is never written over (HSMBENCH_TRACE_FILE may hold %%p, the process id)\n",
                    tr.file);
            goto fail;
        }
    } else {
        struct timespec rt;
        clock_gettime(CLOCK_REALTIME, &rt);
        h->version = HSMBENCH_TRACE_VERSION;
        h->byte_order = HSMBENCH_TRACE_BYTE_ORDER;
        h->header_size = HSMBENCH_TRACE_HEADER_SIZE;
        h->chunk_size = HSMBENCH_TRACE_CHUNK_SIZE;
        h->record_size = sizeof(hsmbench_trace_record);
        h->chunk_header_size = sizeof(hsmbench_trace_chunk);
        h->mono_start_ns = tr_now();
        h->real_start_ns = (uint64_t)rt.tv_sec * 1000000000ull + (uint64_t)rt.tv_nsec;
        h->pid = (uint32_t)getpid();
        h->real_version = (uint32_t)tr.real_fl_version.major << 8 | tr.real_fl_version.minor;
        snprintf(h->module, sizeof h->module, "%s", module);
        memcpy(h->magic, HSMBENCH_TRACE_MAGIC, 8);   /* last: a file with it is whole */
    }
    tr.fd = fd;
    tr.hdr = h;
    return 0;
fail:
    close(fd);
    if (made)
        (void)unlink(tr.file);
    return -1;
}

static void tr_build_lists(void);

static void tr_load(void)
{
    char module[HSMBENCH_TRACE_PATH_MAX] = "", pattern[HSMBENCH_TRACE_PATH_MAX] = "";
    const char *env = getenv("HSMBENCH_TRACE_MODULE");
    if (env)
        snprintf(module, sizeof module, "%s", env);
    env = getenv("HSMBENCH_TRACE_FILE");
    if (env)
        snprintf(pattern, sizeof pattern, "%s", env);
    const char *conf = getenv("HSMBENCH_TRACE_CONFIG");
    if (conf) {
        tr_config(conf, module, sizeof module, pattern, sizeof pattern);
    } else {
        char user[HSMBENCH_TRACE_PATH_MAX];
        const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
        if (xdg && *xdg)
            snprintf(user, sizeof user, "%s/hsmbench/trace.conf", xdg);
        else
            snprintf(user, sizeof user, "%s/.config/hsmbench/trace.conf", home ? home : "");
        if (xdg || home)
            tr_config(user, module, sizeof module, pattern, sizeof pattern);
        tr_config("/etc/hsmbench/trace.conf", module, sizeof module, pattern, sizeof pattern);
    }
    tr.fd = -1;
    tr.load_rv = CKR_GENERAL_ERROR;
    for (unsigned i = 0; i < TR_STRIPES; i++)
        pthread_mutex_init(&tr.stripe[i], NULL);
    for (unsigned i = 0; i < TR_SESS_SLOTS; i++)
        tr.sess[i].handle = HSMBENCH_TRACE_NONE;
    for (unsigned i = 0; i < TR_KEY_SLOTS; i++)
        tr.keys[i].handle = HSMBENCH_TRACE_NONE;
    if (module[0] == '\0') {
        tr_warn("no module to trace: set HSMBENCH_TRACE_MODULE (or module = in "
                "HSMBENCH_TRACE_CONFIG, ~/.config/hsmbench/trace.conf, /etc/hsmbench/trace.conf)",
                NULL);
        return;
    }
    /* A bare name of a module installed beside the recorder (hsmbench-mock,
     * hsmbench-null), as hsmbench's --module takes it; anything else as
     * dlopen finds it. */
    if (strchr(module, '/') == NULL) {
        Dl_info self;
        char beside[HSMBENCH_TRACE_PATH_MAX];
        const char *slash;
        if (dladdr((void *)tr_load, &self) && self.dli_fname &&
            (slash = strrchr(self.dli_fname, '/')) != NULL &&
            snprintf(beside, sizeof beside, "%.*s/lib%s.so", (int)(slash - self.dli_fname),
                     self.dli_fname, module) < (int)sizeof beside &&
            access(beside, R_OK) == 0)
            snprintf(module, sizeof module, "%s", beside);
    }
    tr.lib = dlopen(module, RTLD_NOW | RTLD_LOCAL);
    if (tr.lib == NULL) {
        fprintf(stderr, "hsmbench-trace: cannot load the module to trace (%s): %s\n", module,
                dlerror());
        return;
    }
    CK_C_GetInterface get_iface = (CK_C_GetInterface)dlsym(tr.lib, "C_GetInterface");
    CK_C_GetFunctionList get_list = (CK_C_GetFunctionList)dlsym(tr.lib, "C_GetFunctionList");
    CK_INTERFACE_PTR it = NULL;
    CK_VERSION v32 = { 3, 2 };
    memset(&tr.real, 0, sizeof tr.real);
    if (get_iface && get_iface(tr_iface_name, &v32, &it, 0) == CKR_OK && it && it->pFunctionList) {
        tr.real = *(const CK_FUNCTION_LIST_3_2 *)it->pFunctionList;
    } else if (get_iface && get_iface(tr_iface_name, NULL, &it, 0) == CKR_OK && it &&
               it->pFunctionList && ((const CK_VERSION *)it->pFunctionList)->major >= 3) {
        memcpy(&tr.real, it->pFunctionList, sizeof(CK_FUNCTION_LIST_3_0));
    }
    CK_FUNCTION_LIST_PTR fl = NULL;
    if (get_list && get_list(&fl) == CKR_OK && fl) {
        tr.real_fl_version = fl->version;
        if (tr.real.C_Initialize == NULL)
            memcpy(&tr.real, fl, sizeof *fl);
    } else {
        tr.real_fl_version = tr.real.version;
    }
    if (tr.real.C_Initialize == NULL) {
        fprintf(stderr, "hsmbench-trace: %s gives no PKCS#11 function list\n", module);
        return;
    }
    if (pattern[0] == '\0')
        snprintf(pattern, sizeof pattern, "hsmbench-%%p.trace");
    if (tr_expand(pattern, tr.file, sizeof tr.file) != 0) {
        tr_warn("the recording's name is too long", NULL);
        return;
    }
    if (tr_open_file(module) != 0)
        return;
    tr.tls_key_ok = pthread_key_create(&tr.tls_key, tr_thread_exit) == 0;
    (void)pthread_atfork(NULL, NULL, tr_atfork_child);
    tr_build_lists();
    tr.load_rv = CKR_OK;
}

__attribute__((destructor)) static void tr_unload(void)
{
    /* A thread that outlives this copy of the module must not run a
     * destructor in unmapped code; its chunk stays mapped (what it holds is
     * in the file already). */
    if (tr.tls_key_ok)
        (void)pthread_key_delete(tr.tls_key);
    tr.tls_key_ok = 0;
}

/* ---- the wrappers --------------------------------------------------------------------- */

#define N HSMBENCH_TRACE_NONE
#define FN(name) HSMBENCH_TRACE_FN_##name
#define REAL(name, ...) \
    (tr.real.C_##name ? tr.real.C_##name(__VA_ARGS__) : CKR_FUNCTION_NOT_SUPPORTED)
#define MECH(p) ((p) ? (uint64_t)(p)->mechanism : N)

/* A call that names no session, key or operation. */
#define TR_PLAIN(name, session, flags, in, out_len, ...) \
    do { \
        hsmbench_trace_record *r_ = tr_enter(FN(name), (session), N, N, (in), (flags), NULL); \
        CK_RV rv_ = REAL(name, __VA_ARGS__); \
        tr_leave(r_, rv_, (out_len)); \
        return rv_; \
    } while (0)

/* An Init: the mechanism and the key from the call, noted for the session. */
#define TR_INIT(name, op, s, pMech, hKey, in, ...) \
    do { \
        tr_keyinfo k_ = { 0, 0, 0 }; \
        if ((uint64_t)(hKey) != N) \
            tr_key_facts((s), (hKey), &k_); \
        hsmbench_trace_record *r_ = tr_enter(FN(name), (s), MECH(pMech), (hKey), (in), 0, &k_); \
        CK_RV rv_ = REAL(name, __VA_ARGS__); \
        tr_leave(r_, rv_, NULL); \
        if (rv_ == CKR_OK) \
            tr_op_set((s), (op), MECH(pMech), (hKey), &k_); \
        return rv_; \
    } while (0)

/* A call of the session's operation of kind op: its mechanism and key from the Init. */
#define TR_OP(name, op, s, in, out, out_len, ...) \
    do { \
        uint64_t m_, key_; \
        tr_keyinfo k_; \
        tr_op_get((s), (op), &m_, &key_, &k_); \
        hsmbench_trace_record *r_ = tr_enter(FN(name), (s), m_, key_, (in), \
                                             (out) ? 0 : HSMBENCH_TRACE_F_SIZE_QUERY, &k_); \
        CK_RV rv_ = REAL(name, __VA_ARGS__); \
        tr_leave(r_, rv_, (out_len)); \
        return rv_; \
    } while (0)

static CK_RV tr_Initialize(CK_VOID_PTR a)
{
    TR_PLAIN(Initialize, N, 0, 0, NULL, a);
}

static CK_RV tr_Finalize(CK_VOID_PTR a)
{
    TR_PLAIN(Finalize, N, 0, 0, NULL, a);
}

static CK_RV tr_GetInfo(CK_INFO_PTR p)
{
    TR_PLAIN(GetInfo, N, 0, 0, NULL, p);
}

static CK_RV tr_GetSlotList(CK_BBOOL present, CK_SLOT_ID_PTR list, CK_ULONG_PTR n)
{
    TR_PLAIN(GetSlotList, N, list ? 0 : HSMBENCH_TRACE_F_SIZE_QUERY, 0, n, present, list, n);
}

static CK_RV tr_GetSlotInfo(CK_SLOT_ID slot, CK_SLOT_INFO_PTR p)
{
    TR_PLAIN(GetSlotInfo, slot, HSMBENCH_TRACE_F_SLOT, 0, NULL, slot, p);
}

static CK_RV tr_GetTokenInfo(CK_SLOT_ID slot, CK_TOKEN_INFO_PTR p)
{
    TR_PLAIN(GetTokenInfo, slot, HSMBENCH_TRACE_F_SLOT, 0, NULL, slot, p);
}

static CK_RV tr_GetMechanismList(CK_SLOT_ID slot, CK_MECHANISM_TYPE_PTR list, CK_ULONG_PTR n)
{
    TR_PLAIN(GetMechanismList, slot,
             HSMBENCH_TRACE_F_SLOT | (list ? 0 : HSMBENCH_TRACE_F_SIZE_QUERY), 0, n, slot, list, n);
}

static CK_RV tr_GetMechanismInfo(CK_SLOT_ID slot, CK_MECHANISM_TYPE type, CK_MECHANISM_INFO_PTR p)
{
    hsmbench_trace_record *r = tr_enter(FN(GetMechanismInfo), slot, type, N, 0,
                                        HSMBENCH_TRACE_F_SLOT, NULL);
    CK_RV rv = REAL(GetMechanismInfo, slot, type, p);
    tr_leave(r, rv, NULL);
    return rv;
}

/* PINs and labels are never recorded, nor their lengths. */
static CK_RV tr_InitToken(CK_SLOT_ID slot, CK_UTF8CHAR_PTR pin, CK_ULONG pinlen, CK_UTF8CHAR_PTR label)
{
    TR_PLAIN(InitToken, slot, HSMBENCH_TRACE_F_SLOT, 0, NULL, slot, pin, pinlen, label);
}

static CK_RV tr_InitPIN(CK_SESSION_HANDLE s, CK_UTF8CHAR_PTR pin, CK_ULONG len)
{
    TR_PLAIN(InitPIN, s, 0, 0, NULL, s, pin, len);
}

static CK_RV tr_SetPIN(CK_SESSION_HANDLE s, CK_UTF8CHAR_PTR o, CK_ULONG ol, CK_UTF8CHAR_PTR n,
                       CK_ULONG nl)
{
    TR_PLAIN(SetPIN, s, 0, 0, NULL, s, o, ol, n, nl);
}

static CK_RV tr_OpenSession(CK_SLOT_ID slot, CK_FLAGS flags, CK_VOID_PTR app, CK_NOTIFY notify,
                            CK_SESSION_HANDLE_PTR ph)
{
    hsmbench_trace_record *r = tr_enter(FN(OpenSession), slot, N, N, flags, HSMBENCH_TRACE_F_SLOT,
                                        NULL);
    CK_RV rv = REAL(OpenSession, slot, flags, app, notify, ph);
    if (rv == CKR_OK && ph) {
        r->object = *ph;
        tr_sess_forget(*ph);
    }
    tr_leave(r, rv, NULL);
    return rv;
}

static CK_RV tr_CloseSession(CK_SESSION_HANDLE s)
{
    hsmbench_trace_record *r = tr_enter(FN(CloseSession), s, N, N, 0, 0, NULL);
    CK_RV rv = REAL(CloseSession, s);
    tr_leave(r, rv, NULL);
    tr_sess_forget(s);
    return rv;
}

static CK_RV tr_CloseAllSessions(CK_SLOT_ID slot)
{
    TR_PLAIN(CloseAllSessions, slot, HSMBENCH_TRACE_F_SLOT, 0, NULL, slot);
}

static CK_RV tr_GetSessionInfo(CK_SESSION_HANDLE s, CK_SESSION_INFO_PTR p)
{
    TR_PLAIN(GetSessionInfo, s, 0, 0, NULL, s, p);
}

static CK_RV tr_GetOperationState(CK_SESSION_HANDLE s, CK_BYTE_PTR st, CK_ULONG_PTR n)
{
    TR_PLAIN(GetOperationState, s, st ? 0 : HSMBENCH_TRACE_F_SIZE_QUERY, 0, n, s, st, n);
}

static CK_RV tr_SetOperationState(CK_SESSION_HANDLE s, CK_BYTE_PTR st, CK_ULONG n,
                                  CK_OBJECT_HANDLE ek, CK_OBJECT_HANDLE ak)
{
    TR_PLAIN(SetOperationState, s, 0, n, NULL, s, st, n, ek, ak);
}

static CK_RV tr_Login(CK_SESSION_HANDLE s, CK_USER_TYPE u, CK_UTF8CHAR_PTR pin, CK_ULONG len)
{
    TR_PLAIN(Login, s, 0, 0, NULL, s, u, pin, len);
}

static CK_RV tr_Logout(CK_SESSION_HANDLE s)
{
    TR_PLAIN(Logout, s, 0, 0, NULL, s);
}

/* Object calls: in_len is the number of attributes in the template. */
static CK_RV tr_CreateObject(CK_SESSION_HANDLE s, CK_ATTRIBUTE_PTR t, CK_ULONG n,
                             CK_OBJECT_HANDLE_PTR ph)
{
    hsmbench_trace_record *r = tr_enter(FN(CreateObject), s, N, N, n, 0, NULL);
    CK_RV rv = REAL(CreateObject, s, t, n, ph);
    if (rv == CKR_OK && ph) {
        r->object = *ph;
        tr_key_forget(*ph);
    }
    tr_leave(r, rv, NULL);
    return rv;
}

static CK_RV tr_CopyObject(CK_SESSION_HANDLE s, CK_OBJECT_HANDLE h, CK_ATTRIBUTE_PTR t, CK_ULONG n,
                           CK_OBJECT_HANDLE_PTR ph)
{
    hsmbench_trace_record *r = tr_enter(FN(CopyObject), s, N, h, n, 0, NULL);
    CK_RV rv = REAL(CopyObject, s, h, t, n, ph);
    if (rv == CKR_OK && ph)
        tr_key_forget(*ph);
    tr_leave(r, rv, NULL);
    return rv;
}

static CK_RV tr_DestroyObject(CK_SESSION_HANDLE s, CK_OBJECT_HANDLE h)
{
    tr_keyinfo k = { 0, 0, 0 };
    tr_key_facts(s, h, &k);
    hsmbench_trace_record *r = tr_enter(FN(DestroyObject), s, N, h, 0, 0, &k);
    CK_RV rv = REAL(DestroyObject, s, h);
    tr_leave(r, rv, NULL);
    if (rv == CKR_OK)
        tr_key_forget(h);
    return rv;
}

static CK_RV tr_GetObjectSize(CK_SESSION_HANDLE s, CK_OBJECT_HANDLE h, CK_ULONG_PTR n)
{
    hsmbench_trace_record *r = tr_enter(FN(GetObjectSize), s, N, h, 0, 0, NULL);
    CK_RV rv = REAL(GetObjectSize, s, h, n);
    tr_leave(r, rv, n);
    return rv;
}

static CK_RV tr_GetAttributeValue(CK_SESSION_HANDLE s, CK_OBJECT_HANDLE h, CK_ATTRIBUTE_PTR t,
                                  CK_ULONG n)
{
    hsmbench_trace_record *r = tr_enter(FN(GetAttributeValue), s, N, h, n, 0, NULL);
    CK_RV rv = REAL(GetAttributeValue, s, h, t, n);
    tr_leave(r, rv, NULL);
    return rv;
}

static CK_RV tr_SetAttributeValue(CK_SESSION_HANDLE s, CK_OBJECT_HANDLE h, CK_ATTRIBUTE_PTR t,
                                  CK_ULONG n)
{
    hsmbench_trace_record *r = tr_enter(FN(SetAttributeValue), s, N, h, n, 0, NULL);
    CK_RV rv = REAL(SetAttributeValue, s, h, t, n);
    tr_leave(r, rv, NULL);
    if (rv == CKR_OK)
        tr_key_forget(h);
    return rv;
}

static CK_RV tr_FindObjectsInit(CK_SESSION_HANDLE s, CK_ATTRIBUTE_PTR t, CK_ULONG n)
{
    TR_PLAIN(FindObjectsInit, s, 0, n, NULL, s, t, n);
}

/* in_len: the most asked for; out_len: how many were found. */
static CK_RV tr_FindObjects(CK_SESSION_HANDLE s, CK_OBJECT_HANDLE_PTR ph, CK_ULONG max,
                            CK_ULONG_PTR n)
{
    TR_PLAIN(FindObjects, s, 0, max, n, s, ph, max, n);
}

static CK_RV tr_FindObjectsFinal(CK_SESSION_HANDLE s)
{
    TR_PLAIN(FindObjectsFinal, s, 0, 0, NULL, s);
}

static CK_RV tr_EncryptInit(CK_SESSION_HANDLE s, CK_MECHANISM_PTR m, CK_OBJECT_HANDLE k)
{
    TR_INIT(EncryptInit, TR_ENC, s, m, k, 0, s, m, k);
}

static CK_RV tr_DecryptInit(CK_SESSION_HANDLE s, CK_MECHANISM_PTR m, CK_OBJECT_HANDLE k)
{
    TR_INIT(DecryptInit, TR_DEC, s, m, k, 0, s, m, k);
}

static CK_RV tr_SignInit(CK_SESSION_HANDLE s, CK_MECHANISM_PTR m, CK_OBJECT_HANDLE k)
{
    TR_INIT(SignInit, TR_SIGN, s, m, k, 0, s, m, k);
}

static CK_RV tr_SignRecoverInit(CK_SESSION_HANDLE s, CK_MECHANISM_PTR m, CK_OBJECT_HANDLE k)
{
    TR_INIT(SignRecoverInit, TR_SIGNREC, s, m, k, 0, s, m, k);
}

static CK_RV tr_VerifyInit(CK_SESSION_HANDLE s, CK_MECHANISM_PTR m, CK_OBJECT_HANDLE k)
{
    TR_INIT(VerifyInit, TR_VER, s, m, k, 0, s, m, k);
}

static CK_RV tr_VerifyRecoverInit(CK_SESSION_HANDLE s, CK_MECHANISM_PTR m, CK_OBJECT_HANDLE k)
{
    TR_INIT(VerifyRecoverInit, TR_VERREC, s, m, k, 0, s, m, k);
}

static CK_RV tr_MessageEncryptInit(CK_SESSION_HANDLE s, CK_MECHANISM_PTR m, CK_OBJECT_HANDLE k)
{
    TR_INIT(MessageEncryptInit, TR_MENC, s, m, k, 0, s, m, k);
}

static CK_RV tr_MessageDecryptInit(CK_SESSION_HANDLE s, CK_MECHANISM_PTR m, CK_OBJECT_HANDLE k)
{
    TR_INIT(MessageDecryptInit, TR_MDEC, s, m, k, 0, s, m, k);
}

static CK_RV tr_MessageSignInit(CK_SESSION_HANDLE s, CK_MECHANISM_PTR m, CK_OBJECT_HANDLE k)
{
    TR_INIT(MessageSignInit, TR_MSIGN, s, m, k, 0, s, m, k);
}

static CK_RV tr_MessageVerifyInit(CK_SESSION_HANDLE s, CK_MECHANISM_PTR m, CK_OBJECT_HANDLE k)
{
    TR_INIT(MessageVerifyInit, TR_MVER, s, m, k, 0, s, m, k);
}

static CK_RV tr_DigestInit(CK_SESSION_HANDLE s, CK_MECHANISM_PTR m)
{
    TR_INIT(DigestInit, TR_DIG, s, m, N, 0, s, m);
}

static CK_RV tr_VerifySignatureInit(CK_SESSION_HANDLE s, CK_MECHANISM_PTR m, CK_OBJECT_HANDLE k,
                                    CK_BYTE_PTR sig, CK_ULONG siglen)
{
    TR_INIT(VerifySignatureInit, TR_VERSIG, s, m, k, siglen, s, m, k, sig, siglen);
}

/* Single and multi-part calls: in_len the data given, out_len what came back. */
static CK_RV tr_Encrypt(CK_SESSION_HANDLE s, CK_BYTE_PTR in, CK_ULONG inl, CK_BYTE_PTR out,
                        CK_ULONG_PTR outl)
{
    TR_OP(Encrypt, TR_ENC, s, inl, out, outl, s, in, inl, out, outl);
}

static CK_RV tr_EncryptUpdate(CK_SESSION_HANDLE s, CK_BYTE_PTR in, CK_ULONG inl, CK_BYTE_PTR out,
                              CK_ULONG_PTR outl)
{
    TR_OP(EncryptUpdate, TR_ENC, s, inl, out, outl, s, in, inl, out, outl);
}

static CK_RV tr_EncryptFinal(CK_SESSION_HANDLE s, CK_BYTE_PTR out, CK_ULONG_PTR outl)
{
    TR_OP(EncryptFinal, TR_ENC, s, 0, out, outl, s, out, outl);
}

static CK_RV tr_Decrypt(CK_SESSION_HANDLE s, CK_BYTE_PTR in, CK_ULONG inl, CK_BYTE_PTR out,
                        CK_ULONG_PTR outl)
{
    TR_OP(Decrypt, TR_DEC, s, inl, out, outl, s, in, inl, out, outl);
}

static CK_RV tr_DecryptUpdate(CK_SESSION_HANDLE s, CK_BYTE_PTR in, CK_ULONG inl, CK_BYTE_PTR out,
                              CK_ULONG_PTR outl)
{
    TR_OP(DecryptUpdate, TR_DEC, s, inl, out, outl, s, in, inl, out, outl);
}

static CK_RV tr_DecryptFinal(CK_SESSION_HANDLE s, CK_BYTE_PTR out, CK_ULONG_PTR outl)
{
    TR_OP(DecryptFinal, TR_DEC, s, 0, out, outl, s, out, outl);
}

static CK_RV tr_Digest(CK_SESSION_HANDLE s, CK_BYTE_PTR in, CK_ULONG inl, CK_BYTE_PTR out,
                       CK_ULONG_PTR outl)
{
    TR_OP(Digest, TR_DIG, s, inl, out, outl, s, in, inl, out, outl);
}

static CK_RV tr_DigestUpdate(CK_SESSION_HANDLE s, CK_BYTE_PTR in, CK_ULONG inl)
{
    TR_OP(DigestUpdate, TR_DIG, s, inl, 1, NULL, s, in, inl);
}

static CK_RV tr_DigestKey(CK_SESSION_HANDLE s, CK_OBJECT_HANDLE k)
{
    TR_OP(DigestKey, TR_DIG, s, 0, 1, NULL, s, k);
}

static CK_RV tr_DigestFinal(CK_SESSION_HANDLE s, CK_BYTE_PTR out, CK_ULONG_PTR outl)
{
    TR_OP(DigestFinal, TR_DIG, s, 0, out, outl, s, out, outl);
}

static CK_RV tr_Sign(CK_SESSION_HANDLE s, CK_BYTE_PTR in, CK_ULONG inl, CK_BYTE_PTR out,
                     CK_ULONG_PTR outl)
{
    TR_OP(Sign, TR_SIGN, s, inl, out, outl, s, in, inl, out, outl);
}

static CK_RV tr_SignUpdate(CK_SESSION_HANDLE s, CK_BYTE_PTR in, CK_ULONG inl)
{
    TR_OP(SignUpdate, TR_SIGN, s, inl, 1, NULL, s, in, inl);
}

static CK_RV tr_SignFinal(CK_SESSION_HANDLE s, CK_BYTE_PTR out, CK_ULONG_PTR outl)
{
    TR_OP(SignFinal, TR_SIGN, s, 0, out, outl, s, out, outl);
}

static CK_RV tr_SignRecover(CK_SESSION_HANDLE s, CK_BYTE_PTR in, CK_ULONG inl, CK_BYTE_PTR out,
                            CK_ULONG_PTR outl)
{
    TR_OP(SignRecover, TR_SIGNREC, s, inl, out, outl, s, in, inl, out, outl);
}

static CK_RV tr_Verify(CK_SESSION_HANDLE s, CK_BYTE_PTR in, CK_ULONG inl, CK_BYTE_PTR sig,
                       CK_ULONG sigl)
{
    TR_OP(Verify, TR_VER, s, inl, 1, NULL, s, in, inl, sig, sigl);
}

static CK_RV tr_VerifyUpdate(CK_SESSION_HANDLE s, CK_BYTE_PTR in, CK_ULONG inl)
{
    TR_OP(VerifyUpdate, TR_VER, s, inl, 1, NULL, s, in, inl);
}

static CK_RV tr_VerifyFinal(CK_SESSION_HANDLE s, CK_BYTE_PTR sig, CK_ULONG sigl)
{
    TR_OP(VerifyFinal, TR_VER, s, sigl, 1, NULL, s, sig, sigl);
}

static CK_RV tr_VerifyRecover(CK_SESSION_HANDLE s, CK_BYTE_PTR sig, CK_ULONG sigl, CK_BYTE_PTR out,
                              CK_ULONG_PTR outl)
{
    TR_OP(VerifyRecover, TR_VERREC, s, sigl, out, outl, s, sig, sigl, out, outl);
}

/* The dual-function calls are noted under their encrypting or decrypting side. */
static CK_RV tr_DigestEncryptUpdate(CK_SESSION_HANDLE s, CK_BYTE_PTR in, CK_ULONG inl,
                                    CK_BYTE_PTR out, CK_ULONG_PTR outl)
{
    TR_OP(DigestEncryptUpdate, TR_ENC, s, inl, out, outl, s, in, inl, out, outl);
}

static CK_RV tr_DecryptDigestUpdate(CK_SESSION_HANDLE s, CK_BYTE_PTR in, CK_ULONG inl,
                                    CK_BYTE_PTR out, CK_ULONG_PTR outl)
{
    TR_OP(DecryptDigestUpdate, TR_DEC, s, inl, out, outl, s, in, inl, out, outl);
}

static CK_RV tr_SignEncryptUpdate(CK_SESSION_HANDLE s, CK_BYTE_PTR in, CK_ULONG inl,
                                  CK_BYTE_PTR out, CK_ULONG_PTR outl)
{
    TR_OP(SignEncryptUpdate, TR_ENC, s, inl, out, outl, s, in, inl, out, outl);
}

static CK_RV tr_DecryptVerifyUpdate(CK_SESSION_HANDLE s, CK_BYTE_PTR in, CK_ULONG inl,
                                    CK_BYTE_PTR out, CK_ULONG_PTR outl)
{
    TR_OP(DecryptVerifyUpdate, TR_DEC, s, inl, out, outl, s, in, inl, out, outl);
}

/* Key management: the mechanism from the call; the key made is read after
 * the call returned, outside its timed part. */
static CK_RV tr_GenerateKey(CK_SESSION_HANDLE s, CK_MECHANISM_PTR m, CK_ATTRIBUTE_PTR t, CK_ULONG n,
                            CK_OBJECT_HANDLE_PTR ph)
{
    hsmbench_trace_record *r = tr_enter(FN(GenerateKey), s, MECH(m), N, n, 0, NULL);
    CK_RV rv = REAL(GenerateKey, s, m, t, n, ph);
    tr_leave(r, rv, NULL);
    if (rv == CKR_OK && ph) {
        tr_keyinfo k;
        tr_key_forget(*ph);
        tr_key_facts(s, *ph, &k);
        r->object = *ph;
        r->key_type = k.known ? k.type : N;
        r->key_bits = k.known ? k.bits : 0;
        r->flags |= k.known ? HSMBENCH_TRACE_F_KEY : 0;
    }
    return rv;
}

static CK_RV tr_GenerateKeyPair(CK_SESSION_HANDLE s, CK_MECHANISM_PTR m, CK_ATTRIBUTE_PTR pt,
                                CK_ULONG pn, CK_ATTRIBUTE_PTR vt, CK_ULONG vn,
                                CK_OBJECT_HANDLE_PTR pub, CK_OBJECT_HANDLE_PTR priv)
{
    hsmbench_trace_record *r = tr_enter(FN(GenerateKeyPair), s, MECH(m), N, pn + vn, 0, NULL);
    CK_RV rv = REAL(GenerateKeyPair, s, m, pt, pn, vt, vn, pub, priv);
    tr_leave(r, rv, NULL);
    if (rv == CKR_OK && pub && priv) {
        tr_keyinfo k;
        tr_key_forget(*pub);
        tr_key_forget(*priv);
        tr_key_facts(s, *pub, &k);
        r->object = *priv;
        r->key_type = k.known ? k.type : N;
        r->key_bits = k.known ? k.bits : 0;
        r->flags |= k.known ? HSMBENCH_TRACE_F_KEY : 0;
    }
    return rv;
}

static CK_RV tr_WrapKey(CK_SESSION_HANDLE s, CK_MECHANISM_PTR m, CK_OBJECT_HANDLE wk,
                        CK_OBJECT_HANDLE k, CK_BYTE_PTR out, CK_ULONG_PTR outl)
{
    tr_keyinfo ki = { 0, 0, 0 };
    tr_key_facts(s, wk, &ki);
    hsmbench_trace_record *r = tr_enter(FN(WrapKey), s, MECH(m), wk, 0,
                                        out ? 0 : HSMBENCH_TRACE_F_SIZE_QUERY, &ki);
    CK_RV rv = REAL(WrapKey, s, m, wk, k, out, outl);
    tr_leave(r, rv, outl);
    return rv;
}

static CK_RV tr_UnwrapKey(CK_SESSION_HANDLE s, CK_MECHANISM_PTR m, CK_OBJECT_HANDLE uk,
                          CK_BYTE_PTR in, CK_ULONG inl, CK_ATTRIBUTE_PTR t, CK_ULONG n,
                          CK_OBJECT_HANDLE_PTR ph)
{
    tr_keyinfo ki = { 0, 0, 0 };
    tr_key_facts(s, uk, &ki);
    hsmbench_trace_record *r = tr_enter(FN(UnwrapKey), s, MECH(m), uk, inl, 0, &ki);
    CK_RV rv = REAL(UnwrapKey, s, m, uk, in, inl, t, n, ph);
    tr_leave(r, rv, NULL);
    if (rv == CKR_OK && ph)
        tr_key_forget(*ph);
    return rv;
}

static CK_RV tr_DeriveKey(CK_SESSION_HANDLE s, CK_MECHANISM_PTR m, CK_OBJECT_HANDLE bk,
                          CK_ATTRIBUTE_PTR t, CK_ULONG n, CK_OBJECT_HANDLE_PTR ph)
{
    tr_keyinfo ki = { 0, 0, 0 };
    tr_key_facts(s, bk, &ki);
    hsmbench_trace_record *r = tr_enter(FN(DeriveKey), s, MECH(m), bk, n, 0, &ki);
    CK_RV rv = REAL(DeriveKey, s, m, bk, t, n, ph);
    tr_leave(r, rv, NULL);
    if (rv == CKR_OK && ph)
        tr_key_forget(*ph);
    return rv;
}

static CK_RV tr_SeedRandom(CK_SESSION_HANDLE s, CK_BYTE_PTR p, CK_ULONG n)
{
    TR_PLAIN(SeedRandom, s, 0, n, NULL, s, p, n);
}

static CK_RV tr_GenerateRandom(CK_SESSION_HANDLE s, CK_BYTE_PTR p, CK_ULONG n)
{
    TR_PLAIN(GenerateRandom, s, 0, n, NULL, s, p, n);
}

static CK_RV tr_GetFunctionStatus(CK_SESSION_HANDLE s)
{
    TR_PLAIN(GetFunctionStatus, s, 0, 0, NULL, s);
}

static CK_RV tr_CancelFunction(CK_SESSION_HANDLE s)
{
    TR_PLAIN(CancelFunction, s, 0, 0, NULL, s);
}

static CK_RV tr_WaitForSlotEvent(CK_FLAGS f, CK_SLOT_ID_PTR slot, CK_VOID_PTR r)
{
    TR_PLAIN(WaitForSlotEvent, N, 0, 0, NULL, f, slot, r);
}

static CK_RV tr_LoginUser(CK_SESSION_HANDLE s, CK_USER_TYPE u, CK_UTF8CHAR_PTR pin, CK_ULONG pl,
                          CK_UTF8CHAR_PTR user, CK_ULONG ul)
{
    TR_PLAIN(LoginUser, s, 0, 0, NULL, s, u, pin, pl, user, ul);
}

static CK_RV tr_SessionCancel(CK_SESSION_HANDLE s, CK_FLAGS f)
{
    TR_PLAIN(SessionCancel, s, 0, 0, NULL, s, f);
}

/* Message-based calls (3.0). */
static CK_RV tr_EncryptMessage(CK_SESSION_HANDLE s, CK_VOID_PTR p, CK_ULONG pl, CK_BYTE_PTR ad,
                               CK_ULONG adl, CK_BYTE_PTR in, CK_ULONG inl, CK_BYTE_PTR out,
                               CK_ULONG_PTR outl)
{
    TR_OP(EncryptMessage, TR_MENC, s, inl, out, outl, s, p, pl, ad, adl, in, inl, out, outl);
}

static CK_RV tr_EncryptMessageBegin(CK_SESSION_HANDLE s, CK_VOID_PTR p, CK_ULONG pl, CK_BYTE_PTR ad,
                                    CK_ULONG adl)
{
    TR_OP(EncryptMessageBegin, TR_MENC, s, adl, 1, NULL, s, p, pl, ad, adl);
}

static CK_RV tr_EncryptMessageNext(CK_SESSION_HANDLE s, CK_VOID_PTR p, CK_ULONG pl, CK_BYTE_PTR in,
                                   CK_ULONG inl, CK_BYTE_PTR out, CK_ULONG_PTR outl, CK_FLAGS f)
{
    TR_OP(EncryptMessageNext, TR_MENC, s, inl, out, outl, s, p, pl, in, inl, out, outl, f);
}

static CK_RV tr_MessageEncryptFinal(CK_SESSION_HANDLE s)
{
    TR_OP(MessageEncryptFinal, TR_MENC, s, 0, 1, NULL, s);
}

static CK_RV tr_DecryptMessage(CK_SESSION_HANDLE s, CK_VOID_PTR p, CK_ULONG pl, CK_BYTE_PTR ad,
                               CK_ULONG adl, CK_BYTE_PTR in, CK_ULONG inl, CK_BYTE_PTR out,
                               CK_ULONG_PTR outl)
{
    TR_OP(DecryptMessage, TR_MDEC, s, inl, out, outl, s, p, pl, ad, adl, in, inl, out, outl);
}

static CK_RV tr_DecryptMessageBegin(CK_SESSION_HANDLE s, CK_VOID_PTR p, CK_ULONG pl, CK_BYTE_PTR ad,
                                    CK_ULONG adl)
{
    TR_OP(DecryptMessageBegin, TR_MDEC, s, adl, 1, NULL, s, p, pl, ad, adl);
}

static CK_RV tr_DecryptMessageNext(CK_SESSION_HANDLE s, CK_VOID_PTR p, CK_ULONG pl, CK_BYTE_PTR in,
                                   CK_ULONG inl, CK_BYTE_PTR out, CK_ULONG_PTR outl, CK_FLAGS f)
{
    TR_OP(DecryptMessageNext, TR_MDEC, s, inl, out, outl, s, p, pl, in, inl, out, outl, f);
}

static CK_RV tr_MessageDecryptFinal(CK_SESSION_HANDLE s)
{
    TR_OP(MessageDecryptFinal, TR_MDEC, s, 0, 1, NULL, s);
}

static CK_RV tr_SignMessage(CK_SESSION_HANDLE s, CK_VOID_PTR p, CK_ULONG pl, CK_BYTE_PTR in,
                            CK_ULONG inl, CK_BYTE_PTR sig, CK_ULONG_PTR sigl)
{
    TR_OP(SignMessage, TR_MSIGN, s, inl, sig, sigl, s, p, pl, in, inl, sig, sigl);
}

static CK_RV tr_SignMessageBegin(CK_SESSION_HANDLE s, CK_VOID_PTR p, CK_ULONG pl)
{
    TR_OP(SignMessageBegin, TR_MSIGN, s, 0, 1, NULL, s, p, pl);
}

static CK_RV tr_SignMessageNext(CK_SESSION_HANDLE s, CK_VOID_PTR p, CK_ULONG pl, CK_BYTE_PTR in,
                                CK_ULONG inl, CK_BYTE_PTR sig, CK_ULONG_PTR sigl)
{
    /* a NULL signature is no size query here: it is a part, not the last */
    TR_OP(SignMessageNext, TR_MSIGN, s, inl, 1, sigl, s, p, pl, in, inl, sig, sigl);
}

static CK_RV tr_MessageSignFinal(CK_SESSION_HANDLE s)
{
    TR_OP(MessageSignFinal, TR_MSIGN, s, 0, 1, NULL, s);
}

static CK_RV tr_VerifyMessage(CK_SESSION_HANDLE s, CK_VOID_PTR p, CK_ULONG pl, CK_BYTE_PTR in,
                              CK_ULONG inl, CK_BYTE_PTR sig, CK_ULONG sigl)
{
    TR_OP(VerifyMessage, TR_MVER, s, inl, 1, NULL, s, p, pl, in, inl, sig, sigl);
}

static CK_RV tr_VerifyMessageBegin(CK_SESSION_HANDLE s, CK_VOID_PTR p, CK_ULONG pl)
{
    TR_OP(VerifyMessageBegin, TR_MVER, s, 0, 1, NULL, s, p, pl);
}

static CK_RV tr_VerifyMessageNext(CK_SESSION_HANDLE s, CK_VOID_PTR p, CK_ULONG pl, CK_BYTE_PTR in,
                                  CK_ULONG inl, CK_BYTE_PTR sig, CK_ULONG sigl)
{
    TR_OP(VerifyMessageNext, TR_MVER, s, inl, 1, NULL, s, p, pl, in, inl, sig, sigl);
}

static CK_RV tr_MessageVerifyFinal(CK_SESSION_HANDLE s)
{
    TR_OP(MessageVerifyFinal, TR_MVER, s, 0, 1, NULL, s);
}

/* PKCS#11 3.2. */
static CK_RV tr_EncapsulateKey(CK_SESSION_HANDLE s, CK_MECHANISM_PTR m, CK_OBJECT_HANDLE pk,
                               CK_ATTRIBUTE_PTR t, CK_ULONG n, CK_BYTE_PTR ct, CK_ULONG_PTR ctl,
                               CK_OBJECT_HANDLE_PTR ph)
{
    tr_keyinfo ki = { 0, 0, 0 };
    tr_key_facts(s, pk, &ki);
    hsmbench_trace_record *r = tr_enter(FN(EncapsulateKey), s, MECH(m), pk, n,
                                        ct ? 0 : HSMBENCH_TRACE_F_SIZE_QUERY, &ki);
    CK_RV rv = REAL(EncapsulateKey, s, m, pk, t, n, ct, ctl, ph);
    tr_leave(r, rv, ctl);
    return rv;
}

static CK_RV tr_DecapsulateKey(CK_SESSION_HANDLE s, CK_MECHANISM_PTR m, CK_OBJECT_HANDLE vk,
                               CK_ATTRIBUTE_PTR t, CK_ULONG n, CK_BYTE_PTR ct, CK_ULONG ctl,
                               CK_OBJECT_HANDLE_PTR ph)
{
    tr_keyinfo ki = { 0, 0, 0 };
    tr_key_facts(s, vk, &ki);
    hsmbench_trace_record *r = tr_enter(FN(DecapsulateKey), s, MECH(m), vk, ctl, 0, &ki);
    CK_RV rv = REAL(DecapsulateKey, s, m, vk, t, n, ct, ctl, ph);
    tr_leave(r, rv, NULL);
    return rv;
}

static CK_RV tr_VerifySignature(CK_SESSION_HANDLE s, CK_BYTE_PTR in, CK_ULONG inl)
{
    TR_OP(VerifySignature, TR_VERSIG, s, inl, 1, NULL, s, in, inl);
}

static CK_RV tr_VerifySignatureUpdate(CK_SESSION_HANDLE s, CK_BYTE_PTR in, CK_ULONG inl)
{
    TR_OP(VerifySignatureUpdate, TR_VERSIG, s, inl, 1, NULL, s, in, inl);
}

static CK_RV tr_VerifySignatureFinal(CK_SESSION_HANDLE s)
{
    TR_OP(VerifySignatureFinal, TR_VERSIG, s, 0, 1, NULL, s);
}

static CK_RV tr_GetSessionValidationFlags(CK_SESSION_HANDLE s, CK_SESSION_VALIDATION_FLAGS_TYPE ty,
                                          CK_FLAGS *f)
{
    TR_PLAIN(GetSessionValidationFlags, s, 0, 0, NULL, s, ty, f);
}

/* Asynchronous calls (3.2): a pending call's completion is its own record;
 * out_len is the result's length the completion gives. */
static CK_RV tr_AsyncComplete(CK_SESSION_HANDLE s, CK_UTF8CHAR_PTR fn, CK_ASYNC_DATA_PTR d)
{
    hsmbench_trace_record *r = tr_enter(FN(AsyncComplete), s, N, N, 0, 0, NULL);
    CK_RV rv = REAL(AsyncComplete, s, fn, d);
    tr_leave(r, rv, d ? &d->ulValue : NULL);
    return rv;
}

static CK_RV tr_AsyncGetID(CK_SESSION_HANDLE s, CK_UTF8CHAR_PTR fn, CK_ULONG_PTR id)
{
    TR_PLAIN(AsyncGetID, s, 0, 0, NULL, s, fn, id);
}

static CK_RV tr_AsyncJoin(CK_SESSION_HANDLE s, CK_UTF8CHAR_PTR fn, CK_ULONG id, CK_BYTE_PTR p,
                          CK_ULONG n)
{
    TR_PLAIN(AsyncJoin, s, 0, n, NULL, s, fn, id, p, n);
}

static CK_RV tr_WrapKeyAuthenticated(CK_SESSION_HANDLE s, CK_MECHANISM_PTR m, CK_OBJECT_HANDLE wk,
                                     CK_OBJECT_HANDLE k, CK_BYTE_PTR ad, CK_ULONG adl,
                                     CK_BYTE_PTR out, CK_ULONG_PTR outl)
{
    tr_keyinfo ki = { 0, 0, 0 };
    tr_key_facts(s, wk, &ki);
    hsmbench_trace_record *r = tr_enter(FN(WrapKeyAuthenticated), s, MECH(m), wk, adl,
                                        out ? 0 : HSMBENCH_TRACE_F_SIZE_QUERY, &ki);
    CK_RV rv = REAL(WrapKeyAuthenticated, s, m, wk, k, ad, adl, out, outl);
    tr_leave(r, rv, outl);
    return rv;
}

static CK_RV tr_UnwrapKeyAuthenticated(CK_SESSION_HANDLE s, CK_MECHANISM_PTR m,
                                       CK_OBJECT_HANDLE uk, CK_BYTE_PTR in, CK_ULONG inl,
                                       CK_ATTRIBUTE_PTR t, CK_ULONG n, CK_BYTE_PTR ad,
                                       CK_ULONG adl, CK_OBJECT_HANDLE_PTR ph)
{
    tr_keyinfo ki = { 0, 0, 0 };
    tr_key_facts(s, uk, &ki);
    hsmbench_trace_record *r = tr_enter(FN(UnwrapKeyAuthenticated), s, MECH(m), uk, inl, 0, &ki);
    CK_RV rv = REAL(UnwrapKeyAuthenticated, s, m, uk, in, inl, t, n, ad, adl, ph);
    tr_leave(r, rv, NULL);
    if (rv == CKR_OK && ph)
        tr_key_forget(*ph);
    return rv;
}

/* ---- function lists and interfaces ------------------------------------------------------ */

__attribute__((visibility("default")))
CK_DEFINE_FUNCTION(CK_RV, C_GetFunctionList)(CK_FUNCTION_LIST_PTR_PTR ppFunctionList);
__attribute__((visibility("default")))
CK_RV C_GetInterfaceList(CK_INTERFACE_PTR pInterfacesList, CK_ULONG_PTR pulCount);
__attribute__((visibility("default")))
CK_RV C_GetInterface(CK_UTF8CHAR_PTR pInterfaceName, CK_VERSION_PTR pVersion,
                     CK_INTERFACE_PTR_PTR ppInterface, CK_FLAGS flags);

static CK_RV tr_GetFunctionList(CK_FUNCTION_LIST_PTR_PTR pp)
{
    return C_GetFunctionList(pp);
}

static CK_RV tr_GetInterfaceList(CK_INTERFACE_PTR list, CK_ULONG_PTR n)
{
    return C_GetInterfaceList(list, n);
}

static CK_RV tr_GetInterface(CK_UTF8CHAR_PTR name, CK_VERSION_PTR v, CK_INTERFACE_PTR_PTR pp,
                             CK_FLAGS f)
{
    return C_GetInterface(name, v, pp, f);
}

#define TR_FN(name) .C_##name = tr_##name
#define TR_FUNCTIONS_2_40 \
    TR_FN(Initialize), TR_FN(Finalize), TR_FN(GetInfo), TR_FN(GetFunctionList), \
    TR_FN(GetSlotList), TR_FN(GetSlotInfo), TR_FN(GetTokenInfo), TR_FN(GetMechanismList), \
    TR_FN(GetMechanismInfo), TR_FN(InitToken), TR_FN(InitPIN), TR_FN(SetPIN), \
    TR_FN(OpenSession), TR_FN(CloseSession), TR_FN(CloseAllSessions), TR_FN(GetSessionInfo), \
    TR_FN(GetOperationState), TR_FN(SetOperationState), TR_FN(Login), TR_FN(Logout), \
    TR_FN(CreateObject), TR_FN(CopyObject), TR_FN(DestroyObject), TR_FN(GetObjectSize), \
    TR_FN(GetAttributeValue), TR_FN(SetAttributeValue), TR_FN(FindObjectsInit), \
    TR_FN(FindObjects), TR_FN(FindObjectsFinal), TR_FN(EncryptInit), TR_FN(Encrypt), \
    TR_FN(EncryptUpdate), TR_FN(EncryptFinal), TR_FN(DecryptInit), TR_FN(Decrypt), \
    TR_FN(DecryptUpdate), TR_FN(DecryptFinal), TR_FN(DigestInit), TR_FN(Digest), \
    TR_FN(DigestUpdate), TR_FN(DigestKey), TR_FN(DigestFinal), TR_FN(SignInit), TR_FN(Sign), \
    TR_FN(SignUpdate), TR_FN(SignFinal), TR_FN(SignRecoverInit), TR_FN(SignRecover), \
    TR_FN(VerifyInit), TR_FN(Verify), TR_FN(VerifyUpdate), TR_FN(VerifyFinal), \
    TR_FN(VerifyRecoverInit), TR_FN(VerifyRecover), TR_FN(DigestEncryptUpdate), \
    TR_FN(DecryptDigestUpdate), TR_FN(SignEncryptUpdate), TR_FN(DecryptVerifyUpdate), \
    TR_FN(GenerateKey), TR_FN(GenerateKeyPair), TR_FN(WrapKey), TR_FN(UnwrapKey), \
    TR_FN(DeriveKey), TR_FN(SeedRandom), TR_FN(GenerateRandom), TR_FN(GetFunctionStatus), \
    TR_FN(CancelFunction), TR_FN(WaitForSlotEvent)
#define TR_FUNCTIONS_3_0 \
    TR_FN(GetInterfaceList), TR_FN(GetInterface), TR_FN(LoginUser), TR_FN(SessionCancel), \
    TR_FN(MessageEncryptInit), TR_FN(EncryptMessage), TR_FN(EncryptMessageBegin), \
    TR_FN(EncryptMessageNext), TR_FN(MessageEncryptFinal), TR_FN(MessageDecryptInit), \
    TR_FN(DecryptMessage), TR_FN(DecryptMessageBegin), TR_FN(DecryptMessageNext), \
    TR_FN(MessageDecryptFinal), TR_FN(MessageSignInit), TR_FN(SignMessage), \
    TR_FN(SignMessageBegin), TR_FN(SignMessageNext), TR_FN(MessageSignFinal), \
    TR_FN(MessageVerifyInit), TR_FN(VerifyMessage), TR_FN(VerifyMessageBegin), \
    TR_FN(VerifyMessageNext), TR_FN(MessageVerifyFinal)
#define TR_FUNCTIONS_3_2 \
    TR_FN(EncapsulateKey), TR_FN(DecapsulateKey), TR_FN(VerifySignatureInit), \
    TR_FN(VerifySignature), TR_FN(VerifySignatureUpdate), TR_FN(VerifySignatureFinal), \
    TR_FN(GetSessionValidationFlags), TR_FN(AsyncComplete), TR_FN(AsyncGetID), \
    TR_FN(AsyncJoin), TR_FN(WrapKeyAuthenticated), TR_FN(UnwrapKeyAuthenticated)

static const CK_FUNCTION_LIST_3_2 tr_template = {
    .version = { 3, 2 },
    TR_FUNCTIONS_2_40,
    TR_FUNCTIONS_3_0,
    TR_FUNCTIONS_3_2,
};

/* Our lists mirror the real module's "PKCS 11" interfaces one for one, each
 * with the real one's version and flags, so that the application sees the
 * module it would see without the recorder. */
static void tr_build_lists(void)
{
    memcpy(&tr.list_240, &tr_template, sizeof tr.list_240);
    tr.list_240.version = tr.real_fl_version;
    tr.nifaces = 0;
    CK_C_GetInterfaceList get_list = (CK_C_GetInterfaceList)dlsym(tr.lib, "C_GetInterfaceList");
    CK_ULONG n = 0;
    if (get_list && get_list(NULL, &n) == CKR_OK && n > 0 && n <= 64) {
        CK_INTERFACE real[64];
        if (get_list(real, &n) == CKR_OK) {
            for (CK_ULONG i = 0; i < n && tr.nifaces < TR_MAX_IFACES; i++) {
                if (real[i].pInterfaceName == NULL || real[i].pFunctionList == NULL ||
                    strcmp((const char *)real[i].pInterfaceName, "PKCS 11") != 0)
                    continue;
                CK_FUNCTION_LIST_3_2 *l = &tr.lists[tr.nifaces];
                *l = tr_template;
                l->version = *(const CK_VERSION *)real[i].pFunctionList;
                tr.ifaces[tr.nifaces].pInterfaceName = tr_iface_name;
                tr.ifaces[tr.nifaces].pFunctionList = l->version.major == 2 ? (CK_VOID_PTR)&tr.list_240
                                                                            : (CK_VOID_PTR)l;
                tr.ifaces[tr.nifaces].flags = real[i].flags;
                tr.nifaces++;
            }
        }
    }
    if (tr.nifaces == 0) {   /* a 2.x module: one interface, its list */
        tr.ifaces[0].pInterfaceName = tr_iface_name;
        tr.ifaces[0].pFunctionList = &tr.list_240;
        tr.ifaces[0].flags = 0;
        tr.nifaces = 1;
    }
}

__attribute__((visibility("default")))
CK_DEFINE_FUNCTION(CK_RV, C_GetFunctionList)(CK_FUNCTION_LIST_PTR_PTR ppFunctionList)
{
    (void)pthread_once(&tr_once, tr_load);
    hsmbench_trace_record *r = tr_enter(FN(GetFunctionList), N, N, N, 0, 0, NULL);
    CK_RV rv = tr.load_rv;
    if (rv == CKR_OK && ppFunctionList == NULL)
        rv = CKR_ARGUMENTS_BAD;
    if (rv == CKR_OK)
        *ppFunctionList = &tr.list_240;
    tr_leave(r, rv, NULL);
    return rv;
}

__attribute__((visibility("default")))
CK_RV C_GetInterfaceList(CK_INTERFACE_PTR pInterfacesList, CK_ULONG_PTR pulCount)
{
    (void)pthread_once(&tr_once, tr_load);
    hsmbench_trace_record *r = tr_enter(FN(GetInterfaceList), N, N, N, 0,
                                        pInterfacesList ? 0 : HSMBENCH_TRACE_F_SIZE_QUERY, NULL);
    CK_RV rv = tr.load_rv;
    if (rv == CKR_OK && pulCount == NULL)
        rv = CKR_ARGUMENTS_BAD;
    if (rv == CKR_OK) {
        if (pInterfacesList && *pulCount < tr.nifaces)
            rv = CKR_BUFFER_TOO_SMALL;
        else if (pInterfacesList)
            memcpy(pInterfacesList, tr.ifaces, tr.nifaces * sizeof tr.ifaces[0]);
        *pulCount = tr.nifaces;
    }
    tr_leave(r, rv, pulCount);
    return rv;
}

__attribute__((visibility("default")))
CK_RV C_GetInterface(CK_UTF8CHAR_PTR pInterfaceName, CK_VERSION_PTR pVersion,
                     CK_INTERFACE_PTR_PTR ppInterface, CK_FLAGS flags)
{
    (void)pthread_once(&tr_once, tr_load);
    hsmbench_trace_record *r = tr_enter(FN(GetInterface), N, N, N, 0, 0, NULL);
    CK_RV rv = tr.load_rv;
    if (rv == CKR_OK && ppInterface == NULL)
        rv = CKR_ARGUMENTS_BAD;
    if (rv == CKR_OK) {
        rv = CKR_ARGUMENTS_BAD;
        for (CK_ULONG i = 0; i < tr.nifaces; i++) {
            const CK_INTERFACE *it = &tr.ifaces[i];
            const CK_VERSION *v = it->pFunctionList;
            if (pInterfaceName && strcmp((const char *)pInterfaceName,
                                         (const char *)it->pInterfaceName) != 0)
                continue;
            if (pVersion && (pVersion->major != v->major || pVersion->minor != v->minor))
                continue;
            if ((it->flags & flags) != flags)
                continue;
            *ppInterface = &tr.ifaces[i];
            rv = CKR_OK;
            break;
        }
    }
    tr_leave(r, rv, NULL);
    return rv;
}
