/*
 * rest/serve_session.h - the emulator's SDKMS sessions: bearer tokens made
 * by /sys/v1/session/auth, checked on every call, ended by
 * /sys/v1/session/terminate or when their time is up (--session-ttl).
 *
 * A token is "<slot>.<43 characters of base64url randomness>": the slot
 * finds the session in O(1), and the random part is compared in constant
 * time.  Tokens are never logged.
 */
#ifndef REST_SERVE_SESSION_H
#define REST_SERVE_SESSION_H

#include <stddef.h>
#include <stdint.h>

#define REST_SESSION_TOKEN_MAX 64

typedef struct rest_sessions rest_sessions;

/* max sessions at once; ttl_ns 0: sessions last until terminated. */
rest_sessions *rest_sessions_new(unsigned max, uint64_t ttl_ns);
void rest_sessions_free(rest_sessions *s);

/* A new session's token into tok (REST_SESSION_TOKEN_MAX); -1 when full. */
int rest_sessions_create(rest_sessions *s, char *tok);
/* Whether tok (len bytes) names a live session. */
int rest_sessions_check(rest_sessions *s, const char *tok, size_t len);
/* End it; 0 when it was live. */
int rest_sessions_end(rest_sessions *s, const char *tok, size_t len);
/* Seconds a session lasts (0: no limit), for "expires_in". */
uint64_t rest_sessions_ttl_s(const rest_sessions *s);

#endif
