// SPDX-License-Identifier: GPL-2.0
/*
 * pgf_drain - how fast one reader drains /proc/<pid>/pgfault_history, and
 * how many records a fault storm loses, at a given buffer limit.
 *
 *   pgf_drain [-p pages] [-r rounds] [-b buffer_kb...]
 *
 * A child maps `pages` anonymous pages and writes each once, `rounds`
 * times (munmap in between), so it takes pages*rounds faults as fast as
 * it can. For each buffer limit: one untraced run, then a traced run with
 * a reader that read()s 128 KiB at a time and throws the text away, as
 * `cat > /dev/null` does. Prints faults per second, records drained per
 * second and the records lost. Then the reader's own capacity: a storm
 * into a 64 MiB buffer with nobody reading, and the time one reader takes
 * to drain that backlog. Runs are interleaved, repeated, medians.
 */
#include <getopt.h>
#include <poll.h>
#include <sys/mman.h>
#include <time.h>
#include "pgf.h"
#include "bench.h"

#define REPS 5

static long pages = 4096, rounds = 16;

static void storm(int step, int out)
{
	long psz = 4096;

	(void)out;
	if (step != 1)
		return;
	for (long r = 0; r < rounds; r++) {
		char *p = mmap(NULL, pages * psz, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			_exit(2);
		for (long i = 0; i < pages; i++)
			p[i * psz] = 1;
		munmap(p, pages * psz);
	}
}

struct result {
	double storm_s;		/* the child's workload */
	double drain_s;		/* start of workload to reader's EOF */
	unsigned long long faults, lost;
};

/* Count "fault" lines and sum "lost" lines in a chunk of whole lines. */
static void count(const char *buf, size_t n, struct result *r)
{
	const char *p = buf, *end = buf + n;

	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);

		if (!nl)
			break;
		if (!strncmp(p, "fault ", 6))
			r->faults++;
		else if (!strncmp(p, "lost ", 5))
			r->lost += strtoull(p + 5, NULL, 10);
		p = nl + 1;
	}
}

static int run(int traced, unsigned int kb, struct result *r)
{
	static char buf[128 * 1024];
	struct puppet p;
	double t0;
	ssize_t n;
	int fd = -1;

	memset(r, 0, sizeof(*r));
	if (traced && pgf_set_buffer_kb(kb))
		return -1;
	if (puppet_spawn(&p, storm))
		return -1;
	if (traced) {
		if (pgf_start(p.pid))
			return -1;
		fd = pgf_open(p.pid, 0);
		if (fd < 0)
			return -1;
	}
	t0 = now();
	if (!traced) {
		if (puppet_step(&p, 1))
			return -1;
		r->storm_s = now() - t0;
		puppet_end(&p);
		return 0;
	}
	/* The storm runs in the child; we drain until its exit. */
	if (write(p.to, "\1", 1) != 1)
		return -1;
	for (;;) {
		struct pollfd pfd[2] = {
			{ .fd = fd, .events = POLLIN },
			{ .fd = r->storm_s ? -1 : p.from, .events = POLLIN },
		};

		if (poll(pfd, 2, -1) < 0)
			return -1;
		if (pfd[1].revents) {
			/* The storm is done: tell the child to exit. */
			unsigned char c;

			r->storm_s = now() - t0;
			if (read(p.from, &c, 1) != 1 || write(p.to, "", 1) != 1)
				return -1;
		}
		if (!pfd[0].revents)
			continue;
		n = read(fd, buf, sizeof(buf));
		if (n <= 0)
			break;
		count(buf, n, r);
	}
	if (!r->storm_s)
		r->storm_s = now() - t0;
	r->drain_s = now() - t0;
	close(fd);
	close(p.to);
	close(p.from);
	waitpid(p.pid, NULL, 0);
	return 0;
}

/*
 * Storm with no reader into a buffer that can hold it all; time the drain.
 * The ring grows in a worker while the storm runs, so a few records may be
 * lost on the way: counted and shown.
 */
static int backlog(double *rate, unsigned long long *recs,
		   unsigned long long *lost)
{
	static char buf[128 * 1024];
	struct result r = { 0 };
	struct puppet p;
	double t0;
	ssize_t n;
	int fd;

	if (pgf_set_buffer_kb(65536) || puppet_spawn(&p, storm) ||
	    pgf_start(p.pid) || puppet_step(&p, 1))
		return -1;
	fd = pgf_open(p.pid, 0);
	if (fd < 0)
		return -1;
	puppet_end(&p);
	t0 = now();
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		count(buf, n, &r);
	*rate = r.faults / (now() - t0);
	*recs = r.faults;
	*lost = r.lost;
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned int kbs[8] = { 64, 1024 }, nkb = 2;
	int opt;

	while ((opt = getopt(argc, argv, "p:r:b:h")) != -1) {
		switch (opt) {
		case 'p': pages = strtol(optarg, NULL, 10); break;
		case 'r': rounds = strtol(optarg, NULL, 10); break;
		case 'b':
			if (nkb == 2 && kbs[0] == 64 && kbs[1] == 1024)
				nkb = 0;
			if (nkb < 8)
				kbs[nkb++] = strtoul(optarg, NULL, 10);
			break;
		default:
			fprintf(stderr, "usage: %s [-p pages] [-r rounds] [-b buffer_kb]...\n",
				argv[0]);
			return opt == 'h' ? 0 : 2;
		}
	}
	if (pages <= 0 || rounds <= 0) {
		fprintf(stderr, "pgf_drain: -p and -r must be positive\n");
		return 2;
	}
	printf("pgf_drain: %ld faults per run (%ld pages x %ld rounds), %d runs each, medians\n",
	       pages * rounds, pages, rounds, REPS);
	printf("%10s %14s %14s %16s %12s %10s\n", "buffer_kb", "untraced f/s",
	       "traced f/s", "drained rec/s", "lost", "lost %");
	for (unsigned int k = 0; k < nkb; k++) {
		double un[REPS], tr[REPS], dr[REPS], lost[REPS];

		for (int i = 0; i < REPS; i++) {
			struct result a, b;

			if (run(0, 0, &a) || run(1, kbs[k], &b)) {
				perror("pgf_drain: run");
				return 1;
			}
			un[i] = pages * rounds / a.storm_s;
			tr[i] = pages * rounds / b.storm_s;
			dr[i] = b.faults / b.drain_s;
			lost[i] = b.lost;
		}
		double l = median(lost, REPS);

		printf("%10u %14.0f %14.0f %16.0f %12.0f %9.1f%%\n", kbs[k],
		       median(un, REPS), median(tr, REPS), median(dr, REPS), l,
		       100.0 * l / (pages * rounds));
	}
	{
		double rate[REPS];
		unsigned long long recs = 0, lost = 0, l;

		for (int i = 0; i < REPS; i++) {
			if (backlog(&rate[i], &recs, &l)) {
				perror("pgf_drain: backlog");
				return 1;
			}
			lost += l;
		}
		printf("reader capacity: %.0f records/s (backlog of %llu fault records, 128 KiB reads; %llu lost over %d storms while the ring grew)\n",
		       median(rate, REPS), recs, lost, REPS);
	}
	pgf_set_buffer_kb(64);
	return 0;
}
