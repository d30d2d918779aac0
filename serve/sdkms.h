/* SPDX-License-Identifier: Apache-2.0 */
/* serve/sdkms.h - the SDKMS routes (sdkms.c): sessions, keys, crypto. */
#ifndef SERVE_SDKMS_H
#define SERVE_SDKMS_H

#include "serve/serve.h"

/* SDKMS: 0 when the path is not one of its routes (nothing is written). */
int  serve_sdkms(serve_srv *srv, const serve_req *q, serve_reply *r);

#endif
