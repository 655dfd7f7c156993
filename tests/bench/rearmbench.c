// SPDX-License-Identifier: GPL-2.0
/*
 * rearmbench - what re-reference tracing costs.
 *
 *   rearmbench [-p pages] [-r reps] [-s seconds] [-i ms,...] [-w pages,...]
 *              [-l stores,...]
 *
 * 1. One fault: over `pages` pages (default 4096) of a fresh anonymous
 *    mapping, the ns per page of a first-touch write untraced, the same
 *    traced, a re-reference fault (the pages re-armed by writing "rearm",
 *    then written again), and the walk alone (written a third time: no
 *    fault); and the ns per re-armed page of the "rearm" write itself.
 *    "reref_ns" is the re-reference pass less the walk alone.
 * 2. A workload: a sequential and a random walk over the pages for
 *    `seconds` (default 2) untraced and in interval mode at each `ms`
 *    (default 10,100) and in window mode with each window of `pages`
 *    (default 64,1024,8192): page visits per second, and the ratio
 *    untraced / traced (the slowdown). Each visit writes `stores` bytes
 *    of the page, evenly spaced (default 1 and 64, one per cache line):
 *    the work a program does per page it reaches, over which a fault's
 *    cost is spread. Each traced walk follows one untimed sequential pass
 *    (the first reference to each page after the start faults in every
 *    mode): the rates are steady states.
 * Medians of `reps` (default 5) runs. A reader process drains the trace
 * (128 KiB reads, as tracepgfault) and counts what was lost.
 *
 * Output: "result rearm minor_ns=.. traced_minor_ns=.. reref_ns=..
 * walk_ns=.. rearm_ns_per_page=.. pages=.." and "result rearmwalk
 * walk=seq|rand stores=S mode=off|interval=MS|window=K touches_per_s=..
 * slowdown=.. faults=.. lost=.." (touches: page visits).
 */
#include <getopt.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include "pgf.h"
#include "bench.h"

#define PAGE		4096UL
#define MAXLIST		8

static long pages = 4096;
static int reps = 5;
static double seconds = 2;

static void die(const char *what)
{
	fprintf(stderr, "rearmbench: %s: %s\n", what, strerror(errno));
	exit(1);
}

static char *map_pages(void)
{
	char *m = mmap(NULL, pages * PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED)
		die("mmap");
	madvise(m, pages * PAGE, MADV_NOHUGEPAGE);
	return m;
}

static double touch_all(char *m, char v)
{
	double t0 = now();

	for (long i = 0; i < pages; i++)
		m[i * PAGE] = v;
	return (now() - t0) * 1e9 / pages;
}

/* Part 1: one fault of each kind, and the rearm write. */
static void one_fault(void)
{
	double minor[32], tminor[32], reref[32], walk[32], rearm[32];
	unsigned long long lost = 0;
	struct drain_counts k;
	struct drain d;

	for (int r = 0; r < reps; r++) {
		char *m = map_pages();
		double t0;

		minor[r] = touch_all(m, 1);
		munmap(m, pages * PAGE);

		if (pgf_start(getpid()))
			die("start tracing");
		drain_start(&d, "rearmbench", 128 * 1024);
		m = map_pages();
		tminor[r] = touch_all(m, 1);
		t0 = now();
		if (pgf_rearm(getpid()))
			die("rearm");
		rearm[r] = (now() - t0) * 1e9 / pages;
		reref[r] = touch_all(m, 2);
		walk[r] = touch_all(m, 3);
		reref[r] -= walk[r];
		drain_end(&d, &k);
		lost += k.lost_faults;
		munmap(m, pages * PAGE);
	}
	printf("result rearm minor_ns=%.1f traced_minor_ns=%.1f reref_ns=%.1f walk_ns=%.1f rearm_ns_per_page=%.1f pages=%ld lost=%llu\n",
	       median(minor, reps), median(tminor, reps), median(reref, reps),
	       median(walk, reps), median(rearm, reps), pages, lost);
	printf("# one fault, ns (median of %d): first touch untraced %.1f, traced %.1f; re-reference %.1f (%.2fx a traced first touch); rearm %.1f per page\n",
	       reps, median(minor, reps), median(tminor, reps),
	       median(reref, reps), median(reref, reps) / median(tminor, reps),
	       median(rearm, reps));
}

/* Page visits per second of a walk for `seconds`; @stores per visit. */
static double walk_rate(char *m, bool random, long stores)
{
	unsigned long stride = PAGE / stores;
	unsigned int seed = 1;
	double t0 = now(), end = t0 + seconds;
	unsigned long long n = 0;

	while (now() < end) {
		for (long i = 0; i < pages; i++) {
			long p = random ? rand_r(&seed) % pages : i;
			volatile char *pg = m + p * PAGE;

			for (long j = 0; j < stores; j++)
				pg[j * stride]++;
		}
		n += pages;
	}
	return n / (now() - t0);
}

/* The modes of part 2, as written after "1 ". */
static char modes[2 * MAXLIST][32];
static int nmodes;

static void workload(long stores)
{
	for (int kind = 0; kind < 2; kind++) {
		double off[32], rate[2 * MAXLIST][32];
		unsigned long long faults[2 * MAXLIST] = { 0 };
		unsigned long long lost[2 * MAXLIST] = { 0 };
		const char *name = kind ? "rand" : "seq";

		/* Modes interleaved within each repetition. */
		for (int r = 0; r < reps; r++) {
			char *m = map_pages();

			touch_all(m, 1);
			off[r] = walk_rate(m, kind, stores);
			for (int i = 0; i < nmodes; i++) {
				char start[560];
				struct drain_counts k;
				struct drain d;

				snprintf(start, sizeof(start), "1 %s", modes[i]);
				if (pgf_ctl(getpid(), start, strlen(start)))
					die(start);
				drain_start(&d, "rearmbench", 128 * 1024);
				/*
				 * The first reference to each page after the
				 * start faults in every mode: one pass, untimed,
				 * so the rate is the mode's steady state.
				 */
				touch_all(m, 4);
				rate[i][r] = walk_rate(m, kind, stores);
				drain_end(&d, &k);
				faults[i] += k.faults;
				lost[i] += k.lost_faults;
			}
			munmap(m, pages * PAGE);
		}
		printf("result rearmwalk walk=%s stores=%ld mode=off touches_per_s=%.0f slowdown=1.00 faults=0 lost=0\n",
		       name, stores, median(off, reps));
		for (int i = 0; i < nmodes; i++) {
			double o = median(off, reps), t = median(rate[i], reps);

			printf("result rearmwalk walk=%s stores=%ld mode=%s touches_per_s=%.0f slowdown=%.2f faults=%llu lost=%llu\n",
			       name, stores, modes[i], t, o / t,
			       faults[i] / reps, lost[i]);
		}
	}
}

int main(int argc, char **argv)
{
	long ms[MAXLIST] = { 10, 100 }, win[MAXLIST] = { 64, 1024, 8192 };
	long st[MAXLIST] = { 1, 64 };
	int nms = 2, nwin = 3, nst = 2, opt;

	while ((opt = getopt(argc, argv, "p:r:s:i:w:l:")) != -1) {
		switch (opt) {
		case 'p':
			pages = strtol(optarg, NULL, 10);
			break;
		case 'r':
			reps = atoi(optarg);
			break;
		case 's':
			seconds = atof(optarg);
			break;
		case 'i':
			nms = parse_numbers(optarg, MAXLIST, ms);
			break;
		case 'w':
			nwin = parse_numbers(optarg, MAXLIST, win);
			break;
		case 'l':
			nst = parse_numbers(optarg, MAXLIST, st);
			break;
		default:
			fprintf(stderr, "usage: rearmbench [-p pages] [-r reps] [-s seconds] [-i ms,...] [-w pages,...] [-l stores,...]\n");
			return 2;
		}
	}
	if (pages < 1 || reps < 1 || reps > 32 || seconds <= 0 || nms < 0 ||
	    nwin < 0 || nst < 0) {
		fprintf(stderr, "rearmbench: bad arguments\n");
		return 2;
	}
	printf("# rearmbench: %ld pages, %d reps, %.1f s walks\n", pages, reps, seconds);
	for (int i = 0; i < nms; i++)
		snprintf(modes[nmodes++], sizeof(modes[0]), "interval=%ld", ms[i]);
	for (int i = 0; i < nwin; i++)
		snprintf(modes[nmodes++], sizeof(modes[0]), "window=%ld", win[i]);
	for (int i = 0; i < nst; i++) {
		if (st[i] > (long)PAGE || PAGE % st[i]) {
			fprintf(stderr, "rearmbench: -l: stores per page divide %lu\n",
				PAGE);
			return 2;
		}
	}
	one_fault();
	for (int i = 0; i < nst; i++)
		workload(st[i]);
	return 0;
}
