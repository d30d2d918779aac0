/* SPDX-License-Identifier: Apache-2.0 */
/* bench/util/hostinfo.c - the CPU's model and the machine's product name. */
#include "bench/util/hostinfo.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* `s` without its leading and trailing blanks, copied into out. */
static void copy_trimmed(char *out, size_t len, const char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        n--;
    if (n >= len)
        n = len - 1;
    memcpy(out, s, n);
    out[n] = 0;
}

/* cpuinfo's first line "KEY<blanks>: value" for one of the keys. */
static void cpu_model(char *out, size_t len, const char *path)
{
    static const char *const keys[] = { "model name", "Model" };
    char line[512];
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    while (!out[0] && fgets(line, sizeof line, f)) {
        const char *colon = strchr(line, ':');
        if (!colon)
            continue;
        for (size_t k = 0; k < sizeof keys / sizeof keys[0] && !out[0]; k++) {
            const size_t n = strlen(keys[k]);
            if (strncmp(line, keys[k], n) == 0 && strspn(line + n, " \t") == (size_t)(colon - line - n))
                copy_trimmed(out, len, colon + 1);
        }
    }
    fclose(f);
}

static void first_line(char *out, size_t len, const char *path)
{
    char line[256];
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    if (fgets(line, sizeof line, f))
        copy_trimmed(out, len, line);
    fclose(f);
}

void bench_hostinfo_read(bench_hostinfo *h, const char *cpuinfo, const char *product)
{
    memset(h, 0, sizeof *h);
    cpu_model(h->cpu_model, sizeof h->cpu_model, cpuinfo);
    first_line(h->product, sizeof h->product, product);
}
