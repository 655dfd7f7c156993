// SPDX-License-Identifier: GPL-2.0
/*
 * peerload - the workload of make bench-peers: one fault storm or one
 * sweep of region changes, timed from the inside, so that the same
 * program runs untraced, under tracepgfault, under perf and under
 * bpftrace, each starting it as it starts any command.
 *
 *   peerload anon|zero|file PAGES [MAPS]
 *   peerload mmap|split|fork VMAS PAIRS [MAPS]
 *
 * anon writes one byte to each page of a private anonymous mapping (a
 * fresh page a fault), zero reads them (the zero page), file reads a
 * private mapping of a file in /tmp written and read back first (in the
 * page cache: a minor fault a page with fault_around_bytes at one page,
 * which make bench-peers sets); THP off for the mapping (MADV_NOHUGEPAGE).
 * mmap, split and fork first make the process VMAS VMAs (pages mapped at
 * once, every other one made read-only), then time PAIRS one-page
 * mmap()+munmap() pairs, mprotect() split+merge pairs of a page in a
 * 64-page mapping, or fork()s of a child that exits at once (PAIRS / 30,
 * three at least), as vmabench does.
 *
 * Prints "result peer op=OP n=N ns=T faults=F" (ns per page or pair of
 * the timed loop, CLOCK_MONOTONIC: instructions under make bench-peers'
 * -icount; faults: the minor and major faults getrusage() counts over the
 * loop), and, with MAPS, writes its /proc/self/maps there at the end: what
 * a trace's regions are checked against.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SPLIT_PAGES 64

static long psz;

static void die(const char *what)
{
	fprintf(stderr, "peerload: %s: %s\n", what, strerror(errno));
	exit(1);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static long faults(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt + ru.ru_majflt;
}

static void copy_maps(const char *path)
{
	char buf[65536];
	int in = open("/proc/self/maps", O_RDONLY), out;
	ssize_t n;

	if (in < 0)
		die("/proc/self/maps");
	out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (out < 0)
		die(path);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n)
			die(path);
	if (n < 0)
		die("/proc/self/maps");
	close(in);
	close(out);
}

/* A mapping of @pages pages: anonymous, or a file in the page cache. */
static char *storm_area(const char *op, long pages)
{
	/* no commitment: a zero-page storm of 10^6 pages maps no memory */
	int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, fd = -1;
	char *p, path[] = "/tmp/peerload.XXXXXX";

	if (!strcmp(op, "file")) {
		char *page = calloc(1, psz), *back = malloc(psz);

		fd = mkstemp(path);
		if (fd < 0 || !page || !back)
			die("the file");
		unlink(path);
		for (long i = 0; i < pages; i++) {
			page[0] = (char)i;
			if (write(fd, page, psz) != psz)
				die("writing the file");
		}
		for (long i = 0; i < pages; i++)
			if (pread(fd, back, psz, i * psz) != psz)
				die("reading the file back");
		free(page);
		free(back);
		flags = MAP_PRIVATE;
	}
	p = mmap(NULL, pages * psz, PROT_READ | PROT_WRITE, flags, fd, 0);
	if (p == MAP_FAILED)
		die("mmap");
	madvise(p, pages * psz, MADV_NOHUGEPAGE);
	if (fd >= 0)
		close(fd);
	return p;
}

static int storm(const char *op, long pages)
{
	char *p = storm_area(op, pages);
	volatile char sink = 0;
	long f0 = faults(), i;
	double t0 = now(), t;

	if (!strcmp(op, "anon")) {
		for (i = 0; i < pages; i++)
			p[i * psz] = 1;
	} else {
		for (i = 0; i < pages; i++)
			sink += p[i * psz];
	}
	t = now() - t0;
	printf("result peer op=%s n=%ld ns=%.1f faults=%ld\n", op, pages,
	       t * 1e9 / pages, faults() - f0);
	(void)sink;
	return 0;
}

static int sweep(const char *op, long vmas, long pairs)
{
	long n = pairs, f0;
	char *many, *split;
	double t0, t;

	many = mmap(NULL, vmas * psz, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (many == MAP_FAILED)
		die("mmap of the VMAs");
	for (long i = 1; i < vmas; i += 2)
		if (mprotect(many + i * psz, psz, PROT_READ))
			die("mprotect building the VMAs");
	split = mmap(NULL, SPLIT_PAGES * psz, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (split == MAP_FAILED)
		die("mmap of the split area");
	if (!strcmp(op, "fork"))
		n = pairs / 30 > 3 ? pairs / 30 : 3;
	f0 = faults();
	t0 = now();
	for (long i = 0; i < n; i++) {
		if (!strcmp(op, "mmap")) {
			void *q = mmap(NULL, psz, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			if (q == MAP_FAILED)
				die("mmap");
			if (munmap(q, psz))
				die("munmap");
		} else if (!strcmp(op, "split")) {
			char *q = split + SPLIT_PAGES / 2 * psz;

			if (mprotect(q, psz, PROT_READ))
				die("mprotect");
			if (mprotect(q, psz, PROT_READ | PROT_WRITE))
				die("mprotect back");
		} else {
			pid_t pid = fork();

			if (pid < 0)
				die("fork");
			if (!pid)
				_exit(0);
			if (waitpid(pid, NULL, 0) != pid)
				die("waitpid");
		}
	}
	t = now() - t0;
	printf("result peer op=%s n=%ld vmas=%ld ns=%.1f faults=%ld\n", op, n,
	       vmas, t * 1e9 / n, faults() - f0);
	return 0;
}

static long number(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*s == '\0' || *end != '\0' || v < 1 || v > 100000000) {
		fprintf(stderr, "peerload: not a count: %s\n", s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	const char *op = argc > 1 ? argv[1] : "";
	int storms = !strcmp(op, "anon") || !strcmp(op, "zero") ||
		     !strcmp(op, "file");
	int sweeps = !strcmp(op, "mmap") || !strcmp(op, "split") ||
		     !strcmp(op, "fork");
	const char *maps = NULL;
	int ret;

	psz = sysconf(_SC_PAGESIZE);
	if (storms && (argc == 3 || argc == 4)) {
		maps = argc == 4 ? argv[3] : NULL;
		ret = storm(op, number(argv[2]));
	} else if (sweeps && (argc == 4 || argc == 5)) {
		maps = argc == 5 ? argv[4] : NULL;
		ret = sweep(op, number(argv[2]), number(argv[3]));
	} else {
		fprintf(stderr, "usage: peerload anon|zero|file PAGES [MAPS]\n"
			"       peerload mmap|split|fork VMAS PAIRS [MAPS]\n");
		return 2;
	}
	fflush(stdout);
	if (maps)
		copy_maps(maps);
	return ret;
}
