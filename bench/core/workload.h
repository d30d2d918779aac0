/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/core/workload.h - the one interface between the timing core and a workload.
 *
 * The core (pool.c) knows how to run load and measure it; a workload (p11/,
 * rest/) knows how to do one operation.  Neither knows the other's internals.
 *
 *   open(ctx, worker)  -> per-worker state (a session, a key, a handle),
 *                         called before the clock starts
 *   do_one(state)      -> outcome of one operation
 *   close(state)       -> after the clock stops
 *
 * An outcome is never just "failed": a non-zero code is the provider's own
 * (a CKR_* value, an HTTP status, a curl code), so reports can count errors
 * by cause; code_name() turns it into the provider's name for it.
 */
#ifndef BENCH_WORKLOAD_H
#define BENCH_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>

#include "bench/core/side.h"

typedef uint64_t bench_code;

#define BENCH_OK 0
/* Codes the core itself assigns live above every provider's range. */
#define BENCH_CODE_CORE        (1ULL << 48)
#define BENCH_CODE_VERIFY_MISMATCH (BENCH_CODE_CORE | 1)   /* result failed an outside check */
#define BENCH_CODE_OTHER       (BENCH_CODE_CORE | 2)   /* codes beyond what the core keeps apart */
#define BENCH_CODE_BAD_LENGTH  (BENCH_CODE_CORE | 3)   /* "success" with a wrong-sized result */
#define BENCH_CODE_NO_RESULT   (BENCH_CODE_CORE | 4)   /* "success" that produced nothing */
/* A lookup before the operation (run --lookup) found no object, or several
 * or another than the key. */
#define BENCH_CODE_LOOKUP_NOT_FOUND (BENCH_CODE_CORE | 5)
#define BENCH_CODE_LOOKUP_AMBIGUOUS (BENCH_CODE_CORE | 6)
/* From here up, a workload's stand-ins for provider codes too wide to be
 * their own (a CK_RV of 2^48 or more: p11/codes.h); its code_name() names
 * them as the provider does.  Between BENCH_CODE_CORE and here, only the
 * core's classes. */
#define BENCH_CODE_WORKLOAD    (2ULL << 48)

/*
 * Optional: a breakdown of a run by a class of its operations: the
 * operation type of a --mix, the token of a run spread over several tokens.
 * The core keeps, per class, what it keeps for the whole run (operations,
 * errors by code, latency of the successes) and reports each class beside
 * the whole (summary, JSON "breakdown", CSV, HTML).  class_of() names the
 * class of the operation that has just ended on that state; the core calls
 * it after the operation, outside the timed path.  A run has at most
 * BENCH_BREAKDOWNS of them ("type" and "token" at once).  Runs on
 * asynchronous slots keep none (the core refuses the run).
 */
#define BENCH_BREAKDOWNS   2
#define BENCH_MAX_CLASSES 64
typedef struct bench_breakdown {
    const char         *dimension;  /* "type", "token": the JSON and CSV name */
    unsigned            n;          /* classes, 1..BENCH_MAX_CLASSES */
    const char *const  *labels;     /* n names ("rsa-pkcs-sign", a token's label) */
    const double       *weights;    /* n expected shares summing to 1, or NULL */
    unsigned (*class_of)(const void *state);
    /* n bytes each class's operation processes (a mix of data sizes: the
     * run's bytes are the classes' sum), or NULL: the workload's bytes_per_op */
    const uint64_t     *bytes_per_op;
} bench_breakdown;

/*
 * Optional: one request described, for per-request results (--out jtl,
 * bench/core/pool.h's bench_request_sink).  After each measured operation,
 * outside the timed path and only when the run has a sink, the core fills
 * the first members and asks the workload's describe() (on the state, or
 * the asynchronous slot, that did it) for the rest; what describe() leaves
 * untouched stays as the core set it.  Its strings must live until the
 * next operation on that state.  Nothing here is the provider's secret:
 * a workload's texts are taken out of credentials before they are set.
 */
#define BENCH_REQ_TEXT 64
typedef struct bench_request {
    /* the core's */
    uint64_t    start_ns;       /* bench_now_ns(): its start (a scheduled request: when it was due) */
    uint64_t    elapsed_ns;     /* its latency, as the run counts it */
    bench_code  code;           /* the outcome the run counts (0: success) */
    unsigned    worker;         /* the pool's worker (0-based) */
    unsigned    thread;         /* who did it, 1-based: the worker, or the asynchronous slot */
    unsigned    active;         /* threads (slots) running at the time */
    const struct bench_workload *workload;   /* whose request (its codes' names) */
    /* the workload's, preset by the core */
    const char *label;          /* the operation's own name (a mix's type), or NULL: the run's */
    char        code_text[BENCH_REQ_TEXT];   /* "": the code's name (bench_code_name) */
    const char *message;        /* a response message ("OK", "Internal Server Error"), or NULL */
    const char *failure;        /* why it failed, or NULL (the code's name is then the reason) */
    const char *url;            /* or NULL */
    uint64_t    bytes_in, bytes_out;   /* received, sent */
    uint64_t    first_byte_ns;  /* time to its first byte of answer (0: elapsed_ns) */
    uint64_t    connect_ns;     /* connecting it took (0: a connection already open) */
    char        text[BENCH_REQ_TEXT * 4];   /* room for describe()'s texts */
} bench_request;

/*
 * Optional: the asynchronous half, for non-blocking runs on providers that
 * keep many operations in flight per thread (PKCS#11 3.2 async sessions,
 * libcurl's multi interface).  A "slot" carries one operation at a time (a
 * session, a transfer); each worker thread multiplexes several.  submit()
 * starts one: it returns 1 when the operation is in flight, or 0 with its
 * final code when it completed at once; poll() returns 1 while it is still
 * in flight, 0 with the final code when it is done.  When a workload has
 * them, non-blocking runs use these instead of do_one() from a pool of
 * blocked threads.  The hooks are a workload's constant table; open and
 * engine_open get bench_async.ctx.
 */
typedef struct bench_async_ops {
    int  (*open)(void *ctx, void *engine, unsigned slot_index, void **slot, char *err,
                 size_t errlen);
    int  (*submit)(void *slot, bench_code *done);
    int  (*poll)(void *slot, bench_code *done);
    void (*close)(void *slot);
    /*
     * Optional: an engine each worker thread's slots share (a curl multi
     * handle), made before them and given to open(), closed after them.
     * await(engine, wake_fd, max_ns) moves the engine's operations on; with
     * max_ns 0 it returns at once, otherwise, when none completed, it waits
     * up to max_ns for one to, or for wake_fd (when >= 0) to become
     * readable: the core makes it readable when a request is queued for a
     * thread that waits.  Without await() the core polls the slots with
     * short pauses.
     */
    int  (*engine_open)(void *ctx, unsigned worker, void **engine, char *err, size_t errlen);
    void (*engine_close)(void *engine);
    void (*await)(void *engine, int wake_fd, uint64_t max_ns);
    /* Optional: side metrics, as the blocking half's side_bind() and
     * side_flush(), on a slot. */
    void (*side_bind)(void *slot, bench_side *side);
    void (*side_flush)(void *slot);
    /*
     * Optional, for slots whose operations run on threads of their own
     * (bench/core/emulate.h): ended(slot), when the operation poll() has
     * just reported done ended (the clock's reading, before any after());
     * without it the core takes the time it sees the completion.
     * inside_since(engine), since when the oldest operation of the
     * engine's slots has been inside the provider (0: none), so that a
     * call that never returns makes a stuck worker (bench_load.stuck_ns).
     */
    uint64_t (*ended)(const void *slot);
    uint64_t (*inside_since)(void *engine);
    /* Optional: a slot's last operation described (bench_request). */
    void (*describe)(const void *slot, bench_request *r);
} bench_async_ops;

typedef struct bench_async {
    const bench_async_ops *ops;     /* NULL: blocking only */
    void    *ctx;                   /* shared, read-only while the run goes */
    unsigned slots;                 /* slots in flight in total (>= threads) */
    /* At the end, how long operations in flight may take to finish before
     * their slots are closed anyway (0: 1 s). */
    uint64_t drain_ns;
} bench_async;

typedef struct bench_workload {
    void *ctx;                      /* shared, read-only while the run goes */
    /* Prepare worker `index`; on failure write a one-line reason to err and
     * return non-zero (the run is then abandoned before it starts). */
    int  (*open)(void *ctx, unsigned index, void **state, char *err, size_t errlen);
    bench_code (*do_one)(void *state);
    /*
     * Optional, called after each do_one() outside the timed path: clean-up
     * that must not be measured (destroying a generated key), recovery
     * (reopening an invalidated session, finishing an operation a short
     * buffer left active), and sampled result checks.  It gets do_one()'s
     * code and returns the code to count: a non-zero return turns a
     * success into a failure of that class (BENCH_CODE_VERIFY_MISMATCH).
     */
    bench_code (*after)(void *state, bench_code rc);
    /* Call after() after successes too; otherwise only after failures, so a
     * plain operation pays nothing for it. */
    int after_always;
    void (*close)(void *state);
    /* Name a non-zero code ("CKR_DEVICE_ERROR", "HTTP 503"). */
    void (*code_name)(const void *ctx, bench_code code, char *buf, size_t len);
    /* The call an operation is, as a stuck worker's reason names it
     * ("C_Sign", "the HTTP request"; NULL: "a call"). */
    const char *call;
    /* Payload bytes one successful operation processes, for bytes/s (0: none). */
    uint64_t bytes_per_op;

    /*
     * Optional: side metrics (bench/core/side.h), what the workload measures
     * beside each operation's latency.  side describes them; side_bind()
     * hands a worker's state its thread's recorder, in that thread, after
     * open() and before the clock; side_flush() is called after every
     * operation, outside the timed
     * path, with the recorder switched on only when the operation is part
     * of the measured run: the workload records there what the operation
     * left noted in its state.
     */
    const bench_side_spec *side;
    void (*side_bind)(void *state, bench_side *side);
    void (*side_flush)(void *state);

    /* Optional: the operation that has just ended on state, described
     * (bench_request). */
    void (*describe)(const void *state, bench_request *r);

    /* Optional: the run's breakdowns (NULL: none); see bench_breakdown. */
    const bench_breakdown *breakdown[BENCH_BREAKDOWNS];

    /* Optional: the asynchronous half (ops NULL: none). */
    bench_async async;
} bench_workload;

/* Name a code, core codes included; falls back to the workload's namer. */
void bench_code_name(const bench_workload *w, bench_code code, char *buf, size_t len);

#endif
