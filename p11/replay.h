/* SPDX-License-Identifier: Apache-2.0 */
/*
 * p11/replay.h - the workload model of `hsmbench replay`: what an
 * application did at the module boundary, as transactions hsmbench can do
 * again on any module with keys of its own.
 *
 * Three sources give the same model (p11_replay_load picks by content):
 *
 *   a recording   of hsmbench's call recorder (p11/traceformat.h): exact
 *                 times (ns), threads, sessions, sizes, no secrets;
 *   a pkcs11-spy  log (OpenSC's text format): times to the millisecond,
 *                 threads only where the log says them, and it may hold
 *                 PINs and data, which are read past and never kept;
 *   a scenario    written by hand (hsmbench-replay(5)): transactions as
 *                 sequences of catalogue tests with weights, sizes and
 *                 think times, and an arrival process.
 *
 * A transaction is what one session of the application does from the
 * start of one repetition of its pattern to the next (find-then-sign,
 * unwrap-then-decrypt): an ordered list of steps, each a catalogue test
 * with its parameters (the test whose calls, mechanism and key kind the
 * recorded calls are), and the pause the application took before it.  Its
 * kind is that list; every recorded instance of a kind is an arrival at the
 * time its first call entered the module.  Calls that need no replay
 * (C_GetSlotList, C_GetAttributeValue, C_Login, ...) and operations no
 * catalogue test makes are counted in `skipped`, never replayed blindly.
 */
#ifndef P11_REPLAY_H
#define P11_REPLAY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <jansson.h>

#include "p11/tests.h"

#define P11_REPLAY_MAX_STEPS   16      /* steps in one transaction */
#define P11_REPLAY_MAX_KINDS   32      /* transaction kinds in one model */
#define P11_REPLAY_MAX_SKIPPED 64      /* lines of what is not replayed */
#define P11_REPLAY_MAX_ARRIVALS 10000000ULL  /* arrivals one model holds */

typedef enum {
    P11_REPLAY_RECORDING = 1,          /* hsmbench's call recorder */
    P11_REPLAY_SPY,                    /* OpenSC pkcs11-spy text log */
    P11_REPLAY_SCENARIO,               /* a scenario file */
} p11_replay_source;

/* One operation of a transaction. */
typedef struct p11_replay_step {
    const p11_test_def *def;           /* the catalogue test (never NULL) */
    p11_test_params     params;        /* key_bits, curve, data_size, hash: resolved
                                          (p11_test_resolve), keys P11_KEYS_GENERATE */
    uint64_t            think_ns;      /* the pause before it, after the previous step
                                          returned (the median recorded; 0 for step 0) */
} p11_replay_step;

/* One kind of transaction. */
typedef struct p11_replay_kind {
    char             name[96];         /* a scenario's name, or made from the steps:
                                          "find-objects+ecdsa-sign" */
    unsigned         nsteps;
    p11_replay_step  steps[P11_REPLAY_MAX_STEPS];
    double           share;            /* of the arrivals, 0..1; the kinds' sum is 1 */
    uint64_t         count;            /* arrivals of this kind in the model */
} p11_replay_kind;

/* One transaction due: when, what, and on which recorded thread. */
typedef struct p11_replay_arrival {
    uint64_t at_ns;                    /* from the model's time 0 (the first arrival) */
    uint32_t kind;                     /* index in kinds[] */
    uint32_t thread;                   /* the recorded thread (0..threads-1); a scenario's: 0 */
} p11_replay_arrival;

/* A line of what is not replayed, and why. */
typedef struct p11_replay_skip {
    char     what[80];                 /* "C_GetSlotList", "C_SignInit CKM_SHA3_256_RSA_PKCS" */
    uint64_t count;                    /* calls (or operations, for an unmapped one) */
    const char *why;                   /* a constant string: "needs no replay", "the run's own
                                          set-up", "no catalogue test makes it", "failed in the
                                          recording" */
} p11_replay_skip;

typedef struct p11_replay_model {
    p11_replay_source source;
    char              path[1024];      /* the file read */
    unsigned          nkinds;
    p11_replay_kind   kinds[P11_REPLAY_MAX_KINDS];
    p11_replay_arrival *arrivals;      /* sorted by at_ns (ties in any order) */
    size_t            narrivals;
    uint64_t          span_ns;         /* time 0 to the end of the last transaction
                                          (a scenario: its arrival process's length) */
    double            rate;            /* arrivals per second over span_ns */
    double            peak_rate;       /* the most arrivals in any 100 ms window, per second:
                                          the bursts (rate when none stands out) */
    unsigned          threads;         /* threads that made transactions */
    unsigned          concurrency;     /* the most transactions under way at once */
    uint64_t          resolution_ns;   /* of the source's times: 1 (recording),
                                          1000000 (spy), 1 (scenario) */
    p11_replay_skip   skipped[P11_REPLAY_MAX_SKIPPED];
    unsigned          nskipped;
    /* What the source could not give, one sentence each, for the printed
     * model ("times are to the millisecond: think times under 1 ms read
     * as 0"); at most 8. */
    const char       *limits[8];
    unsigned          nlimits;
    uint64_t          seed;            /* a scenario's arrival generator (its file or --seed) */
} p11_replay_model;

/*
 * Read path (any of the three sources) into m.  0, or -1 with one line in
 * err naming the file (and the line, for a text source) and what is wrong.
 * Never writes anything a spy log held (PINs, data) anywhere.
 */
int  p11_replay_load(const char *path, p11_replay_model *m, char *err, size_t errlen);
void p11_replay_model_free(p11_replay_model *m);

/* The model as it is printed before anything runs (hsmbench-replay(1)). */
void p11_replay_model_print(const p11_replay_model *m, FILE *out);
/* The model as the results file's "replay" object's "model" member. */
json_t *p11_replay_model_json(const p11_replay_model *m);

#endif
