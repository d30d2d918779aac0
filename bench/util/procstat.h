/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/util/procstat.h - this process's own figures, as Prometheus's
 * client libraries export them (process_cpu_seconds_total,
 * process_resident_memory_bytes, ...): a generator's CPU and memory beside
 * what it measured, so a fleet's dashboard can tell a busy generator from a
 * slow target.  Read from /proc (Linux); a figure that cannot be read is
 * left out, never guessed.
 */
#ifndef BENCH_PROCSTAT_H
#define BENCH_PROCSTAT_H

typedef struct bench_procstat {
    double cpu_seconds;        /* user + system CPU time (CLOCK_PROCESS_CPUTIME_ID) */
    double resident_bytes;     /* /proc/self/statm's resident pages */
    double virtual_bytes;      /* /proc/self/statm's size */
    double start_time_seconds; /* since the epoch: /proc/self/stat's starttime + btime */
    double open_fds;           /* entries of /proc/self/fd */
    double max_fds;            /* RLIMIT_NOFILE's soft limit */
} bench_procstat;

/* Fill *p: each figure, or -1 when it could not be read. */
void bench_procstat_read(bench_procstat *p);

#endif
