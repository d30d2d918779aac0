/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/util/b64.h - base64 as REST services write it (RFC 4648).
 *
 * Every binary field of the EKM and SDKMS APIs is a base64 string: proto3's
 * JSON mapping writes the standard alphabet with padding, and accepts the
 * URL-safe one too.  Decoding is strict about everything else: a character
 * outside both alphabets, whitespace, padding in the middle or of the wrong
 * length makes the whole string invalid, because a benchmark must notice a
 * server that answers garbage.
 */
#ifndef BENCH_B64_H
#define BENCH_B64_H

#include <stddef.h>
#include <stdint.h>

/* Characters bench_b64_encode writes for n bytes (without the NUL). */
size_t bench_b64_encoded_len(size_t n);
/* Most bytes a base64 text of len characters decodes to. */
size_t bench_b64_decoded_max(size_t len);

/* Encode n bytes (standard alphabet, padded); out needs
 * bench_b64_encoded_len(n) + 1 bytes.  Returns the length written. */
size_t bench_b64_encode(const uint8_t *in, size_t n, char *out);
/* The same into a new string (malloc); NULL when out of memory. */
char *bench_b64_encode_alloc(const uint8_t *in, size_t n);

/*
 * Decode len characters (standard or URL-safe alphabet; padding optional,
 * but correct when present) into out (cap bytes).  Returns 0 and *outlen,
 * or -1 when the text is not valid base64 or does not fit.
 */
int bench_b64_decode(const char *in, size_t len, uint8_t *out, size_t cap, size_t *outlen);
/* Whether len characters are valid base64 (nothing is written). */
int bench_b64_valid(const char *in, size_t len);

/* bench_b64_valid in two steps, for a caller that scans the text anyway:
 * the length of the longest prefix of in[0..n) made of base64 digits
 * (either alphabet, '=' excluded), then whether `digits` digits and `pad`
 * '=' after them are valid base64. */
size_t bench_b64_digits(const char *in, size_t n);
int bench_b64_valid_len(size_t digits, size_t pad);

#endif
