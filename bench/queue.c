/*
 * bench/queue.c - the non-blocking run's bounded request queue, and the
 * wake pipe of the asynchronous engines that wait.
 *
 * The dispatcher pushes each request's due time; workers take them in
 * order.  The queue is bounded (QUEUE_CAP): when the token falls behind,
 * the dispatcher waits and its requests are issued late (and counted);
 * those still waiting at the end are counted as dropped, never silently
 * lost.  A ring under one mutex with two condition variables.
 */
#include "bench/pool_int.h"

#include <unistd.h>

/* With qmu held: the next request's due time, or 0 when none is queued. */
static uint64_t queue_take_locked(pool *p)
{
    if (!p->qcount || p->qclosed)
        return 0;
    uint64_t t = p->q[p->qhead];
    p->qhead = (p->qhead + 1) % QUEUE_CAP;
    p->qcount--;
    pthread_cond_signal(&p->q_nonfull);
    return t;
}

uint64_t pool_queue_pop(pool *p)
{
    pthread_mutex_lock(&p->qmu);
    while (p->qcount == 0 && !p->qclosed)
        pthread_cond_wait(&p->q_nonempty, &p->qmu);
    uint64_t t = queue_take_locked(p);
    pthread_mutex_unlock(&p->qmu);
    return t;
}

uint64_t pool_queue_try_pop(pool *p)
{
    pthread_mutex_lock(&p->qmu);
    uint64_t t = queue_take_locked(p);
    pthread_mutex_unlock(&p->qmu);
    return t;
}

int pool_queue_has(pool *p)
{
    pthread_mutex_lock(&p->qmu);
    int has = p->qcount > 0 && !p->qclosed;
    pthread_mutex_unlock(&p->qmu);
    return has;
}

int pool_queue_push(pool *p, uint64_t intended)
{
    pthread_mutex_lock(&p->qmu);
    while (p->qcount == QUEUE_CAP && !atomic_load(&p->stop))
        pthread_cond_wait(&p->q_nonfull, &p->qmu);
    int ok = !atomic_load(&p->stop);
    if (ok) {
        p->q[(p->qhead + p->qcount) % QUEUE_CAP] = intended;
        p->qcount++;
        pthread_cond_signal(&p->q_nonempty);
    }
    pthread_mutex_unlock(&p->qmu);
    /* A thread that found the queue empty (under qmu, after counting
     * itself a sleeper) waits on the pipe: one byte wakes it. */
    if (ok && p->wake[1] >= 0 && atomic_load(&p->sleepers) > 0)
        pool_wake_sleepers(p);
    return ok;
}

void pool_queue_close(pool *p)
{
    /* Wake everyone: the dispatcher waiting for room, workers waiting for
     * work.  What is still queued is dropped, and counted. */
    pthread_mutex_lock(&p->qmu);
    p->qclosed = 1;
    pthread_cond_broadcast(&p->q_nonempty);
    pthread_cond_broadcast(&p->q_nonfull);
    pthread_mutex_unlock(&p->qmu);
}

void pool_wake_sleepers(pool *p)
{
    const char b = 1;
    ssize_t n = write(p->wake[1], &b, 1);
    (void)n;   /* EAGAIN: full, so readable: nothing is lost */
}

void pool_wake_drain(pool *p)
{
    char buf[64];
    while (read(p->wake[0], buf, sizeof buf) == (ssize_t)sizeof buf)
        ;
}
