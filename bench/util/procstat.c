/* SPDX-License-Identifier: Apache-2.0 */
/* bench/util/procstat.c - this process's CPU, memory, descriptors and start, from /proc. */
#include "bench/util/procstat.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "bench/util/clock.h"

/* Pages of /proc/self/statm's size and resident fields, or -1. */
static void statm(double page, double *virt, double *res)
{
    unsigned long size = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    *virt = *res = -1;
    if (!f)
        return;
    if (fscanf(f, "%lu %lu", &size, &resident) == 2) {
        *virt = (double)size * page;
        *res = (double)resident * page;
    }
    (void)fclose(f);
}

/* The boot time (/proc/stat's btime), seconds since the epoch, or -1. */
static double boot_time(void)
{
    char line[256];
    double btime = -1;
    FILE *f = fopen("/proc/stat", "r");
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "btime %lf", &btime) == 1)
            break;
    (void)fclose(f);
    return btime;
}

/* The process's start since the epoch: field 22 of /proc/self/stat (clock
 * ticks after boot), read after the command's closing parenthesis, since
 * the command name may hold spaces. */
static double start_time(void)
{
    char buf[1024];
    FILE *f = fopen("/proc/self/stat", "r");
    if (!f)
        return -1;
    const size_t n = fread(buf, 1, sizeof buf - 1, f);
    (void)fclose(f);
    buf[n] = 0;
    const char *p = strrchr(buf, ')');
    const long hz = sysconf(_SC_CLK_TCK);
    const double btime = boot_time();
    if (!p || hz <= 0 || btime < 0)
        return -1;
    /* after ") ": field 3 (state) onwards; starttime is field 22 */
    unsigned long long ticks = 0;
    int field = 3;
    for (p += 2; *p && field < 22; p++)
        if (*p == ' ')
            field++;
    if (field != 22 || sscanf(p, "%llu", &ticks) != 1)
        return -1;
    return btime + (double)ticks / (double)hz;
}

static double open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return -1;
    double n = 0;
    const struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] != '.')
            n++;
    (void)closedir(d);
    return n - 1;   /* not the directory's own descriptor */
}

void bench_procstat_read(bench_procstat *p)
{
    const uint64_t cpu = bench_process_cpu_ns();
    p->cpu_seconds = cpu ? (double)cpu / 1e9 : -1;
    const long page = sysconf(_SC_PAGESIZE);
    statm(page > 0 ? (double)page : 4096.0, &p->virtual_bytes, &p->resident_bytes);
    p->start_time_seconds = start_time();
    p->open_fds = open_fds();
    struct rlimit rl;
    p->max_fds = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY ? (double)rl.rlim_cur
                                                                                     : -1;
}
