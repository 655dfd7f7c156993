// SPDX-License-Identifier: GPL-2.0
/*
 * migbench - what a migration of a page costs with its process traced
 * ("move" records, format version 9) and not, in ns per page migrated.
 *
 *   migbench [-p pages] [-r reps] [-m off,traced] [-d] [-c cpu] [-b buffer_kb]
 *
 * Each measurement forks a child that maps `pages` anonymous pages
 * (MADV_NOHUGEPAGE) bound to node 0, writes them, says it is ready and
 * waits for "go"; then it moves them all to node 1 and back with
 * move_pages(2) and reports the time of the two calls over the pages
 * they moved. Modes: off, nobody traces the child; traced, the parent
 * writes "1" to /proc/<child>/pgfault_history first, as root (the
 * records carry their frames), and reads the trace to EOF, counting the
 * pages of its "move" records and what "lost" lines report. -d: the
 * reader starts after the child's loop (make bench-icount: guest time
 * counts every CPU's instructions): the trace's first ring must then hold
 * the 2 x pages records of a measurement (200 pages do), or some are lost
 * (counted, and said). -c CPU: the child runs on that CPU.
 * -b KB: vm.pgfault_history_buffer_kb while it runs. The modes are
 * interleaved per repetition; the results are the median, min and max.
 * Needs two NUMA nodes.
 */
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <linux/mempolicy.h>
#include "pgf.h"

#define MAXREPS		64
#define MAXPAGES	65536

enum { M_OFF, M_TRACED, NMODES };
static const char *const mode_names[NMODES] = { "off", "traced" };

struct result {
	double ns;			/* per page migrated */
	long moved;			/* pages moved, both ways */
};

static int pages = 1000, reps = 9, defer, cpu = -1;

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void die(const char *what)
{
	perror(what);
	exit(1);
}

/* Move every page of @addr to @node; how many went. */
static long move_all(void **addr, int node, int *nodes, int *status)
{
	long n = 0;

	for (int i = 0; i < pages; i++)
		nodes[i] = node;
	if (syscall(SYS_move_pages, 0, (unsigned long)pages, addr, nodes,
		    status, MPOL_MF_MOVE))
		return -1;
	for (int i = 0; i < pages; i++)
		n += status[i] == node;
	return n;
}

static void child(int go, int out)
{
	static void *addr[MAXPAGES];
	static int nodes[MAXPAGES], status[MAXPAGES];
	unsigned long mask = 1;
	struct result r = { 0 };
	unsigned long long t0;
	long a, b;
	char *m;
	char c;

	if (cpu >= 0) {
		cpu_set_t one;

		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		if (sched_setaffinity(0, sizeof(one), &one))
			_exit(2);
	}
	m = mmap(NULL, pages * 4096UL, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		_exit(2);
	madvise(m, pages * 4096UL, MADV_NOHUGEPAGE);
	if (syscall(SYS_mbind, m, pages * 4096UL, MPOL_BIND, &mask, 64UL, 0U))
		_exit(3);
	for (int i = 0; i < pages; i++) {
		m[i * 4096UL] = 1;
		addr[i] = m + i * 4096UL;
	}
	/* move_pages() moves pages out of the policy's nodes too. */
	if (write(out, "r", 1) != 1 || read(go, &c, 1) != 1)
		_exit(4);
	t0 = now_ns();
	a = move_all(addr, 1, nodes, status);
	b = move_all(addr, 0, nodes, status);
	r.ns = (double)(now_ns() - t0);
	r.moved = a >= 0 && b >= 0 ? a + b : -1;
	if (r.moved > 0)
		r.ns /= r.moved;
	if (write(out, &r, sizeof(r)) != sizeof(r))
		_exit(5);
	_exit(0);
}

struct reader {
	int fd;
	pthread_t th;
	double moved, lost;
};

/* Read the trace to EOF: the pages of its "move" lines, and its losses. */
static void *read_trace(void *arg)
{
	struct reader *rd = arg;
	struct pgf_trace t = { 0 };

	if (pgf_read_all(rd->fd, &t))
		return NULL;
	for (size_t i = 0; i < t.nr; i++) {
		if (!strcmp(t.rec[i].type, "move"))
			rd->moved += t.rec[i].a;
		if (!strcmp(t.rec[i].type, "lost"))
			rd->lost += t.rec[i].a + t.rec[i].b;
	}
	pgf_trace_free(&t);
	return NULL;
}

static struct result measure(int mode, struct reader *rd)
{
	int go[2], res[2], status;
	struct result r = { -1, -1 };
	pid_t pid;
	char c;

	if (pipe(go) || pipe(res))
		die("migbench: pipe");
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		die("migbench: fork");
	if (!pid) {
		close(go[1]);
		close(res[0]);
		child(go[0], res[1]);
	}
	close(go[0]);
	close(res[1]);
	if (read(res[0], &c, 1) != 1)
		die("migbench: the child failed to set up");
	rd->fd = -1;
	if (mode == M_TRACED) {
		errno = -pgf_start(pid);
		if (errno)
			die("migbench: write 1 to /proc/<child>/pgfault_history");
		rd->fd = pgf_open(pid, 0);
		if (rd->fd < 0)
			die("migbench: open /proc/<child>/pgfault_history");
		if (!defer && pthread_create(&rd->th, NULL, read_trace, rd))
			die("migbench: pthread_create");
	}
	if (write(go[1], "g", 1) != 1 ||
	    read(res[0], &r, sizeof(r)) != sizeof(r))
		die("migbench: the child failed");
	if (mode == M_TRACED && defer &&
	    pthread_create(&rd->th, NULL, read_trace, rd))
		die("migbench: pthread_create");
	waitpid(pid, &status, 0);
	if (rd->fd >= 0) {
		pthread_join(rd->th, NULL);
		close(rd->fd);
	}
	close(go[1]);
	close(res[0]);
	return r;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	static double ns[NMODES][MAXREPS];
	double moved[NMODES] = { 0 }, records = 0, lost = 0;
	bool want[NMODES] = { true, true };
	long old_kb = -1, buffer_kb = 0;
	int opt;

	while ((opt = getopt(argc, argv, "p:r:m:dc:b:")) != -1) {
		switch (opt) {
		case 'p':
			pages = atoi(optarg);
			break;
		case 'r':
			reps = atoi(optarg);
			break;
		case 'm':
			want[M_OFF] = strstr(optarg, "off") != NULL;
			want[M_TRACED] = strstr(optarg, "traced") != NULL;
			break;
		case 'd':
			defer = 1;
			break;
		case 'c':
			cpu = atoi(optarg);
			break;
		case 'b':
			buffer_kb = atol(optarg);
			break;
		default:
			fprintf(stderr, "usage: %s [-p pages] [-r reps] [-m off,traced] [-d] [-c cpu] [-b buffer_kb]\n",
				argv[0]);
			return 2;
		}
	}
	if (pages < 1 || pages > MAXPAGES || reps < 1 || reps > MAXREPS) {
		fprintf(stderr, "migbench: 1 to %d pages, 1 to %d reps\n",
			MAXPAGES, MAXREPS);
		return 2;
	}
	if (access("/sys/devices/system/node/node1", F_OK)) {
		fprintf(stderr, "migbench: needs two NUMA nodes\n");
		return 2;
	}
	if (buffer_kb) {
		old_kb = pgf_read_long("/proc/sys/vm/pgfault_history_buffer_kb");
		if (pgf_set_buffer_kb(buffer_kb))
			die("migbench: vm.pgfault_history_buffer_kb");
	}
	printf("# migbench: %d pages to node 1 and back, %d reps\n", pages, reps);
	for (int rep = 0; rep < reps; rep++)
		for (int m = 0; m < NMODES; m++) {
			struct reader rd = { 0 };
			struct result r;

			if (!want[m])
				continue;
			r = measure(m, &rd);
			if (r.moved != 2L * pages) {
				fprintf(stderr, "migbench: %s: %ld of %d pages moved\n",
					mode_names[m], r.moved, 2 * pages);
				return 1;
			}
			ns[m][rep] = r.ns;
			moved[m] += r.moved;
			if (m == M_TRACED) {
				records += rd.moved;
				lost += rd.lost;
			}
		}
	if (old_kb > 0)
		pgf_set_buffer_kb(old_kb);
	for (int m = 0; m < NMODES; m++) {
		if (!want[m])
			continue;
		qsort(ns[m], reps, sizeof(double), by_value);
		printf("result kind=migrate mode=%s ns=%.1f min=%.1f max=%.1f pages=%.0f reps=%d records=%.0f lost=%.0f\n",
		       mode_names[m], ns[m][reps / 2], ns[m][0], ns[m][reps - 1],
		       moved[m] / reps, reps, m == M_TRACED ? records / reps : 0,
		       m == M_TRACED ? lost / reps : 0);
	}
	/* A record a page: those kept and those lost are every page moved. */
	if (want[M_TRACED] && records + lost != moved[M_TRACED]) {
		fprintf(stderr, "migbench: %.0f pages in move records and %.0f lost for %.0f moved\n",
			records, lost, moved[M_TRACED]);
		return 1;
	}
	return 0;
}
