/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/util/hostinfo.h - what the machine is, beyond uname: its CPU's
 * model, and the product its firmware names, which on a cloud's virtual
 * machine is the instance type (EC2 Nitro: "m5.xlarge"; GCE: "Google
 * Compute Engine"): the first question a reader of someone's figures asks
 * ("what VM instance type did you use?", seed 004).  Linux; a fact that
 * cannot be read is "", left out, never guessed.
 */
#ifndef BENCH_HOSTINFO_H
#define BENCH_HOSTINFO_H

#define BENCH_HOST_CPUINFO "/proc/cpuinfo"
#define BENCH_HOST_PRODUCT "/sys/class/dmi/id/product_name"

typedef struct bench_hostinfo {
    char cpu_model[128];   /* cpuinfo's first "model name" (x86) or "Model" (ARM boards) */
    char product[128];     /* the DMI product name */
} bench_hostinfo;

/* Fill *h from the files `cpuinfo` and `product` (BENCH_HOST_CPUINFO and
 * BENCH_HOST_PRODUCT; a test gives its own). */
void bench_hostinfo_read(bench_hostinfo *h, const char *cpuinfo, const char *product);

#endif
