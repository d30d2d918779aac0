/* SPDX-License-Identifier: Apache-2.0 */
/* serve/fault.c - parsing and drawing the emulator's faults. */
#include "serve/fault.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/util/cli.h"

static const struct { const char *name; serve_fault_kind kind; } kinds[] = {
    { "timeout", SERVE_FAULT_TIMEOUT }, { "badjson", SERVE_FAULT_BADJSON },
    { "truncate", SERVE_FAULT_TRUNCATE }, { "nofield", SERVE_FAULT_NOFIELD },
    { "badb64", SERVE_FAULT_BADB64 }, { "mismatch", SERVE_FAULT_MISMATCH },
    { "reset", SERVE_FAULT_RESET },
};

int serve_faults_parse(const char *spec, serve_faults *out, char *err, size_t errlen)
{
    char *copy = strdup(spec), *save = NULL;
    int rc = 0;
    memset(out, 0, sizeof *out);
    if (!copy) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        char *colon = strchr(item, ':');
        serve_fault_rule r = { SERVE_FAULT_NONE, 0, 0 };
        if (!colon) {
            snprintf(err, errlen, "'%s': expected KIND:PROBABILITY", item);
            rc = -1;
            break;
        }
        *colon = 0;
        if (item[0] >= '0' && item[0] <= '9') {
            char *end;
            unsigned long st = strtoul(item, &end, 10);
            if (*end || st < 400 || st > 599) {
                snprintf(err, errlen, "'%s': a status must be 400 to 599", item);
                rc = -1;
                break;
            }
            r.kind = SERVE_FAULT_STATUS;
            r.status = (unsigned)st;
        } else {
            for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
                if (strcmp(item, kinds[i].name) == 0)
                    r.kind = kinds[i].kind;
            if (r.kind == SERVE_FAULT_NONE) {
                snprintf(err, errlen, "'%s': unknown fault (NNN, timeout, badjson, truncate, "
                                      "nofield, badb64, mismatch, reset)", item);
                rc = -1;
                break;
            }
        }
        char *end;
        errno = 0;
        r.p = bench_strtod(colon + 1, &end);
        if (errno || end == colon + 1 || *end || !(r.p >= 0 && r.p <= 1)) {
            snprintf(err, errlen, "'%s:%s': the probability must be 0 to 1", item, colon + 1);
            rc = -1;
            break;
        }
        if (out->n == SERVE_FAULT_RULES) {
            snprintf(err, errlen, "at most %d rules", SERVE_FAULT_RULES);
            rc = -1;
            break;
        }
        out->rule[out->n++] = r;
        out->total += r.p;
    }
    if (rc == 0 && out->total > 1.0 + 1e-9) {
        snprintf(err, errlen, "the probabilities add up to %.3g, more than 1", out->total);
        rc = -1;
    }
    if (rc == 0 && out->n == 0) {
        snprintf(err, errlen, "no rule given");
        rc = -1;
    }
    free(copy);
    return rc;
}

const char *serve_fault_name(const serve_fault_rule *r, char *buf, size_t len)
{
    if (r->kind == SERVE_FAULT_STATUS) {
        snprintf(buf, len, "%u", r->status);
        return buf;
    }
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (kinds[i].kind == r->kind)
            return kinds[i].name;
    return "other";
}

const serve_fault_rule *serve_faults_pick(const serve_faults *f, double u)
{
    double acc = 0;
    for (size_t i = 0; i < f->n; i++) {
        acc += f->rule[i].p;
        if (u < acc)
            return &f->rule[i];
    }
    return NULL;
}
