// SPDX-License-Identifier: GPL-2.0
/*
 * hostfault - the native cost of a page fault on the host, to set beside
 * what faultbench measures in the guests.
 *
 *   hostfault [-p pages] [-r reps]
 *
 * For each rep and kind: map `pages` private anonymous pages with
 * MADV_NOHUGEPAGE, touch one byte per page and time the loop:
 *   anon  writes (a fresh zeroed page per fault);
 *   zero  reads (the shared zero page).
 * ns per fault is the loop's wall time over the faults it actually took
 * (getrusage, minor + major); the mmap comes before the timed loop and
 * the munmap after it. One untimed round warms up first; the kinds are
 * interleaved per rep. Prints "result" lines (median, min and max over
 * the reps) and a table. No fork, no tracing: the bare fault path of the
 * running kernel.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* RUSAGE_THREAD */
#endif
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <time.h>
#include "bench.h"
#include <unistd.h>

enum { K_ANON, K_ZERO, NKINDS };

static const char * const kind_names[NKINDS] = { "anon", "zero" };

static long pages = 16384, psz;
static int reps = 9;

/* One touch loop; ns per fault, with the faults taken in @faults. */
static double run(int kind, long *faults)
{
	size_t len = pages * psz;
	struct rusage r0, r1;
	volatile char *v;
	double t0, t1;
	char *p;

	p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("hostfault: mmap");
		exit(1);
	}
	madvise(p, len, MADV_NOHUGEPAGE);
	v = p;
	getrusage(RUSAGE_THREAD, &r0);
	t0 = now();
	if (kind == K_ANON)
		for (long i = 0; i < pages; i++)
			v[i * psz] = 1;
	else
		for (long i = 0; i < pages; i++)
			(void)v[i * psz];
	t1 = now();
	getrusage(RUSAGE_THREAD, &r1);
	munmap(p, len);
	*faults = (r1.ru_minflt - r0.ru_minflt) + (r1.ru_majflt - r0.ru_majflt);
	if (!*faults) {
		fprintf(stderr, "hostfault: the %s loop took no faults\n",
			kind_names[kind]);
		exit(1);
	}
	return (t1 - t0) * 1e9 / *faults;
}

int main(int argc, char **argv)
{
	double *ns[NKINDS], *fs[NKINDS], med[NKINDS];
	long f;
	struct utsname u;
	int opt;

	while ((opt = getopt(argc, argv, "p:r:h")) != -1) {
		switch (opt) {
		case 'p': pages = strtol(optarg, NULL, 10); break;
		case 'r': reps = strtol(optarg, NULL, 10); break;
		default:
			fprintf(opt == 'h' ? stdout : stderr,
				"usage: %s [-p pages] [-r reps]\n", argv[0]);
			return opt == 'h' ? 0 : 2;
		}
	}
	if (pages <= 0 || reps <= 0) {
		fprintf(stderr, "hostfault: -p and -r must be positive\n");
		return 2;
	}
	psz = sysconf(_SC_PAGESIZE);
	if (uname(&u))
		snprintf(u.release, sizeof(u.release), "?");
	printf("# hostfault: %ld pages, %d reps, kernel %s, %ld CPUs\n",
	       pages, reps, u.release, sysconf(_SC_NPROCESSORS_ONLN));
	for (int k = 0; k < NKINDS; k++) {
		ns[k] = calloc(reps, sizeof(double));
		fs[k] = calloc(reps, sizeof(double));
		if (!ns[k] || !fs[k]) {
			perror("hostfault: calloc");
			return 1;
		}
		run(k, &f);	/* warm-up */
	}
	for (int r = 0; r < reps; r++)
		for (int k = 0; k < NKINDS; k++) {
			ns[k][r] = run(k, &f);
			if (labs(f - pages) * 50 > pages)
				printf("# warning: kind=%s: %ld faults for %ld pages\n",
				       kind_names[k], f, pages);
			fs[k][r] = f;
		}
	for (int k = 0; k < NKINDS; k++) {
		qsort(ns[k], reps, sizeof(double), cmp_double);
		qsort(fs[k], reps, sizeof(double), cmp_double);
		med[k] = ns[k][reps / 2];
		printf("result kind=%s ns=%.1f min=%.1f max=%.1f faults=%.0f reps=%d\n",
		       kind_names[k], med[k], ns[k][0], ns[k][reps - 1],
		       fs[k][reps / 2], reps);
	}
	printf("\n%-5s %10s %21s %12s\n", "kind", "ns/fault", "spread (min-max)",
	       "faults/s");
	for (int k = 0; k < NKINDS; k++) {
		char spread[32];

		snprintf(spread, sizeof(spread), "%.1f-%.1f", ns[k][0],
			 ns[k][reps - 1]);
		printf("%-5s %10.1f %21s %12.0f\n", kind_names[k], med[k],
		       spread, 1e9 / med[k]);
		free(ns[k]);
		free(fs[k]);
	}
	return 0;
}
