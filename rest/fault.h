/*
 * rest/fault.h - the emulator's fault injection: "--fault 500:0.05,timeout:0.01".
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
#ifndef REST_FAULT_H
#define REST_FAULT_H

#include <stddef.h>

typedef enum {
    REST_FAULT_NONE, REST_FAULT_STATUS, REST_FAULT_TIMEOUT, REST_FAULT_BADJSON,
    REST_FAULT_TRUNCATE, REST_FAULT_NOFIELD, REST_FAULT_BADB64, REST_FAULT_MISMATCH,
    REST_FAULT_RESET,
} rest_fault_kind;

#define REST_FAULT_RULES 16

typedef struct rest_fault_rule {
    rest_fault_kind kind;
    unsigned        status;      /* REST_FAULT_STATUS */
    double          p;
} rest_fault_rule;

typedef struct rest_faults {
    rest_fault_rule rule[REST_FAULT_RULES];
    size_t          n;
    double          total;
} rest_faults;

/* Parse a --fault value; 0, or -1 with one line in err. */
int rest_faults_parse(const char *spec, rest_faults *out, char *err, size_t errlen);

/* The rule a draw u in [0, 1) falls on, or NULL for none. */
const rest_fault_rule *rest_faults_pick(const rest_faults *f, double u);

const char *rest_fault_name(rest_fault_kind kind);

#endif
