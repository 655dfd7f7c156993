/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench.h - what the benchmarks in tests/bench share: a monotonic clock in
 * seconds, the order statistics they report, their lists of numbers, a
 * reader that drains the bench's own trace as tracepgfault would, and
 * pinning to one CPU.
 */
#ifndef PGF_TEST_BENCH_H
#define PGF_TEST_BENCH_H

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <time.h>
#include "pgf.h"

static inline double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static inline int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Sorts @v in place; v[0] and v[n - 1] are then the min and max. */
static inline double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return v[n / 2];
}

/*
 * Option -@opt of program @prog: a whole number from @lo to @hi into *@v;
 * -1, with a message, if it is not one.
 */
static inline int parse_num_opt(const char *prog, const char *arg, char opt,
				long lo, long hi, long *v)
{
	char *end;
	long x = strtol(arg, &end, 10);

	if (end == arg || *end || x < lo || x > hi) {
		fprintf(stderr, "%s: -%c wants %ld..%ld: '%s'\n", prog, opt, lo,
			hi, arg);
		return -1;
	}
	*v = x;
	return 0;
}

/*
 * A comma-separated list of up to @max positive numbers into @v; returns
 * how many, or -1 if it is not one.
 */
static inline int parse_numbers(const char *arg, int max, long *v)
{
	const char *s = arg;
	char *end;
	int n = 0;

	while (*s && n < max) {
		v[n] = strtol(s, &end, 10);
		if (end == s || v[n] <= 0 || (*end && *end != ','))
			return -1;
		n++;
		s = *end ? end + 1 : end;
	}
	return n;
}

/* What drain_end() brings back: what the reader counted, to the stop record. */
struct drain_counts {
	unsigned long long faults;	/* "fault" records */
	/* The sums of the "lost" records' two counts: faults, other */
	unsigned long long lost_faults, lost_other;
	/* The "sample" records but the baselines: scans, pages scanned, ns */
	unsigned long long scans, scanned, ns;
};

struct drain {
	const char *prog;	/* the bench, for its error messages */
	pid_t pid;		/* the reader */
	int res;		/* its counts come back here */
};

/* "@prog: @what: the error", and exit 1. */
static inline void __attribute__((noreturn))
drain_die(const struct drain *d, const char *what)
{
	fprintf(stderr, "%s: %s: %s\n", d->prog, what, strerror(errno));
	exit(1);
}

/*
 * Fork a reader of our own trace (started already) that reads it into a
 * buffer of @size bytes, throwing the text away but for what struct
 * drain_counts counts, to the stop record drain_end() writes. @prog names
 * the bench in the error messages; an error is fatal.
 */
static inline void drain_start(struct drain *d, const char *prog, size_t size)
{
	int p[2], fd = pgf_open(getpid(), 0);

	d->prog = prog;
	if (fd < 0 || pipe(p))
		drain_die(d, "open the trace");
	d->pid = fork();
	if (d->pid < 0)
		drain_die(d, "fork");
	if (d->pid == 0) {
		char *buf = malloc(size);
		unsigned long long a, b, c;
		struct drain_counts k = { 0 };
		size_t have = 0;
		int stopped = 0;
		unsigned int tid;

		close(p[0]);
		if (!buf)
			_exit(1);
		while (!stopped) {
			ssize_t n = read(fd, buf + have, size - have - 1);
			char *l, *nl;

			if (n <= 0)
				break;
			have += n;
			buf[have] = '\0';
			for (l = buf; (nl = strchr(l, '\n')); l = nl + 1) {
				*nl = '\0';	/* strstr() sees this line only */
				if (!strncmp(l, "fault ", 6)) {
					k.faults++;
				} else if (sscanf(l, "lost %llu %llu", &a, &b) == 2) {
					k.lost_faults += a;
					k.lost_other += b;
				} else if (!strncmp(l, "sample ", 7) &&
					   !strstr(l, "baseline") &&
					   sscanf(l, "sample %*u %u %llu %llu %llu",
						  &tid, &a, &b, &c) == 4) {
					k.scans++;
					k.scanned += a;
					k.ns += c;
				} else if (!strncmp(l, "stop ", 5)) {
					stopped = 1;
				}
			}
			have -= l - buf;
			memmove(buf, l, have);
		}
		_exit(write(p[1], &k, sizeof(k)) != sizeof(k));
	}
	close(fd);
	close(p[1]);
	d->res = p[0];
}

/* Stop tracing, and wait for the reader's counts. */
static inline void drain_end(struct drain *d, struct drain_counts *k)
{
	if (pgf_stop(getpid()))
		drain_die(d, "stop");
	if (read(d->res, k, sizeof(*k)) != sizeof(*k))
		drain_die(d, "the reader's counts");
	close(d->res);
	waitpid(d->pid, NULL, 0);
}

/*
 * -c CPU: run this process, and what it forks and starts, on @cpu only;
 * @prog names it in the message, and the process exits, on failure.
 */
static inline void bench_pin_cpu(const char *prog, long cpu)
{
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (sched_setaffinity(0, sizeof(one), &one)) {
		fprintf(stderr, "%s: -c %ld: sched_setaffinity: %s\n", prog, cpu,
			strerror(errno));
		exit(1);
	}
}

#endif
