/* SPDX-License-Identifier: Apache-2.0 */
/*
 * p11/trace.h - reading a recording of the call recorder (libhsmbench-trace.so,
 * p11/traceformat.h) into what the application did at the module boundary:
 * every call by function, and the operations those calls make.
 *
 * An operation is what a benchmark counts: for an Init-based kind (encrypt,
 * decrypt, digest, sign, verify, sign/verify-recover, 3.2's verify-signature)
 * the calls of one session from its Init to its last part (the one-shot
 * call, or the Final); its time in the module is the sum of those calls'
 * times, its span from the Init's entry to the last call's return.  PKCS#11
 * ends an operation at any error but CKR_BUFFER_TOO_SMALL, so a failed Init
 * or part is a failed operation; a length query (no output buffer) and a
 * CKR_BUFFER_TOO_SMALL answer are not the end of one.  A message call
 * (C_SignMessage, ...) is one operation, its Init not included; key
 * generation, wrapping, unwrapping, derivation, random numbers and 3.2's
 * encapsulation are one call each.
 */
#ifndef P11_TRACE_H
#define P11_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "bench/core/hist.h"
#include "p11/traceformat.h"

/* One function's calls. */
typedef struct p11_trace_fn {
    uint64_t    calls;            /* every call, unfinished ones included */
    uint64_t    unfinished;       /* had not returned when the file was last written */
    uint64_t    size_queries;
    uint64_t    errors;           /* rv other than CKR_OK and CKR_BUFFER_TOO_SMALL */
    bench_hist *time;             /* time inside the module of the finished calls (NULL: no call) */
    unsigned    max_inside;       /* the most calls of it inside the module at once */
} p11_trace_fn;

/* One return code's count, whole (a module's own codes included). */
typedef struct p11_trace_code {
    uint64_t rv, count;
} p11_trace_code;

typedef struct p11_trace_sample {
    uint64_t ops, errors;          /* operations that ended in the second */
    uint64_t p50_ns, p99_ns;       /* of its successes' time in the module */
} p11_trace_sample;

/* Operations of a group ended in sessions of one slot (the slot given to
 * the C_OpenSession that made the session; HSMBENCH_TRACE_NONE when that
 * call is not in the recording). */
typedef struct p11_trace_slot {
    uint64_t slot, ops, errors;
} p11_trace_slot;

/* The operations of one kind, mechanism, key and data size. */
typedef struct p11_trace_group {
    unsigned    kind;             /* the finishing function (HSMBENCH_TRACE_FN_Sign, ...) */
    uint64_t    mechanism;        /* HSMBENCH_TRACE_NONE: unknown */
    uint64_t    key_type;         /* HSMBENCH_TRACE_NONE: no key, or unknown */
    uint32_t    key_bits;
    uint64_t    data;             /* bytes given per operation; UINT64_MAX: mixed */
    uint64_t    ops, errors;      /* ended operations: successes, failures */
    p11_trace_code *codes;        /* the failures by code */
    size_t      ncodes;
    bench_hist *time, *failed;    /* time in the module of the successes, the failures */
    bench_hist *span;             /* first entry to last return, successes */
    uint64_t    first_ns, last_ns;   /* the first operation's start, the last one's end */
    unsigned    threads;          /* threads that ended one of them */
    unsigned    max_inside;       /* the most of their calls inside the module at once */
    p11_trace_slot *slots;        /* by slot, in order of first use */
    size_t      nslots;
    p11_trace_sample *seconds;    /* by second of the recording, from first_second */
    size_t      nseconds, first_second;
    /* reading state */
    unsigned    inside;
    uint64_t   *thread_seen;
    size_t      nthread_seen, cap_thread_seen;
} p11_trace_group;

typedef struct p11_trace {
    char      module[HSMBENCH_TRACE_PATH_MAX];
    uint32_t  pid;
    uint64_t  real_start_ns;      /* CLOCK_REALTIME when the file was made ... */
    uint64_t  mono_start_ns;      /* ... and CLOCK_MONOTONIC then */
    uint64_t  start_ns, end_ns;   /* the first call's entry, the last return (monotonic) */
    uint64_t  calls, unfinished;
    unsigned  threads, processes;
    unsigned  max_inside;         /* the most calls inside the module at once, any function */
    uint64_t  sessions;           /* C_OpenSession calls that succeeded */
    p11_trace_fn fn[HSMBENCH_TRACE_FN_COUNT];
    p11_trace_code *codes;        /* every call's failures by code */
    size_t    ncodes;
    p11_trace_group *groups;
    size_t    ngroups;
} p11_trace;

/* Read path into t.  0, or -1 with a one-line reason in err (a file that is
 * not a recording, a truncated or inconsistent one, out of memory). */
int  p11_trace_read(const char *path, p11_trace *t, char *err, size_t errlen);

/*
 * What the same pass rebuilt, one at a time, for a reader that wants the
 * application's sequence rather than its totals (`hsmbench replay`): every
 * operation that ended (as the groups count them, plus a session's
 * C_FindObjectsInit .. C_FindObjectsFinal as one operation of kind
 * C_FindObjects, which the groups leave out), and every finished call that
 * is part of no operation.  Given in the order of the calls that end them
 * (the merge's entry order); unfinished calls and operations never ended
 * are not given.  No data, PIN or template: the recording has none.
 */
typedef struct p11_trace_event {
    int      op;                  /* 1: an operation; 0: a call that is part of none */
    unsigned fn;                  /* the operation's kind (its one-shot function: C_Sign for
                                     C_SignInit .. C_SignFinal, C_FindObjects), or the call's */
    uint32_t pid, thread;         /* the process, and the recorder's thread number */
    uint64_t session;             /* the session (C_OpenSession: the one it made); NONE */
    uint64_t mechanism;           /* NONE: none or unknown */
    uint64_t key_type;            /* NONE: no key, or unknown */
    uint32_t key_bits;            /* 0: unknown */
    uint64_t in_len;              /* bytes given over the operation's calls (random: asked) */
    uint64_t out_len;             /* bytes its last call gave back; UINT64_MAX: not known */
    uint64_t start_ns, end_ns;    /* first call's entry, last call's return (monotonic) */
    uint64_t rv;                  /* how it ended */
} p11_trace_event;

/* Called for each event; 0 to go on, -1 to stop the read (out of memory). */
typedef int (*p11_trace_event_fn)(void *ctx, const p11_trace_event *ev);

/* p11_trace_read, telling each event to fn (NULL: none) on the way. */
int  p11_trace_read_ex(const char *path, p11_trace *t, p11_trace_event_fn fn, void *ctx, char *err,
                       size_t errlen);
void p11_trace_free(p11_trace *t);

/* "C_Sign" for HSMBENCH_TRACE_FN_Sign. */
const char *p11_trace_fn_name(unsigned fn);
/* HSMBENCH_TRACE_FN_Sign for "C_Sign"; HSMBENCH_TRACE_FN_COUNT when none. */
unsigned p11_trace_fn_by_name(const char *name);

/* What a call is to an operation, by the rule the groups above follow, for
 * another reader of calls (a pkcs11-spy log): *kind the operation's one-shot
 * function (C_Sign for C_SignInit, C_SignUpdate, C_SignFinal). */
typedef enum {
    P11_TRACE_NOT_OP,     /* part of no operation */
    P11_TRACE_INIT,       /* starts one */
    P11_TRACE_PART,       /* a part of one under way */
    P11_TRACE_LAST,       /* ends one (a one-shot call, a Final), unless a length query */
    P11_TRACE_SINGLE,     /* an operation of its own: key generation, unwrap, derive, random */
} p11_trace_role;
p11_trace_role p11_trace_role_of(unsigned fn, unsigned *kind);
/* Does a one-call operation's input count data (a wrapped key, random bytes
 * asked for) rather than a template's attributes? */
int p11_trace_data_call(unsigned fn);

#endif
