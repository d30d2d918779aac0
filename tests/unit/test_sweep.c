/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/unit/test_sweep.c - the driver's sweep (bench/driver/sweep.c): every
 * thread count of the list, every data size, each point --repeat times,
 * in that order; a point's repeats end at a run not measured, the sweep at
 * an interruption; the thread list the one owner of the thread counts.
 *
 * early: no check depends on the cores it gets (fixed inputs, no clock)
 */
#include <stdio.h>
#include <string.h>

#include "bench/driver/loadopts.h"
#include "bench/driver/session.h"
#include "bench/driver/sweep.h"
#include "bench/util/signals.h"
#include "tests/unit/check.h"

#define MAX_CALLS 64

/* What each call of the point saw, and what its run is made to be. */
typedef struct probe {
    bench_session *s;
    bench_load    *load;
    size_t         n;
    unsigned       threads[MAX_CALLS], rep[MAX_CALLS];
    size_t         data[MAX_CALLS];
    int            unmeasured_at;   /* this call's run is not measured (-1: none) */
    int            interrupt_at;    /* this call sets the interrupt (-1: none) */
} probe;

static void point(void *arg, size_t data)
{
    probe *p = arg;
    bench_session *s = p->s;
    if (p->n < MAX_CALLS) {
        p->threads[p->n] = p->load->threads;
        p->data[p->n] = data;
        p->rep[p->n] = s->repeat_run;
    }
    /* The run's row of the closing table, as bench_session_run adds one. */
    if (s->nrows < s->cap)
        s->rows[s->nrows++].measured = (int)p->n != p->unmeasured_at;
    if ((int)p->n == p->interrupt_at)
        *(bench_flag *)s->interrupt = 1;
    p->n++;
}

typedef struct fixture {
    bench_session   s;
    bench_row       rows[MAX_CALLS];
    bench_flag      interrupt;
    bench_load_opts lo;
    bench_load      load;
    probe           p;
} fixture;

/* A session with room for the rows, and the load of these --threads. */
static int setup(fixture *f, const char *threads)
{
    memset(f, 0, sizeof *f);
    f->s.rows = f->rows;
    f->s.cap = MAX_CALLS;
    f->s.interrupt = &f->interrupt;
    bench_load_opts_init(&f->lo);
    char arg[64];
    snprintf(arg, sizeof arg, "%s", threads);
    if (bench_load_opt(&f->lo, BENCH_OPT_THREADS, arg) != 1 || bench_load_finish(&f->lo, 1000000000ULL) != 0)
        return -1;
    f->load = f->lo.load;
    f->p = (probe){ .s = &f->s, .load = &f->load, .unmeasured_at = -1, .interrupt_at = -1 };
    return 0;
}

static void test_every_point_in_order(void)
{
    static fixture f;
    CHECK(setup(&f, "1,2,4") == 0);
    /* The list owns the counts; the load runs at the first until the sweep moves it. */
    CHECK(f.lo.nthreads == 3 && f.lo.load.threads == 1);
    bench_sweep_run(&f.s, &f.lo, &f.load, 2, 3, point, &f.p);
    CHECK(f.p.n == 18);
    CHECK(f.s.repeat_of == 3);
    size_t k = 0;
    for (unsigned t = 0; t < 3; t++)
        for (size_t d = 0; d < 2; d++)
            for (unsigned r = 1; r <= 3; r++, k++)
                CHECK_MSG(f.p.threads[k] == (1u << t) && f.p.data[k] == d && f.p.rep[k] == r,
                          "call %zu: %u threads, data %zu, run %u", k, f.p.threads[k], f.p.data[k],
                          f.p.rep[k]);
}

static void test_once_without_repeat(void)
{
    static fixture f;
    CHECK(setup(&f, "3") == 0);
    bench_sweep_run(&f.s, &f.lo, &f.load, 1, 0, point, &f.p);
    CHECK(f.p.n == 1 && f.p.threads[0] == 3 && f.p.data[0] == 0 && f.p.rep[0] == 1);
    CHECK(f.s.repeat_of == 0);
}

static void test_unmeasured_ends_the_repeats(void)
{
    static fixture f;
    CHECK(setup(&f, "1,2") == 0);
    f.p.unmeasured_at = 0;      /* the first point's first run: skipped */
    bench_sweep_run(&f.s, &f.lo, &f.load, 1, 4, point, &f.p);
    /* The first point once, the second its four times. */
    CHECK(f.p.n == 5);
    CHECK(f.p.threads[0] == 1 && f.p.threads[1] == 2 && f.p.rep[1] == 1 && f.p.rep[4] == 4);
}

static void test_interrupt_stops(void)
{
    static fixture f;
    CHECK(setup(&f, "1,2,4") == 0);
    f.p.interrupt_at = 2;
    bench_sweep_run(&f.s, &f.lo, &f.load, 2, 0, point, &f.p);
    CHECK(f.p.n == 3);
    /* A stuck worker stops it too. */
    CHECK(setup(&f, "1,2") == 0);
    f.s.stuck = 1;
    bench_sweep_run(&f.s, &f.lo, &f.load, 1, 0, point, &f.p);
    CHECK(f.p.n == 0);
}

/* A blocking --stages run: the list holds the stages' peak, the one count. */
static void test_stages_peak_in_the_list(void)
{
    bench_load_opts lo;
    bench_load_opts_init(&lo);
    char stages[] = "1s:3,1s:7";
    CHECK(bench_load_opt(&lo, BENCH_OPT_STAGES, stages) == 1);
    CHECK(bench_load_finish(&lo, 1000000000ULL) == 0);
    CHECK(lo.nthreads == 1 && lo.threads_list[0] == 7 && lo.load.threads == 7);
}

int main(void)
{
    RUN(test_every_point_in_order);
    RUN(test_once_without_repeat);
    RUN(test_unmeasured_ends_the_repeats);
    RUN(test_interrupt_stops);
    RUN(test_stages_peak_in_the_list);
    return check_finish();
}
