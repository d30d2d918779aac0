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

#endif
