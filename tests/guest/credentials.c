// SPDX-License-Identifier: GPL-2.0
/*
 * credentials - the /proc/<pid>/mem lessons (CVE-2012-0056) applied to
 * /proc/<pid>/pgfault_history: a descriptor opened before an exec that
 * raises privileges sees nothing after it, a start cannot race such an
 * exec into the new image, unreadable binaries count as privileged, and a
 * user's traces are held to the user's memory cgroup.
 *
 * The suite's own binary, copied set-uid root to /tmp, is the privileged
 * program: "credentials --as-helper ACTION" (see helper()).
 */
#include <linux/capability.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include "ktap.h"
#include "pgf.h"
#include "pgfstats.h"
#include "util.h"

#define HELPER "/tmp/pgf-suid-helper"

/*
 * The privileged side, run set-uid root by uid 1000:
 * - write1: write "1" to fd 2 (a pgfault_history file the caller opened);
 *   exit 0 if refused with EACCES, 1 if it was taken, 2 otherwise;
 * - traced: exit 0 if this process has no trace (reading its own file
 *   gives ESRCH), 1 if it has one; looks twice, 20 ms apart;
 * - work: start tracing itself (as root, legitimately), touch pages, wait
 *   for a byte on fd 0, exit;
 * - wait: write "w" to fd 1, wait for a byte on fd 0, exit 0.
 */
static int helper(const char *action)
{
	char c, *m;
	int fd;

	if (!strcmp(action, "write1")) {
		if (write(2, "1", 1) == 1)
			return 1;
		return errno == EACCES ? 0 : 2;
	}
	if (!strcmp(action, "wait")) {
		if (write(1, "w", 1) != 1 || read(0, &c, 1) != 1)
			return 6;
		return 0;
	}
	if (!strcmp(action, "traced")) {
		for (int i = 0; i < 2; i++) {
			fd = open("/proc/self/pgfault_history", O_RDONLY | O_NONBLOCK);
			if (fd < 0)
				return 3;
			if (read(fd, &c, 1) >= 0 || errno != ESRCH)
				return 1;
			close(fd);
			usleep(20 * 1000);
		}
		return 0;
	}
	if (!strcmp(action, "touch")) {
		m = mmap(NULL, 64 * 4096, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		for (int i = 0; i < 64; i++)
			m[i * 4096] = 1;
		return 0;
	}
	if (!strcmp(action, "work")) {
		if (pgf_start(getpid()))
			return 4;
		m = mmap(NULL, 64 * 4096, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		for (int i = 0; i < 64; i++)
			m[i * 4096] = 1;
		if (write(1, "r", 1) != 1 || read(0, &c, 1) != 1)
			return 5;
		return 0;
	}
	return 9;
}

static void make_helper(void)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "cp /proc/%d/exe " HELPER, getpid());
	ASSERT_EQ(system(cmd), 0);
	ASSERT_SYS(chown(HELPER, 0, 0));
	ASSERT_SYS(chmod(HELPER, 04755));
}

/* Become uid 1000, dumpable again as after an exec by that user. */
static void become_user(void)
{
	if (setgid(PGF_TEST_UID) || setuid(PGF_TEST_UID) ||
	    prctl(PR_SET_DUMPABLE, 1))
		_exit(40);
}

static void run_helper(const char *action)
{
	execl(HELPER, HELPER, "--as-helper", action, NULL);
	_exit(41);
}

/*
 * A child that becomes uid 1000, says so ("u" on @up) and, once told (a
 * byte on @down), runs the set-uid helper's @action with @down as its
 * standard input and @up as its standard output.
 */
static pid_t spawn_user_then_helper(int up[2], int down[2], const char *action)
{
	pid_t pid = fork();
	char c;

	if (pid == 0) {
		become_user();
		dup2(down[0], 0);
		dup2(up[1], 1);
		if (write(1, "u", 1) != 1 || read(0, &c, 1) != 1)
			_exit(43);
		run_helper(action);
	}
	return pid;
}

/*
 * A set-uid program whose stderr is the caller's pgfault_history file (of
 * the caller's own process, which the program now is) must not be made to
 * start tracing itself.
 */
TEST(setuid_program_cannot_be_made_to_start_itself)
{
	pid_t pid;
	int status, fd;

	make_helper();
	pid = ASSERT_SYS(fork());
	if (pid == 0) {
		become_user();
		fd = pgf_open(getpid(), O_WRONLY);
		if (fd < 0 || dup2(fd, 2) != 2)
			_exit(42);
		run_helper("write1");
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(WEXITSTATUS(status), 0);
	unlink(HELPER);
}

/*
 * A start refused for want of permission never takes a hold on the
 * tracing static key, not even for a moment: turning it on patches the
 * kernel's text on every CPU (where jump labels are built in) and turns
 * the hooks on for every process. Root opens an ordinary process's file,
 * the process execs a set-uid program, and every "1" written through the
 * old file is then refused (EACCES), 2,000 times at least and until the
 * reader has read the key during them, while another process reads the
 * key all along: with no trace anywhere, it never sees it held. The
 * writes start once the reader reads, however long it takes to start.
 * (One CPU cannot show it: the reader never runs inside the write.)
 */
TEST(refused_start_never_holds_the_tracing_key)
{
	int up[2], down[2], fd, status, refused = 0, writes;
	volatile long *held, *reads;
	double t0;
	long r0;
	pid_t pid, reader;
	char c;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP("needs two CPUs: the key is read while the start is refused");
	if (pgf_debug_wait("key", 0) != 0)
		SKIP("the tracing key is held by another trace");
	held = mmap(NULL, 2 * sizeof(long), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(held != MAP_FAILED);
	reads = held + 1;
	make_helper();
	ASSERT_SYS(pipe(up));
	ASSERT_SYS(pipe(down));
	pid = ASSERT_SYS(spawn_user_then_helper(up, down, "wait"));
	ASSERT_EQ(read(up[0], &c, 1), 1);
	fd = ASSERT_SYS(pgf_open(pid, O_WRONLY));	/* while it is ordinary */
	ASSERT_EQ(write(down[1], "x", 1), 1);
	ASSERT_EQ(read(up[0], &c, 1), 1);		/* the helper runs */
	ASSERT_EQ(c, 'w');
	reader = ASSERT_SYS(fork());
	if (reader == 0) {
		while (*held >= 0) {
			if (pgf_debug_value("key") > 0)
				(*held)++;
			(*reads)++;
		}
		_exit(0);
	}
	/* the reader runs before the writes do */
	for (t0 = pgf_now_s(); !*reads && pgf_now_s() - t0 < 60; )
		usleep(1000);
	ASSERT_GT(*reads, 0);
	r0 = *reads;
	for (writes = 0; writes < 2000 || (*reads == r0 && pgf_now_s() - t0 < 120);
	     writes++)
		refused += write(fd, "1", 1) < 0 && errno == EACCES;
	ktap_diag("%d of %d starts refused; the key read %ld times during them, held %ld of them",
		  refused, writes, *reads - r0, *held);
	EXPECT_EQ(refused, writes);
	EXPECT_GT(*reads - r0, 0);
	EXPECT_EQ(*held, 0);
	*held = -1;
	ASSERT_EQ(waitpid(reader, &status, 0), reader);
	close(fd);
	ASSERT_EQ(write(down[1], "x", 1), 1);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	munmap((void *)held, 2 * sizeof(long));
	unlink(HELPER);
}

/*
 * A file opened (not yet reading) while the process was ordinary cannot
 * read the trace a set-uid program then makes of itself, nor stop it.
 */
TEST(file_opened_before_setuid_exec_sees_nothing_after)
{
	int up[2], down[2], rfd, wfd, status;
	char c, buf[4096];
	pid_t pid;

	make_helper();
	ASSERT_SYS(pipe(up));
	ASSERT_SYS(pipe(down));
	pid = ASSERT_SYS(spawn_user_then_helper(up, down, "work"));
	ASSERT_EQ(read(up[0], &c, 1), 1);
	/* Opened by uid 1000 while the child is still uid 1000's. */
	pid_t opener = ASSERT_SYS(fork());

	if (opener == 0) {
		int sv[2];

		become_user();
		rfd = pgf_open(pid, O_NONBLOCK);
		wfd = pgf_open(pid, O_WRONLY);
		if (rfd < 0 || wfd < 0)
			_exit(44);
		if (write(down[1], "g", 1) != 1 || read(up[0], &c, 1) != 1)
			_exit(45);
		/* The helper runs set-uid and traces itself: not for us. */
		sv[0] = read(rfd, buf, sizeof(buf)) < 0 ? errno : 0;
		sv[1] = write(wfd, "0", 1) < 0 ? errno : 0;
		printf("# read: %s, stop: %s\n", strerror(sv[0]), strerror(sv[1]));
		fflush(stdout);
		_exit(sv[0] == EACCES && sv[1] == EACCES ? 0 : 46);
	}
	ASSERT_EQ(waitpid(opener, &status, 0), opener);
	EXPECT_EQ(WEXITSTATUS(status), 0);
	/* Root may read it: the helper's own trace, with its faults. */
	{
		struct pgf_trace t;

		rfd = ASSERT_SYS(pgf_open(pid, 0));
		ASSERT_EQ(write(down[1], "x", 1), 1);
		ASSERT_EQ(pgf_read_all(rfd, &t), 0);
		close(rfd);
		EXPECT_GE(pgf_ok_faults(&t), 64);
		pgf_trace_free(&t);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_EQ(WEXITSTATUS(status), 0);
	unlink(HELPER);
}

/*
 * Starts racing the exec of a set-uid program: whenever a start lands,
 * the program must not find itself traced. Tried many times, with the
 * starter writing "1" through a file opened before the exec and through
 * files opened afresh.
 */
TEST(start_racing_setuid_exec_never_survives_it)
{
	int bad = 0, taken = 0;

	make_helper();
	for (int round = 0; round < 60; round++) {
		int go[2], status;
		pid_t pid, starter;
		char c;

		ASSERT_SYS(pipe(go));
		pid = ASSERT_SYS(fork());
		if (pid == 0) {
			become_user();
			if (read(go[0], &c, 1) != 1)
				_exit(47);
			for (volatile int k = 0; k < (round % 10) * 2000; k++)
				;
			run_helper("traced");
		}
		starter = ASSERT_SYS(fork());
		if (starter == 0) {
			int fd, n = 0;

			become_user();
			fd = pgf_open(pid, O_WRONLY);
			if (write(go[1], "g", 1) != 1)
				_exit(48);
			for (int k = 0; k < 400; k++) {
				n += fd >= 0 && write(fd, "1", 1) == 1;
				n += pgf_start(pid) == 0;
			}
			_exit(n ? 1 : 0);
		}
		ASSERT_EQ(waitpid(starter, &status, 0), starter);
		taken += WEXITSTATUS(status);
		ASSERT_EQ(waitpid(pid, &status, 0), pid);
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
			ktap_diag("round %d: helper status %#x", round, status);
			bad++;
		}
		close(go[0]);
		close(go[1]);
	}
	ktap_diag("%d rounds where a start landed before the exec", taken);
	EXPECT_EQ(bad, 0);
	EXPECT_EQ(pgf_debug_wait("active", 0), 0);
	unlink(HELPER);
}

/*
 * An execute-only binary the user cannot read makes the process
 * non-dumpable (BINPRM_FLAGS_ENFORCE_NONDUMP): tracing ends there, and
 * the stream ends with "stop credentials".
 */
TEST(unreadable_binary_ends_the_trace)
{
	const char *bin = "/tmp/pgf-xonly";
	struct pgf_trace t;
	int go[2], fd, status;
	pid_t pid;
	char c, cmd[128];

	int up[2];

	snprintf(cmd, sizeof(cmd), "cp /bin/busybox %s", bin);
	ASSERT_EQ(system(cmd), 0);
	ASSERT_SYS(chmod(bin, 0711));
	ASSERT_SYS(pipe(go));
	ASSERT_SYS(pipe(up));
	pid = ASSERT_SYS(fork());
	if (pid == 0) {
		become_user();
		if (pgf_start(getpid()) || write(up[1], "s", 1) != 1 ||
		    read(go[0], &c, 1) != 1)
			_exit(49);
		execl(bin, "true", NULL);
		_exit(50);
	}
	ASSERT_EQ(read(up[0], &c, 1), 1);	/* traced: attach before the exec */
	fd = ASSERT_SYS(pgf_open(pid, 0));
	ASSERT_EQ(write(go[1], "g", 1), 1);
	ASSERT_EQ(pgf_read_all(fd, &t), 0);
	close(fd);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	unlink(bin);
	EXPECT_EQ(WEXITSTATUS(status), 0);
	ASSERT_GT(t.nr, 0);
	EXPECT_EQ(strcmp(t.rec[t.nr - 1].type, "stop"), 0);
	EXPECT_EQ(strcmp(t.rec[t.nr - 1].text, "credentials"), 0);
	EXPECT_EQ(pgf_count(&t, "exec"), 0);
	pgf_trace_free(&t);
}

/* ---- memory: a user's traces are charged to the user's memory cgroup --- */

#define CG "/sys/fs/cgroup"

static int write_file(const char *path, const char *s)
{
	FILE *f = fopen(path, "w");
	int ret;

	if (!f)
		return -errno;
	ret = fputs(s, f) < 0 ? -EIO : 0;
	if (fclose(f))
		ret = -errno;
	return ret;
}

static long read_long(const char *path, const char *key)
{
	char line[256], name[64];
	long v, ret = -1;
	FILE *f = fopen(path, "r");

	while (f && fgets(line, sizeof(line), f)) {
		if (!key && sscanf(line, "%ld", &v) == 1)
			ret = v;
		else if (key && sscanf(line, "%63s %ld", name, &v) == 2 &&
			 !strcmp(name, key))
			ret = v;
	}
	if (f)
		fclose(f);
	return ret;
}

/*
 * A process in a memory cgroup limited to 3 MiB traces itself with a 64
 * MiB buffer limit, and faults the same 128 pages again and again with no
 * reader: its rings must stop growing while a quarter of the cgroup's
 * limit is still free, the records that do not fit are counted as lost,
 * and the cgroup never reaches its limit: the trace neither makes it
 * reclaim nor has the program killed in its own next fault.
 */
TEST(memcg_limit_holds_for_trace_buffers)
{
	long before, held, bytes, max_events, cur;
	struct pgf_trace t;
	double t0;
	int status, fd, go[2], done[2];
	pid_t pid;
	char c;

	mkdir(CG, 0755);
	if (mount("cgroup2", CG, "cgroup2", 0, NULL) && errno != EBUSY)
		SKIP("no cgroup2: %s", strerror(errno));
	if (write_file(CG "/cgroup.subtree_control", "+memory"))
		SKIP("no memory controller");
	/* Checked first: a failed check must not leave 64 MiB rings behind. */
	held = pgf_debug_value("memcg_held");
	ASSERT_GE(held, 0);
	mkdir(CG "/pgf", 0755);
	ASSERT_EQ(write_file(CG "/pgf/memory.max", "3M"), 0);
	ASSERT_EQ(pgf_set_buffer_kb(65536), 0);
	before = pgf_debug_value("buffer_bytes");
	t0 = pgf_now_s();
	ASSERT_SYS(pipe(go));
	ASSERT_SYS(pipe(done));
	pid = ASSERT_SYS(fork());
	if (pid == 0) {
		cpu_set_t one;
		char *m;

		close(done[0]);
		close(go[1]);
		/* One CPU: its ring alone would have to hold every record. */
		CPU_ZERO(&one);
		CPU_SET(0, &one);
		if (write_file(CG "/pgf/cgroup.procs", "0") ||
		    sched_setaffinity(0, sizeof(one), &one))
			_exit(60);
		if (pgf_start(getpid()))
			_exit(61);
		m = mmap(NULL, 128 * 4096, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		for (int round = 0; round < 320; round++) {
			for (int i = 0; i < 128; i++)
				m[i * 4096] = 1;
			madvise(m, 128 * 4096, MADV_DONTNEED);
		}
		if (write(done[1], "d", 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(62);
		_exit(0);
	}
	/* Our ends closed: a child that dies unblocks the reads below. */
	close(done[1]);
	close(go[0]);
	if (read(done[0], &c, 1) != 1) {
		ASSERT_EQ(waitpid(pid, &status, 0), pid);
		ASSERT_EQ(pgf_set_buffer_kb(64), 0);
		ktap_diag("child died before the end of its faults: status %#x, memory.events max %ld, oom_kill %ld",
			  status, read_long(CG "/pgf/memory.events", "max"),
			  read_long(CG "/pgf/memory.events", "oom_kill"));
		ASSERT_TRUE(0);
	}
	ktap_diag("faulted in %.1f s", pgf_now_s() - t0);
	/* The trace took its limit when it started: later ones get 64 KiB. */
	ASSERT_EQ(pgf_set_buffer_kb(64), 0);
	/*
	 * The rings grow in a worker, after the faults that fill them: wait
	 * (at most 10 s) until it has held a growth back for the cgroup,
	 * however fast the workload ran.
	 */
	for (int i = 0; i < 500 && pgf_debug_value("memcg_held") <= held; i++)
		usleep(20 * 1000);
	held = pgf_debug_value("memcg_held") - held;
	bytes = pgf_debug_value("buffer_bytes") - before;
	cur = read_long(CG "/pgf/memory.current", NULL);
	max_events = read_long(CG "/pgf/memory.events", "max");
	ktap_diag("buffer %ld KiB for 40,960 records; cgroup %ld KiB, growths held %ld, max hit %ld times",
		  bytes / 1024, cur / 1024, held, max_events);
	fd = ASSERT_SYS(pgf_open(pid, 0));
	ASSERT_EQ(write(go[1], "g", 1), 1);
	ASSERT_EQ(pgf_read_all(fd, &t), 0);
	close(fd);
	close(go[1]);
	close(done[0]);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(WEXITSTATUS(status), 0);
	/*
	 * 40,960 records need 1.25 MiB in the one CPU's ring, which doubles
	 * to 2 MiB to hold them: that would leave less than a quarter of 3
	 * MiB free. The ring was held back, the cgroup stayed within three
	 * quarters of its limit and never met it, and records were lost.
	 */
	EXPECT_GT(held, 0);
	EXPECT_LE(bytes, 3L << 19);
	EXPECT_LE(cur, (3L << 20) / 4 * 3);
	EXPECT_EQ(max_events, 0);
	EXPECT_GT(pgf_lost_faults(&t), 0);
	pgf_trace_free(&t);
	rmdir(CG "/pgf");
}

/* Keep uid 0 with CAP_SETUID and CAP_SETGID alone (no CAP_SYS_PTRACE). */
static int only_cap_setuid(void)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2] = { { 0 } };

	data[0].effective = data[0].permitted =
		1U << CAP_SETUID | 1U << CAP_SETGID;
	return syscall(SYS_capset, &hdr, data) ? -1 : 0;
}

/*
 * A privileged helper that changes user with setresuid() and then execs
 * the program (runuser, a login daemon) gets no AT_SECURE from the exec:
 * its credentials changed before. A reader that could ptrace the helper
 * (same uid, its capabilities a subset of the reader's), and cannot
 * ptrace the program (another uid, no CAP_SYS_PTRACE), must see nothing
 * of the new image: /proc/<pid>/mem could not be opened on it now.
 */
static void reader_loses_access(bool restart_as_root)
{
	int go[2], ready[2], dropped[2], status, execs = 0, stops = 0, after = 0;
	char c, self[4096];
	struct pgf_trace t;
	pid_t p, r;
	ssize_t n;

	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	ASSERT_GT(n, 0);
	self[n] = '\0';
	ASSERT_SYS(pipe(go));
	ASSERT_SYS(pipe(ready));
	ASSERT_SYS(pipe(dropped));
	p = ASSERT_SYS(fork());
	if (p == 0) {
		/* Its capabilities dropped before the reader may start. */
		if (only_cap_setuid() || write(dropped[1], "d", 1) != 1 ||
		    read(go[0], &c, 1) != 1)
			_exit(50);
		if (setresgid(PGF_TEST_UID, PGF_TEST_UID, PGF_TEST_UID) ||
		    setresuid(PGF_TEST_UID, PGF_TEST_UID, PGF_TEST_UID))
			_exit(51);
		execl(self, self, "--as-helper", "touch", NULL);
		_exit(52);
	}
	close(dropped[1]);
	ASSERT_EQ(read(dropped[0], &c, 1), 1);
	r = ASSERT_SYS(fork());
	if (r == 0) {
		int fd;

		/* The reader: uid 0, the helper's capabilities. */
		if (only_cap_setuid() || pgf_start(p))
			_exit(53);
		fd = pgf_open(p, 0);
		if (fd < 0 || write(ready[1], "r", 1) != 1 || pgf_read_all(fd, &t))
			_exit(54);
		for (size_t i = 0; i < t.nr; i++) {
			if (!strcmp(t.rec[i].type, "exec"))
				execs++;
			else if (!strcmp(t.rec[i].type, "stop") &&
				 !strcmp(t.rec[i].text, "credentials"))
				stops++;
			else if (execs && !strcmp(t.rec[i].type, "fault"))
				after++;
		}
		printf("# %zu records: %d exec, %d stop credentials, %d faults after the exec\n",
		       t.nr, execs, stops, after);
		fflush(stdout);
		_exit(execs == 0 && stops == 1 ? 0 : 55);
	}
	/* A reader that fails closes its end: read() gives 0, no hang. */
	close(ready[1]);
	if (read(ready[0], &c, 1) != 1) {
		kill(p, SIGKILL);
		waitpid(p, &status, 0);
		waitpid(r, &status, 0);
		ASSERT_EQ(WEXITSTATUS(status), 0);	/* says which step */
	}
	if (restart_as_root) {
		ASSERT_EQ(pgf_stop(p), 0);
		ASSERT_EQ(pgf_start(p), 0);
	}
	ASSERT_EQ(write(go[1], "g", 1), 1);
	ASSERT_EQ(waitpid(p, &status, 0), p);
	EXPECT_EQ(status, 0);	/* (50 + N) << 8: its step N failed */
	ASSERT_EQ(waitpid(r, &status, 0), r);
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(WEXITSTATUS(status), 0);
}

TEST(exec_after_a_change_of_user_ends_a_reader_that_lost_access)
{
	reader_loses_access(false);
}

/*
 * The same, with the trace stopped and started again by root (who may
 * trace anything) while the reader reads: the exec still tests the
 * reader's credentials, not those of the last file that wrote to the
 * trace.
 */
TEST(a_restart_by_root_does_not_lend_the_reader_its_rights)
{
	reader_loses_access(true);
}

/* include/linux/sched.h: the task used a privilege of the superuser. */
#define PF_SUPERPRIV 0x00000100

/*
 * A process that root traces (its reader is root, who passes the exec
 * check by CAP_SYS_PTRACE, not by its ids) execs a program: the check
 * runs in the traced task, with the reader's credentials, and must not
 * mark the task as having used a privilege it never used (PF_SUPERPRIV,
 * the ASU flag of its process accounting record), nor audit in its name.
 * /proc/<pid>/stat's flags field is the task's PF_* word.
 */
TEST(the_exec_check_marks_no_privilege_on_the_traced_task)
{
	int up[2], down[2], status, fd, execs = 0, stops = 0;
	struct pgf_trace t;
	struct pgf_stat st;
	char c, self[4096];
	pid_t a, p;
	ssize_t n;

	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	ASSERT_GT(n, 0);
	self[n] = '\0';
	ASSERT_SYS(pipe(up));
	ASSERT_SYS(pipe(down));
	a = ASSERT_SYS(fork());
	if (a == 0) {
		/* setuid() marks this one; its child starts unmarked. */
		become_user();
		p = fork();
		if (p < 0)
			_exit(60);
		if (p == 0) {
			dup2(down[0], 0);
			dup2(up[1], 1);
			p = getpid();
			if (write(1, &p, sizeof(p)) != sizeof(p) ||
			    read(0, &c, 1) != 1)
				_exit(61);
			execl(self, self, "--as-helper", "wait", NULL);
			_exit(62);
		}
		if (waitpid(p, &status, 0) != p)
			_exit(63);
		_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 64);
	}
	close(up[1]);
	close(down[0]);
	ASSERT_EQ(read(up[0], &p, sizeof(p)), (ssize_t)sizeof(p));
	ASSERT_EQ(pgf_read_stat(p, &st), 0);
	ASSERT_EQ(st.flags & PF_SUPERPRIV, 0);
	ASSERT_EQ(pgf_start(p), 0);
	fd = pgf_open(p, 0);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(write(down[1], "g", 1), 1);
	ASSERT_EQ(read(up[0], &c, 1), 1);	/* "w": the new image runs */
	ASSERT_EQ(c, 'w');
	ASSERT_EQ(pgf_read_stat(p, &st), 0);
	printf("# flags of the traced task after its exec: %#x\n", st.flags);
	EXPECT_EQ(st.flags & PF_SUPERPRIV, 0);
	ASSERT_EQ(write(down[1], "x", 1), 1);
	ASSERT_EQ(waitpid(a, &status, 0), a);
	EXPECT_EQ(status, 0);	/* (60 + N) << 8: its step N failed */
	/* Root may still trace it: the exec is in the trace, no stop. */
	ASSERT_EQ(pgf_read_all(fd, &t), 0);
	for (size_t i = 0; i < t.nr; i++) {
		execs += !strcmp(t.rec[i].type, "exec");
		stops += !strcmp(t.rec[i].type, "stop");
	}
	EXPECT_EQ(execs, 1);
	EXPECT_EQ(stops, 0);
	pgf_trace_free(&t);
	close(fd);
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--as-helper"))
		return helper(argv[2]);
	return ktap_main(argc, argv);
}
