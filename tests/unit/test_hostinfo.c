/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/unit/test_hostinfo.c - bench/util/hostinfo.h: the CPU's model from
 * cpuinfo as x86 and ARM boards write it, the firmware's product name (an
 * EC2 instance type), blanks trimmed, and nothing guessed when a file is
 * missing or says nothing.
 *
 * early: no check depends on the cores it gets (fixed inputs, no clock)
 */
#include "bench/util/hostinfo.h"

#include <stdlib.h>
#include <unistd.h>

#include "tests/unit/check.h"

/* A file holding `text`, its path in `path` (a PATH_MAX-sized buffer). */
static int write_tmp(char *path, size_t len, const char *text)
{
    snprintf(path, len, "%s/hostinfo-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    const int fd = mkstemp(path);
    if (fd < 0)
        return -1;
    const size_t n = strlen(text);
    const int ok = write(fd, text, n) == (ssize_t)n;
    return close(fd) == 0 && ok ? 0 : -1;
}

static void read_case(const char *cpuinfo, const char *product, bench_hostinfo *h)
{
    char c[4096], p[4096];
    CHECK(write_tmp(c, sizeof c, cpuinfo) == 0 && write_tmp(p, sizeof p, product) == 0);
    bench_hostinfo_read(h, c, p);
    unlink(c);
    unlink(p);
}

static void test_x86(void)
{
    bench_hostinfo h;
    read_case("processor\t: 0\nvendor_id\t: GenuineIntel\nmodel\t\t: 85\n"
              "model name\t: Intel(R) Xeon(R) Platinum 8259CL CPU @ 2.50GHz\n"
              "processor\t: 1\nmodel name\t: another\n", "m5.xlarge\n", &h);
    CHECK(strcmp(h.cpu_model, "Intel(R) Xeon(R) Platinum 8259CL CPU @ 2.50GHz") == 0);
    CHECK(strcmp(h.product, "m5.xlarge") == 0);
}

static void test_arm(void)
{
    bench_hostinfo h;
    read_case("processor\t: 0\nBogoMIPS\t: 108.00\nCPU part\t: 0xd0c\n\nModel\t\t: Raspberry Pi 4 Model B Rev 1.4\n",
              "  c7g.large  \n", &h);
    CHECK(strcmp(h.cpu_model, "Raspberry Pi 4 Model B Rev 1.4") == 0);
    CHECK(strcmp(h.product, "c7g.large") == 0);
}

static void test_nothing_guessed(void)
{
    bench_hostinfo h;
    read_case("processor\t: 0\nmodel\t\t: 85\nmodel names: x\n", "\n", &h);
    CHECK(h.cpu_model[0] == 0 && h.product[0] == 0);
    bench_hostinfo_read(&h, "/nonexistent/cpuinfo", "/nonexistent/product_name");
    CHECK(h.cpu_model[0] == 0 && h.product[0] == 0);
}

static void test_long(void)
{
    char big[600];
    memset(big, 'x', sizeof big);
    memcpy(big, "model name: ", 12);
    big[sizeof big - 2] = '\n';
    big[sizeof big - 1] = 0;
    bench_hostinfo h;
    read_case(big, "p\n", &h);
    CHECK(strlen(h.cpu_model) == sizeof h.cpu_model - 1 && h.cpu_model[0] == 'x');
}

int main(void)
{
    RUN(test_x86);
    RUN(test_arm);
    RUN(test_nothing_guessed);
    RUN(test_long);
    return check_finish();
}
