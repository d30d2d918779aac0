/* SPDX-License-Identifier: Apache-2.0 */
/* rest/transport/slots.c - the non-blocking engines' slots (see slots.h). */
#include "rest/transport/slots.h"

#include <stdio.h>
#include <stdlib.h>

#include "bench/util/clock.h"

int rest_slot_open(rest_slot_set *set, rest_slot_core *s, unsigned index, char *err, size_t errlen)
{
    if (set->nslots == set->cap) {
        const unsigned cap = set->cap ? 2 * set->cap : 16;
        rest_slot_core **grown = realloc(set->slots, cap * sizeof *grown);
        if (!grown) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        set->slots = grown;
        set->cap = cap;
    }
    if (set->xw->ops->open(set->xw->ctx, index, &s->state, err, errlen) != 0)
        return -1;
    /* Set up (blocking, under the handle's own limits); the engine's now. */
    s->http = *(rest_http **)s->state;
    rest_http_engine_owned(s->http, 1);
    s->timeout_ns = (uint64_t)rest_http_timeout_ms(s->http) * 1000000u;
    set->interrupt = rest_http_interrupt(s->http);
    set->slots[set->nslots++] = s;
    set->now = 0;                       /* the set-up took a while */
    return 0;
}

void rest_slot_close(const rest_slot_set *set, rest_slot_core *s)
{
    s->busy = 0;
    rest_http_engine_owned(s->http, 0);
    set->xw->ops->close(s->state);
}

void rest_slot_started(rest_slot_set *set, rest_slot_core *s)
{
    if (!set->now)
        set->now = bench_now_ns();
    s->started = set->now;
    s->deadline = s->timeout_ns ? s->started + s->timeout_ns : 0;
    if (s->deadline && (!set->next_due || s->deadline < set->next_due))
        set->next_due = s->deadline;
}

uint64_t rest_slot_wait_ns(const rest_slot_set *set, uint64_t max_ns)
{
    if (!set->next_due || !max_ns)
        return max_ns;
    const uint64_t now = bench_now_ns();
    const uint64_t left = set->next_due > now ? set->next_due - now : 0;
    return left < max_ns ? left : max_ns;
}

void rest_slot_ends(rest_slot_set *set, void (*end)(rest_slot_core *s, rest_slot_why why))
{
    if (set->next_due && set->next_due <= set->now) {
        uint64_t next = 0;
        for (unsigned i = 0; i < set->nslots; i++) {
            rest_slot_core *s = set->slots[i];
            if (s->busy && s->deadline && s->deadline <= set->now)
                end(s, REST_SLOT_TIMEOUT);
            /* Still busy: the same operation's next request, or untouched. */
            if (s->busy && s->deadline && (!next || s->deadline < next))
                next = s->deadline;
        }
        set->next_due = next;
    }
    if (set->interrupt && *set->interrupt) {
        for (unsigned i = 0; i < set->nslots; i++) {
            rest_slot_core *s = set->slots[i];
            if (s->busy && rest_http_abandon_now(s->http))
                end(s, REST_SLOT_INTERRUPTED);
        }
    }
}

int rest_slot_poll(void *slot, bench_code *done)
{
    const rest_slot_core *s = slot;
    if (s->busy)
        return 1;
    *done = s->rc;
    return 0;
}

/* Side metrics: the slot's workload state carries them (rest_client_side). */
void rest_slot_side_bind(void *slot, bench_side *side)
{
    rest_state_side_bind(((rest_slot_core *)slot)->state, side);
}

void rest_slot_side_flush(void *slot)
{
    rest_state_side_flush(((rest_slot_core *)slot)->state);
}

void rest_slot_describe(const void *slot, bench_request *r)
{
    rest_state_describe(((const rest_slot_core *)slot)->state, r);
}
