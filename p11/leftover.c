/* SPDX-License-Identifier: Apache-2.0 */
/* p11/leftover.c - bounded destroys, and the list of what they left behind. */
#include "p11/leftover.h"

#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/util/clock.h"

int p11_leftovers_init(p11_leftovers *l)
{
    memset(l, 0, sizeof *l);
    return pthread_mutex_init(&l->mu, NULL) == 0 ? 0 : -1;
}

void p11_leftovers_free(p11_leftovers *l)
{
    free(l->v);
    pthread_mutex_destroy(&l->mu);
    memset(l, 0, sizeof *l);
}

void p11_leftovers_add(p11_leftovers *l, CK_SLOT_ID slot, const char *label, const char *type,
                       const char *id)
{
    pthread_mutex_lock(&l->mu);
    if (l->n == l->cap) {
        size_t ncap = l->cap ? l->cap * 2 : 8;
        p11_leftover *nv = realloc(l->v, ncap * sizeof *nv);
        if (!nv) {
            pthread_mutex_unlock(&l->mu);
            return;
        }
        l->v = nv;
        l->cap = ncap;
    }
    p11_leftover *e = &l->v[l->n++];
    snprintf(e->label, sizeof e->label, "%s", label ? label : "");
    snprintf(e->type, sizeof e->type, "%s", type ? type : "object");
    snprintf(e->id, sizeof e->id, "%s", id ? id : "");
    e->slot = slot;
    pthread_mutex_unlock(&l->mu);
}

void p11_leftovers_print(const p11_leftovers *l, FILE *f, const char *module)
{
    if (!l->n)
        return;
    fprintf(f, "hsmbench: warning: %zu object%s hsmbench made could not be destroyed and remain%s on the token:\n",
            l->n, l->n == 1 ? "" : "s", l->n == 1 ? "s" : "");
    int tokens = 0;    /* on more than one token: each line names its slot */
    for (size_t i = 1; i < l->n && !tokens; i++)
        tokens = l->v[i].slot != l->v[0].slot;
    for (size_t i = 0; i < l->n; i++) {
        fprintf(f, "  %-40s %-18s %s%s", l->v[i].label, l->v[i].type, l->v[i].id[0] ? "id " : "id -",
                l->v[i].id);
        if (tokens)
            fprintf(f, "  slot %lu", (unsigned long)l->v[i].slot);
        fputc('\n', f);
    }
    fprintf(f, "remove %s with:\n", l->n == 1 ? "it" : "them");
    for (size_t i = 0; i < l->n; i++) {
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++)
            seen = strcmp(l->v[j].label, l->v[i].label) == 0 && l->v[j].slot == l->v[i].slot;
        if (!seen)
            fprintf(f, "  hsmbench keys destroy --label %s%s%s --slot %lu\n", l->v[i].label,
                    module && *module ? " " : "", module ? module : "",
                    (unsigned long)l->v[i].slot);
    }
    fflush(f);
}

int p11_session_lost(CK_RV rv)
{
    return rv == CKR_SESSION_HANDLE_INVALID || rv == CKR_SESSION_CLOSED ||
           rv == CKR_DEVICE_REMOVED || rv == CKR_TOKEN_NOT_PRESENT;
}

CK_RV p11_destroy(CK_FUNCTION_LIST *fn, CK_SLOT_ID slot, CK_SESSION_HANDLE s, CK_OBJECT_HANDLE h)
{
    CK_SESSION_HANDLE fresh = CK_INVALID_HANDLE;
    CK_RV rv = CKR_OK;
    for (int tries = 0; tries < 3; tries++) {
        if (tries) {
            const struct timespec pause = { 0, 10 * 1000 * 1000 };   /* 10 ms between tries */
            nanosleep(&pause, NULL);
        }
        rv = fn->C_DestroyObject(fresh != CK_INVALID_HANDLE ? fresh : s, h);
        if (rv == CKR_OK || rv == CKR_OBJECT_HANDLE_INVALID) {
            rv = CKR_OK;
            break;
        }
        if ((p11_session_lost(rv) || rv == CKR_DEVICE_ERROR) && fresh == CK_INVALID_HANDLE &&
            fn->C_OpenSession(slot, CKF_SERIAL_SESSION | CKF_RW_SESSION, NULL, NULL, &fresh) != CKR_OK)
            fresh = CK_INVALID_HANDLE;
    }
    if (fresh != CK_INVALID_HANDLE)
        fn->C_CloseSession(fresh);
    return rv;
}

/* A bounded call's job: who frees it is settled by one exchange of state. */
enum { JOB_RUNNING, JOB_DONE, JOB_ABANDONED };
typedef struct bounded_job {
    void (*fn)(void *);
    void *arg;
    _Atomic int state;
} bounded_job;

static void *bounded_main(void *a)
{
    bounded_job *j = a;
    j->fn(j->arg);
    if (atomic_exchange(&j->state, JOB_DONE) == JOB_ABANDONED)
        free(j);    /* given up on: nobody waits for it */
    return NULL;
}

#define BOUNDED_POLL_NS (5ULL * 1000 * 1000)

int p11_bounded(void (*fn)(void *), void *arg, uint64_t bound_ns, const bench_flag *interrupt)
{
    bounded_job *j = malloc(sizeof *j);
    pthread_t tid;
    sigset_t all, old;
    if (!j) {
        fn(arg);
        return 0;
    }
    j->fn = fn;
    j->arg = arg;
    atomic_init(&j->state, JOB_RUNNING);
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);   /* the signals stay the main thread's */
    const int err = pthread_create(&tid, NULL, bounded_main, j);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (err) {
        free(j);
        fn(arg);
        return 0;
    }
    const uint64_t until = bound_ns ? bench_now_ns() + bound_ns : UINT64_MAX;
    for (;;) {
        const uint64_t now = bench_now_ns();
        if (atomic_load(&j->state) == JOB_DONE)
            break;
        if (now >= until || (interrupt && (atomic_load(interrupt) & BENCH_SIGNAL_AGAIN))) {
            int running = JOB_RUNNING;
            if (!atomic_compare_exchange_strong(&j->state, &running, JOB_ABANDONED))
                break;          /* it finished meanwhile */
            pthread_detach(tid);
            return -1;
        }
        bench_sleep_until_ns(now + BOUNDED_POLL_NS < until ? now + BOUNDED_POLL_NS : until);
    }
    pthread_join(tid, NULL);
    free(j);
    return 0;
}
