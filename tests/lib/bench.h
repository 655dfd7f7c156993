/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench.h - what the benchmarks in tests/bench share: a monotonic clock in
 * seconds and the order statistics they report.
 */
#ifndef PGF_TEST_BENCH_H
#define PGF_TEST_BENCH_H

#include <stdlib.h>
#include <time.h>

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

#endif
