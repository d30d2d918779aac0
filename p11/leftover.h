/* SPDX-License-Identifier: Apache-2.0 */
/*
 * p11/leftover.h - objects hsmbench made and could not destroy.
 *
 * A destroy is retried (p11_destroy: three tries, on a fresh session when
 * the error says the session is gone).  A token object that still remains
 * is recorded here, by label, type and ID, and listed at the end of the
 * command with the `hsmbench keys destroy` line that removes it.  Session
 * objects are never recorded: they go when their session closes.
 */
#ifndef P11_LEFTOVER_H
#define P11_LEFTOVER_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <p11-kit/pkcs11.h>

#include "bench/util/signals.h"

typedef struct p11_leftover {
    char label[72];
    char type[32];     /* "RSA private key", "AES secret key", ... */
    char id[24];       /* CKA_ID in hex, "" when none */
    CK_SLOT_ID slot;   /* the token it is on */
} p11_leftover;

typedef struct p11_leftovers {
    pthread_mutex_t mu;        /* workers add from their threads */
    p11_leftover   *v;
    size_t          n, cap;
} p11_leftovers;

int  p11_leftovers_init(p11_leftovers *l);
void p11_leftovers_free(p11_leftovers *l);
void p11_leftovers_add(p11_leftovers *l, CK_SLOT_ID slot, const char *label, const char *type,
                       const char *id);
/* One line per object, then the command per label and token; `module` is
 * appended to it ("--module M"), then the token's "--slot N".  Nothing
 * when the list is empty. */
void p11_leftovers_print(const p11_leftovers *l, FILE *f, const char *module);

/* C_DestroyObject, up to three tries; a session that is gone is replaced by
 * a new read-write one on `slot` for the next try (closed afterwards).
 * CKR_OK when the object is gone (CKR_OBJECT_HANDLE_INVALID counts as gone). */
CK_RV p11_destroy(CK_FUNCTION_LIST *fn, CK_SLOT_ID slot, CK_SESSION_HANDLE s, CK_OBJECT_HANDLE h);

/* fn(arg) in a thread of its own, waited for at most bound_ns (0: no bound)
 * and not at all once the flag has BENCH_SIGNAL_AGAIN (a second signal):
 * 0 when it returned, -1 when it was given up on, still running; arg is
 * then that thread's to the end (a destroy in a module that no longer
 * answers).  A thread that cannot be made runs fn here (0). */
int p11_bounded(void (*fn)(void *), void *arg, uint64_t bound_ns, const bench_flag *interrupt);

/* Is this code a lost session (or device) after which the session must be opened again? */
int p11_session_lost(CK_RV rv);

#endif
