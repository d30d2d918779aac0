/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rest/jscan.h - the answer's one field, read without building the document.
 *
 * Checking every answer of a run with jansson (json_loadb: a hash table and
 * an allocation a value) costs more than the rest of the client's own work
 * on a request.  Most answers are plain: an object of ASCII strings without
 * escapes.  rest_jscan_string() reads such an answer in one pass, checking
 * its whole syntax, and gives the field's text in place; whenever it is
 * not sure of jansson's verdict (an escape, a byte above 0x7f, a number, a
 * repeated field, deep nesting, anything malformed) it says so and the
 * caller asks jansson, so a result never differs from jansson's.
 */
#ifndef REST_JSCAN_H
#define REST_JSCAN_H

#include <stddef.h>

/*
 * When body[0..len) is a JSON object (and nothing else but white space)
 * that jansson would read the same way, and its member `field` is a
 * string: 1, with *val and *vlen its text (in body, not NUL-terminated).
 * Otherwise 0: not decided here.
 */
int rest_jscan_string(const char *body, size_t len, const char *field, const char **val,
                      size_t *vlen);
/* The same, for a field that must be base64: *b64 is 1 when its text is
 * valid base64 (bench_b64_valid), else 0, found in the same pass. */
int rest_jscan_b64(const char *body, size_t len, const char *field, const char **val,
                   size_t *vlen, int *b64);

#endif
