// SPDX-License-Identifier: GPL-2.0
/*
 * pgfault_history - /proc/<pid>/pgfault_history: the interface, what is
 * recorded, the buffer and the reader. The kernel's own fault counters in
 * /proc/<pid>/stat are the oracle wherever a count can be compared.
 */
#include <poll.h>
#include <sched.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/syscall.h>
#include "ktap.h"
#include "util.h"
#include "pgf.h"
#include "pgfstats.h"

#define PAGE 4096UL
#define PAGES 256

static char *area;	/* the puppet's workload area */

/* Step 1: map PAGES pages and send their address; step 2: write them all. */
static void touch_steps(int step, int out)
{
	switch (step) {
	case 1:
		area = mmap(NULL, PAGES * PAGE, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (area == MAP_FAILED || write(out, &area, sizeof(area)) != sizeof(area))
			_exit(2);
		break;
	case 2:
		for (int i = 0; i < PAGES; i++)
			area[i * PAGE] = 1;
		break;
	}
}

/*
 * Trace a puppet through step 1 (which sends the address of its area) and
 * step 2, tracing from before step 1 or only from step 2; let it exit and
 * read the whole trace into @t. Returns the puppet's wait status.
 */
static int trace_two_steps(puppet_fn fn, bool from_step1, struct pgf_trace *t)
{
	struct puppet p;
	int fd, status;

	ASSERT_SYS(puppet_spawn(&p, fn));
	if (!from_step1)
		ASSERT_EQ(puppet_step_recv(&p, 1, &area, sizeof(area)), 0);
	ASSERT_EQ(pgf_start(p.pid), 0);
	fd = ASSERT_SYS(pgf_open(p.pid, 0));
	if (from_step1)
		ASSERT_EQ(puppet_step_recv(&p, 1, &area, sizeof(area)), 0);
	ASSERT_EQ(puppet_step(&p, 2), 0);
	status = puppet_end(&p);
	ASSERT_EQ(pgf_read_all(fd, t), 0);
	close(fd);
	return status;
}

TEST(never_traced_read_is_esrch)
{
	struct puppet p;
	char c;
	int fd;

	ASSERT_SYS(puppet_spawn(&p, touch_steps));
	fd = ASSERT_SYS(pgf_open(p.pid, 0));
	ASSERT_ERRNO(read(fd, &c, 1), ESRCH);
	close(fd);
	puppet_end(&p);
}

TEST(bad_writes_are_refused)
{
	static const char * const bad[] = {
		"2", "abc", "", "10", "1 1", "01x", "rearmx", "rear", "1 interval",
		"1 interval=", "1 interval=0", "1 interval=3600001",
		"1 interval=10 interval=10", "1 interval=-5", "1 window",
		"1 interval=0x10", "0 interval=10",
		"1\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n",
	};
	struct puppet p;
	char path[64], c;
	int fd;

	ASSERT_SYS(puppet_spawn(&p, touch_steps));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int ret = pgf_ctl(p.pid, bad[i], strlen(bad[i]));

		/* A zero-length write(2) never reaches the file: 0 is fine. */
		if (!*bad[i] && ret == 0)
			continue;
		if (ret != -EINVAL)
			ktap_diag("write \"%s\" gave %d", bad[i], ret);
		EXPECT_EQ(ret, -EINVAL);
	}
	/* A command with a NUL in it, and something after. */
	EXPECT_EQ(pgf_ctl(p.pid, "1\0junk", 6), -EINVAL);
	EXPECT_EQ(pgf_ctl(p.pid, "0\0", 2), -EINVAL);
	/* A write at a non-zero offset. */
	pgf_path(path, sizeof(path), p.pid);
	fd = ASSERT_SYS(open(path, O_WRONLY));
	ASSERT_ERRNO(pwrite(fd, "1", 1, 1), EINVAL);
	close(fd);
	/* Nothing changed: still never traced. */
	fd = ASSERT_SYS(pgf_open(p.pid, 0));
	ASSERT_ERRNO(read(fd, &c, 1), ESRCH);
	close(fd);
	puppet_end(&p);
}

TEST(good_writes_and_repeats_are_harmless)
{
	struct puppet p;
	struct pgf_trace t;
	int fd;

	ASSERT_SYS(puppet_spawn(&p, touch_steps));
	ASSERT_EQ(pgf_stop(p.pid), 0);			/* untraced: nothing */
	ASSERT_EQ(pgf_ctl(p.pid, " 1\n", 3), 0);
	ASSERT_EQ(pgf_ctl(p.pid, "1\n", 2), 0);		/* again: nothing */
	ASSERT_EQ(pgf_ctl(p.pid, "0\n", 2), 0);
	ASSERT_EQ(pgf_stop(p.pid), 0);
	fd = ASSERT_SYS(pgf_open(p.pid, 0));
	puppet_end(&p);
	ASSERT_EQ(pgf_read_all(fd, &t), 0);
	close(fd);
	ktap_diag("header: %s", t.header);
	ASSERT_TRUE(pgf_header_ok(t.header));
	/* start, stop, exit: one of each despite the repeats. */
	EXPECT_EQ(pgf_count(&t, "start"), 1);
	EXPECT_EQ(pgf_count(&t, "stop"), 1);
	EXPECT_EQ(pgf_count(&t, "exit"), 1);
	pgf_trace_free(&t);
}

/* Trace steps 1-2 of a puppet; compare with its stat counters. */
static void stat_oracle(unsigned int buffer_kb, int read_live)
{
	unsigned long before, after;
	struct pgf_trace t;
	struct puppet p;
	int fd = -1;

	if (buffer_kb)
		ASSERT_EQ(pgf_set_buffer_kb(buffer_kb), 0);
	ASSERT_SYS(puppet_spawn(&p, touch_steps));
	before = pgf_faults_of(p.pid);
	ASSERT_EQ(pgf_start(p.pid), 0);
	if (buffer_kb)
		ASSERT_EQ(pgf_set_buffer_kb(64), 0);
	if (read_live)
		fd = ASSERT_SYS(pgf_open(p.pid, 0));
	ASSERT_EQ(puppet_step_recv(&p, 1, &area, sizeof(area)), 0);
	ASSERT_EQ(puppet_step(&p, 2), 0);
	after = pgf_faults_of(p.pid);
	ASSERT_EQ(pgf_stop(p.pid), 0);
	if (!read_live)
		fd = ASSERT_SYS(pgf_open(p.pid, 0));
	EXPECT_EQ(WEXITSTATUS(puppet_end(&p)), 0);
	ASSERT_EQ(pgf_read_all(fd, &t), 0);
	close(fd);
	ktap_diag("stat delta %lu, recorded %zu, lost %llu", after - before,
		  pgf_ok_faults(&t), pgf_lost_faults(&t));
	EXPECT_GE(after - before, PAGES);
	EXPECT_EQ(pgf_ok_faults(&t) + pgf_lost_faults(&t), after - before);
	if (buffer_kb)
		EXPECT_GT(pgf_lost_faults(&t), 0);
	else
		EXPECT_EQ(pgf_lost_faults(&t), 0);
	pgf_trace_free(&t);
}

TEST(faults_match_stat_counters)
{
	stat_oracle(0, 1);
}

/*
 * Rings for the CPUs online when the trace is made; a CPU that comes
 * online later gets its ring once a thread of the process faults there,
 * and nothing is lost meanwhile (its first records go to another CPU's
 * ring). Needs a second CPU that can go offline (x86_64 guest).
 */
#define CPU1_ONLINE "/sys/devices/system/cpu/cpu1/online"

static void fault_on_cpu1(int step, int out)
{
	cpu_set_t set;
	char *m;

	(void)out;
	if (step != 1)
		return;
	CPU_ZERO(&set);
	CPU_SET(1, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		_exit(60);
	m = mmap(NULL, 512 * 4096, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		_exit(61);
	madvise(m, 512 * 4096, MADV_NOHUGEPAGE);	/* a fault a page */
	for (int i = 0; i < 512; i++)
		m[i * 4096] = 1;
}

TEST(ring_made_for_a_cpu_that_came_online)
{
	long before, started, later = 0;
	unsigned long f0, f1;
	struct pgf_trace t;
	struct puppet p;
	int fd;

	if (sysconf(_SC_NPROCESSORS_CONF) < 2 || pgf_write_long(CPU1_ONLINE, 0))
		SKIP("no second CPU that can go offline");
	ASSERT_EQ(puppet_spawn(&p, fault_on_cpu1), 0);
	before = pgf_debug_value("buffer_bytes");
	ASSERT_EQ(pgf_start(p.pid), 0);
	started = pgf_debug_value("buffer_bytes");
	ASSERT_EQ(pgf_write_long(CPU1_ONLINE, 1), 0);
	fd = ASSERT_SYS(pgf_open(p.pid, 0));
	f0 = pgf_faults_of(p.pid);
	ASSERT_EQ(puppet_step(&p, 1), 0);
	f1 = pgf_faults_of(p.pid);
	/* The work item makes CPU 1's ring: wait for it, bounded. */
	for (int i = 0; i < 2000; i++) {
		later = pgf_debug_value("buffer_bytes");
		if (later > started)
			break;
		usleep(1000);
	}
	ktap_diag("rings: %ld KiB at the start (CPU 1 offline), %ld KiB once it ran there",
		  (started - before) / 1024, (later - before) / 1024);
	EXPECT_GT(later, started);
	ASSERT_EQ(pgf_stop(p.pid), 0);
	EXPECT_EQ(WEXITSTATUS(puppet_end(&p)), 0);
	ASSERT_EQ(pgf_read_all(fd, &t), 0);
	close(fd);
	EXPECT_GE(f1 - f0, 512);
	EXPECT_EQ(pgf_ok_faults(&t), f1 - f0);
	EXPECT_EQ(pgf_lost_faults(&t), 0);
	pgf_trace_free(&t);
}

TEST(tiny_buffer_no_reader_counts_every_loss)
{
	stat_oracle(4, 0);
}

/* Touch pages of the area in a known order with known access kinds. */
static const struct { int page; char access; } order[] = {
	{ 5, 'w' }, { 0, 'r' }, { 9, 'w' }, { 0, 'w' }, { 3, 'r' },
	{ 14, 'w' }, { 1, 'w' }, { 3, 'w' }, { 7, 'r' }, { 12, 'w' },
};

static void order_steps(int step, int out)
{
	volatile char sink;

	if (step == 1) {
		touch_steps(1, out);
		return;
	}
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		if (order[i].access == 'w')
			area[order[i].page * PAGE + 17] = 1;
		else
			sink = area[order[i].page * PAGE + 17];
	}
	(void)sink;
}

TEST(known_pages_in_known_order)
{
	struct pgf_trace t;
	size_t k = 0;

	trace_two_steps(order_steps, false, &t);
	for (size_t i = 0; i < t.nr; i++) {
		struct pgf_rec *r = &t.rec[i];

		if (strcmp(r->type, "fault") || r->addr < (unsigned long)area ||
		    r->addr >= (unsigned long)area + PAGES * PAGE)
			continue;
		ASSERT_LT(k, sizeof(order) / sizeof(order[0]));
		EXPECT_EQ(r->addr, (unsigned long)area + order[k].page * PAGE + 17);
		EXPECT_EQ(r->access, order[k].access);
		EXPECT_EQ(r->tid, t.pid);
		EXPECT_EQ(r->kernel, 0);
		EXPECT_EQ(strcmp(r->result, "minor"), 0);
		EXPECT_NE(r->ip, 0);
		k++;
	}
	/* Every first touch faults, and the write after a read (page 0, 3). */
	EXPECT_EQ(k, sizeof(order) / sizeof(order[0]));
	pgf_trace_free(&t);
}

/* The kernel touching user memory for the process: read() into a buffer. */
static void kernel_steps(int step, int out)
{
	int fd;

	if (step == 1) {
		touch_steps(1, out);
		return;
	}
	fd = open("/proc/self/stat", O_RDONLY);
	if (fd < 0 || read(fd, area + 3 * PAGE, 100) <= 0)
		_exit(2);
	close(fd);
}

TEST(kernel_mode_fault_is_recorded)
{
	struct pgf_trace t;
	int found = 0;

	trace_two_steps(kernel_steps, false, &t);
	for (size_t i = 0; i < t.nr; i++) {
		struct pgf_rec *r = &t.rec[i];

		if (!strcmp(r->type, "fault") &&
		    r->addr >> 12 == ((unsigned long)area + 3 * PAGE) >> 12) {
			found++;
			EXPECT_EQ(r->kernel, 1);
			EXPECT_EQ(r->access, 'w');
			/* The user IP of the system call, never a kernel one. */
			EXPECT_LT(r->ip, USER_ADDR_END);
		}
	}
	EXPECT_EQ(found, 1);
	pgf_trace_free(&t);
}

TEST(no_kernel_addresses_in_output)
{
	struct pgf_trace t;

	trace_two_steps(kernel_steps, true, &t);
	ASSERT_GT(pgf_count(&t, "fault"), 0);
	for (size_t i = 0; i < t.nr; i++) {
		EXPECT_LT(t.rec[i].addr, USER_ADDR_END);
		EXPECT_LT(t.rec[i].ip, USER_ADDR_END);
	}
	pgf_trace_free(&t);
}

TEST(nonblocking_read_and_poll)
{
	struct pgf_trace t;
	struct pollfd pfd;
	struct puppet p;
	char buf[4096];
	ssize_t n;

	ASSERT_SYS(puppet_spawn(&p, touch_steps));
	ASSERT_EQ(pgf_start(p.pid), 0);
	pfd.fd = ASSERT_SYS(pgf_open(p.pid, O_NONBLOCK));
	pfd.events = POLLIN;
	/* The header and the start record are there at once. */
	n = ASSERT_SYS(read(pfd.fd, buf, sizeof(buf)));
	ASSERT_GT(n, 0);
	ASSERT_ERRNO(read(pfd.fd, buf, sizeof(buf)), EAGAIN);
	EXPECT_EQ(poll(&pfd, 1, 0), 0);
	ASSERT_EQ(puppet_step_recv(&p, 1, &area, sizeof(area)), 0);
	ASSERT_EQ(puppet_step(&p, 2), 0);
	EXPECT_EQ(poll(&pfd, 1, 5000), 1);
	EXPECT_TRUE(pfd.revents & POLLIN);
	/* A buffer too small for one line. */
	ASSERT_ERRNO(read(pfd.fd, buf, 4), EINVAL);
	n = ASSERT_SYS(read(pfd.fd, buf, sizeof(buf)));
	ASSERT_GT(n, 0);
	EXPECT_EQ(buf[n - 1], '\n');
	puppet_end(&p);
	/* Drained and dead: poll says so, read says EOF. */
	fcntl(pfd.fd, F_SETFL, 0);
	ASSERT_EQ(pgf_read_all(pfd.fd, &t), 0);
	EXPECT_EQ(pgf_count(&t, "exit"), 1);
	EXPECT_EQ(poll(&pfd, 1, 0), 1);
	close(pfd.fd);
	pgf_trace_free(&t);
}

static void one_page_steps(int step, int out)
{
	if (step == 1) {
		area = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (area == MAP_FAILED || write(out, &area, sizeof(area)) != sizeof(area))
			_exit(2);
	} else {
		area[0] = 1;
	}
}

/*
 * A reader asleep in poll() while one lone fault happens: too little to
 * wake it at once (wake-ups are batched), so the deferred wake-up must
 * come within a tick or so, not never.
 */
TEST(lone_fault_wakes_a_sleeping_reader)
{
	struct timespec t0, t1;
	struct pollfd pfd;
	struct puppet p;
	char buf[8192];
	unsigned char ack, step = 2;
	double ms;
	ssize_t n;

	ASSERT_SYS(puppet_spawn(&p, one_page_steps));
	ASSERT_EQ(puppet_step_recv(&p, 1, &area, sizeof(area)), 0);
	ASSERT_EQ(pgf_start(p.pid), 0);
	pfd.fd = ASSERT_SYS(pgf_open(p.pid, O_NONBLOCK));
	pfd.events = POLLIN;
	while (read(pfd.fd, buf, sizeof(buf)) > 0)
		;
	ASSERT_ERRNO(read(pfd.fd, buf, sizeof(buf)), EAGAIN);
	/* The puppet faults once while we sleep in poll. */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ASSERT_SYS(write(p.to, &step, 1));
	EXPECT_EQ(poll(&pfd, 1, 5000), 1);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
	ktap_diag("woken after %.1f ms", ms);
	EXPECT_LT(ms, 2500);	/* never woken: 5000 */
	n = ASSERT_SYS(read(pfd.fd, buf, sizeof(buf) - 1));
	buf[n] = '\0';
	EXPECT_TRUE(strstr(buf, "fault ") != NULL);
	ASSERT_SYS(read(p.from, &ack, 1));
	puppet_end(&p);
	close(pfd.fd);
}

TEST(second_reader_is_busy)
{
	struct puppet p;
	int fd, fd2;

	ASSERT_SYS(puppet_spawn(&p, touch_steps));
	ASSERT_EQ(pgf_start(p.pid), 0);
	fd = ASSERT_SYS(pgf_open(p.pid, 0));
	ASSERT_ERRNO(pgf_open(p.pid, 0), EBUSY);
	close(fd);
	fd2 = ASSERT_SYS(pgf_open(p.pid, 0));	/* free again */
	close(fd2);
	puppet_end(&p);
}

/*
 * A reader that closes its file before reading all it took: the next one
 * reads the rest, in order. Sessions that read 4 KiB each and close put
 * the trace together with nothing missing or repeated.
 */
TEST(reader_closing_early_loses_nothing)
{
	static char buf[4096];
	unsigned long before, after;
	struct pgf_trace t = { 0 };
	char line[4096];
	bool stopped = false;
	int sessions = 0;
	struct puppet p;
	size_t k = 0;

	ASSERT_SYS(puppet_spawn(&p, touch_steps));
	before = pgf_faults_of(p.pid);
	ASSERT_EQ(pgf_start(p.pid), 0);
	ASSERT_EQ(puppet_step_recv(&p, 1, &area, sizeof(area)), 0);
	ASSERT_EQ(puppet_step(&p, 2), 0);
	after = pgf_faults_of(p.pid);
	ASSERT_EQ(pgf_stop(p.pid), 0);
	while (!stopped) {
		size_t linelen = 0, lineno = 0, from = t.nr;
		int fd = ASSERT_SYS(pgf_open(p.pid, O_NONBLOCK));
		ssize_t n = read(fd, buf, sizeof(buf));

		close(fd);
		/* EAGAIN before the stop record: records went missing. */
		ASSERT_GT(n, 0);
		ASSERT_EQ(buf[n - 1], '\n');
		ASSERT_EQ(pgf_trace_feed(&t, buf, n, line, &linelen, &lineno), 0);
		ASSERT_GT(lineno, 1);	/* more than the header */
		for (size_t i = from; i < t.nr; i++)
			stopped |= !strcmp(t.rec[i].type, "stop");
		ASSERT_LT(++sessions, 1000);
	}
	ktap_diag("%d sessions, %zu records", sessions, t.nr);
	EXPECT_GT(sessions, 2);
	for (size_t i = 0; i < t.nr; i++) {
		struct pgf_rec *r = &t.rec[i];

		if (strcmp(r->type, "fault") || r->addr < (unsigned long)area ||
		    r->addr >= (unsigned long)area + PAGES * PAGE)
			continue;
		EXPECT_EQ(r->addr, (unsigned long)area + k * PAGE);
		k++;
	}
	EXPECT_EQ(k, PAGES);
	EXPECT_EQ(pgf_lost_faults(&t), 0);
	EXPECT_EQ(pgf_ok_faults(&t), after - before);
	pgf_trace_free(&t);
	puppet_end(&p);
}

/*
 * A reader that read the header and every line up to a stop, a line per
 * read(), then closed: the next reader gets the rest from the line after
 * it. That line is the second "start", shorter than the header line: a
 * reader that counted the header's bytes as a record's when it gives back
 * what it did not read would skip it.
 */
TEST(reader_closing_after_its_header_gives_back_the_next_line)
{
	struct pgf_trace t = { 0 };
	size_t linelen = 0, lineno = 0, lines = 0;
	char line[4096], buf[65536], last[4096] = "";
	struct puppet p;
	size_t len = 0;
	ssize_t n;
	int fd;

	ASSERT_SYS(puppet_spawn(&p, touch_steps));
	ASSERT_EQ(pgf_start(p.pid), 0);
	ASSERT_EQ(puppet_step_recv(&p, 1, &area, sizeof(area)), 0);
	ASSERT_EQ(pgf_stop(p.pid), 0);
	ASSERT_EQ(pgf_start(p.pid), 0);
	ASSERT_EQ(puppet_step(&p, 2), 0);
	ASSERT_EQ(pgf_stop(p.pid), 0);
	/*
	 * The first reader: a line per read(), through the first "stop". A
	 * read() returns whole lines only (EINVAL if not one fits), so the
	 * smallest buffer that works returns exactly the next line.
	 */
	fd = ASSERT_SYS(pgf_open(p.pid, O_NONBLOCK));
	while (strncmp(last, "stop ", 5)) {
		size_t size = 1;

		while ((n = read(fd, last, size)) < 0 && errno == EINVAL &&
		       size < sizeof(last) - 1)
			size++;
		ASSERT_GT(n, 0);
		last[n] = '\0';
		ASSERT_EQ(last[n - 1], '\n');
		ASSERT_LT(++lines, 10000);
	}
	close(fd);
	/* The next reader: the rest, its header first. */
	fd = ASSERT_SYS(pgf_open(p.pid, O_NONBLOCK));
	while ((n = read(fd, buf + len, sizeof(buf) - len)) > 0)
		len += n;
	close(fd);
	ASSERT_GT(len, 0);
	ASSERT_EQ(pgf_trace_feed(&t, buf, len, line, &linelen, &lineno), 0);
	ASSERT_GT(t.nr, 0);
	ktap_diag("first reader: %zu lines through \"stop\"; next reader's first record: %s",
		  lines, t.rec[0].type);
	EXPECT_EQ(strcmp(t.rec[0].type, "start"), 0);
	pgf_trace_free(&t);
	puppet_end(&p);
}

static void on_alarm(int sig)
{
	(void)sig;
}

TEST(blocked_reader_is_interrupted_and_killed)
{
	struct sigaction sa = { .sa_handler = on_alarm };	/* no SA_RESTART */
	struct puppet p;
	char buf[4096];
	pid_t reader;
	int fd, status;

	ASSERT_SYS(puppet_spawn(&p, touch_steps));
	ASSERT_EQ(pgf_start(p.pid), 0);
	fd = ASSERT_SYS(pgf_open(p.pid, 0));
	ASSERT_SYS(read(fd, buf, sizeof(buf)));		/* header, start */
	/* A signal with a handler interrupts the blocked read. */
	ASSERT_SYS(sigaction(SIGALRM, &sa, NULL));
	alarm(1);
	ASSERT_ERRNO(read(fd, buf, sizeof(buf)), EINTR);
	close(fd);
	/* SIGKILL ends a blocked reader. */
	reader = fork();
	if (reader == 0) {
		fd = pgf_open(p.pid, 0);
		while (read(fd, buf, sizeof(buf)) > 0)
			;
		_exit(0);
	}
	usleep(300 * 1000);
	ASSERT_EQ(waitpid(reader, &status, WNOHANG), 0);	/* blocked */
	kill(reader, SIGKILL);
	ASSERT_EQ(waitpid(reader, &status, 0), reader);
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	puppet_end(&p);
}

TEST(killed_target_gives_blocked_reader_eof)
{
	struct pgf_trace t;
	struct puppet p;
	pid_t reader;
	int fd, status;

	ASSERT_SYS(puppet_spawn(&p, touch_steps));
	ASSERT_EQ(pgf_start(p.pid), 0);
	fd = ASSERT_SYS(pgf_open(p.pid, 0));
	reader = fork();
	if (reader == 0) {
		/* Reads to EOF; exit 0 only if the trace ends with "exit". */
		if (pgf_read_all(fd, &t) || !t.nr ||
		    strcmp(t.rec[t.nr - 1].type, "exit"))
			_exit(1);
		_exit(t.rec[t.nr - 1].a == SIGKILL ? 0 : 2);
	}
	close(fd);
	usleep(300 * 1000);
	ASSERT_EQ(waitpid(reader, &status, WNOHANG), 0);	/* blocked */
	kill(p.pid, SIGKILL);
	ASSERT_EQ(waitpid(reader, &status, 0), reader);
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(WEXITSTATUS(status), 0);
	puppet_end(&p);
}

TEST(reader_outlives_reaped_target)
{
	struct pgf_trace t;
	char c;
	int fd;

	/* The helper reads after the puppet was reaped. */
	EXPECT_EQ(WEXITSTATUS(trace_two_steps(touch_steps, true, &t)), 0);
	EXPECT_GE(pgf_ok_faults(&t), PAGES);
	ASSERT_GT(t.nr, 0);
	EXPECT_EQ(strcmp(t.rec[t.nr - 1].type, "exit"), 0);
	EXPECT_EQ(t.rec[t.nr - 1].a, 0);		/* exit status */
	EXPECT_EQ(t.rec[t.nr - 1].b, pgf_ok_faults(&t));
	pgf_trace_free(&t);
	/* And a file attached before the reap stays readable, at EOF. */
	{
		struct puppet p;

		ASSERT_SYS(puppet_spawn(&p, touch_steps));
		ASSERT_EQ(pgf_start(p.pid), 0);
		fd = ASSERT_SYS(pgf_open(p.pid, 0));
		puppet_end(&p);
		ASSERT_EQ(pgf_read_all(fd, &t), 0);
		EXPECT_EQ(read(fd, &c, 1), 0);		/* EOF stays EOF */
		close(fd);
		pgf_trace_free(&t);
	}
}

static long meminfo_kb(const char *key)
{
	char line[128];
	long v = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, strlen(key)))
			sscanf(line + strlen(key), ": %ld", &v);
	if (f)
		fclose(f);
	return v;
}

static long live_traces_now(void)
{
	char line[128];
	long v = -1;
	FILE *f = fopen("/sys/kernel/debug/pgfault_history", "r");

	while (f && fgets(line, sizeof(line), f))
		sscanf(line, "traces %ld", &v);
	if (f)
		fclose(f);
	return v;
}

/*
 * Traces die with the signal_struct, after an RCU grace period: wait (at
 * most 10 s, for a thousand of them on a slow host).
 */
static long live_traces(void)
{
	long n = live_traces_now();

	for (int i = 0; i < 500 && n > 0; i++) {
		usleep(20 * 1000);
		n = live_traces_now();
	}
	return n;
}

static void cycles(int n)
{
	char buf[4096];

	for (int i = 0; i < n; i++) {
		struct puppet p;
		int fd;

		if (puppet_spawn(&p, touch_steps) || pgf_start(p.pid))
			_exit(3);
		fd = pgf_open(p.pid, O_NONBLOCK);
		if (fd < 0 || read(fd, buf, sizeof(buf)) <= 0)
			_exit(4);
		/* Half close before the target goes, half after. */
		if (i & 1)
			close(fd);
		puppet_end(&p);
		if (!(i & 1))
			close(fd);
	}
}

TEST(open_close_cycles_leak_nothing)
{
	long traces0, slab1, slab2;

	if (live_traces_now() < 0)
		SKIP("no /sys/kernel/debug/pgfault_history");
	/* Earlier tests' traces are freed asynchronously: let them go. */
	traces0 = live_traces();
	cycles(100);
	slab1 = meminfo_kb("Slab");
	cycles(1000);
	slab2 = meminfo_kb("Slab");
	ktap_diag("live traces %ld -> %ld; Slab %ld kB -> %ld kB", traces0,
		  live_traces(), slab1, slab2);
	EXPECT_EQ(live_traces(), traces0);
	/* 1000 cycles of 64+ KiB would show; KASAN's quarantine is noise. */
	EXPECT_LT(slab2 - slab1, 8 * 1024);
}

/* Step 2: touch the second page of a one-page file mapped as two: SIGBUS. */
static void sigbus_steps(int step, int out)
{
	int fd;

	if (step == 1) {
		fd = open("/tmp/pgf-sigbus", O_RDWR | O_CREAT | O_TRUNC, 0600);
		if (fd < 0 || ftruncate(fd, PAGE))
			_exit(2);
		area = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED,
			    fd, 0);
		if (area == MAP_FAILED || write(out, &area, sizeof(area)) != sizeof(area))
			_exit(2);
		return;
	}
	area[PAGE + 5] = 1;
	_exit(3);	/* not reached */
}

TEST(failed_fault_records_its_signal)
{
	struct pgf_trace t;
	struct puppet p;
	int fd, status, found = 0;
	unsigned char step = 2;

	ASSERT_SYS(puppet_spawn(&p, sigbus_steps));
	ASSERT_EQ(puppet_step_recv(&p, 1, &area, sizeof(area)), 0);
	ASSERT_EQ(pgf_start(p.pid), 0);
	fd = ASSERT_SYS(pgf_open(p.pid, 0));
	ASSERT_SYS(write(p.to, &step, 1));
	ASSERT_EQ(waitpid(p.pid, &status, 0), p.pid);
	ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGBUS);
	ASSERT_EQ(pgf_read_all(fd, &t), 0);
	close(fd);
	unlink("/tmp/pgf-sigbus");
	for (size_t i = 0; i < t.nr; i++)
		if (!strcmp(t.rec[i].type, "fault") &&
		    t.rec[i].addr == (unsigned long)area + PAGE + 5) {
			EXPECT_EQ(strcmp(t.rec[i].result, "SIGBUS"), 0);
			EXPECT_EQ(t.rec[i].access, 'w');
			found++;
		}
	EXPECT_EQ(found, 1);
	ASSERT_GT(t.nr, 0);
	EXPECT_EQ(strcmp(t.rec[t.nr - 1].type, "exit"), 0);
	EXPECT_EQ(t.rec[t.nr - 1].a & 0x7f, SIGBUS);
	pgf_trace_free(&t);
}

/*
 * An instruction fetch from a page not yet mapped: a file page holding a
 * `ret`, mapped PROT_READ|PROT_EXEC and called. x86_64 and arm64 report
 * the fetch (FAULT_FLAG_INSTRUCTION): 'x'. UML's fault handler cannot
 * tell a fetch from a read, so there it is an 'r' (a documented limit).
 */
static void exec_steps(int step, int out)
{
#if defined(__aarch64__)
	static const unsigned char ret[] = { 0xc0, 0x03, 0x5f, 0xd6 };	/* ret */
#else
	static const unsigned char ret[] = { 0xc3 };			/* ret */
#endif
	void (*fn)(void);
	int fd;

	if (step == 1) {
		fd = open("/tmp/pgf-exec", O_RDWR | O_CREAT | O_TRUNC, 0600);
		if (fd < 0 || ftruncate(fd, PAGE) ||
		    pwrite(fd, ret, sizeof(ret), 0) != sizeof(ret))
			_exit(2);
		area = mmap(NULL, PAGE, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
		close(fd);
		if (area == MAP_FAILED || write(out, &area, sizeof(area)) != sizeof(area))
			_exit(2);
		return;
	}
	fn = (void (*)(void))area;
	fn();
}

TEST(instruction_fetch_is_x)
{
	struct pgf_trace t;
	struct puppet p;
	int fd, found = 0;
	char want;

	ASSERT_SYS(puppet_spawn(&p, exec_steps));
	ASSERT_EQ(puppet_step_recv(&p, 1, &area, sizeof(area)), 0);
	ASSERT_EQ(pgf_start(p.pid), 0);
	fd = ASSERT_SYS(pgf_open(p.pid, 0));
	ASSERT_EQ(puppet_step(&p, 2), 0);
	puppet_end(&p);
	ASSERT_EQ(pgf_read_all(fd, &t), 0);
	close(fd);
	unlink("/tmp/pgf-exec");
	want = is_uml() ? 'r' : 'x';
	for (size_t i = 0; i < t.nr; i++)
		if (!strcmp(t.rec[i].type, "fault") &&
		    t.rec[i].addr == (unsigned long)area) {
			EXPECT_EQ(t.rec[i].access, want);
			EXPECT_EQ(t.rec[i].ip, (unsigned long)area);
			found++;
		}
	EXPECT_EQ(found, 1);
	pgf_trace_free(&t);
}

TEST(buffer_sysctl_has_bounds)
{
	EXPECT_EQ(pgf_set_buffer_kb(3), -EINVAL);
	EXPECT_EQ(pgf_set_buffer_kb(65537), -EINVAL);
	EXPECT_EQ(pgf_set_buffer_kb(4), 0);
	EXPECT_EQ(pgf_set_buffer_kb(64), 0);
}

/* ---- threads and fork --------------------------------------------------- */

#define NTHREADS 4
static int go_pipe[2];
static pid_t tids[NTHREADS + 1];

static void *thread_fn(void *arg)
{
	long i = (long)arg;
	char c;

	tids[i] = syscall(SYS_gettid);
	if (read(go_pipe[0], &c, 1) != 1)
		return NULL;
	for (int k = 0; k < 8; k++)
		area[(i * 8 + k) * PAGE] = 1;
	return NULL;
}

static pthread_t threads[NTHREADS];

static void thread_steps(int step, int out)
{
	static const char gos[NTHREADS] = { 0 };

	switch (step) {
	case 1:		/* two threads exist before tracing starts */
		touch_steps(1, out);
		if (pipe(go_pipe))
			_exit(2);
		for (long i = 0; i < 2; i++)
			pthread_create(&threads[i], NULL, thread_fn, (void *)i);
		while (!tids[0] || !tids[1])
			usleep(1000);
		break;
	case 2:		/* two more start while traced, then all run */
		for (long i = 2; i < NTHREADS; i++)
			pthread_create(&threads[i], NULL, thread_fn, (void *)i);
		if (write(go_pipe[1], gos, NTHREADS) != NTHREADS)
			_exit(2);
		for (int i = 0; i < NTHREADS; i++)
			pthread_join(threads[i], NULL);
		if (write(out, tids, sizeof(tids)) != sizeof(tids))
			_exit(2);
		break;
	case 3:		/* a forked child's faults are not ours */
		if (fork() == 0) {
			for (int k = 0; k < PAGES; k++)
				area[k * PAGE] = 2;
			_exit(0);
		}
		wait(NULL);
		break;
	}
}

TEST(all_threads_recorded_with_their_tids)
{
	struct pgf_trace t;
	struct puppet p;
	int fd, per[NTHREADS] = { 0 };

	ASSERT_SYS(puppet_spawn(&p, thread_steps));
	ASSERT_EQ(puppet_step_recv(&p, 1, &area, sizeof(area)), 0);
	ASSERT_EQ(pgf_start(p.pid), 0);
	fd = ASSERT_SYS(pgf_open(p.pid, 0));
	ASSERT_EQ(puppet_step_recv(&p, 2, tids, sizeof(tids)), 0);
	puppet_end(&p);
	ASSERT_EQ(pgf_read_all(fd, &t), 0);
	close(fd);
	for (size_t i = 0; i < t.nr; i++) {
		struct pgf_rec *r = &t.rec[i];
		long page;

		if (strcmp(r->type, "fault") || r->addr < (unsigned long)area ||
		    r->addr >= (unsigned long)area + PAGES * PAGE)
			continue;
		page = (r->addr - (unsigned long)area) / PAGE;
		ASSERT_LT(page / 8, NTHREADS);
		EXPECT_EQ(r->tid, tids[page / 8]);
		per[page / 8]++;
	}
	for (int i = 0; i < NTHREADS; i++) {
		ktap_diag("thread %d (tid %d): %d faults", i, tids[i], per[i]);
		EXPECT_EQ(per[i], 8);
	}
	/* The CPUs' rings merged: the stream is in time order. */
	for (size_t i = 1, last = 0; i < t.nr; i++) {
		if (!strcmp(t.rec[i].type, "lost"))
			continue;	/* no time */
		EXPECT_GE(t.rec[i].time, t.rec[last].time);
		last = i;
	}
	pgf_trace_free(&t);
}

TEST(forked_child_is_not_traced)
{
	struct pgf_trace t;
	struct puppet p;
	int fd;

	ASSERT_SYS(puppet_spawn(&p, thread_steps));
	ASSERT_EQ(puppet_step_recv(&p, 1, &area, sizeof(area)), 0);
	ASSERT_EQ(pgf_start(p.pid), 0);
	fd = ASSERT_SYS(pgf_open(p.pid, 0));
	ASSERT_EQ(puppet_step(&p, 3), 0);
	ASSERT_EQ(pgf_stop(p.pid), 0);
	puppet_end(&p);
	ASSERT_EQ(pgf_read_all(fd, &t), 0);
	close(fd);
	/* The parent's own faults (fork, wait) are there; no other tid. */
	for (size_t i = 0; i < t.nr; i++)
		if (!strcmp(t.rec[i].type, "fault"))
			EXPECT_EQ(t.rec[i].tid, p.pid);
	pgf_trace_free(&t);
}

/* ---- exec and permissions ----------------------------------------------- */

TEST(exec_is_marked_and_tracing_continues)
{
	struct pgf_trace t;
	int sync[2], fd;
	size_t exec_at = 0;
	pid_t pid;
	char c;

	ASSERT_SYS(pipe(sync));
	pid = fork();
	if (pid == 0) {
		close(sync[1]);
		if (read(sync[0], &c, 1) != 1)
			_exit(2);
		execl("/bin/busybox", "true", NULL);
		_exit(127);
	}
	close(sync[0]);
	ASSERT_EQ(pgf_start(pid), 0);
	fd = ASSERT_SYS(pgf_open(pid, 0));
	ASSERT_SYS(write(sync[1], "g", 1));
	waitpid(pid, NULL, 0);
	ASSERT_EQ(pgf_read_all(fd, &t), 0);
	close(fd);
	for (size_t i = 0; i < t.nr; i++)
		if (!strcmp(t.rec[i].type, "exec"))
			exec_at = i;
	ASSERT_GT(exec_at, 0);
	EXPECT_EQ(strcmp(t.rec[exec_at].text, "/bin/busybox"), 0);
	/* The new program's faults follow. */
	EXPECT_GT(t.nr - exec_at, 10);
	pgf_trace_free(&t);
}

TEST(other_users_process_is_refused)
{
	struct puppet p;
	pid_t child;
	int status;

	ASSERT_SYS(puppet_spawn(&p, touch_steps));	/* root's */
	child = fork();
	if (child == 0) {
		/* Dumpable again, as after an exec by that user. */
		if (setgid(PGF_TEST_UID) || setuid(PGF_TEST_UID) ||
		    prctl(PR_SET_DUMPABLE, 1))
			_exit(10);
		if (pgf_start(p.pid) != -EACCES)
			_exit(11);
		if (pgf_stop(p.pid) != -EACCES)
			_exit(12);
		if (pgf_open(p.pid, 0) >= 0 || errno != EACCES)
			_exit(13);
		/* But its own process it may trace. */
		if (pgf_start(getpid()) || pgf_stop(getpid()))
			_exit(14);
		_exit(0);
	}
	ASSERT_EQ(waitpid(child, &status, 0), child);
	EXPECT_EQ(WEXITSTATUS(status), 0);
	puppet_end(&p);
}

TEST(setuid_exec_stops_tracing)
{
	const char *helper = "/tmp/pgf-suid-true";
	struct pgf_trace t;
	int status, fd, up[2], go[2];
	pid_t child;
	char c;

	/* A set-uid-root copy of busybox, run by uid 1000. */
	ASSERT_EQ(system("cp /bin/busybox /tmp/pgf-suid-true"), 0);
	ASSERT_SYS(chmod(helper, 04755));
	ASSERT_SYS(pipe(up));
	ASSERT_SYS(pipe(go));
	child = fork();
	if (child == 0) {
		/* Dumpable again, as after an exec by that user. */
		if (setgid(PGF_TEST_UID) || setuid(PGF_TEST_UID) ||
		    prctl(PR_SET_DUMPABLE, 1))
			_exit(10);
		if (pgf_start(getpid()))
			_exit(11);
		if (write(up[1], "u", 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(12);
		execl(helper, "true", NULL);
		_exit(13);
	}
	ASSERT_EQ(read(up[0], &c, 1), 1);
	/* Root reads: it may, before and after. */
	fd = ASSERT_SYS(pgf_open(child, 0));
	ASSERT_SYS(write(go[1], "g", 1));
	waitpid(child, &status, 0);
	unlink(helper);
	ASSERT_EQ(pgf_read_all(fd, &t), 0);
	close(fd);
	EXPECT_EQ(WEXITSTATUS(status), 0);
	EXPECT_EQ(pgf_count(&t, "exec"), 0);
	ASSERT_EQ(pgf_count(&t, "stop"), 1);
	for (size_t i = 0; i < t.nr; i++) {
		if (strcmp(t.rec[i].type, "stop"))
			continue;
		EXPECT_EQ(strcmp(t.rec[i].text, "credentials"), 0);
		/* Nothing of the set-uid program: the trace ends there. */
		EXPECT_EQ(i + 1, t.nr);
	}
	pgf_trace_free(&t);
}

KTAP_MAIN()
