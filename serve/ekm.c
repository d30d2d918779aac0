/* SPDX-License-Identifier: Apache-2.0 */
/* serve/ekm.c - the emulator's EKM: :wrap and :unwrap under a token key. */
#include "serve/ekm.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "p11/names.h"
#include "bench/util/b64.h"

/* gRPC codes used in google.rpc.Status bodies. */
enum { GRPC_INVALID_ARGUMENT = 3, GRPC_INTERNAL = 13, GRPC_UNAUTHENTICATED = 16 };

#define EKM_MAX_PLAINTEXT 65536

int serve_ekm_route(const char *path, int *unwrap)
{
    size_t n = strlen(path);
    if (n > 7 && strcmp(path + n - 7, ":unwrap") == 0) {
        *unwrap = 1;
        return 1;
    }
    if (n > 5 && strcmp(path + n - 5, ":wrap") == 0) {
        *unwrap = 0;
        return 1;
    }
    return 0;
}

static int authorized(serve_srv *srv, const char *authz)
{
    if (!srv->ekm_token && !srv->issuer.ttl_ms)
        return 1;
    if (!authz || strncasecmp(authz, "Bearer ", 7) != 0) {
        if (srv->issuer.ttl_ms)
            atomic_fetch_add(&srv->issuer.unknown, 1);
        return 0;
    }
    const char *tok = authz + 7;
    if (srv->ekm_token && serve_secret_eq(tok, strlen(tok), srv->ekm_token, srv->ekm_token_len))
        return 1;
    return srv->issuer.ttl_ms && serve_issuer_check(&srv->issuer, tok) == SERVE_TOKEN_VALID;
}

void serve_token_issue(serve_srv *srv, const serve_req *q, serve_reply *r)
{
    if (strcmp(q->method, "POST") != 0) {
        serve_reply_text(r, 405, "/token takes POST");
        return;
    }
    char *tok = serve_issuer_issue(&srv->issuer, strcmp(q->path, "/token/opaque") == 0);
    if (!tok) {
        serve_reply_text(r, 500, "cannot make a token");
        return;
    }
    serve_reply_text(r, 200, "%s\n", tok);
    free(tok);
}

/* A base64 field: 1 with a new buffer, 0 when absent, -1 when invalid. */
static int b64_field(json_t *obj, const char *name, uint8_t **out, size_t *len)
{
    json_t *v = json_object_get(obj, name);
    *out = NULL;
    *len = 0;
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_string(v))
        return -1;
    size_t n = json_string_length(v);
    uint8_t *buf = malloc(bench_b64_decoded_max(n) + 1);
    if (!buf || bench_b64_decode(json_string_value(v), n, buf, bench_b64_decoded_max(n), len) != 0) {
        free(buf);
        return -1;
    }
    *out = buf;
    return 1;
}

static void token_error(serve_reply *r, CK_RV rv, const char *what)
{
    char rb[48];
    serve_reply_rpc(r, 500, GRPC_INTERNAL, "%s failed in the token: %s", what,
                   p11_rv_name(rv, rb, sizeof rb));
}

void serve_ekm(serve_srv *srv, const serve_req *q, int unwrap, serve_reply *r)
{
    const char *op = unwrap ? "unwrap" : "wrap";
    if (strcmp(q->method, "POST") != 0) {
        serve_reply_rpc(r, 405, GRPC_INVALID_ARGUMENT, "%s takes POST", op);
        return;
    }
    if (!authorized(srv, q->authz)) {
        serve_reply_rpc(r, 401, GRPC_UNAUTHENTICATED,
                       "the request does not carry a valid bearer token");
        return;
    }
    serve_prof_lap(q->prof, SERVE_PROF_SESSION_LOOKUP);
    json_t *j = json_loadb(q->body, q->len, 0, NULL);
    serve_prof_lap(q->prof, SERVE_PROF_PARSE_REQUEST);
    if (!json_is_object(j)) {
        json_decref(j);
        serve_reply_rpc(r, 400, GRPC_INVALID_ARGUMENT, "the request body is not a JSON object");
        return;
    }
    json_t *ctx = json_object_get(j, "additionalContext");
    if (ctx && !json_is_object(ctx) && !json_is_null(ctx)) {
        json_decref(j);
        serve_reply_rpc(r, 400, GRPC_INVALID_ARGUMENT, "additionalContext must be an object");
        return;
    }
    uint8_t *in = NULL, *aad = NULL;
    size_t inlen = 0, aadlen = 0;
    const char *field = unwrap ? "wrappedBlob" : "plaintext";
    int have = b64_field(j, field, &in, &inlen);
    int have_aad = b64_field(j, "additionalAuthenticatedData", &aad, &aadlen);
    json_decref(j);
    if (have <= 0 || have_aad < 0) {
        serve_reply_rpc(r, 400, GRPC_INVALID_ARGUMENT, "%s is %s", have_aad < 0 ?
                       "additionalAuthenticatedData" : field,
                       have == 0 ? "missing" : "not valid base64");
        goto out;
    }
    if (!unwrap && (inlen == 0 || inlen > EKM_MAX_PLAINTEXT)) {
        serve_reply_rpc(r, 400, GRPC_INVALID_ARGUMENT, "plaintext must be 1 to %d bytes",
                       EKM_MAX_PLAINTEXT);
        goto out;
    }
    serve_prof_lap(q->prof, SERVE_PROF_VALIDATE_INPUT);

    CK_SESSION_HANDLE s;
    CK_RV rv = serve_tok_session(&srv->tok, &s);
    if (rv != CKR_OK) {
        token_error(r, rv, "C_OpenSession");
        goto out;
    }
    serve_prof_lap(q->prof, SERVE_PROF_CHECK_ACCESS);
    uint8_t *res = malloc(inlen + SERVE_EKM_IV_LEN + SERVE_EKM_TAG_LEN);
    size_t reslen = 0;
    if (!res)
        rv = CKR_HOST_MEMORY;
    else if (unwrap)
        rv = serve_tok_ekm_unwrap(&srv->tok, s, in, inlen, aad, aadlen, res, &reslen);
    else
        rv = serve_tok_ekm_wrap(&srv->tok, s, in, inlen, aad, aadlen, res, &reslen);
    serve_tok_release(&srv->tok, s);
    serve_prof_lap(q->prof, SERVE_PROF_OPERATE);

    if (rv == CKR_OK) {
        const int mismatch = unwrap && q->fault == SERVE_FAULT_MISMATCH && reslen;
        if (mismatch)
            res[0] ^= 0x5a;
        char *b = bench_b64_encode_alloc(res, reslen);
        json_t *ans = b ? json_pack("{s:s}", unwrap ? "plaintext" : "wrappedBlob", b) : NULL;
        free(b);
        if (ans) {
            serve_reply_json(r, 200, ans);
            r->faulted = mismatch && r->status == 200;
        } else {
            serve_reply_rpc(r, 500, GRPC_INTERNAL, "out of memory");
        }
    } else if (unwrap && (rv == CKR_ENCRYPTED_DATA_INVALID || rv == CKR_ENCRYPTED_DATA_LEN_RANGE ||
                          rv == CKR_DATA_INVALID || rv == CKR_DATA_LEN_RANGE)) {
        serve_reply_rpc(r, 400, GRPC_INVALID_ARGUMENT,
                       "wrappedBlob cannot be unwrapped: not made by this key, altered, or "
                       "another additionalAuthenticatedData");
    } else {
        token_error(r, rv, unwrap ? "unwrap" : "wrap");
    }
    if (res)
        memset(res, 0, inlen + SERVE_EKM_IV_LEN + SERVE_EKM_TAG_LEN);
    free(res);
out:
    if (in)
        memset(in, 0, inlen);
    free(in);
    free(aad);
}
