/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/results/jsondump.h - JSON text with each real written in the fewest
 * digits that read back to the same double ("p90": 2854.91, where jansson's
 * own dump, %.17g, writes 2854.9099999999999).  Every writer of a results
 * file, a JSON Lines stream or a compare document dumps through these.
 *
 * A real keeps a '.' or an exponent (1.0, not 1), as jansson writes it, so
 * a reader still sees a real; integers and strings are written unchanged.
 */
#ifndef BENCH_JSONDUMP_H
#define BENCH_JSONDUMP_H

#include <stddef.h>
#include <stdio.h>
#include <jansson.h>

/* As json_dumpf(j, f, flags): 0, or -1 when a write failed. */
int bench_json_dumpf(const json_t *j, FILE *f, size_t flags);

/* As json_dumps(j, flags): a new string to free(), NULL when out of memory. */
char *bench_json_dumps(const json_t *j, size_t flags);

/* The shortest text of v that strtod reads back as v, with a '.' or an
 * exponent ("0.1", "1.0", "1e-7", "2854.91"), into buf (32 bytes are
 * enough).  Returns its length. */
size_t bench_json_real_text(double v, char *buf, size_t len);

#endif
