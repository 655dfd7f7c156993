// SPDX-License-Identifier: GPL-2.0
/*
 * faultbench - the end-to-end cost of a page fault, in ns per fault, with
 * the process untraced, traced through pgfault_history, or traced by the
 * kernel's own exceptions:page_fault_user tracepoint; and how the cost
 * scales with threads.
 *
 *   faultbench [-p pages] [-r reps] [-m mode,...] [-k kind,...] [-t threads,...]
 *              [-d] [-c cpu] [-b buffer_kb]
 *
 * Each measurement forks a child that maps `pages` pages per thread
 * (MADV_NOHUGEPAGE, and THP set to "never" if we may), says it is ready,
 * waits on a pipe for "go", then touches one byte per page:
 *   anon  writes private anonymous memory (a fresh page per fault);
 *   zero  reads it (the shared zero page);
 *   file  reads a MAP_PRIVATE mapping of a file in /tmp that is in the
 *         page cache, with fault_around_bytes set to one page when
 *         debugfs lets us, so that each fault maps one page.
 * ns/fault is the wall time of the touch loop over the faults it actually
 * took (getrusage, minor + major). With T threads (anon only), started
 * together by a barrier, it is the time from the barrier to the last
 * thread done, times T, over all faults: the cost of a fault to the
 * thread that takes it; "rate" is the aggregate faults per second.
 * Modes:
 *   off     nobody traces the child;
 *   traced  the parent writes "1" to /proc/<child>/pgfault_history and a
 *           reader thread read()s it, 128 KiB at a time, to EOF, counting
 *           fault records and the faults "lost" lines report;
 *   ftrace  a filter on common_pid keeps the child's threads, page_fault_user is
 *           enabled and a reader thread drains trace_pipe; lost is the
 *           ring buffer's overrun count;
 *   noframes  as traced, but the trace is started and read through files
 *           opened without CAP_SYS_ADMIN (dropped from the effective set
 *           around the opens): its records carry no frames, where
 *           traced's, root's, do. traced / noframes is what the frames
 *           cost;
 *   key     nobody traces the child, but another process, asleep, is
 *           traced: the static key is on, and key / off is what every
 *           process on the machine pays while one is traced.
 * -d: the traced mode's reader starts once the touch loop is over, so
 * that its work is not in the loop's time (make bench-icount: guest time
 * there counts the instructions of every CPU). -c CPU: the benchmark,
 * its children and the reader run on that CPU only. -b KB: the buffer
 * limit (vm.pgfault_history_buffer_kb) while it runs, so that a deferred
 * reader loses nothing (the default, 64, holds about 2,000 records).
 * Every mode forks the same child through the same pipes, so tracing is
 * the only difference. Measurements are interleaved (rep, kind, threads,
 * mode) so that drift hits all modes alike; the results are the median,
 * min and max over the reps.
 */
#include <dirent.h>
#include <getopt.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include "pgf.h"
#include "bench.h"

#define CHUNK		(128 * 1024)
#define MAXLIST		16
#define MAXTHREADS	1024

#define THP_PATH	"/sys/kernel/mm/transparent_hugepage/enabled"
#define BUF_PATH	"/proc/sys/vm/pgfault_history_buffer_kb"
#define FAB_PATH	"/sys/kernel/debug/fault_around_bytes"

enum { K_ANON, K_ZERO, K_FILE, NKINDS };
enum { M_OFF, M_TRACED, M_FTRACE, M_NOFRAMES, M_KEY, NMODES };

static const char * const kind_names[NKINDS] = { "anon", "zero", "file" };
static const char * const mode_names[NMODES] = {
	"off", "traced", "ftrace", "noframes", "key",
};

static long pages = 8192, psz;
static int reps = 7;
static int defer;		/* -d: the reader starts after the touch loop */
static long pin_cpu = -1;	/* -c: the CPU everything runs on */
static long buffer_kb;		/* -b: the buffer limit while it runs */
static int file_fd = -1;

/* Settings we changed, put back at exit (also from a signal handler). */
static char thp_was[32], fab_was[32], tracing_on_was[8], buf_was[32];
static int ftrace_used, tracefs_mounted;
static volatile pid_t child_pid;

/* tracefs files, resolved once (so that restore() needs no snprintf). */
static char tr_dir[64], tr_enable[128], tr_pid[128], tr_trace[128],
	    tr_pipe[128], tr_on[128], tr_cpus[128];

static char buf[CHUNK];		/* the one reader's buffer */

/* Write @s to @path, truncating; 0 or -errno. Async-signal-safe. */
static int put(const char *path, const char *s)
{
	size_t len = strlen(s);
	int fd, ret = 0;
	ssize_t n;

	fd = open(path, O_WRONLY | O_TRUNC);
	if (fd < 0)
		return -errno;
	n = write(fd, s, len);
	if (n < 0)
		ret = -errno;
	else if ((size_t)n != len)
		ret = -EIO;
	close(fd);
	return ret;
}

/* Read @path into @b, without the trailing newline; 0 or -errno. */
static int get(const char *path, char *b, size_t size)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	n = read(fd, b, size - 1);
	close(fd);
	if (n < 0)
		return -errno;
	while (n > 0 && b[n - 1] == '\n')
		n--;
	b[n] = '\0';
	return 0;
}

static void restore(void)
{
	if (child_pid > 0) {
		kill(child_pid, SIGKILL);
		waitpid(child_pid, NULL, 0);
		child_pid = 0;
	}
	if (ftrace_used) {
		put(tr_enable, "0");
		put(tr_pid, "0");
		if (tracing_on_was[0])
			put(tr_on, tracing_on_was);
		ftrace_used = 0;
	}
	if (tracefs_mounted) {
		umount2("/sys/kernel/tracing", MNT_DETACH);
		tracefs_mounted = 0;
	}
	if (fab_was[0]) {
		put(FAB_PATH, fab_was);
		fab_was[0] = '\0';
	}
	if (thp_was[0]) {
		put(THP_PATH, thp_was);
		thp_was[0] = '\0';
	}
	if (buf_was[0]) {
		put(BUF_PATH, buf_was);
		buf_was[0] = '\0';
	}
}

static void on_signal(int sig)
{
	restore();
	_exit(128 + sig);
}

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static void fail(const char *what)
{
	fprintf(stderr, "faultbench: %s\n", what);
	exit(1);
}

/* ---- setup --------------------------------------------------------- */

static void thp_never(void)
{
	char v[128], *a, *b;

	if (get(THP_PATH, v, sizeof(v))) {
		printf("# thp: %s not readable, MADV_NOHUGEPAGE on every mapping\n",
		       THP_PATH);
		return;
	}
	a = strchr(v, '[');
	b = a ? strchr(a, ']') : NULL;
	if (!a || !b || b - a - 1 >= (long)sizeof(thp_was)) {
		printf("# thp: unknown setting \"%s\"\n", v);
		return;
	}
	*b = '\0';
	if (!strcmp(a + 1, "never")) {
		printf("# thp: never\n");
		return;
	}
	if (put(THP_PATH, "never")) {
		printf("# thp: %s, not settable, MADV_NOHUGEPAGE on every mapping\n",
		       a + 1);
		return;
	}
	snprintf(thp_was, sizeof(thp_was), "%s", a + 1);
	printf("# thp: never (was %s)\n", thp_was);
}

static void fault_around_one_page(void)
{
	char was[32];

	if (!get(FAB_PATH, was, sizeof(was)) && was[0] && !put(FAB_PATH, "4096")) {
		snprintf(fab_was, sizeof(fab_was), "%s", was);
		printf("# fault_around_bytes 4096 (was %s)\n", was);
		return;
	}
	printf("# fault_around_bytes: not settable, file faults may map several pages each\n");
}

/* A file of `pages` pages in /tmp, in the page cache, unlinked. */
static void make_file(void)
{
	char path[] = "/tmp/faultbench.XXXXXX";
	char *page = malloc(psz);

	if (!page)
		die("faultbench: malloc");
	memset(page, 0x5a, psz);
	file_fd = mkstemp(path);
	if (file_fd < 0)
		die("faultbench: mkstemp /tmp");
	unlink(path);
	for (long i = 0; i < pages; i++)
		if (write(file_fd, page, psz) != psz)
			die("faultbench: write /tmp file");
	for (long i = 0; i < pages; i++)
		if (pread(file_fd, page, psz, i * psz) != psz)
			die("faultbench: read /tmp file");
	free(page);
}

/* Find tracefs and the tracepoint; 0, or -1 to skip the mode. */
static int ftrace_setup(void)
{
	static const char * const dirs[] = {
		"/sys/kernel/tracing", "/sys/kernel/debug/tracing",
	};
	char p[128], on[8];
	unsigned int i;

	snprintf(p, sizeof(p), "%s/events", dirs[0]);
	if (access(p, F_OK) && !mount("nodev", dirs[0], "tracefs", 0, NULL))
		tracefs_mounted = 1;	/* ours: unmounted at exit */
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(p, sizeof(p), "%s/events/exceptions/page_fault_user/enable",
			 dirs[i]);
		if (!access(p, F_OK))
			break;
	}
	if (i == sizeof(dirs) / sizeof(dirs[0])) {
		printf("skip ftrace: no exceptions:page_fault_user tracepoint\n");
		return -1;
	}
	snprintf(tr_dir, sizeof(tr_dir), "%s", dirs[i]);
	snprintf(tr_enable, sizeof(tr_enable), "%s", p);
	snprintf(tr_pid, sizeof(tr_pid), "%s/events/exceptions/page_fault_user/filter",
		 tr_dir);
	snprintf(tr_trace, sizeof(tr_trace), "%s/trace", tr_dir);
	snprintf(tr_pipe, sizeof(tr_pipe), "%s/trace_pipe", tr_dir);
	snprintf(tr_on, sizeof(tr_on), "%s/tracing_on", tr_dir);
	snprintf(tr_cpus, sizeof(tr_cpus), "%s/per_cpu", tr_dir);
	ftrace_used = 1;
	if (!get(tr_on, on, sizeof(on)) && !strcmp(on, "0")) {
		if (put(tr_on, "1"))
			die("faultbench: write tracing_on");
		snprintf(tracing_on_was, sizeof(tracing_on_was), "0");
	}
	printf("# ftrace: %s\n", tr_dir);
	return 0;
}

/* The ring buffer's overrun count, summed over the CPUs. */
static unsigned long long overruns(void)
{
	unsigned long long sum = 0, v;
	struct dirent *de;
	char p[512], line[128];
	DIR *d = opendir(tr_cpus);
	FILE *f;

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "cpu", 3))
			continue;
		snprintf(p, sizeof(p), "%s/%s/stats", tr_cpus, de->d_name);
		f = fopen(p, "r");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "overrun: %llu", &v) == 1)
				sum += v;
		fclose(f);
	}
	closedir(d);
	return sum;
}

/*
 * Only the child's threads: an event filter on common_pid. Not
 * set_event_pid: that hooks sched_switch, and patching __schedule()'s
 * tracepoint call while another vCPU runs it has crashed QEMU's TCG
 * guests (an int3 executed after the patch was done).
 */
static void ftrace_set_pids(pid_t pid)
{
	char p[64], list[4096];
	struct dirent *de;
	size_t len = 0;
	DIR *d;

	snprintf(p, sizeof(p), "/proc/%d/task", (int)pid);
	d = opendir(p);
	if (!d)
		die("faultbench: /proc/<child>/task");
	list[0] = '\0';
	while ((de = readdir(d)) && len < sizeof(list) - 32)
		if (de->d_name[0] != '.')
			len += snprintf(list + len, sizeof(list) - len, "%scommon_pid == %s",
					len ? " || " : "", de->d_name);
	closedir(d);
	errno = -put(tr_pid, list);
	if (errno)
		die("faultbench: write the page_fault_user filter");
}

/* ---- the measuring child ---------------------------------------------- */

struct worker {
	pthread_t th;
	int kind;
	double t0, t1;
	unsigned long long faults;
	int err;
};

struct child_res {
	double wall;
	unsigned long long faults;
};

static pthread_barrier_t bar_start, bar_end;

static void *work(void *arg)
{
	struct worker *w = arg;
	size_t len = pages * psz;
	struct rusage r0, r1;
	double t0, t1;
	char *p;

	if (w->kind == K_FILE)
		p = mmap(NULL, len, PROT_READ, MAP_PRIVATE, file_fd, 0);
	else
		p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		w->err = errno;
	else
		madvise(p, len, MADV_NOHUGEPAGE);
	/* Fault in what the timed part touches besides the mapping. */
	getrusage(RUSAGE_THREAD, &r0);
	t0 = now();
	pthread_barrier_wait(&bar_start);	/* ready */
	pthread_barrier_wait(&bar_start);	/* go */
	if (!w->err) {
		volatile char *v = p;

		getrusage(RUSAGE_THREAD, &r0);
		t0 = now();
		if (w->kind == K_ANON)
			for (long i = 0; i < pages; i++)
				v[i * psz] = 1;
		else
			for (long i = 0; i < pages; i++)
				(void)v[i * psz];
		t1 = now();
		getrusage(RUSAGE_THREAD, &r1);
		w->t0 = t0;
		w->t1 = t1;
		w->faults = (r1.ru_minflt - r0.ru_minflt) +
			    (r1.ru_majflt - r0.ru_majflt);
	}
	pthread_barrier_wait(&bar_end);		/* nobody unmaps under others */
	if (p != MAP_FAILED)
		munmap(p, len);
	return NULL;
}

static void child(int kind, int nthr, int go, int out)
{
	struct worker *w = calloc(nthr, sizeof(*w));
	struct child_res cr = { 0 };
	double t0 = 0, t1 = 0;
	char c;
	int i, err;

	if (!w)
		_exit(1);
	pthread_barrier_init(&bar_start, NULL, nthr + 1);
	pthread_barrier_init(&bar_end, NULL, nthr);
	for (i = 0; i < nthr; i++) {
		w[i].kind = kind;
		err = pthread_create(&w[i].th, NULL, work, &w[i]);
		if (err) {
			errno = err;
			perror("faultbench: pthread_create");
			_exit(1);
		}
	}
	pthread_barrier_wait(&bar_start);
	for (i = 0; i < nthr; i++)
		if (w[i].err) {
			errno = w[i].err;
			perror("faultbench: mmap");
			_exit(1);
		}
	if (write(out, "r", 1) != 1 || read(go, &c, 1) != 1)
		_exit(1);
	pthread_barrier_wait(&bar_start);
	for (i = 0; i < nthr; i++) {
		pthread_join(w[i].th, NULL);
		if (!i || w[i].t0 < t0)
			t0 = w[i].t0;
		if (!i || w[i].t1 > t1)
			t1 = w[i].t1;
		cr.faults += w[i].faults;
	}
	cr.wall = t1 - t0;
	if (write(out, &cr, sizeof(cr)) != sizeof(cr))
		_exit(1);
	_exit(0);
}

/* ---- the readers ------------------------------------------------------ */

struct reader {
	pthread_t th;
	int fd;
	atomic_int done;	/* ftrace: child gone, event off */
	unsigned long long records, lost;
	int err;
	char pre[32];		/* the start of a line split across reads */
	size_t npre;
};

static void line(struct reader *r, const char *l, size_t n)
{
	if (n >= 6 && !memcmp(l, "fault ", 6))
		r->records++;
	else if (n >= 5 && !memcmp(l, "lost ", 5))
		r->lost += strtoull(l + 5, NULL, 10);
}

/* Count "fault" lines and sum "lost" lines; lines may span reads. */
static void feed(struct reader *r, const char *b, size_t n)
{
	const char *p = b, *end = b + n, *nl;
	size_t room, k;

	while (p < end) {
		nl = memchr(p, '\n', end - p);
		room = sizeof(r->pre) - 1 - r->npre;
		k = (nl ? nl : end) - p;
		if (!nl || r->npre) {
			k = k < room ? k : room;
			memcpy(r->pre + r->npre, p, k);
			r->npre += k;
			if (!nl)
				break;
			r->pre[r->npre] = '\0';
			line(r, r->pre, r->npre);
			r->npre = 0;
		} else {
			line(r, p, k);
		}
		p = nl + 1;
	}
}

static void *read_pgf(void *arg)
{
	struct reader *r = arg;
	ssize_t n;

	while ((n = read(r->fd, buf, sizeof(buf))) > 0)
		feed(r, buf, n);
	if (n < 0)
		r->err = errno;
	return NULL;
}

/* Count trace_pipe lines until the first quiet 200 ms after the end. */
static void *read_ftrace(void *arg)
{
	struct reader *r = arg;
	ssize_t n;

	for (;;) {
		struct pollfd pfd = { .fd = r->fd, .events = POLLIN };
		int done = atomic_load(&r->done);
		int ret = poll(&pfd, 1, done ? 200 : 50);

		if (ret < 0 && errno == EINTR)
			continue;
		if (ret < 0) {
			r->err = errno;
			break;
		}
		if (!ret) {
			if (done)
				break;
			continue;
		}
		n = read(r->fd, buf, sizeof(buf));
		if (n > 0) {
			for (const char *p = buf, *end = buf + n;
			     (p = memchr(p, '\n', end - p)); p++)
				r->records++;
			continue;
		}
		if (n < 0 && errno != EAGAIN && errno != EINTR) {
			r->err = errno;
			break;
		}
		if (done)
			break;	/* drained */
	}
	return NULL;
}

/* ---- one measurement -------------------------------------------------- */

struct sample {
	double ns, rate;
	unsigned long long faults, lost, records;
};

static void measure(int kind, int nthr, int mode, struct sample *s)
{
	struct reader rd = { .fd = -1 };
	unsigned long long ov0 = 0;
	struct child_res cr;
	int go[2], res[2], status = -1, err;
	pid_t pid, other = -1;
	ssize_t n;
	char c;

	if (pipe(go) || pipe(res))
		die("faultbench: pipe");
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		die("faultbench: fork");
	if (!pid) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		close(go[1]);
		close(res[0]);
		child(kind, nthr, go[0], res[1]);
	}
	child_pid = pid;
	close(go[0]);
	close(res[1]);
	if (read(res[0], &c, 1) != 1)
		fail("the measuring child failed to set up");

	if (mode == M_TRACED || mode == M_NOFRAMES) {
		if (mode == M_NOFRAMES && pgf_sys_admin(false))
			die("faultbench: drop CAP_SYS_ADMIN");
		errno = -pgf_start(pid);
		if (errno)
			die("faultbench: write 1 to /proc/<child>/pgfault_history");
		rd.fd = pgf_open(pid, 0);
		if (rd.fd < 0)
			die("faultbench: open /proc/<child>/pgfault_history");
		if (mode == M_NOFRAMES && pgf_sys_admin(true))
			die("faultbench: take CAP_SYS_ADMIN back");
		err = defer ? 0 : pthread_create(&rd.th, NULL, read_pgf, &rd);
	} else if (mode == M_FTRACE) {
		ftrace_set_pids(pid);
		errno = -put(tr_enable, "1");
		if (errno)
			die("faultbench: enable page_fault_user");
		errno = -put(tr_trace, "\n");
		if (errno)
			die("faultbench: clear trace");
		ov0 = overruns();
		rd.fd = open(tr_pipe, O_RDONLY | O_NONBLOCK);
		if (rd.fd < 0)
			die("faultbench: open trace_pipe");
		err = pthread_create(&rd.th, NULL, read_ftrace, &rd);
	} else if (mode == M_KEY) {
		/* another process, traced, asleep: the key is on */
		other = fork();
		if (other < 0)
			die("faultbench: fork");
		if (!other) {
			pause();
			_exit(0);
		}
		errno = -pgf_start(other);
		if (errno)
			die("faultbench: write 1 to /proc/<other>/pgfault_history");
		err = 0;
	} else {
		err = 0;
	}
	if (err) {
		errno = err;
		die("faultbench: pthread_create");
	}

	if (write(go[1], "g", 1) != 1)
		die("faultbench: write to child");
	n = read(res[0], &cr, sizeof(cr));
	if ((mode == M_TRACED || mode == M_NOFRAMES) && defer) {
		/* The loop is over: the records wait in the trace. */
		err = pthread_create(&rd.th, NULL, read_pgf, &rd);
		if (err) {
			errno = err;
			die("faultbench: pthread_create");
		}
	}
	waitpid(pid, &status, 0);
	child_pid = 0;
	if (other > 0) {
		kill(other, SIGKILL);
		waitpid(other, NULL, 0);
	}
	if (mode == M_FTRACE) {
		put(tr_enable, "0");
		atomic_store(&rd.done, 1);
	}
	if (rd.fd >= 0) {
		pthread_join(rd.th, NULL);
		close(rd.fd);
	}
	if (mode == M_FTRACE) {
		put(tr_pid, "0");
		rd.lost = overruns() - ov0;
	}
	close(go[1]);
	close(res[0]);

	if (n != sizeof(cr) || !WIFEXITED(status) || WEXITSTATUS(status))
		fail("the measuring child failed");
	if (rd.err) {
		errno = rd.err;
		die("faultbench: reading the trace");
	}
	if (!cr.faults || cr.wall <= 0)
		fail("the touch loop took no faults");
	s->faults = cr.faults;
	s->ns = cr.wall * 1e9 * nthr / cr.faults;
	s->rate = cr.faults / cr.wall;
	s->lost = rd.lost;
	s->records = rd.records;
}

/* ---- statistics and output ------------------------------------------ */

struct stat_line {
	int valid;
	double ns, min, max, faults, lost, rate, records;
};

static void summarize(const struct sample *s, struct stat_line *o)
{
	double *v = malloc(5 * reps * sizeof(*v));

	if (!v)
		die("faultbench: malloc");
	for (int i = 0; i < reps; i++) {
		const struct sample *x = &s[i];

		v[i] = x->ns;
		v[reps + i] = x->faults;
		v[2 * reps + i] = x->lost;
		v[3 * reps + i] = x->rate;
		v[4 * reps + i] = x->records;
	}
	o->valid = 1;
	o->ns = median(v, reps);
	o->min = v[0];
	o->max = v[reps - 1];
	o->faults = median(v + reps, reps);
	o->lost = median(v + 2 * reps, reps);
	o->rate = median(v + 3 * reps, reps);
	o->records = median(v + 4 * reps, reps);
	free(v);
}

/* ---- main ------------------------------------------------------------- */

static int parse_names(char *arg, const char * const *names, int nnames,
		       int *out)
{
	char *save, *tok;
	int n = 0, i;

	for (tok = strtok_r(arg, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < nnames && strcmp(tok, names[i]); i++)
			;
		if (i == nnames || n == MAXLIST) {
			fprintf(stderr, "faultbench: unknown or too many: %s\n",
				tok);
			exit(2);
		}
		out[n++] = i;
	}
	return n;
}

static int parse_ints(char *arg, int *out)
{
	char *save, *tok, *end;
	int n = 0;
	long v;

	for (tok = strtok_r(arg, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		v = strtol(tok, &end, 10);
		if (*end || v <= 0 || v > MAXTHREADS || n == MAXLIST) {
			fprintf(stderr, "faultbench: bad thread count: %s\n", tok);
			exit(2);
		}
		out[n++] = v;
	}
	return n;
}

static void usage(const char *argv0, FILE *f)
{
	fprintf(f, "usage: %s [-p pages] [-r reps] [-m off,traced,ftrace,noframes,key] [-k anon,zero,file] [-t threads,...] [-d] [-c cpu] [-b buffer_kb]\n",
		argv0);
}

int main(int argc, char **argv)
{
	int kinds[MAXLIST] = { K_ANON, K_ZERO, K_FILE }, nk = 3;
	int modes[MAXLIST] = { M_OFF, M_TRACED, M_FTRACE }, nm = 3;
	int threads[MAXLIST] = { 1 }, nt = 1;
	int avail[NMODES] = { 1, 1, 1, 1, 1 }, want[NMODES] = { 0 }, want_file = 0;
	struct sample *samples;
	struct stat_line *stats;
	unsigned char *warned;
	struct utsname u;
	int opt, ncomb;

	while ((opt = getopt(argc, argv, "p:r:m:k:t:dc:b:h")) != -1) {
		switch (opt) {
		case 'p': pages = strtol(optarg, NULL, 10); break;
		case 'r': reps = strtol(optarg, NULL, 10); break;
		case 'm': nm = parse_names(optarg, mode_names, NMODES, modes); break;
		case 'k': nk = parse_names(optarg, kind_names, NKINDS, kinds); break;
		case 't': nt = parse_ints(optarg, threads); break;
		case 'd': defer = 1; break;
		case 'b':
			if (parse_num_opt("faultbench", optarg, 'b', 4, 4194304, &buffer_kb))
				return 2;
			break;
		case 'c':
			if (parse_num_opt("faultbench", optarg, 'c', 0, CPU_SETSIZE - 1, &pin_cpu))
				return 2;
			break;
		case 'h':
			usage(argv[0], stdout);
			return 0;
		default:
			usage(argv[0], stderr);
			return 2;
		}
	}
	if (pages <= 0 || reps <= 0 || !nm || !nk || !nt) {
		fprintf(stderr, "faultbench: -p and -r must be positive, lists not empty\n");
		return 2;
	}
	if (pin_cpu >= 0)
		bench_pin_cpu("faultbench", pin_cpu);
	psz = sysconf(_SC_PAGESIZE);
	for (int i = 0; i < nm; i++)
		want[modes[i]] = 1;
	for (int i = 0; i < nk; i++)
		want_file |= kinds[i] == K_FILE;

	setvbuf(stdout, NULL, _IOLBF, 0);
	atexit(restore);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal);
	signal(SIGPIPE, SIG_IGN);

	if (uname(&u))
		snprintf(u.release, sizeof(u.release), "?");
	printf("# faultbench: %ld pages, %d reps, kernel %s, %ld CPUs%s\n",
	       pages, reps, u.release, sysconf(_SC_NPROCESSORS_ONLN),
	       defer ? ", the reader after the loop" : "");
	if (pin_cpu >= 0)
		printf("# faultbench: on CPU %ld only\n", pin_cpu);
	thp_never();
	if (want[M_TRACED] || want[M_NOFRAMES] || want[M_KEY]) {
		char kb[32];

		if (access("/proc/self/pgfault_history", F_OK)) {
			printf("skip traced: kernel without pgfault_history\n");
			avail[M_TRACED] = 0;
			avail[M_NOFRAMES] = 0;
			avail[M_KEY] = 0;
		} else if (!get(BUF_PATH, kb, sizeof(kb))) {
			if (buffer_kb) {
				char want[24];

				memcpy(buf_was, kb, sizeof(buf_was));
				snprintf(want, sizeof(want), "%ld", buffer_kb);
				errno = -put(BUF_PATH, want);
				if (errno)
					die("faultbench: -b: " BUF_PATH);
				get(BUF_PATH, kb, sizeof(kb));
			}
			printf("# pgfault_history_buffer_kb %s\n", kb);
		}
	}
	if (want[M_FTRACE] && ftrace_setup())
		avail[M_FTRACE] = 0;
	if (want_file) {
		fault_around_one_page();
		make_file();
	}

	/* samples[((k * nt + t) * nm + m) * reps + rep] */
	ncomb = nk * nt * nm;
	samples = calloc((size_t)ncomb * reps, sizeof(*samples));
	stats = calloc(ncomb, sizeof(*stats));
	warned = calloc(ncomb, 1);
	if (!samples || !stats || !warned)
		die("faultbench: calloc");

	for (int rep = 0; rep < reps; rep++)
		for (int k = 0; k < nk; k++)
			for (int t = 0; t < (kinds[k] == K_ANON ? nt : 1); t++)
				for (int m = 0; m < nm; m++) {
					int c = (k * nt + t) * nm + m;
					int thr = kinds[k] == K_ANON ? threads[t] : 1;
					struct sample *s = &samples[(size_t)c * reps + rep];
					long long want_f = (long long)pages * thr;

					if (!avail[modes[m]])
						continue;
					measure(kinds[k], thr, modes[m], s);
					if (!warned[c] &&
					    llabs((long long)s->faults - want_f) * 50 > want_f) {
						printf("# warning: kind=%s threads=%d mode=%s: %llu faults for %lld pages\n",
						       kind_names[kinds[k]], thr,
						       mode_names[modes[m]], s->faults,
						       want_f);
						warned[c] = 1;
					}
				}

	for (int k = 0; k < nk; k++)
		for (int t = 0; t < (kinds[k] == K_ANON ? nt : 1); t++)
			for (int m = 0; m < nm; m++) {
				int c = (k * nt + t) * nm + m;
				struct stat_line *o = &stats[c];

				if (!avail[modes[m]])
					continue;
				summarize(&samples[(size_t)c * reps], o);
				printf("result kind=%s threads=%d mode=%s ns=%.1f min=%.1f max=%.1f faults=%.0f lost=%.0f reps=%d rate=%.0f records=%.0f\n",
				       kind_names[kinds[k]],
				       kinds[k] == K_ANON ? threads[t] : 1,
				       mode_names[modes[m]], o->ns, o->min, o->max,
				       o->faults, o->lost, reps, o->rate, o->records);
			}

	printf("\n%-5s %7s %-7s %10s %21s %8s %12s %10s\n", "kind", "threads",
	       "mode", "ns/fault", "spread (min-max)", "vs off", "faults/s",
	       "lost");
	for (int k = 0; k < nk; k++)
		for (int t = 0; t < (kinds[k] == K_ANON ? nt : 1); t++) {
			const struct stat_line *off = NULL;
			int base = (k * nt + t) * nm;

			for (int m = 0; m < nm; m++)
				if (modes[m] == M_OFF && stats[base + m].valid)
					off = &stats[base + m];
			for (int m = 0; m < nm; m++) {
				const struct stat_line *o = &stats[base + m];
				char spread[32], ratio[16];

				if (!o->valid)
					continue;
				snprintf(spread, sizeof(spread), "%.1f-%.1f",
					 o->min, o->max);
				if (off)
					snprintf(ratio, sizeof(ratio), "%.2fx",
						 o->ns / off->ns);
				else
					snprintf(ratio, sizeof(ratio), "-");
				printf("%-5s %7d %-7s %10.1f %21s %8s %12.0f %10.0f\n",
				       kind_names[kinds[k]],
				       kinds[k] == K_ANON ? threads[t] : 1,
				       mode_names[modes[m]], o->ns, spread, ratio,
				       o->rate, o->lost);
			}
		}
	free(samples);
	free(stats);
	free(warned);
	if (file_fd >= 0)
		close(file_fd);
	return 0;
}
