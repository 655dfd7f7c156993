// SPDX-License-Identifier: GPL-2.0
/*
 * inherit - process trees: a trace started with "1 inherit" traces every
 * process the traced one creates, and their children, each with its own
 * trace, claimed through the creator's file (PGFAULT_HISTORY_IOC_CHILD).
 *
 * Every test runs a root process R that makes a tree; each process reaps
 * its children as zombies first, reading their /proc/<pid>/stat fault
 * counters (which cannot change any more) into a table shared with the
 * test. The oracle, for every process of the tree: the successful fault
 * and remote records plus the lost faults of its trace equal those
 * counters. The test reads the tree as tracepgfault -f does: poll on
 * every trace, a claim for every "child" record, to EOF.
 */
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <linux/pgfault_history.h>
#include "ktap.h"
#include "util.h"
#include "pgf.h"
#include "pgfstats.h"
#include "mapscmp.h"

#define P 4096UL
#define MAXP 160
#define SUID_HELPER "/tmp/pgf-inherit-suid"

/* ---- what the processes of a tree report -------------------------------- */

struct report {
	int n;
	struct {
		int pid, ppid, status;
		long faults;
	} e[MAXP];
	size_t maps_len;
	char maps[32768];	/* one process's /proc/self/maps */
};

static struct report *rep;

static void report_add(pid_t pid, long faults, int status)
{
	int i = __atomic_fetch_add(&rep->n, 1, __ATOMIC_SEQ_CST);

	if (i >= MAXP)
		_exit(80);
	rep->e[i].pid = pid;
	rep->e[i].ppid = getpid();
	rep->e[i].faults = faults;
	rep->e[i].status = status;
}

/* Reap @pid as a zombie first, reporting its fault counters. */
static void reap(pid_t pid)
{
	int status;
	long faults = pgf_zombie_faults(pid, &status);

	if (faults < 0)
		_exit(81);
	report_add(pid, faults, status);
}

static int report_find(pid_t pid)
{
	for (int i = 0; i < rep->n; i++)
		if (rep->e[i].pid == pid)
			return i;
	return -1;
}

/* Copy /proc/self/maps into the report, with no allocation. */
static void snapshot_maps(void)
{
	int fd = open("/proc/self/maps", O_RDONLY);
	ssize_t n;

	rep->maps_len = 0;
	while (fd >= 0 && (n = read(fd, rep->maps + rep->maps_len,
				   sizeof(rep->maps) - 1 - rep->maps_len)) > 0)
		rep->maps_len += n;
	if (fd < 0 || rep->maps_len >= sizeof(rep->maps) - 1)
		_exit(82);
	close(fd);
}

static void touch(char *m, int pages)
{
	for (int i = 0; i < pages; i++)
		((volatile char *)m)[i * P] = 1;
}

static char *map_pages(int pages)
{
	char *m = mmap(NULL, pages * P, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED)
		_exit(83);
	return m;
}

/* A child that touches @pages new pages and exits with @code. */
static pid_t spawn_toucher(int pages, int code)
{
	pid_t pid = fork();

	if (pid < 0)
		_exit(84);
	if (pid == 0) {
		touch(map_pages(pages), pages);
		_exit(code);
	}
	return pid;
}

/* ---- reading a tree, as tracepgfault -f does ---------------------------- */

struct tproc {
	int fd;
	int parent;		/* index of the trace it was claimed from */
	struct pgf_trace t;
	char line[4096];
	size_t linelen, lineno;
	size_t seen;		/* records looked at for "child" */
	bool eof;
};

struct tree {
	struct tproc p[MAXP];
	int n;
	int claim_failed;	/* "child" records whose claim failed */
	int unrecorded;		/* children claimable with no "child" record */
};

static struct tree tree;

static void tree_add(struct tree *tr, int fd, int parent)
{
	struct tproc *p = &tr->p[tr->n++];

	memset(p, 0, sizeof(*p));
	p->fd = fd;
	p->parent = parent;
	fcntl(fd, F_SETFL, O_NONBLOCK);
}

/* Claim the traces of the children trace @i has recorded so far. */
static void tree_claim(struct tree *tr, int i)
{
	struct tproc *p = &tr->p[i];
	int fd;

	for (; p->seen < p->t.nr; p->seen++) {
		struct pgf_rec *r = &p->t.rec[p->seen];

		if (strcmp(r->type, "child") || r->b)
			continue;
		fd = ioctl(p->fd, PGFAULT_HISTORY_IOC_CHILD, (unsigned long)r->a);
		if (fd < 0 || tr->n == MAXP) {
			ktap_diag("claim of %llu: %s", r->a, strerror(errno));
			tr->claim_failed++;
			if (fd >= 0)
				close(fd);
			continue;
		}
		tree_add(tr, fd, i);
	}
}

/*
 * Read every trace of the tree until all are at EOF (0), or nothing has
 * come for @ms (-1).
 */
static int tree_read(struct tree *tr, int ms)
{
	static char buf[65536];
	struct pollfd pfd[MAXP];
	int map[MAXP], n, k, fd;
	struct tproc *p;
	ssize_t len;

	for (;;) {
		n = 0;
		for (int i = 0; i < tr->n; i++) {
			if (tr->p[i].eof)
				continue;
			pfd[n].fd = tr->p[i].fd;
			pfd[n].events = POLLIN;
			map[n++] = i;
		}
		if (!n)
			return 0;
		if (poll(pfd, n, ms) <= 0)
			return -1;
		for (k = 0; k < n; k++) {
			if (!pfd[k].revents)
				continue;
			p = &tr->p[map[k]];
			len = read(p->fd, buf, sizeof(buf));
			if (len < 0 && errno == EAGAIN)
				continue;
			if (len < 0) {
				ktap_diag("read: %s", strerror(errno));
				return -2;
			}
			if (len == 0) {
				p->eof = true;
				/* Every child listed had its record. */
				while ((fd = ioctl(p->fd, PGFAULT_HISTORY_IOC_CHILD, 0)) >= 0) {
					tr->unrecorded++;
					close(fd);
				}
				continue;
			}
			if (pgf_trace_feed(&p->t, buf, len, p->line, &p->linelen,
					   &p->lineno))
				return -3;
			tree_claim(tr, map[k]);
		}
	}
}

static void tree_free(struct tree *tr)
{
	for (int i = 0; i < tr->n; i++) {
		close(tr->p[i].fd);
		pgf_trace_free(&tr->p[i].t);
	}
	tr->n = 0;
}

static int tree_find(struct tree *tr, int pid)
{
	for (int i = 0; i < tr->n; i++)
		if (tr->p[i].t.pid == pid)
			return i;
	return -1;
}

static size_t nr_type(const struct pgf_trace *t, const char *type)
{
	return pgf_count(t, type);
}

/*
 * The trace of process @i: started with "inherit" in @mode, its layout
 * next, and, if @faults >= 0, its fault records plus lost faults equal to
 * @faults and an exit record with @status.
 */
static void check_proc(struct tree *tr, int i, const char *mode, long faults,
		       int status)
{
	struct pgf_trace *t = &tr->p[i].t;
	struct pgf_rec *last;

	ASSERT_GE(t->nr, 3);
	EXPECT_TRUE(!strcmp(t->rec[0].type, "start"));
	EXPECT_TRUE(!strcmp(t->rec[0].text, mode));
	EXPECT_EQ(t->rec[0].a, 1);		/* inherit */
	EXPECT_TRUE(!strcmp(t->rec[1].type, "layout"));
	if (faults < 0)
		return;
	last = &t->rec[t->nr - 1];
	if (pgf_ok_faults(t) + pgf_lost_faults(t) != (size_t)faults)
		ktap_diag("pid %d: %zu fault records + %llu lost, stat says %ld",
			  t->pid, pgf_ok_faults(t), pgf_lost_faults(t), faults);
	EXPECT_EQ(pgf_ok_faults(t) + pgf_lost_faults(t), faults);
	EXPECT_TRUE(!strcmp(last->type, "exit"));
	EXPECT_EQ(last->a, status);
	EXPECT_EQ(last->b, pgf_ok_faults(t));	/* kept, by the kernel's count */
}

/* Check every process of the tree against the reports. */
static void check_all(struct tree *tr, const char *mode)
{
	int r;

	for (int i = 0; i < tr->n; i++) {
		r = report_find(tr->p[i].t.pid);
		if (r < 0) {
			ktap_diag("pid %d has a trace but no report", tr->p[i].t.pid);
			EXPECT_TRUE(r >= 0);
			continue;
		}
		check_proc(tr, i, mode, rep->e[r].faults, rep->e[r].status);
	}
	EXPECT_EQ(tr->n, rep->n);
	EXPECT_EQ(tr->claim_failed, 0);
	EXPECT_EQ(tr->unrecorded, 0);
}

/* The "child" records of trace @i, in order: their pids in @pids. */
static int children_of(struct tree *tr, int i, int *pids, int max)
{
	struct pgf_trace *t = &tr->p[i].t;
	int n = 0;

	for (size_t k = 0; k < t->nr; k++)
		if (!strcmp(t->rec[k].type, "child") && n < max)
			pids[n++] = t->rec[k].a;
	return n;
}

/* Trace @i recorded exactly one child, which was followed: its index. */
static int only_child(struct tree *tr, int i)
{
	int pids[2], c;

	ASSERT_EQ(children_of(tr, i, pids, 2), 1);
	c = tree_find(tr, pids[0]);
	ASSERT_GE(c, 0);
	return c;
}

/* ---- running a tree ------------------------------------------------------ */

enum { READ_DURING, READ_AFTER };

/*
 * Fork R and wait until it sleeps, waiting to be told to go: the faults
 * it took until then are counted in *@before, and it takes none until
 * told. Returns its pid; *@go is the pipe to tell it.
 */
static pid_t fork_root(void (*fn)(void), int *go, long *before)
{
	int p[2], ready[2];
	struct pgf_stat st;
	pid_t pid;
	char c;

	ASSERT_SYS(pipe(p));
	ASSERT_SYS(pipe(ready));
	pid = ASSERT_SYS(fork());
	if (pid == 0) {
		close(p[1]);
		if (write(ready[1], "r", 1) != 1 || read(p[0], &c, 1) != 1)
			_exit(90);
		fn();
		_exit(0);
	}
	close(p[0]);
	ASSERT_EQ(read(ready[0], &c, 1), 1);
	close(ready[0]);
	close(ready[1]);
	for (int i = 0; i < 5000; i++) {
		ASSERT_EQ(pgf_read_stat(pid, &st), 0);
		if (st.state == 'S')
			break;
		usleep(1000);
	}
	ASSERT_EQ(st.state, 'S');
	*before = st.minflt + st.majflt;
	*go = p[1];
	return pid;
}

/*
 * Fork R, start it in @mode, let it run @fn, read the tree (while it runs,
 * or only once R has exited), then reap R as a zombie. Returns R's pid.
 */
static pid_t run_tree(const char *mode, void (*fn)(void), int when)
{
	int go, fd, status;
	long faults, before;
	siginfo_t si;
	pid_t pid;

	rep = mmap(NULL, sizeof(*rep), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(rep != MAP_FAILED);
	ASSERT_EQ(pgf_set_buffer_kb(1024), 0);
	pid = fork_root(fn, &go, &before);
	fd = ASSERT_SYS(pgf_open(pid, O_RDWR));
	ASSERT_EQ(write(fd, mode, strlen(mode)), (ssize_t)strlen(mode));
	tree.n = 0;
	tree.claim_failed = 0;
	tree.unrecorded = 0;
	tree_add(&tree, fd, -1);
	ASSERT_EQ(write(go, "g", 1), 1);
	close(go);
	if (when == READ_AFTER) {
		memset(&si, 0, sizeof(si));
		ASSERT_SYS(waitid(P_PID, pid, &si, WEXITED | WNOWAIT));
	}
	ASSERT_EQ(tree_read(&tree, 20000), 0);
	faults = pgf_zombie_faults(pid, &status);
	ASSERT_GE(faults, 0);
	/* R was traced from the start on; its children from birth. */
	report_add(pid, faults - before, status);
	ASSERT_EQ(pgf_set_buffer_kb(64), 0);
	return pid;
}

static void end_tree(void)
{
	tree_free(&tree);
	munmap(rep, sizeof(*rep));
	/* Every trace of the tree is freed once its readers are gone. */
	EXPECT_EQ(pgf_debug_wait("traces", 0), 0);
	EXPECT_EQ(pgf_debug_wait("active", 0), 0);
}

/* ---- the tests ----------------------------------------------------------- */

static void fn_one_child(void)
{
	reap(spawn_toucher(64, 3));
}

/*
 * The child is reaped before anyone reads: its /proc directory is gone,
 * yet its trace is claimed through R's file and reads in full to EOF.
 */
TEST(child_reaped_before_reading_is_claimed_in_full)
{
	char path[64];
	int r, c, pids[4];
	pid_t root = run_tree("1 inherit", fn_one_child, READ_AFTER);

	ASSERT_EQ(tree.n, 2);
	ASSERT_EQ(children_of(&tree, 0, pids, 4), 1);
	c = tree_find(&tree, pids[0]);
	ASSERT_EQ(c, 1);
	snprintf(path, sizeof(path), "/proc/%d", pids[0]);
	EXPECT_TRUE(access(path, F_OK) < 0);	/* reaped: no /proc entry */
	/* Recorded by R's main thread, before the child's first record. */
	for (size_t k = 0; k < tree.p[0].t.nr; k++)
		if (!strcmp(tree.p[0].t.rec[k].type, "child")) {
			EXPECT_EQ(tree.p[0].t.rec[k].tid, root);
			EXPECT_GT(tree.p[0].t.rec[k].time, tree.p[c].t.rec[0].time);
		}
	r = report_find(pids[0]);
	ASSERT_GE(r, 0);
	EXPECT_EQ(WEXITSTATUS(rep->e[r].status), 3);
	EXPECT_GE(nr_type(&tree.p[c].t, "fault"), 64);
	check_all(&tree, "first");
	/* Claimed once only. */
	ASSERT_ERRNO(ioctl(tree.p[0].fd, PGFAULT_HISTORY_IOC_CHILD, pids[0]),
		     ENOENT);
	end_tree();
}

static void fn_thread(void)
{
	touch(map_pages(4), 4);
}

static void *thread_main(void *arg)
{
	(void)arg;
	fn_thread();
	return NULL;
}

static void fn_known_tree(void)
{
	pid_t a, b;

	a = fork();
	if (a == 0) {
		pthread_t th;

		/* A thread is not a new process: no child record. */
		if (pthread_create(&th, NULL, thread_main, NULL) ||
		    pthread_join(th, NULL))
			_exit(85);
		reap(spawn_toucher(10, 11));
		reap(spawn_toucher(12, 12));
		_exit(1);
	}
	b = spawn_toucher(20, 2);
	reap(a);
	reap(b);
}

/* R -> A, B; A -> A1, A2; each process's trace against its counters. */
TEST(known_tree_every_process_matches_its_counters)
{
	int pids[4], a, n;

	run_tree("1 inherit", fn_known_tree, READ_DURING);
	ASSERT_EQ(tree.n, 5);
	check_all(&tree, "first");
	ASSERT_EQ(children_of(&tree, 0, pids, 4), 2);
	a = tree_find(&tree, pids[0]);
	ASSERT_GE(a, 0);
	n = children_of(&tree, a, pids, 4);
	EXPECT_EQ(n, 2);
	for (int i = 0; i < n; i++)
		EXPECT_EQ(tree.p[tree_find(&tree, pids[i])].parent, a);
	end_tree();
}

static void fn_spawn(void)
{
	char *argv[] = { "true", NULL };
	pid_t pid;

	if (posix_spawn(&pid, "/bin/true", NULL, NULL, argv, NULL))
		_exit(86);
	reap(pid);
}

/* posix_spawn(): vfork() and exec; the child's trace shows the exec. */
TEST(vfork_exec_child_is_traced_through_its_exec)
{
	int c;
	struct pgf_trace *t;

	run_tree("1 inherit", fn_spawn, READ_DURING);
	ASSERT_EQ(tree.n, 2);
	check_all(&tree, "first");
	c = only_child(&tree, 0);
	t = &tree.p[c].t;
	EXPECT_EQ(nr_type(t, "exec"), 1);
	for (size_t k = 0; k < t->nr; k++)
		if (!strcmp(t->rec[k].type, "exec"))
			EXPECT_TRUE(!strcmp(t->rec[k].text, "/bin/true"));
	end_tree();
}

static char *shared_pages;
static char *child_region;

static int clone_vm_child(void *arg)
{
	(void)arg;
	touch(shared_pages, 16);
	child_region = map_pages(4);
	touch(child_region, 4);
	return 0;
}

static void fn_clone_vm(void)
{
	static char stack[64 * 1024] __attribute__((aligned(16)));
	pid_t pid;

	shared_pages = map_pages(16);
	pid = clone(clone_vm_child, stack + sizeof(stack), CLONE_VM | SIGCHLD,
		    NULL);
	if (pid < 0)
		_exit(87);
	reap(pid);
	/* R's next mmap: its trace catches up with the child's map. */
	map_pages(1);
	/* The addresses, for the test: in the report's maps area tail. */
	memcpy(rep->maps + sizeof(rep->maps) - 16, &shared_pages, 8);
	memcpy(rep->maps + sizeof(rep->maps) - 8, &child_region, 8);
	snapshot_maps();
}

static int faults_in(const struct pgf_trace *t, unsigned long lo,
		     unsigned long hi)
{
	int n = 0;

	for (size_t k = 0; k < t->nr; k++)
		n += !strcmp(t->rec[k].type, "fault") &&
		     t->rec[k].addr >= lo && t->rec[k].addr < hi;
	return n;
}

/* Replay trace text @text and compare it with the report's maps. */
static int replay_matches_maps(const char *text, size_t len)
{
	FILE *f = fmemopen((void *)text, len, "r");
	struct pgft_space s = { 0 };
	struct pgft_reader rd;
	struct pgft_rec r;
	int ret;

	if (!f || pgft_open(&rd, f, "trace"))
		return -1;
	while ((ret = pgft_next(&rd, &r)) > 0)
		pgft_apply(&s, &r);
	if (ret < 0)
		ktap_diag("%s", rd.error);
	if (!ret)
		ret = maps_compare(&s, rep->maps, rep->maps_len, 0);
	pgft_close(&rd);
	pgft_space_free(&s);
	fclose(f);
	return ret;
}

/*
 * CLONE_VM without CLONE_THREAD: the child's faults on the shared mm are
 * in its own trace, none in R's; the region it maps is in its trace and
 * reaches R's at R's next mmap; R's replay equals its maps.
 */
TEST(clone_vm_child_records_its_own_faults_and_regions)
{
	unsigned long shared, region;
	int c;

	run_tree("1 inherit", fn_clone_vm, READ_DURING);
	ASSERT_EQ(tree.n, 2);
	check_all(&tree, "first");
	memcpy(&shared, rep->maps + sizeof(rep->maps) - 16, 8);
	memcpy(&region, rep->maps + sizeof(rep->maps) - 8, 8);
	c = only_child(&tree, 0);
	EXPECT_GE(faults_in(&tree.p[c].t, shared, shared + 16 * P), 16);
	EXPECT_GE(faults_in(&tree.p[c].t, region, region + 4 * P), 4);
	EXPECT_EQ(faults_in(&tree.p[0].t, shared, shared + 16 * P), 0);
	EXPECT_EQ(faults_in(&tree.p[0].t, region, region + 4 * P), 0);
	end_tree();
}

static void fn_checkpoint_child(void)
{
	int hold[2];
	pid_t pid;
	char c;

	if (pipe(hold))
		_exit(88);
	pid = fork();
	if (pid == 0) {
		char *m = map_pages(8), *n = map_pages(8);

		close(hold[1]);
		munmap(m + 2 * P, 2 * P);
		mprotect(n + P, P, PROT_READ);
		touch(m, 2);
		snapshot_maps();
		/* Ready; wait for the test to compare. */
		__atomic_store_n(&rep->e[MAXP - 1].pid, getpid(), __ATOMIC_SEQ_CST);
		if (read(hold[0], &c, 1) < 0)
			_exit(89);
		_exit(0);
	}
	close(hold[0]);
	/* The test writes nothing: R holds the pipe until the check ends. */
	while (!__atomic_load_n(&rep->e[MAXP - 2].pid, __ATOMIC_SEQ_CST))
		usleep(1000);
	close(hold[1]);
	reap(pid);
}

/*
 * The child's regions, replayed from its claimed trace while it is
 * stopped at a checkpoint, equal its /proc/<pid>/maps there.
 */
TEST(child_regions_replay_to_its_maps)
{
	static char text[1 << 20];
	int go, fd, cfd = -1, status;
	struct pollfd pfd;
	pid_t root, child;
	size_t len = 0;
	long before;
	ssize_t n;

	rep = mmap(NULL, sizeof(*rep), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(rep != MAP_FAILED);
	root = fork_root(fn_checkpoint_child, &go, &before);
	fd = ASSERT_SYS(pgf_open(root, O_RDWR));
	ASSERT_EQ(write(fd, "1 inherit", 9), 9);
	ASSERT_EQ(write(go, "g", 1), 1);
	close(go);
	/* The child is at its checkpoint. */
	for (int i = 0; i < 10000 && !__atomic_load_n(&rep->e[MAXP - 1].pid,
						      __ATOMIC_SEQ_CST); i++)
		usleep(1000);
	child = rep->e[MAXP - 1].pid;
	ASSERT_GT(child, 0);
	/* Its record is in R's trace already: claim it by pid. */
	cfd = ASSERT_SYS(ioctl(fd, PGFAULT_HISTORY_IOC_CHILD, child));
	fcntl(cfd, F_SETFL, O_NONBLOCK);
	pfd.fd = cfd;
	pfd.events = POLLIN;
	while (poll(&pfd, 1, 200) == 1 &&
	       (n = read(cfd, text + len, sizeof(text) - 1 - len)) > 0)
		len += n;
	EXPECT_EQ(replay_matches_maps(text, len), 0);
	/* Let the child go; R reaps it. */
	__atomic_store_n(&rep->e[MAXP - 2].pid, 1, __ATOMIC_SEQ_CST);
	ASSERT_EQ(waitpid(root, &status, 0), root);
	EXPECT_EQ(status, 0);
	close(cfd);
	close(fd);
	munmap(rep, sizeof(*rep));
	EXPECT_EQ(pgf_debug_wait("traces", 0), 0);
}

static void fn_suid_child(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		if (setgid(PGF_TEST_UID) || setuid(PGF_TEST_UID) ||
		    prctl(PR_SET_DUMPABLE, 1))
			_exit(40);
		execl(SUID_HELPER, "true", NULL);
		_exit(41);
	}
	reap(pid);
}

/* A child that execs a set-uid program: its trace stops there, as ever. */
TEST(child_exec_of_setuid_program_ends_its_trace)
{
	struct pgf_trace *t;
	int c;

	ASSERT_EQ(system("cp /bin/busybox " SUID_HELPER), 0);
	ASSERT_SYS(chown(SUID_HELPER, 0, 0));
	ASSERT_SYS(chmod(SUID_HELPER, 04755));
	run_tree("1 inherit", fn_suid_child, READ_DURING);
	unlink(SUID_HELPER);
	ASSERT_EQ(tree.n, 2);
	c = only_child(&tree, 0);
	t = &tree.p[c].t;
	check_proc(&tree, c, "first", -1, 0);
	ASSERT_GT(t->nr, 0);
	EXPECT_TRUE(!strcmp(t->rec[t->nr - 1].type, "stop"));
	EXPECT_TRUE(!strcmp(t->rec[t->nr - 1].text, "credentials"));
	EXPECT_EQ(nr_type(t, "exec"), 0);
	EXPECT_EQ(nr_type(t, "exit"), 0);
	check_proc(&tree, 0, "first", rep->e[report_find(tree.p[0].t.pid)].faults,
		   rep->e[report_find(tree.p[0].t.pid)].status);
	end_tree();
}

static void fn_daemonize(void)
{
	pid_t d = fork();

	if (d == 0) {
		if (fork() == 0) {
			/* The grandchild outlives its parent and R. */
			usleep(100 * 1000);
			touch(map_pages(8), 8);
			_exit(5);
		}
		_exit(0);
	}
	reap(d);
}

/*
 * A double fork: the daemon outlives its parent and R, and is re-parented
 * to the test (a subreaper); it is found through its parent's trace.
 */
TEST(daemonized_grandchild_is_followed_after_its_parent_exits)
{
	int d, g, status;
	long faults;

	ASSERT_SYS(prctl(PR_SET_CHILD_SUBREAPER, 1));
	run_tree("1 inherit", fn_daemonize, READ_DURING);
	ASSERT_EQ(tree.n, 3);
	d = only_child(&tree, 0);
	g = only_child(&tree, d);
	EXPECT_EQ(tree.p[g].parent, d);
	/* It is ours now; read its counters as a zombie. */
	faults = pgf_zombie_faults(tree.p[g].t.pid, &status);
	ASSERT_GE(faults, 0);
	report_add(tree.p[g].t.pid, faults, status);
	EXPECT_EQ(WEXITSTATUS(status), 5);
	check_all(&tree, "first");
	ASSERT_SYS(prctl(PR_SET_CHILD_SUBREAPER, 0));
	end_tree();
}

static void fn_hundred(void)
{
	for (int i = 0; i < 100; i++)
		reap(spawn_toucher(1 + i % 4, i & 0x7f));
}

/* A hundred short-lived children, each reaped at once. */
TEST(hundred_short_lived_children_all_traced)
{
	int pids[128];

	run_tree("1 inherit", fn_hundred, READ_DURING);
	ASSERT_EQ(tree.n, 101);
	EXPECT_EQ(children_of(&tree, 0, pids, 128), 100);
	check_all(&tree, "first");
	end_tree();
}

static int hold_pipe[2];

static void fn_root_exits_first(void)
{
	if (fork() == 0) {
		char c;

		close(hold_pipe[1]);
		if (read(hold_pipe[0], &c, 1) != 1)
			_exit(91);
		touch(map_pages(6), 6);
		_exit(6);
	}
	/* R exits; its child goes on. */
}

/*
 * 2,000 on UML, 1,000 under QEMU's TCG, where a fork takes 10 ms: either
 * is many times what the budget lets be traced (70 children here).
 */
static int nr_forks;

static void fn_many_children(void)
{
	for (int i = 0; i < nr_forks; i++) {
		pid_t pid = fork();

		if (pid == 0)
			_exit(0);
		if (pid < 0 || waitpid(pid, NULL, 0) != pid)
			_exit(92);
	}
}

#define BUDGET_KB 8192

/*
 * Every child had its record, the budget bound (some traced, some not),
 * and what the traces held stayed within it; then the default budget back
 * and every trace gone.
 */
static void budget_held(unsigned long traced, unsigned long untraced,
			long held, struct pgf_trace *t, int fd)
{
	EXPECT_EQ(traced + untraced, (unsigned long)nr_forks);
	EXPECT_GT(traced, 0);
	EXPECT_GT(untraced, 0);
	EXPECT_LE(held, BUDGET_KB * 1024L);
	pgf_trace_free(t);
	close(fd);
	pgf_write_long("/proc/sys/vm/pgfault_history_budget_kb", 65536);
	EXPECT_EQ(pgf_debug_wait("traces", 0), 0);
}

/*
 * A traced process forks 2,000 children that nobody claims (1,000 in the
 * x86_64 guest, where TCG makes every fork slow): their traces wait on its
 * list, records and all. The tree's budget (8 MiB here) caps what they
 * hold; the children past it come as "child ... untraced", and every
 * child has its record.
 */
TEST(unclaimed_children_stay_within_the_budget)
{
	unsigned long traced = 0, untraced = 0;
	long before, peak = 0, now;
	int go, fd, status;
	struct pgf_trace t;
	pid_t root;

	ASSERT_EQ(pgf_write_long("/proc/sys/vm/pgfault_history_budget_kb", BUDGET_KB), 0);
	ASSERT_EQ(pgf_set_buffer_kb(512), 0);	/* room for 10,000 records */
	/*
	 * 10,000 on UML until 2026-11-27: 111 s of the 120 s limit on a
	 * slow host, alone, and past it in make test.
	 */
	nr_forks = is_uml() ? 2000 : 1000;
	before = pgf_debug_value("buffer_bytes");
	root = fork_root(fn_many_children, &go, &now);
	fd = ASSERT_SYS(pgf_open(root, O_RDWR));
	ASSERT_EQ(write(fd, "1 inherit", 9), 9);
	ASSERT_EQ(pgf_set_buffer_kb(64), 0);
	ASSERT_EQ(write(go, "g", 1), 1);
	close(go);
	memset(&t, 0, sizeof(t));
	{
		static char buf[65536], line[4096];
		size_t linelen = 0, lineno = 0;
		ssize_t n;

		while ((n = read(fd, buf, sizeof(buf))) > 0) {
			ASSERT_EQ(pgf_trace_feed(&t, buf, n, line, &linelen, &lineno), 0);
			now = pgf_debug_value("buffer_bytes") - before;
			peak = now > peak ? now : peak;
		}
	}
	ASSERT_EQ(waitpid(root, &status, 0), root);
	EXPECT_EQ(status, 0);
	for (size_t i = 0; i < t.nr; i++) {
		if (strcmp(t.rec[i].type, "child"))
			continue;
		if (t.rec[i].b)
			untraced++;
		else
			traced++;
	}
	ktap_diag("%lu children traced, %lu untraced; buffers peaked at %ld KiB "
		  "over the start, budget %d KiB; %llu records lost",
		  traced, untraced, peak / 1024, BUDGET_KB, pgf_lost_faults(&t));
	budget_held(traced, untraced, peak, &t, fd);
}

static int release_pipe[2];
#define LIVE_VMAS 2000

/* 2,000 VMAs, then children that live until the test lets them go. */
static void fn_many_live_children(void)
{
	char *m = mmap(NULL, 2 * LIVE_VMAS * 4096UL, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char c;

	if (m == MAP_FAILED)
		_exit(93);
	for (int i = 0; i < LIVE_VMAS; i++)
		if (mprotect(m + 2 * i * 4096UL, 4096, PROT_READ))
			_exit(94);
	close(release_pipe[1]);
	for (int i = 0; i < nr_forks; i++) {
		pid_t pid = fork();

		if (pid == 0)
			_exit(read(release_pipe[0], &c, 1) == 0 ? 0 : 95);
		if (pid < 0)
			_exit(92);
	}
	while (wait(NULL) > 0)
		;
}

/* Buffers and region shadows of all traces, in bytes. */
static long held_bytes(void)
{
	return pgf_debug_value("buffer_bytes") + pgf_debug_value("shadow_bytes");
}

/*
 * A traced process of 2,000 VMAs forks children that live on and that
 * nobody claims: each child's trace holds a region shadow of 2,000
 * entries besides its buffers (about 250 KiB). The budget caps both: the
 * children past it come as "child ... untraced". 100 children in UML, 20
 * in the x86_64 guest: under TCG a debug kernel takes most of a second to
 * fork a process of 4,000 VMAs, traced or not, and 9 reach the budget.
 */
TEST(unclaimed_live_children_hold_their_regions_within_the_budget)
{
	unsigned long traced = 0, untraced = 0;
	long before, held;
	int go, fd, status;
	struct pgf_trace t;
	pid_t root;

	static char buf[65536], line[4096];
	size_t linelen = 0, lineno = 0;
	ssize_t n = 1;

	if (pgf_debug_value("shadow_bytes") < 0)
		SKIP("no shadow_bytes in /sys/kernel/debug/pgfault_history");
	ASSERT_EQ(pgf_write_long("/proc/sys/vm/pgfault_history_budget_kb", BUDGET_KB), 0);
	nr_forks = is_uml() ? 100 : 20;
	ASSERT_SYS(pipe(release_pipe));
	before = held_bytes();
	root = fork_root(fn_many_live_children, &go, &before);
	before = held_bytes();
	close(release_pipe[0]);
	fd = ASSERT_SYS(pgf_open(root, O_RDWR));
	ASSERT_EQ(write(fd, "1 inherit", 9), 9);
	ASSERT_EQ(write(go, "g", 1), 1);
	close(go);
	memset(&t, 0, sizeof(t));
	/* Every child's record: all of them alive, their traces made. */
	while (traced + untraced < (unsigned long)nr_forks &&
	       (n = read(fd, buf, sizeof(buf))) > 0) {
		ASSERT_EQ(pgf_trace_feed(&t, buf, n, line, &linelen, &lineno), 0);
		traced = untraced = 0;
		for (size_t i = 0; i < t.nr; i++)
			if (!strcmp(t.rec[i].type, "child"))
				*(t.rec[i].b ? &untraced : &traced) += 1;
	}
	held = held_bytes() - before;
	close(release_pipe[1]);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		ASSERT_EQ(pgf_trace_feed(&t, buf, n, line, &linelen, &lineno), 0);
	ASSERT_EQ(waitpid(root, &status, 0), root);
	EXPECT_EQ(status, 0);
	ktap_diag("%lu children traced, %lu untraced; buffers and shadows %ld KiB "
		  "over the start, budget %d KiB",
		  traced, untraced, held / 1024, BUDGET_KB);
	budget_held(traced, untraced, held, &t, fd);
}

/* The tree still runs when the traced root has exited and been read. */
TEST(tree_still_running_after_root_exits)
{
	int c, status;
	long faults;

	ASSERT_SYS(prctl(PR_SET_CHILD_SUBREAPER, 1));
	ASSERT_SYS(pipe(hold_pipe));
	rep = NULL;
	/* run_tree() reads to EOF; the child blocks: read by hand. */
	{
		long before;
		pid_t root;
		int go, fd;

		rep = mmap(NULL, sizeof(*rep), PROT_READ | PROT_WRITE,
			   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		ASSERT_TRUE(rep != MAP_FAILED);
		root = fork_root(fn_root_exits_first, &go, &before);
		fd = ASSERT_SYS(pgf_open(root, O_RDWR));
		ASSERT_EQ(write(fd, "1 inherit", 9), 9);
		tree.n = 0;
		tree.claim_failed = 0;
		tree.unrecorded = 0;
		tree_add(&tree, fd, -1);
		ASSERT_EQ(write(go, "g", 1), 1);
		close(go);
		/*
		 * R ends; its child waits: R's trace reaches EOF with its
		 * child claimed, and the child's stays open (it is blocked on
		 * hold_pipe, so that much is certain however slow the host).
		 */
		for (int i = 0; i < 200 && !(tree.p[0].eof && tree.n == 2); i++)
			EXPECT_EQ(tree_read(&tree, 100), -1);
		EXPECT_TRUE(tree.p[0].eof);
		ASSERT_EQ(tree.n, 2);
		EXPECT_TRUE(!tree.p[1].eof);
		faults = pgf_zombie_faults(root, &status);
		ASSERT_GE(faults, 0);
		report_add(root, faults - before, status);
	}
	close(hold_pipe[0]);
	ASSERT_EQ(write(hold_pipe[1], "g", 1), 1);
	ASSERT_EQ(tree_read(&tree, 20000), 0);
	c = only_child(&tree, 0);
	ASSERT_EQ(c, 1);
	faults = pgf_zombie_faults(tree.p[c].t.pid, &status);
	ASSERT_GE(faults, 0);
	report_add(tree.p[c].t.pid, faults, status);
	EXPECT_EQ(WEXITSTATUS(status), 6);
	check_all(&tree, "first");
	close(hold_pipe[1]);
	ASSERT_SYS(prctl(PR_SET_CHILD_SUBREAPER, 0));
	end_tree();
}

static void fn_window_child(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		char *m = map_pages(32);

		touch(m, 32);
		touch(m, 32);
		_exit(0);
	}
	reap(pid);
}

/* The mode is inherited: a child of a window-mode trace sees re-references. */
TEST(mode_is_inherited)
{
	struct pgf_trace *t;
	int c, rerefs = 0, window_rearms = 0;

	run_tree("1 window=16 inherit", fn_window_child, READ_DURING);
	ASSERT_EQ(tree.n, 2);
	check_all(&tree, "window=16");
	c = only_child(&tree, 0);
	t = &tree.p[c].t;
	for (size_t k = 0; k < t->nr; k++) {
		rerefs += !strcmp(t->rec[k].type, "fault") &&
			  !strcmp(t->rec[k].result, "reref");
		window_rearms += !strcmp(t->rec[k].type, "rearm") &&
				 !strcmp(t->rec[k].text, "window");
	}
	/* The second pass over 32 pages misses a 16-page window on each. */
	EXPECT_GE(rerefs, 32);
	EXPECT_GE(window_rearms, 1);
	end_tree();
}

static void fn_plain_child(void)
{
	pid_t pid = fork();
	char path[64];
	int fd;

	if (pid == 0) {
		pause();
		_exit(0);
	}
	/* Not inherited: the child has no trace to read. */
	pgf_path(path, sizeof(path), pid);
	fd = open(path, O_RDONLY);
	if (fd < 0 || read(fd, path, sizeof(path)) != -1 || errno != ESRCH)
		_exit(92);
	close(fd);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* Without "inherit", nothing changes: no child record, no child trace. */
TEST(without_inherit_children_are_not_traced)
{
	int go, fd, status;
	struct pgf_trace t;
	long before;
	pid_t pid;

	pid = fork_root(fn_plain_child, &go, &before);
	fd = ASSERT_SYS(pgf_open(pid, O_RDWR));
	ASSERT_EQ(write(fd, "1", 1), 1);
	ASSERT_EQ(write(go, "g", 1), 1);
	close(go);
	ASSERT_EQ(pgf_read_all(fd, &t), 0);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_EQ(status, 0);
	EXPECT_EQ(t.rec[0].a, 0);		/* no inherit */
	EXPECT_EQ(pgf_count(&t, "child"), 0);
	ASSERT_ERRNO(ioctl(fd, PGFAULT_HISTORY_IOC_CHILD, 0), ENOENT);
	pgf_trace_free(&t);
	close(fd);
	EXPECT_EQ(pgf_debug_wait("traces", 0), 0);
}

/* "inherit" composes with the modes, once; the ioctl checks its input. */
TEST(inherit_parses_and_ioctl_checks)
{
	struct puppet pp;
	int fd, wfd;

	ASSERT_EQ(puppet_spawn(&pp, NULL), 0);
	fd = ASSERT_SYS(pgf_open(pp.pid, O_RDWR));
	ASSERT_ERRNO(write(fd, "1 inherit inherit", 17), EINVAL);
	ASSERT_ERRNO(write(fd, "1 inherit window=16 interval=5", 30), EINVAL);
	ASSERT_ERRNO(write(fd, "1 inherits", 10), EINVAL);
	ASSERT_EQ(write(fd, "1 interval=20 inherit", 21), 21);
	/* The same mode, in another order: already so. */
	ASSERT_EQ(write(fd, "1 inherit interval=20", 21), 21);
	ASSERT_ERRNO(write(fd, "1 interval=20", 13), EBUSY);
	ASSERT_ERRNO(ioctl(fd, PGFAULT_HISTORY_IOC_CHILD, 0), ENOENT);
	ASSERT_ERRNO(ioctl(fd, PGFAULT_HISTORY_IOC_CHILD, 1UL << 31), EINVAL);
	ASSERT_ERRNO(ioctl(fd, _IO(0xB9, 0x7f), 0), ENOTTY);
	wfd = ASSERT_SYS(pgf_open(pp.pid, O_WRONLY));
	ASSERT_ERRNO(ioctl(wfd, PGFAULT_HISTORY_IOC_CHILD, 0), EBADF);
	close(wfd);
	ASSERT_EQ(write(fd, "0", 1), 1);
	close(fd);
	puppet_end(&pp);
	EXPECT_EQ(pgf_debug_wait("traces", 0), 0);
}

static void fn_failed_fork(void)
{
	/* CLONE_PIDFD with a bad pointer fails after the fork hook ran. */
	long ret = syscall(SYS_clone, CLONE_PIDFD | SIGCHLD, 0, (void *)8, 0, 0);

	if (ret == 0)
		_exit(0);
	if (ret > 0 || errno != EFAULT)
		_exit(93);
	reap(spawn_toucher(2, 0));
}

/*
 * A fork that fails after the child got its trace: the trace goes with
 * it, unrecorded; the next fork is traced as usual.
 */
TEST(failed_fork_leaves_no_child_behind)
{
	int pids[2];

	run_tree("1 inherit", fn_failed_fork, READ_DURING);
	ASSERT_EQ(tree.n, 2);
	EXPECT_EQ(children_of(&tree, 0, pids, 2), 1);
	check_all(&tree, "first");
	end_tree();
}

KTAP_MAIN();
