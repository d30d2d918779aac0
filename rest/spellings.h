/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rest/spellings.h - the old tools' spellings of the REST commands' options:
 * k6's (the Thales EKM package, the OPA TLS test), the SDKMS test bench's
 * and JMeter's, as groups of the commands' option tables
 * (bench/util/options.h, BENCH_OPT_SPELLINGS); docs/migrating.md lists them.
 */
#ifndef REST_SPELLINGS_H
#define REST_SPELLINGS_H

#include "bench/util/options.h"

extern const bench_opt_group rest_k6_spellings;        /* rest ekm|sdkms and rest http */
extern const bench_opt_group rest_k6_env_spellings;    /* k6's -e, as rest ekm|sdkms takes it */
extern const bench_opt_group rest_sdkms_spellings;     /* the SDKMS bench's: rest ekm|sdkms */
extern const bench_opt_group rest_http_old_spellings;  /* k6's -e and JMeter's: rest http */

#endif
