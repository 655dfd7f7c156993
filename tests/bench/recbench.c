// SPDX-License-Identifier: GPL-2.0
/*
 * recbench - what one fault record costs in the kernel, and what a traced
 * process holds in kernel memory.
 *
 *   recbench [-n records] [-r reps] [-m] [-P rounds]
 *
 * Needs a kernel built with CONFIG_PGFAULT_HISTORY_BENCHMARK. A child is
 * traced with a 64 MiB buffer; it writes a count N to
 * /sys/kernel/debug/pgfault_history_bench, which runs the kernel's fault
 * record path N times for it and times the loop. The child stays on one
 * CPU (each CPU has its own ring); a warm-up round first grows that
 * CPU's ring to its limit, and the parent drains it; the timed
 * rounds then write into a buffer that holds them all, with nobody reading
 * meanwhile (so a reader's work on the same CPU is not counted). At the
 * end the parent drains everything and checks that every record arrived:
 * a round that lost records measured the drop path and is an error.
 *
 * Each timed round is followed by a round of the same number of ftrace
 * events, timed the same way in the kernel: pgfault_history's own bench
 * event (pgfault_history:pgfault_history_bench, a 128-byte string and a
 * number into ftrace's ring buffer, the size of the tracepoint benchmark's
 * benchmark_event), which recbench enables for the purpose.
 *
 * Prints "result recpath ns=<median> min= max= reps= records=" and
 * "result ftrace_loop ns=..." in ns per record or event, and "result
 * clock ns=..." for one ktime_get_ns() alone, the clock a record reads.
 *
 * -P rounds runs only the record path, rounds of N records each, for a
 * profiler on the host (make bench-profile): the parent drains each round
 * before the next, and prints "result profile records=<total> ns=<total
 * in the loop>", so that samples can be turned into ns per record.
 *
 * -m measures memory instead: a traced child at the default buffer limit
 * takes a fault storm and stays alive; the parent reads
 * /sys/kernel/debug/pgfault_history and /proc/<child>/maps and prints
 * "result memory trace=<bytes> buffer=<bytes> regions=<n> region_bytes=<b>
 * total=<bytes>".
 */
#include <getopt.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <time.h>
#include "pgf.h"
#include "bench.h"

#define BENCH_FILE "/sys/kernel/debug/pgfault_history_bench"
#define EVENT_ENABLE "/sys/kernel/tracing/events/pgfault_history/pgfault_history_bench/enable"
#define STATS_FILE "/sys/kernel/debug/pgfault_history"
#define MAXREPS 64

static unsigned long nrec = 200000;
static int reps = 9;

static int ftrace_on;

/* One round in the child: N records (or events); the result line to @out. */
static int round_once(const char *what, unsigned long n, int out)
{
	char buf[160];
	int fd = open(BENCH_FILE, O_RDWR);
	ssize_t len;

	if (fd < 0)
		return -1;
	len = snprintf(buf, sizeof(buf), "%s%lu", what, n);
	if (write(fd, buf, len) != len)
		return -1;
	len = pread(fd, buf, sizeof(buf) - 1, 0);
	close(fd);
	if (len <= 0)
		return -1;
	if (out < 0)
		return 0;
	return write(out, buf, len) == len ? 0 : -1;
}

static void child_step(int step, int out)
{
	/* 3: one round of the record path, for the profiler (-P) */
	if (step == 3) {
		if (round_once("", nrec, -1))
			_exit(5);
		return;
	}
	/* 1: warm-up, grows the buffer to its limit; 2: the timed rounds */
	if (step == 1) {
		/*
		 * Each CPU has its own ring, grown as it fills: stay on the
		 * CPU whose ring the warm-up grows.
		 */
		cpu_set_t one;

		CPU_ZERO(&one);
		CPU_SET(sched_getcpu(), &one);
		if (sched_setaffinity(0, sizeof(one), &one))
			_exit(4);
		if (round_once("", 1900000, -1))
			_exit(4);
		return;
	}
	for (int i = 0; i < reps; i++)
		if (round_once("", nrec, out) ||
		    (ftrace_on && round_once("ftrace ", nrec, out)) ||
		    round_once("clock ", nrec, out))
			_exit(5);
}

static int put(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY), ok;

	if (fd < 0)
		return -1;
	ok = write(fd, s, strlen(s)) == (ssize_t)strlen(s);
	close(fd);
	return ok ? 0 : -1;
}

/*
 * Read the trace until @want faults came, kept or lost, or EOF; returns
 * the fault records.
 */
static unsigned long long drain(int fd, unsigned long long want,
				unsigned long long *lost)
{
	static char buf[128 * 1024];
	unsigned long long faults = 0;
	char *p, *nl, *end;
	size_t keep = 0;
	ssize_t n;

	while (want == 0 || faults + *lost < want) {
		n = read(fd, buf + keep, sizeof(buf) - keep);
		if (n <= 0)
			break;
		end = buf + keep + n;
		for (p = buf; (nl = memchr(p, '\n', end - p)); p = nl + 1) {
			if (!strncmp(p, "fault ", 6))
				faults++;
			else if (!strncmp(p, "lost ", 5))
				*lost += strtoull(p + 5, NULL, 10);
		}
		keep = end - p;
		memmove(buf, p, keep);
	}
	return faults;
}

static int recpath(void)
{
	unsigned long long lost = 0, got;
	double ns[MAXREPS], ev[MAXREPS], clk[MAXREPS];
	struct puppet p;
	char line[256];
	FILE *f;
	int fd, i;

	if (access(BENCH_FILE, W_OK)) {
		printf("skip recpath: no %s (kernel without CONFIG_PGFAULT_HISTORY_BENCHMARK)\n",
		       BENCH_FILE);
		return 0;
	}
	if (access(EVENT_ENABLE, F_OK))
		mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL);
	ftrace_on = !put(EVENT_ENABLE, "1");
	if (!ftrace_on)
		printf("skip ftrace_loop: no pgfault_history:pgfault_history_bench (no event tracing)\n");
	if (pgf_set_buffer_kb(65536) || puppet_spawn(&p, child_step) ||
	    pgf_start(p.pid)) {
		perror("recbench: tracing the child");
		return 1;
	}
	fd = pgf_open(p.pid, 0);
	if (fd < 0 || puppet_step(&p, 1)) {
		perror("recbench: warm-up");
		return 1;
	}
	/*
	 * The child's own faults are in the trace too: at least. The ring
	 * grows in a worker once half full, so the warm-up, which brings it
	 * to its limit, loses records on the way; the timed rounds must not.
	 */
	got = drain(fd, 1900000, &lost);
	if (got + lost < 1900000) {
		fprintf(stderr, "recbench: warm-up: %llu records, %llu lost\n", got, lost);
		return 1;
	}
	printf("# warm-up: %llu records kept, %llu lost while the ring grew\n", got, lost);
	lost = 0;
	/* The timed rounds send their result lines before the step's ack. */
	if (write(p.to, "\2", 1) != 1) {
		perror("recbench: step");
		return 1;
	}
	f = fdopen(p.from, "r");
	for (i = 0; i < reps; i++) {
		unsigned long long n, t, kept, l;

		if (!fgets(line, sizeof(line), f) ||
		    sscanf(line, "records %llu ns %llu kept %llu lost %llu",
			   &n, &t, &kept, &l) != 4) {
			fprintf(stderr, "recbench: round %d: bad result '%s'\n", i, line);
			return 1;
		}
		if (l || kept != n) {
			fprintf(stderr, "recbench: round %d lost %llu records: buffer too small\n",
				i, l);
			return 1;
		}
		ns[i] = (double)t / n;
		if (ftrace_on &&
		    (!fgets(line, sizeof(line), f) ||
		     sscanf(line, "ftrace %llu ns %llu", &n, &t) != 2)) {
			fprintf(stderr, "recbench: ftrace round %d: bad result '%s'\n", i, line);
			return 1;
		}
		ev[i] = (double)t / n;
		if (!fgets(line, sizeof(line), f) ||
		    sscanf(line, "clock %llu ns %llu", &n, &t) != 2) {
			fprintf(stderr, "recbench: clock round %d: bad result '%s'\n", i, line);
			return 1;
		}
		clk[i] = (double)t / n;
	}
	if (ftrace_on)
		put(EVENT_ENABLE, "0");
	if (fgetc(f) != 2) {
		fprintf(stderr, "recbench: no ack from the child\n");
		return 1;
	}
	p.from = dup(fileno(f));
	fclose(f);
	puppet_end(&p);
	got = drain(fd, 0, &lost);
	close(fd);
	pgf_set_buffer_kb(64);
	if (got < (unsigned long long)reps * nrec || lost) {
		fprintf(stderr, "recbench: drained %llu of %llu records, %llu lost\n",
			got, (unsigned long long)reps * nrec, lost);
		return 1;
	}
	qsort(ns, reps, sizeof(*ns), cmp_double);
	printf("result recpath ns=%.1f min=%.1f max=%.1f reps=%d records=%lu\n",
	       ns[reps / 2], ns[0], ns[reps - 1], reps, nrec);
	if (ftrace_on) {
		qsort(ev, reps, sizeof(*ev), cmp_double);
		printf("result ftrace_loop ns=%.1f min=%.1f max=%.1f reps=%d events=%lu\n",
		       ev[reps / 2], ev[0], ev[reps - 1], reps, nrec);
	}
	qsort(clk, reps, sizeof(*clk), cmp_double);
	printf("result clock ns=%.1f min=%.1f max=%.1f reps=%d reads=%lu\n",
	       clk[reps / 2], clk[0], clk[reps - 1], reps, nrec);
	return 0;
}

/* -P: @rounds rounds of the record path alone, each drained before the next. */
static int profile(int rounds)
{
	unsigned long long lost = 0, got = 0, total_ns = 0, n, t, kept, l;
	struct puppet p;
	char line[160];
	FILE *f;
	int fd;

	if (access(BENCH_FILE, W_OK)) {
		printf("skip profile: no %s\n", BENCH_FILE);
		return 0;
	}
	if (pgf_set_buffer_kb(65536) || puppet_spawn(&p, child_step) ||
	    pgf_start(p.pid)) {
		perror("recbench: tracing the child");
		return 1;
	}
	fd = pgf_open(p.pid, 0);
	if (fd < 0 || puppet_step(&p, 1) || drain(fd, 1900000, &lost) + lost < 1900000) {
		perror("recbench: warm-up");
		return 1;
	}
	lost = 0;
	printf("# profile: %d rounds of %lu records\n", rounds, nrec);
	fflush(stdout);
	for (int i = 0; i < rounds; i++) {
		if (puppet_step(&p, 3)) {
			perror("recbench: profile round");
			return 1;
		}
		f = fopen(BENCH_FILE, "r");
		if (!f || !fgets(line, sizeof(line), f) ||
		    sscanf(line, "records %llu ns %llu kept %llu lost %llu",
			   &n, &t, &kept, &l) != 4 || l || kept != n) {
			fprintf(stderr, "recbench: profile round %d: '%s'\n", i, line);
			return 1;
		}
		fclose(f);
		total_ns += t;
		got += drain(fd, nrec, &lost);
	}
	puppet_end(&p);
	close(fd);
	pgf_set_buffer_kb(64);
	printf("result profile records=%llu ns=%llu lost=%llu\n",
	       (unsigned long long)rounds * nrec, total_ns, lost);
	return lost ? 1 : 0;
}

static void storm_step(int step, int out)
{
	long psz = 4096, pages = 16384;
	char *m;

	(void)out;
	if (step != 1)
		return;
	m = mmap(NULL, pages * psz, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		_exit(2);
	for (long i = 0; i < pages; i++)
		m[i * psz] = 1;
	munmap(m, pages * psz);
}

static long stat_field(const char *name)
{
	char key[64];
	long v, ret = -1;
	FILE *f = fopen(STATS_FILE, "r");

	if (!f)
		return -1;
	while (fscanf(f, "%63s %ld", key, &v) == 2)
		if (!strcmp(key, name))
			ret = v;
	fclose(f);
	return ret;
}

static int memory(void)
{
	long traces0, bytes0, traces, bytes, trace, region;
	unsigned long long lost = 0;
	struct puppet p;
	char path[64], line[512];
	int regions = 0, fd;
	FILE *f;

	traces0 = stat_field("traces");
	bytes0 = stat_field("buffer_bytes");
	if (traces0 < 0) {
		printf("skip memory: no %s\n", STATS_FILE);
		return 0;
	}
	if (pgf_set_buffer_kb(64) || puppet_spawn(&p, storm_step) ||
	    pgf_start(p.pid) || puppet_step(&p, 1)) {
		perror("recbench: memory storm");
		return 1;
	}
	traces = stat_field("traces") - traces0;
	bytes = stat_field("buffer_bytes") - bytes0;
	trace = stat_field("trace_bytes");
	region = stat_field("region_bytes");
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)p.pid);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		regions++;
	if (f)
		fclose(f);
	fd = pgf_open(p.pid, 0);
	puppet_end(&p);
	if (fd >= 0) {
		drain(fd, 0, &lost);
		close(fd);
	}
	if (traces != 1) {
		fprintf(stderr, "recbench: %ld new traces, expected 1 (is something else traced?)\n",
			traces);
		return 1;
	}
	printf("result memory trace=%ld buffer=%ld regions=%d region_bytes=%ld total=%ld lost=%llu\n",
	       trace, bytes, regions, region, trace + bytes + regions * region, lost);
	return 0;
}

int main(int argc, char **argv)
{
	int opt, mem = 0, prof = 0;

	while ((opt = getopt(argc, argv, "n:r:mP:h")) != -1) {
		switch (opt) {
		case 'n': nrec = strtoul(optarg, NULL, 10); break;
		case 'r': reps = atoi(optarg); break;
		case 'm': mem = 1; break;
		case 'P':
			prof = atoi(optarg);
			if (prof < 1) {
				fprintf(stderr, "recbench: -P needs a number of rounds >= 1\n");
				return 2;
			}
			break;
		default:
			fprintf(stderr, "usage: %s [-n records] [-r reps] [-m] [-P rounds]\n",
				argv[0]);
			return opt == 'h' ? 0 : 2;
		}
	}
	if (!nrec || reps < 1 || reps > MAXREPS ||
	    (unsigned long long)reps * nrec > 1900000) {
		fprintf(stderr, "recbench: need 1 <= reps <= %d and reps * records <= 1900000\n",
			MAXREPS);
		return 2;
	}
	if (mem)
		return memory();
	if (prof > 0)
		return profile(prof);
	printf("# recbench: %d rounds of %lu records, 64 MiB buffer, nobody reading while timed\n",
	       reps, nrec);
	return recpath();
}
