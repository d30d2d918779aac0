/* SPDX-License-Identifier: Apache-2.0 */
/*
 * p11/replay_int.h - inside the replay model: the three readers behind
 * p11_replay_load (p11/replay.h) and what they share.
 *
 *   replay_model.c     p11_replay_load (picks the reader by content), the
 *                      scenario reader, print, JSON, free, finish
 *   replay_rec.c       a recording of hsmbench's call recorder
 *   replay_spy.c       an OpenSC pkcs11-spy log
 *   replay_seg.c       operations of sessions into transactions
 *
 * Every reader fills kinds[], arrivals[] (any order), threads,
 * concurrency, resolution_ns, skipped[] and limits[]; then
 * p11_replay_finish sorts the arrivals, moves time 0 to the first, counts
 * each kind and its share, and computes rate and peak_rate.
 */
#ifndef P11_REPLAY_INT_H
#define P11_REPLAY_INT_H

#include <stdio.h>

#include "p11/replay.h"

int p11_replay_read_recording(const char *path, p11_replay_model *m, char *err, size_t errlen);
int p11_replay_read_spy(FILE *f, const char *path, p11_replay_model *m, char *err, size_t errlen);
int p11_replay_read_scenario(FILE *f, const char *path, p11_replay_model *m, char *err,
                             size_t errlen);

/* Does this first part of a file (up to 4 KiB) look like a pkcs11-spy log? */
int p11_replay_is_spy(const char *head, size_t len);

/* Add an arrival (grows m->arrivals): 0, or -1 when out of memory or past
 * P11_REPLAY_MAX_ARRIVALS (err says which). */
int p11_replay_add_arrival(p11_replay_model *m, uint64_t at_ns, uint32_t kind, uint32_t thread,
                           char *err, size_t errlen);
/* Add n to the skipped line (what, why), made when new (the last line
 * collects the rest when the table is full: "other calls"). */
void p11_replay_not_replayed(p11_replay_model *m, const char *what, const char *why, uint64_t n);
/* Note a limit of the source (a constant sentence), once. */
void p11_replay_limit(p11_replay_model *m, const char *sentence);

/* After a reader: sort, time 0, counts, shares, rate, peak_rate.  0, or -1
 * (err) when the model has no transaction at all. */
int p11_replay_finish(p11_replay_model *m, char *err, size_t errlen);

/* ---- what both readers share (replay_seg.c) ------------------------------------------- */

/*
 * One thing the application did, as a reader rebuilt it: an operation (a
 * session's calls from its Init to the call that ended it, a session's
 * C_FindObjectsInit .. C_FindObjectsFinal, or a one-call operation: key
 * generation, wrap, unwrap, derive, random) or a call that is part of none.
 * Never any data, PIN or template: only sizes.
 */
typedef struct p11_replay_op {
    int      op;             /* 1: an operation; 0: a call part of none */
    unsigned fn;             /* HSMBENCH_TRACE_FN_*: the operation's one-shot function
                                (C_Sign for C_SignInit .. C_SignFinal, C_FindObjects for a
                                find), or the call's */
    uint32_t pid;            /* the process (0: the source does not say) */
    uint32_t thread;         /* the source's thread; P11_REPLAY_NO_THREAD: it does not say */
    uint64_t session;        /* the session handle (C_OpenSession: the one it made) */
    uint64_t mechanism;      /* CKM_*; HSMBENCH_TRACE_NONE: none or unknown */
    uint32_t key_bits;       /* RSA modulus, EC field, secret key bits; 0: unknown */
    uint64_t in_len;         /* bytes given (random: asked for) */
    uint64_t out_len;        /* bytes given back; UINT64_MAX: unknown */
    uint64_t start_ns;       /* first call's entry */
    uint64_t end_ns;         /* last call's return */
    uint64_t rv;             /* how it ended (CKR_OK: succeeded) */
} p11_replay_op;

#define P11_REPLAY_NO_THREAD UINT32_MAX

/*
 * Which catalogue test makes an operation, and with which parameters: by
 * its function, mechanism, key size and data size.  The test is the one
 * whose call (p11_op_call) and mechanism (p11_test_mech under some --hash)
 * are the operation's; a hash a mechanism leaves open (CKM_ECDSA,
 * CKM_RSA_PKCS over a DigestInfo, CKM_RSA_PKCS_PSS) follows the length of
 * what was signed.  Key size: the operation's when known (an EC field size
 * names its NIST curve), else from the output's length (an RSA signature
 * or ciphertext is as long as the modulus, an ECDSA signature twice the
 * field) with *guessed set, else the test's default with *guessed set.
 * Data size: the bytes given (a decryption's: the plaintext's, from the
 * output when known).  1 with *def and *params (resolved, keys
 * P11_KEYS_GENERATE); 0 when no test makes it (an unknown mechanism, a key
 * size or data size the test does not take), nothing printed either way.
 */
int p11_replay_map(const p11_replay_op *op, const p11_test_def **def, p11_test_params *params,
                   int *guessed);

/*
 * Segmentation: operations of sessions into transactions, the one rule of
 * both readers.  A session's lifetime (process and handle, from its
 * C_OpenSession to its C_CloseSession) is taken in order of its
 * operations' entry times; its first operation's signature (test and
 * parameters) starts a transaction at each of its occurrences, so "find,
 * sign, find, sign" is two find-objects+ecdsa-sign transactions and
 * "unwrap, decrypt, decrypt, unwrap, decrypt" two unwrap-then-decrypts of
 * different lengths (two kinds).  Should a transaction have more than
 * P11_REPLAY_MAX_STEPS steps, or the model more than P11_REPLAY_MAX_KINDS
 * kinds, every operation is a transaction of its own (a limit says so).
 * A step's think time is the gap from the previous step's last return to
 * its first entry, the kind's the median over its instances; an arrival is
 * the entry of a transaction's first call, its thread the source's
 * (renumbered 0..threads-1; a source without threads: one a session);
 * concurrency the most transactions under way at once (arrival to last
 * return).  Failed operations are not replayed ("failed in the
 * recording"), operations no test makes neither ("no catalogue test makes
 * it"), and calls part of no operation are counted: "the run's own set-up"
 * (sessions, login, finalize, destroying keys), "needs no replay" (slot,
 * token, mechanism and attribute queries).
 */
typedef struct p11_replay_seg p11_replay_seg;

p11_replay_seg *p11_replay_seg_new(void);
/* Add one operation or call, in any order: 0, or -1 when out of memory. */
int  p11_replay_seg_add(p11_replay_seg *s, const p11_replay_op *op);
/* Fill m's kinds, arrivals, threads, concurrency, skipped and limits (not
 * resolution_ns or the source's own limits) and call p11_replay_finish: 0,
 * or -1 with err naming path. */
int  p11_replay_seg_finish(p11_replay_seg *s, p11_replay_model *m, const char *path, char *err,
                           size_t errlen);
void p11_replay_seg_free(p11_replay_seg *s);

#endif
