/* SPDX-License-Identifier: Apache-2.0 */
/* serve/ekm.h - the EKM routes (ekm.c): :wrap, :unwrap, and the token issuer's POST /token. */
#ifndef SERVE_EKM_H
#define SERVE_EKM_H

#include "serve/serve.h"

/* EKM: whether path is "...:wrap" or "...:unwrap"; *unwrap says which. */
int  serve_ekm_route(const char *path, int *unwrap);
void serve_ekm(serve_srv *srv, const serve_req *q, int unwrap, serve_reply *r);
/* POST /token (--ekm-token-ttl): a new EKM bearer token, one line of text. */
void serve_token_issue(serve_srv *srv, const serve_req *q, serve_reply *r);

#endif
