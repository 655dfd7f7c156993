// SPDX-License-Identifier: GPL-2.0
/*
 * exactness - the trace's promise, checked against the kernel's own
 * counters on workloads that stress it: from start to exit, the minor and
 * major fault and remote records plus the lost FAULTS equal what
 * /proc/<pid>/stat counts (min_flt + maj_flt), whatever the workload does:
 * exec with big arguments, threads that exit in any order, faults taken
 * while the last thread exits (its robust futex list), reads of another
 * process's memory, failed faults, and a buffer too small for it all. And
 * every fault kept lies in a region the reader was told of.
 */
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <pthread.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include "ktap.h"
#include "pgf.h"
#include "pgfstats.h"

#define PAGE 4096UL

/* A page shared with the traced child, which leaves a value in it. */
static unsigned long long *watch_page;

static bool watch_begin(void)
{
	watch_page = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (watch_page != MAP_FAILED)
		return true;
	watch_page = NULL;
	return false;
}

static void watch_end(void)
{
	munmap(watch_page, PAGE);
	watch_page = NULL;
}

struct counts {
	unsigned long ok;		/* fault + remote records, minor or major */
	unsigned long remote;		/* remote records, minor or major */
	unsigned long failed;		/* fault records with a signal or OOM */
	unsigned long lost_faults, lost_other;
	unsigned long unplaced;		/* faults in no known region */
	unsigned long layouts, short_layouts;
	unsigned long kernel_at;	/* kernel-mode faults at @watch */
	unsigned long long watch;	/* left in watch_page: a page, a count */
	unsigned long long exit_faults, exit_lost;
	char last[16];			/* type of the last record */
};

/*
 * Read a trace to EOF through the tools' reader and replay its regions:
 * count what the oracle needs, and every fault not in a known region.
 */
static int tally(int fd, struct counts *c)
{
	struct pgft_space as = { 0 };
	unsigned long long due = 0;
	struct pgft_reader rd;
	struct pgft_rec r;
	FILE *f = fdopen(fd, "r");
	int ret;

	if (!f || pgft_open(&rd, f, "trace"))
		return -1;
	while ((ret = pgft_next(&rd, &r)) > 0) {
		bool ok = pgft_counted(r.result);

		if (due && r.type != PGFT_MAP) {
			c->short_layouts++;	/* a layout cut short */
			due = 0;
		}
		switch (r.type) {
		case PGFT_FAULT:
			c->ok += ok;
			c->failed += !ok;
			if (!pgft_find(&as, r.addr))
				c->unplaced++;
			if (r.kernel && r.addr / PAGE == c->watch / PAGE)
				c->kernel_at++;
			break;
		case PGFT_REMOTE:
			c->ok += ok;
			c->remote += ok;
			break;
		case PGFT_LOST:
			c->lost_faults += r.n[0];
			c->lost_other += r.n[1];
			break;
		case PGFT_LAYOUT:
			c->layouts++;
			due = r.n[0];
			break;
		case PGFT_MAP:
			if (due)
				due--;
			break;
		case PGFT_EXIT:
			c->exit_faults = r.n[1];
			c->exit_lost = r.n[2];
			break;
		default:
			break;
		}
		pgft_apply(&as, &r);
		snprintf(c->last, sizeof(c->last), "%s",
			 r.type == PGFT_EXIT ? "exit" : r.type == PGFT_STOP ? "stop" : "other");
	}
	if (ret < 0)
		printf("# %s\n", rd.error);
	pgft_space_free(&as);
	fclose(f);
	return ret;
}

/*
 * Run @work in a fresh child, traced from an idle point (blocked in
 * read()) to its exit, with a buffer of @kb KiB, read after it exited.
 * Returns its fault count from /proc/<pid>/stat over that time.
 */
static long oracle(void (*work)(void), unsigned int kb, struct counts *c)
{
	int go[2], fd, status;
	struct pgf_stat st;
	long before, after;
	pid_t pid;
	char ch;

	memset(c, 0, sizeof(*c));
	if (pipe(go))
		return -1;
	if (watch_page)
		*watch_page = 0;
	pid = fork();
	if (pid == 0) {
		if (read(go[0], &ch, 1) != 1)
			_exit(2);
		work();
		_exit(0);
	}
	for (int i = 0; i < 5000; i++) {
		if (!pgf_read_stat(pid, &st) && st.state == 'S')
			break;
		usleep(1000);
	}
	before = st.minflt + st.majflt;
	if (pgf_set_buffer_kb(kb) || pgf_start(pid) || pgf_set_buffer_kb(64))
		return -1;
	fd = pgf_open(pid, 0);
	if (fd < 0 || write(go[1], "g", 1) != 1)
		return -1;
	after = pgf_zombie_faults(pid, &status);
	c->watch = watch_page ? *watch_page : 0;
	if (tally(fd, c) || !WIFEXITED(status) || WEXITSTATUS(status))
		return -1;
	close(go[0]);
	close(go[1]);
	printf("# stat %ld, records %lu (%lu remote), lost %lu+%lu, failed %lu, exit %llu+%llu\n",
	       after - before, c->ok, c->remote, c->lost_faults, c->lost_other,
	       c->failed, c->exit_faults, c->exit_lost);
	return after - before;
}

/* What every oracle run must show. */
#define EXPECT_EXACT(delta, c)						\
	do {								\
		EXPECT_EQ((unsigned long)(delta), (c).ok + (c).lost_faults); \
		EXPECT_EQ((c).exit_faults + (c).exit_lost,		\
			  (c).ok + (c).lost_faults);			\
		EXPECT_EQ((c).unplaced, 0);				\
		EXPECT_EQ((c).short_layouts, 0);			\
		EXPECT_EQ(strcmp((c).last, "exit"), 0);			\
	} while (0)

/* ---- exec --------------------------------------------------------------- */

static void exec_big_args(void)
{
	static char arg[128 * 1024];

	/* 128 KiB of argument: the new stack's pages fault during execve(). */
	memset(arg, 'a', sizeof(arg) - 1);
	execl("/bin/busybox", "true", arg, NULL);
	_exit(3);
}

TEST(exact_across_exec_with_big_arguments)
{
	struct counts c;
	long delta = oracle(exec_big_args, 64, &c);

	ASSERT_GE(delta, 0);
	EXPECT_EXACT(delta, c);
	/* The argument pages: on the new mm, before it is the process's. */
	EXPECT_GE(c.remote, 128 * 1024 / PAGE);
}

/* ---- threads that exit in any order ------------------------------------- */

static void *short_lived(void *arg)
{
	long i = (long)arg;
	char *m = mmap(NULL, 16 * PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	for (int k = 0; k < 16; k++)
		m[k * PAGE] = 1;
	usleep(i * 20 * 1000);
	if (i == 5)
		exit(0);	/* the last one ends the process */
	return NULL;
}

static void threads_exit_in_any_order(void)
{
	pthread_t th;

	for (long i = 1; i <= 5; i++)
		pthread_create(&th, NULL, short_lived, (void *)i);
	pthread_exit(NULL);	/* main goes first */
}

TEST(exact_when_threads_exit_in_any_order)
{
	struct counts c;

	for (int round = 0; round < 5; round++) {
		long delta = oracle(threads_exit_in_any_order, 64, &c);

		ASSERT_GE(delta, 0);
		EXPECT_EXACT(delta, c);
	}
}

/* ---- a fault while the last thread exits ---------------------------------- */

/*
 * The last thread's robust futex list lives in a page whose mapping was
 * just dropped (MADV_DONTNEED of a shared file page: the content stays):
 * the kernel faults it back in while the thread exits, in exit_mm(),
 * after do_exit() has decided that the process is dead.
 */
static void robust_list_at_exit(void)
{
	struct robust_list_head *head;
	int fd = open("/tmp/pgf-robust", O_RDWR | O_CREAT | O_TRUNC, 0600);
	char *m;

	if (fd < 0 || ftruncate(fd, PAGE))
		_exit(4);
	m = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		_exit(5);
	*watch_page = (unsigned long)m;
	head = (struct robust_list_head *)m;
	head->list.next = &head->list;		/* an empty list */
	head->futex_offset = 0;
	head->list_op_pending = NULL;
	if (syscall(SYS_set_robust_list, head, sizeof(*head)))
		_exit(6);
	madvise(m, PAGE, MADV_DONTNEED);
	syscall(SYS_exit_group, 0);
}

TEST(fault_in_the_exit_path_comes_before_exit)
{
	struct counts c;
	long delta;

	ASSERT_TRUE(watch_begin());
	delta = oracle(robust_list_at_exit, 64, &c);
	watch_end();
	unlink("/tmp/pgf-robust");
	ASSERT_GE(delta, 0);
	EXPECT_EXACT(delta, c);
	/* The kernel reading the list head, recorded before the exit. */
	EXPECT_EQ(c.kernel_at, 1);
}

/* ---- another process's memory -------------------------------------------- */

/*
 * Reads 16 untouched pages of a child with process_vm_readv() (where the
 * kernel has it: not the trimmed x86_64 test kernel) and 16 more through
 * /proc/<pid>/mem, as ptrace peeks do: each faults the page in, in the
 * child's mm, counted by our /proc/<pid>/stat.
 */
static void read_another_process(void)
{
	int sync[2], fd;
	char *m, buf[PAGE], path[64];
	pid_t other;
	char c;

	if (pipe(sync))
		_exit(7);
	m = mmap(NULL, 32 * PAGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	other = fork();		/* not traced: a new process never is */
	if (other == 0) {
		if (read(sync[0], &c, 1) != 1)
			_exit(1);
		_exit(0);
	}
	for (int i = 0; i < 16; i++) {
		struct iovec local = { buf, PAGE }, remote = { m + i * PAGE, PAGE };

		if (process_vm_readv(other, &local, 1, &remote, 1, 0) != PAGE &&
		    errno != ENOSYS)
			_exit(8);
		if (errno == ENOSYS)
			break;
	}
	snprintf(path, sizeof(path), "/proc/%d/mem", other);
	fd = open(path, O_RDONLY);
	for (int i = 16; i < 32; i++)
		if (fd < 0 || pread(fd, buf, PAGE, (unsigned long)m + i * PAGE) != PAGE)
			_exit(12);
	close(fd);
	if (write(sync[1], "x", 1) != 1)
		_exit(9);
	waitpid(other, NULL, 0);
}

TEST(exact_when_reading_another_process)
{
	struct counts c;
	long delta = oracle(read_another_process, 64, &c);

	ASSERT_GE(delta, 0);
	EXPECT_EXACT(delta, c);
	EXPECT_GE(c.remote, 16);
}

/* ---- failed faults, and a buffer far too small ------------------------------ */

static sigjmp_buf jump;

static void on_sigbus(int sig)
{
	(void)sig;
	siglongjmp(jump, 1);
}

/* 200 SIGBUS faults (past the end of a file) among 300 good ones. */
static void failed_faults(void)
{
	struct sigaction sa = { .sa_handler = on_sigbus };
	int fd = open("/tmp/pgf-short", O_RDWR | O_CREAT | O_TRUNC, 0600);
	volatile int bad = 0;
	char *f, *m;

	if (fd < 0 || ftruncate(fd, PAGE))
		_exit(10);
	f = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	m = mmap(NULL, 300 * PAGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	sigaction(SIGBUS, &sa, NULL);
	for (int i = 0; i < 300; i++) {
		m[i * PAGE] = 1;
		if (i < 200 && !sigsetjmp(jump, 1))
			f[PAGE + i] = 1;
		else if (i < 200)
			bad++;
	}
	if (bad != 200)
		_exit(11);
}

TEST(failed_faults_are_not_counted_as_faults)
{
	struct counts c;
	long delta = oracle(failed_faults, 64, &c);

	unlink("/tmp/pgf-short");
	ASSERT_GE(delta, 0);
	EXPECT_EXACT(delta, c);
	EXPECT_EQ(c.failed, 200);
	EXPECT_EQ(c.lost_faults + c.lost_other, 0);
}

TEST(exact_with_a_tiny_buffer_and_failed_faults)
{
	struct counts c;
	long delta = oracle(failed_faults, 4, &c);

	unlink("/tmp/pgf-short");
	ASSERT_GE(delta, 0);
	EXPECT_EXACT(delta, c);
	EXPECT_GT(c.lost_faults, 0);
	EXPECT_GT(c.lost_other, 0);	/* some of the failed ones */
}

/* ---- a fault in a region just made, by another thread ------------------- */

/*
 * One thread maps two pages at a fixed address and unmaps them, over and
 * over; another writes to the second page as fast as it can, recovering
 * from SIGSEGV while nothing is mapped there. A region change is recorded
 * after the lock is released, before its maker returns to user space; a
 * write that lands in between records the change itself first (or retries
 * under the mmap lock), so every fault kept lies in a region the trace
 * has told of, and no fault on the new region comes before its map.
 */
#define RACE_ROUNDS 2000

static char *volatile race_at;
static volatile int race_done;
static __thread sigjmp_buf race_jmp;

static void race_segv(int sig)
{
	(void)sig;
	siglongjmp(race_jmp, 1);
}

static void *race_writer(void *arg)
{
	unsigned long *hits = arg;

	while (!race_at)
		sched_yield();
	while (!race_done) {
		if (sigsetjmp(race_jmp, 1))
			continue;
		*(volatile char *)(race_at + PAGE) = 1;
		(*hits)++;
	}
	return NULL;
}

static void map_while_another_thread_writes(void)
{
	struct sigaction sa = { .sa_handler = race_segv };
	unsigned long *hits = (unsigned long *)watch_page;
	pthread_t th;

	/*
	 * The writer's stack first, then the place: a hole left before
	 * pthread_create() could become the stack.
	 */
	race_at = mmap(NULL, 4 * PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	if (race_at == MAP_FAILED || sigaction(SIGSEGV, &sa, NULL) ||
	    pthread_create(&th, NULL, race_writer, hits))
		_exit(12);
	/* PROT_NONE guards on both sides: the two pages merge with nothing. */
	race_at += PAGE;
	if (munmap(race_at, 2 * PAGE))
		_exit(12);
	for (int i = 0; i < RACE_ROUNDS; i++) {
		if (mmap(race_at, 2 * PAGE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) ==
		    MAP_FAILED)
			_exit(13);
		sched_yield();
		munmap(race_at, 2 * PAGE);
	}
	race_done = 1;
	pthread_join(th, NULL);
}

TEST(a_fault_on_a_new_region_comes_after_its_map)
{
	struct counts c;
	long delta;

	ASSERT_TRUE(watch_begin());
	delta = oracle(map_while_another_thread_writes, 2048, &c);
	watch_end();
	ktap_diag("%llu writes to a mapped page in %d rounds", c.watch,
		  RACE_ROUNDS);
	ASSERT_GE(delta, 0);
	EXPECT_EXACT(delta, c);
	EXPECT_EQ(c.lost_faults + c.lost_other, 0);
	/* The writer ran while the pages were there: there were faults. */
	EXPECT_GT(c.watch, 0);
}

/* ---- region records lost ---------------------------------------------------- */

/* 200 one-page mappings, each touched: many region records, many faults. */
static void many_small_mappings(void)
{
	for (int i = 0; i < 200; i++) {
		char *m = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		m[0] = 1;
		mprotect(m, PAGE, PROT_READ);	/* no merging with the last */
	}
}

/*
 * With a 4 KiB buffer and no reader until the end, region records are
 * lost: after that, faults are dropped (and counted) until a whole layout
 * is in the trace again, so every fault kept lies in a known region, and
 * every layout has all its maps.
 */
TEST(lost_regions_never_leave_faults_unplaced)
{
	struct counts c;
	long delta = oracle(many_small_mappings, 4, &c);

	ASSERT_GE(delta, 0);
	EXPECT_EXACT(delta, c);
	EXPECT_GT(c.lost_other, 0);
	ktap_diag("%lu layouts", c.layouts);
}

KTAP_MAIN()
