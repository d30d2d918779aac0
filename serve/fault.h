/* SPDX-License-Identifier: Apache-2.0 */
/*
 * serve/fault.h - the emulator's fault injection: "--fault 500:0.05,timeout:0.01".
 *
 * Each rule is KIND:PROBABILITY; one uniform draw per eligible request picks
 * at most one rule (the probabilities add up, to at most 1).  Kinds:
 *
 *   NNN       answer HTTP status NNN (400..599) with the service's error body
 *   timeout   hold the request (--fault-delay) and never answer in time
 *   badjson   a 200 whose body is cut inside the JSON (Content-Length agrees)
 *   truncate  a 200 whose body stops short of its Content-Length; the
 *             connection is then closed
 *   nofield   a 200 without the field the operation returns
 *   badb64    a 200 whose binary fields are not base64
 *   mismatch  unwrap/decrypt return another plaintext, verify says false
 *   reset     the connection is closed without an answer (on a kept
 *             connection, clients resend on a new one: see hsmbench-serve(1))
 */
#ifndef SERVE_FAULT_H
#define SERVE_FAULT_H

#include <stddef.h>

typedef enum {
    SERVE_FAULT_NONE, SERVE_FAULT_STATUS, SERVE_FAULT_TIMEOUT, SERVE_FAULT_BADJSON,
    SERVE_FAULT_TRUNCATE, SERVE_FAULT_NOFIELD, SERVE_FAULT_BADB64, SERVE_FAULT_MISMATCH,
    SERVE_FAULT_RESET,
} serve_fault_kind;

#define SERVE_FAULT_RULES 16

typedef struct serve_fault_rule {
    serve_fault_kind kind;
    unsigned        status;      /* SERVE_FAULT_STATUS */
    double          p;
} serve_fault_rule;

typedef struct serve_faults {
    serve_fault_rule rule[SERVE_FAULT_RULES];
    size_t          n;
    double          total;
} serve_faults;

/* Parse a --fault value; 0, or -1 with one line in err. */
int serve_faults_parse(const char *spec, serve_faults *out, char *err, size_t errlen);

/* The rule's name as --fault spells it ("503", "reset"); buf holds a status. */
const char *serve_fault_name(const serve_fault_rule *r, char *buf, size_t len);

/* The rule a draw u in [0, 1) falls on, or NULL for none. */
const serve_fault_rule *serve_faults_pick(const serve_faults *f, double u);

#endif
