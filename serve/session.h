/* SPDX-License-Identifier: Apache-2.0 */
/*
 * serve/session.h - the emulator's SDKMS sessions: bearer tokens made
 * by /sys/v1/session/auth, checked on every call, ended by
 * /sys/v1/session/terminate or when their time is up (--session-ttl).
 *
 * A token is "<slot>.<43 characters of base64url randomness>": the slot
 * finds the session in O(1), and the random part is compared in constant
 * time.  Tokens are never logged.
 */
#ifndef SERVE_SESSION_H
#define SERVE_SESSION_H

#include <stddef.h>
#include <stdint.h>

#define SERVE_SESSION_TOKEN_MAX 64

typedef struct serve_sessions serve_sessions;

/* max sessions at once; ttl_ns 0: sessions last until terminated. */
serve_sessions *serve_sessions_new(unsigned max, uint64_t ttl_ns);
void serve_sessions_free(serve_sessions *s);

/* A new session's token into tok (SERVE_SESSION_TOKEN_MAX); -1 when full. */
int serve_sessions_create(serve_sessions *s, char *tok);
/* Whether tok (len bytes) names a live session. */
int serve_sessions_check(serve_sessions *s, const char *tok, size_t len);
/* End it; 0 when it was live. */
int serve_sessions_end(serve_sessions *s, const char *tok, size_t len);
/* Seconds a session lasts (0: no limit), for "expires_in". */
uint64_t serve_sessions_ttl_s(const serve_sessions *s);

#endif
