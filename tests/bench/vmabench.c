// SPDX-License-Identifier: GPL-2.0
/*
 * vmabench - what tracing adds to a region change, as a function of the
 * number of VMAs the process has.
 *
 *   vmabench [-v vmas,...] [-n pairs] [-r reps] [-b buffer_kb] [-d]
 *
 * For each VMA count V (default 10, 1000, 60000) the process maps V pages
 * and mprotect()s every other one read-only, which leaves V VMAs (plus the
 * dozen a static program has), then times two operations, `pairs` times
 * each (default 300):
 *   mmap    mmap() one anonymous page and munmap() it again (the page is
 *           placed next to the others and merges with one: a merge and a
 *           split, as an allocator's mmap does);
 *   split   mprotect() one page in the middle of a 64-page read-write
 *           mapping to read-only and back (a split into three, then a
 *           merge into one);
 *   fork    fork() a child that exits at once, and wait for it (fork
 *           copies every VMA: O(V) by nature; what tracing adds must
 *           not be), pairs / 30 times (3 at least).
 * Untraced: nobody traces the process. Key: nobody traces it, but another
 * process, asleep, is traced: the static key is on, and key / untraced is
 * what every process pays while one on the machine is traced. Traced: the
 * process writes "1" to
 * its own /proc/self/pgfault_history and a reader process (forked, not a
 * thread: see reader_main()) reads the trace (128 KiB read()s, as
 * tracepgfault does) until the stop record; starting
 * and stopping (the layout, O(V) by nature) are outside the timed loop,
 * which starts once the reader has read the whole layout. With -d the
 * reader reads nothing more until the timed loop is done: the traced
 * process's own cost, without a reader's work on the other CPUs.
 * With -c CPU the process, its forked children and its reader run on
 * that CPU alone (make bench-icount: no CPU idles while another works).
 * The buffer limit is set to `buffer_kb` (default 16384) so that the
 * layout of 60,000 VMAs fits; it is put back afterwards.
 * Untraced, key and traced batches alternate, `reps` times (default 7);
 * the figures are the median µs per pair and the ratio of the medians.
 *
 * Output: "result vma op=OP vmas=V off_us=.. traced_us=.. ratio=.. lost=N
 * ... key_us=.. key_min_us=.." where lost is what the trace's "lost" lines
 * counted (0 expected).
 */
#include <getopt.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include "pgf.h"
#include "bench.h"

#define MAXLIST	16
#define SPLIT_PAGES 64

static long psz;
static long pairs = 300;
static int reps = 7;
static long buffer_kb = 16384;

struct reader {
	int fd;
	unsigned long long lost, records;
	long layout, maps;	/* the start's layout: announced, read */
	int ready;		/* the whole layout has been read */
	int failed;
};

/* Count "lost" lines; true once the stop record has been read. */
static int scan(struct reader *r, const char *buf, size_t n)
{
	const char *p = buf, *end = buf + n;
	int stopped = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);

		if (!nl)
			break;
		r->records++;
		if (!strncmp(p, "lost ", 5)) {
			char *e;
			unsigned long long a = strtoull(p + 5, &e, 10);

			r->lost += a + strtoull(e, NULL, 10);
		} else if (!strncmp(p, "stop ", 5) || !strncmp(p, "stop\n", 5)) {
			stopped = 1;
		} else if (!strncmp(p, "layout ", 7)) {
			/* "layout TIME N" */
			const char *n = strchr(p + 7, ' ');

			r->layout = n ? strtol(n + 1, NULL, 10) : 0;
			r->maps = 0;
		} else if (!strncmp(p, "map ", 4) && r->layout >= 0 &&
			   ++r->maps >= r->layout) {
			r->ready = 1;
		}
		p = nl + 1;
	}
	return stopped;
}

/*
 * The reader, a process of its own as tracepgfault is (a thread of the
 * traced process would share its mm, and every munmap() and mprotect()
 * would then flush the TLB of the reader's CPU too: a cost of threads,
 * not of tracing). It reads until the stop record, says "ready" on @out
 * once the whole layout is read, and at the end sends its counts.
 */
static int defer;		/* -d: the reader waits until the loop is done */
static long pin_cpu = -1;	/* -c: the CPU to run on */

static void reader_main(struct reader *r, int out, int go)
{
	static char buf[128 * 1024];
	size_t have = 0;
	int said = 0;

	for (;;) {
		ssize_t n = read(r->fd, buf + have, sizeof(buf) - have);
		char *last;
		size_t whole;

		if (n <= 0) {
			r->failed = 1;
			break;
		}
		have += n;
		last = memrchr(buf, '\n', have);
		if (!last)
			continue;
		whole = last + 1 - buf;
		if (scan(r, buf, whole))
			break;
		if (r->ready && !said) {
			said = 1;
			if (write(out, "r", 1) != 1)
				_exit(3);
			if (defer && read(go, &said, 1) != 1)
				_exit(3);
			said = 1;
		}
		memmove(buf, buf + whole, have - whole);
		have -= whole;
	}
	if (write(out, r, sizeof(*r)) != sizeof(*r))
		_exit(3);
	_exit(0);
}

static void die(const char *what)
{
	fprintf(stderr, "vmabench: %s: %s\n", what, strerror(errno));
	exit(1);
}

#define NR_OPS 3

/* One batch of `pairs` operations (forks: fewer); returns µs per pair. */
static double batch(int op, char *split_area)
{
	long n = op == 2 ? (pairs / 30 > 3 ? pairs / 30 : 3) : pairs;
	double t0 = now();

	for (long i = 0; i < n; i++) {
		if (op == 2) {
			pid_t pid = fork();

			if (pid < 0)
				die("fork");
			if (pid == 0)
				_exit(0);
			if (waitpid(pid, NULL, 0) != pid)
				die("waitpid");
		} else if (op == 0) {
			void *p = mmap(NULL, psz, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			if (p == MAP_FAILED)
				die("mmap");
			if (munmap(p, psz))
				die("munmap");
		} else {
			char *p = split_area + SPLIT_PAGES / 2 * psz;

			if (mprotect(p, psz, PROT_READ))
				die("mprotect");
			if (mprotect(p, psz, PROT_READ | PROT_WRITE))
				die("mprotect back");
		}
	}
	return (now() - t0) * 1e6 / n;
}

static int count_vmas(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	int c, n = 0;

	if (!f)
		die("/proc/self/maps");
	while ((c = getc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

static int measure(long vmas)
{
	static const char * const names[] = { "mmap", "split", "fork" };
	double off[NR_OPS][64], on[NR_OPS][64], key[NR_OPS][64];
	unsigned long long lost = 0;
	char *many, *split_area;
	int have, status = 0;

	many = mmap(NULL, vmas * psz, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (many == MAP_FAILED)
		die("mmap of the VMAs");
	for (long i = 1; i < vmas; i += 2)
		if (mprotect(many + i * psz, psz, PROT_READ))
			die("mprotect building the VMAs");
	split_area = mmap(NULL, SPLIT_PAGES * psz, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (split_area == MAP_FAILED)
		die("mmap of the split area");
	have = count_vmas();

	for (int rep = 0; rep < reps; rep++) {
		struct reader r = { .layout = -1 };
		int pipefd[2], dfd[2];
		pid_t pid, other;
		char c;

		for (int op = 0; op < NR_OPS; op++)
			off[op][rep] = batch(op, split_area);

		/* another process, traced, asleep: the key is on */
		other = fork();
		if (other < 0)
			die("fork");
		if (other == 0) {
			pause();
			_exit(0);
		}
		if (pgf_start(other))
			die("start tracing another process");
		for (int op = 0; op < NR_OPS; op++)
			key[op][rep] = batch(op, split_area);
		kill(other, SIGKILL);
		if (waitpid(other, NULL, 0) != other)
			die("waitpid");

		r.fd = pgf_open(getpid(), 0);
		if (r.fd < 0)
			die("open /proc/self/pgfault_history");
		if (pgf_start(getpid()))
			die("start tracing");
		if (pipe(pipefd) || pipe(dfd))
			die("pipe");
		pid = fork();
		if (pid < 0)
			die("fork");
		if (pid == 0) {
			close(pipefd[0]);
			close(dfd[1]);
			reader_main(&r, pipefd[1], dfd[0]);
		}
		close(pipefd[1]);
		close(r.fd);
		/* The layout (O(VMAs), once) is read before the clock starts. */
		if (read(pipefd[0], &c, 1) != 1 || c != 'r') {
			fprintf(stderr, "vmabench: the reader failed before the layout was read\n");
			exit(1);
		}
		for (int op = 0; op < NR_OPS; op++)
			on[op][rep] = batch(op, split_area);
		if (write(dfd[1], "g", 1) != 1)
			die("go");
		close(dfd[0]);
		close(dfd[1]);
		if (pgf_stop(getpid()))
			die("stop tracing");
		if (read(pipefd[0], &r, sizeof(r)) != sizeof(r))
			r.failed = 1;
		close(pipefd[0]);
		if (waitpid(pid, NULL, 0) != pid)
			die("waitpid");
		if (r.failed) {
			fprintf(stderr, "vmabench: the reader failed before the stop record\n");
			status = 1;
		}
		lost += r.lost;
	}
	for (int op = 0; op < NR_OPS; op++) {
		double mo = median(off[op], reps), mt = median(on[op], reps);
		double mk = median(key[op], reps);

		/* median() sorted them: [0] is the least disturbed run */
		printf("result vma op=%s vmas=%d off_us=%.2f traced_us=%.2f ratio=%.2f off_min_us=%.2f traced_min_us=%.2f lost=%llu key_us=%.2f key_min_us=%.2f\n",
		       names[op], have, mo, mt, mt / mo, off[op][0], on[op][0],
		       lost, mk, key[op][0]);
		printf("# %s at %d VMAs: untraced %.2f us/pair (%.2f..%.2f), traced %.2f (%.2f..%.2f)\n",
		       names[op], have, mo, off[op][0], off[op][reps - 1],
		       mt, on[op][0], on[op][reps - 1]);
	}
	fflush(stdout);
	munmap(split_area, SPLIT_PAGES * psz);
	munmap(many, vmas * psz);
	return status;
}

static long read_buffer_kb(void)
{
	FILE *f = fopen("/proc/sys/vm/pgfault_history_buffer_kb", "r");
	long kb = -1;

	if (f) {
		if (fscanf(f, "%ld", &kb) != 1)
			kb = -1;
		fclose(f);
	}
	return kb;
}

static int parse_list(const char *s, long *v, long max)
{
	int n = 0;

	while (*s) {
		char *end;
		long x = strtol(s, &end, 10);

		if (end == s || x < 1 || x > max || n == MAXLIST ||
		    (*end && *end != ','))
			return -1;
		v[n++] = x;
		s = *end ? end + 1 : end;
	}
	return n;
}

/* A number lo..hi for option -@opt into @v; 0, or -1 with a message. */
static void usage(FILE *f)
{
	fprintf(f,
		"usage: vmabench [-v vmas,...] [-n pairs] [-r reps] [-b kb] [-d] [-c cpu]\n"
		"  -v  VMA counts to measure at (default 10,1000,60000)\n"
		"  -n  operations per batch (default 300)\n"
		"  -r  batches per mode, 1..64 (default 7)\n"
		"  -b  trace buffer limit in KiB while measuring (default 16384)\n"
		"  -d  the reader waits until the timed loop is done\n"
		"  -c  run on this CPU alone, with the children and the reader\n"
		"Prints the cost of an mmap+munmap pair and of an mprotect\n"
		"split+merge, untraced and traced, at each VMA count.\n");
}

int main(int argc, char **argv)
{
	long vmas[MAXLIST] = { 10, 1000, 60000 };
	int nv = 3, c, status = 0;
	long old_kb, num;

	psz = sysconf(_SC_PAGESIZE);
	while ((c = getopt(argc, argv, "v:n:r:b:dc:h")) != -1) {
		switch (c) {
		case 'v':
			nv = parse_list(optarg, vmas, 65000);
			if (nv < 1) {
				fprintf(stderr, "vmabench: -v wants counts 1..65000, comma-separated: '%s'\n", optarg);
				return 2;
			}
			break;
		case 'n':
			if (parse_num_opt("vmabench", optarg, 'n', 1, 1000000, &pairs))
				return 2;
			break;
		case 'r':
			if (parse_num_opt("vmabench", optarg, 'r', 1, 64, &num))
				return 2;
			reps = num;
			break;
		case 'b':
			if (parse_num_opt("vmabench", optarg, 'b', 4, 65536, &buffer_kb))
				return 2;
			break;
		case 'd':
			defer = 1;
			break;
		case 'c':
			if (parse_num_opt("vmabench", optarg, 'c', 0, CPU_SETSIZE - 1, &pin_cpu))
				return 2;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	if (pin_cpu >= 0)
		bench_pin_cpu("vmabench", pin_cpu);
	old_kb = read_buffer_kb();
	if (pgf_set_buffer_kb(buffer_kb))
		die("vm.pgfault_history_buffer_kb");
	for (int i = 0; i < nv; i++)
		status |= measure(vmas[i]);
	if (old_kb > 0)
		pgf_set_buffer_kb(old_kb);
	return status;
}
