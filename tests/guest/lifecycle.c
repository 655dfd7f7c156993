// SPDX-License-Identifier: GPL-2.0
/*
 * lifecycle - the life of a trace at its edges: starting a process that
 * has exited or is exiting, the static key and the kernel's memory coming
 * back, one descriptor written many times, a start that must not disturb
 * the target's system calls, a start after the main thread has gone, and
 * thread ids from inside a child pid namespace.
 */
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <sys/epoll.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include "ktap.h"
#include "pgf.h"
#include "pgfstats.h"

/* Read @fd until EOF, giving up after @ms: 0 at EOF, -1 on a hang. */
static int read_to_eof(int fd, struct pgf_trace *t, int ms)
{
	static char buf[65536], line[4096];
	size_t linelen = 0, lineno = 0;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	ssize_t n;

	memset(t, 0, sizeof(*t));
	for (;;) {
		if (poll(&pfd, 1, ms) != 1)
			return -1;
		n = read(fd, buf, sizeof(buf));
		if (n == 0)
			return 0;
		if (n < 0)
			return -errno;
		if (pgf_trace_feed(t, buf, n, line, &linelen, &lineno))
			return -2;
	}
}

/*
 * The reported reproduction: a child that exits at once, not reaped; its
 * file opened, "1" written, then read. The start must fail with ESRCH, a
 * reader must get EOF, nothing may stay enabled, and reaping it must not
 * warn (the runner fails the run on any kernel WARNING).
 */
TEST(zombie_cannot_be_started_and_reads_eof)
{
	struct pgf_trace t;
	siginfo_t si;
	pid_t pid;
	int fd, status;

	ASSERT_EQ(pgf_debug_wait("active", 0), 0);
	pid = ASSERT_SYS(fork());
	if (pid == 0)
		_exit(7);
	memset(&si, 0, sizeof(si));
	ASSERT_SYS(waitid(P_PID, pid, &si, WEXITED | WNOWAIT));
	fd = ASSERT_SYS(pgf_open(pid, O_RDWR));
	ASSERT_ERRNO(write(fd, "1", 1), ESRCH);
	ASSERT_EQ(read_to_eof(fd, &t, 5000), 0);
	EXPECT_EQ(t.nr, 0);			/* nothing after the header */
	EXPECT_EQ(pgf_debug_value("active"), 0);
	close(fd);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_EQ(WEXITSTATUS(status), 7);
	EXPECT_EQ(pgf_debug_wait("traces", 0), 0);
	EXPECT_EQ(pgf_debug_wait("key", 0), 0);
	pgf_trace_free(&t);
}

/*
 * A process racing its own exit: each start either fails with ESRCH or
 * succeeds, and then the trace ends with the exit record and EOF.
 */
TEST(start_racing_exit_is_traced_or_refused)
{
	int traced = 0, refused = 0;

	for (int i = 0; i < 200; i++) {
		struct pgf_trace t;
		pid_t pid;
		int fd, ret, status;

		pid = ASSERT_SYS(fork());
		if (pid == 0) {
			/* Exit after a little work, at a varying point. */
			for (volatile int k = 0; k < (i % 20) * 500; k++)
				;
			_exit(3);
		}
		fd = pgf_open(pid, O_RDWR);
		if (fd < 0) {
			waitpid(pid, &status, 0);
			continue;
		}
		ret = write(fd, "1", 1) == 1 ? 0 : errno;
		if (ret == ESRCH) {
			refused++;
		} else {
			ASSERT_EQ(ret, 0);
			ASSERT_EQ(read_to_eof(fd, &t, 10000), 0);
			ASSERT_GT(t.nr, 0);
			EXPECT_EQ(strcmp(t.rec[0].type, "start"), 0);
			EXPECT_EQ(strcmp(t.rec[t.nr - 1].type, "exit"), 0);
			EXPECT_EQ(t.rec[t.nr - 1].a, 3 << 8);
			pgf_trace_free(&t);
			traced++;
		}
		close(fd);
		ASSERT_EQ(waitpid(pid, &status, 0), pid);
	}
	ktap_diag("traced %d, refused %d", traced, refused);
	EXPECT_EQ(pgf_debug_wait("active", 0), 0);
	EXPECT_EQ(pgf_debug_wait("traces", 0), 0);
}

static void idle_steps(int step, int out)
{
	(void)step;
	(void)out;
}

/*
 * One descriptor, written again and again: 1, 0, 1, 0, 1. Starting and
 * stopping in a loop keeps the static key's last disable deferred (no
 * text patching per call); once all is over it goes back to zero.
 */
/*
 * poll() never sleeps, so it does not make a descriptor the reader (that
 * takes a mutex and the process's exec_update_lock): a descriptor opened
 * before the process had a trace is readable at once, and only its
 * read() attaches it. Another descriptor opened for reading after the
 * start is the reader then, and the first one's read() gets EBUSY.
 */
TEST(poll_does_not_attach_a_reader)
{
	struct pollfd pfd;
	int early, late, status;
	char buf[256];
	pid_t pid;

	pid = ASSERT_SYS(fork());
	if (pid == 0) {
		pause();
		_exit(0);
	}
	early = ASSERT_SYS(pgf_open(pid, O_NONBLOCK));	/* no trace yet */
	ASSERT_EQ(pgf_start(pid), 0);
	pfd.fd = early;
	pfd.events = POLLIN;
	pfd.revents = 0;
	EXPECT_EQ(poll(&pfd, 1, 0), 1);
	EXPECT_EQ(pfd.revents, POLLIN);
	late = pgf_open(pid, O_NONBLOCK);
	EXPECT_GE(late, 0);
	EXPECT_GT(read(late, buf, sizeof(buf)), 0);	/* the header */
	EXPECT_EQ(read(early, buf, sizeof(buf)), -1);
	EXPECT_EQ(errno, EBUSY);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	close(early);
	if (late >= 0)
		close(late);
}

TEST(one_descriptor_written_many_times)
{
	struct pgf_trace t;
	struct puppet p;
	int fd, rfd;
	size_t starts = 0, stops = 0;

	ASSERT_SYS(puppet_spawn(&p, idle_steps));
	fd = ASSERT_SYS(pgf_open(p.pid, O_WRONLY));
	/* Room for 501 layouts: nothing lost, every record counted below. */
	ASSERT_EQ(pgf_set_buffer_kb(16384), 0);
	ASSERT_EQ(write(fd, "1", 1), 1);
	ASSERT_EQ(pgf_set_buffer_kb(64), 0);
	ASSERT_EQ(write(fd, "0", 1), 1);
	for (int i = 1; i < 500; i++) {
		ASSERT_EQ(write(fd, "1", 1), 1);
		ASSERT_EQ(write(fd, "0\n", 2), 2);
	}
	ASSERT_EQ(write(fd, "1", 1), 1);
	/* Still a plain write() at offset 0 each time; pwrite elsewhere is refused. */
	ASSERT_ERRNO(pwrite(fd, "1", 1, 5), EINVAL);
	close(fd);
	EXPECT_EQ(pgf_debug_value("active"), 1);
	rfd = ASSERT_SYS(pgf_open(p.pid, 0));
	puppet_end(&p);
	ASSERT_EQ(pgf_read_all(rfd, &t), 0);
	close(rfd);
	for (size_t i = 0; i < t.nr; i++) {
		starts += !strcmp(t.rec[i].type, "start");
		stops += !strcmp(t.rec[i].type, "stop");
	}
	EXPECT_EQ(starts, 501);
	EXPECT_EQ(stops, 500);
	EXPECT_EQ(strcmp(t.rec[t.nr - 1].type, "exit"), 0);
	pgf_trace_free(&t);
	EXPECT_EQ(pgf_debug_wait("active", 0), 0);
	EXPECT_EQ(pgf_debug_wait("key", 0), 0);
}

/* ---- the target's system calls are not disturbed ---------------------- */

static int epoll_result = -2, epoll_errno;

static void *epoll_waiter(void *arg)
{
	struct epoll_event ev;
	int ep = epoll_create1(0);

	(void)arg;
	epoll_result = epoll_wait(ep, &ev, 1, 1500);
	epoll_errno = errno;
	close(ep);
	return NULL;
}

static pthread_t waiter;

/* Step 1: a thread starts waiting in epoll_wait() (1.5 s, nothing comes). */
static void epoll_steps(int step, int out)
{
	int v[2];

	(void)out;
	if (step == 1) {
		pthread_create(&waiter, NULL, epoll_waiter, NULL);
		usleep(200 * 1000);
		return;
	}
	pthread_join(waiter, NULL);
	v[0] = epoll_result;
	v[1] = epoll_errno;
	if (write(out, v, sizeof(v)) != sizeof(v))
		_exit(2);
}

/*
 * Starting tracing must not make a blocked system call of the target fail
 * or return early: epoll_wait() is not restarted after an interruption,
 * so an EINTR would show.
 */
TEST(start_does_not_interrupt_blocked_syscalls)
{
	struct puppet p;
	int v[2];

	ASSERT_SYS(puppet_spawn(&p, epoll_steps));
	ASSERT_EQ(puppet_step(&p, 1), 0);	/* the thread is in epoll_wait() */
	ASSERT_EQ(pgf_start(p.pid), 0);
	ASSERT_EQ(puppet_step_recv(&p, 2, v, sizeof(v)), 0);
	ktap_diag("epoll_wait returned %d (%s)", v[0], v[0] < 0 ? strerror(v[1]) : "timeout");
	EXPECT_EQ(v[0], 0);
	puppet_end(&p);
}

/* ---- the main thread has exited --------------------------------------- */

static void *lingering(void *arg)
{
	int *fds = arg;
	char c;

	/* Wait for the go, touch a fresh page, end the process. */
	if (read(fds[0], &c, 1) != 1)
		_exit(2);
	{
		char *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (m == MAP_FAILED)
			_exit(3);
		m[0] = 1;
	}
	exit(0);
	return NULL;
}

/*
 * pthread_exit() from main: the leader is a zombie with no mm; the layout
 * must still start the trace, taken from a live thread's mm.
 */
TEST(layout_when_the_main_thread_has_exited)
{
	static int fds[2];
	struct pgf_trace t;
	size_t maps = 0;
	pid_t pid;
	int fd, status;

	ASSERT_SYS(pipe(fds));
	pid = ASSERT_SYS(fork());
	if (pid == 0) {
		pthread_t th;

		pthread_create(&th, NULL, lingering, fds);
		pthread_exit(NULL);
	}
	/* Wait for the leader to be a zombie (Z) while its thread lives. */
	for (int i = 0; i < 500; i++) {
		struct pgf_stat st;

		if (!pgf_read_stat(pid, &st) && st.state == 'Z')
			break;
		usleep(10 * 1000);
	}
	ASSERT_EQ(pgf_start(pid), 0);
	fd = ASSERT_SYS(pgf_open(pid, 0));
	ASSERT_EQ(write(fds[1], "g", 1), 1);
	ASSERT_EQ(pgf_read_all(fd, &t), 0);
	close(fd);
	waitpid(pid, &status, 0);
	ASSERT_GT(t.nr, 2);
	EXPECT_EQ(strcmp(t.rec[0].type, "start"), 0);
	ASSERT_EQ(strcmp(t.rec[1].type, "layout"), 0);
	/* layout N, then N maps (a later change may add more). */
	for (size_t i = 2; i < t.nr && maps < t.rec[1].a &&
	     !strcmp(t.rec[i].type, "map"); i++)
		maps++;
	ktap_diag("layout %llu, %zu maps", t.rec[1].a, maps);
	EXPECT_GT(maps, 3);
	EXPECT_EQ(t.rec[1].a, maps);
	EXPECT_EQ(strcmp(t.rec[t.nr - 1].type, "exit"), 0);
	pgf_trace_free(&t);
}

/* ---- pid namespaces ----------------------------------------------------- */

/* A second thread of the traced child: faults, and says its id there. */
static void *ns_thread(void *arg)
{
	char *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m != MAP_FAILED)
		m[0] = 1;
	*(volatile int *)arg = syscall(SYS_gettid);
	return NULL;
}

/*
 * Inside a new pid namespace with its own /proc: trace a child there,
 * through that /proc. The header's pid and every thread id are the ones
 * the process sees itself (2 in the namespace, and its second thread's),
 * not the outer ones.
 * Exit status: 0 passes; other values say what differed.
 */
static int in_namespace(void)
{
	struct pgf_trace t;
	size_t by_thread = 0;
	char path[64];
	int fds[2], fd, tid;
	volatile int *shared;
	pid_t pid;
	char c;

	if (mkdir("/tmp/pgf-nsproc", 0755) && errno != EEXIST)
		return 10;
	if (mount("proc", "/tmp/pgf-nsproc", "proc", 0, NULL))
		return 11;
	if (pipe(fds))
		return 12;
	shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED)
		return 19;
	pid = fork();
	if (pid == 0) {
		pthread_t th;
		char *m;

		if (read(fds[0], &c, 1) != 1)
			_exit(2);
		m = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		m[0] = 1;
		if (pthread_create(&th, NULL, ns_thread, (void *)shared) ||
		    pthread_join(th, NULL))
			_exit(4);
		tid = syscall(SYS_gettid);
		_exit(tid == getpid() ? 0 : 3);
	}
	snprintf(path, sizeof(path), "/tmp/pgf-nsproc/%d/pgfault_history", pid);
	fd = open(path, O_RDWR);
	if (fd < 0 || write(fd, "1", 1) != 1)
		return 13;
	if (write(fds[1], "g", 1) != 1)
		return 14;
	if (pgf_read_all(fd, &t))
		return 15;
	waitpid(pid, NULL, 0);
	umount("/tmp/pgf-nsproc");
	printf("# in the namespace: pid %d, thread %d, header \"%s\"\n",
	       pid, *shared, t.header);
	if (t.pid != pid)
		return 16;
	if (*shared <= pid || *shared > 64)
		return 20;
	for (size_t i = 0; i < t.nr; i++) {
		if (strcmp(t.rec[i].type, "fault"))
			continue;
		if (t.rec[i].tid == *shared)
			by_thread++;
		else if (t.rec[i].tid != pid)
			return 17;
	}
	printf("# %zu faults by the second thread\n", by_thread);
	if (!by_thread)
		return 21;
	return pgf_ok_faults(&t) ? 0 : 18;
}

TEST(ids_are_those_of_the_proc_namespace)
{
	pid_t pid;
	int status;

	pid = ASSERT_SYS(fork());
	if (pid == 0) {
		if (unshare(CLONE_NEWPID | CLONE_NEWNS))
			_exit(20);
		mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL);
		pid = fork();	/* pid 1 of the namespace */
		if (pid == 0)
			_exit(in_namespace());
		waitpid(pid, &status, 0);
		fflush(stdout);
		_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 30);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 20)
		SKIP("no pid namespaces: %s", strerror(EINVAL));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(WEXITSTATUS(status), 0);
}

KTAP_MAIN()
