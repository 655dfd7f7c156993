// SPDX-License-Identifier: GPL-2.0
/*
 * numa - tracing and NUMA balancing. With balancing on, the scanner makes
 * a process's pages inaccessible to see where they are used, and the next
 * access takes a hinting fault, which /proc/<pid>/stat counts as a minor
 * fault. A trace that never re-armed records those as minor faults: a
 * "reref" means the trace's own re-arming, nothing else.
 *
 * Placement: a task's pages follow it to its node whether it is traced or
 * not, re-armed or not; with balancing off, a re-armed page's fault only
 * restores its PTE and the page stays where it is. Oracle: move_pages(2)
 * itself, asked where each page is. These tests need two nodes with CPUs:
 * run-tests.py runs this suite in a two-node x86_64 guest.
 *
 * Needs CONFIG_NUMA_BALANCING (the x86_64 guest; one node is enough for
 * hinting faults, the pages just stay where they are).
 */
#include <sched.h>
#include <signal.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "ktap.h"
#include "util.h"
#include "pgf.h"
#include "pgfstats.h"
#include "pagemap.h"

#define PAGES 2048
#define SCHED "/sys/kernel/debug/sched/numa_balancing/"

struct shared {
	volatile int touched, stop;
};

/* Seconds since boot (CLOCK_MONOTONIC), for waits bounded in time. */
/* One counter of /proc/vmstat, or -1. */
static long vmstat(const char *key)
{
	char name[64];
	long v, ret = -1;
	FILE *f = fopen("/proc/vmstat", "r");

	while (f && fscanf(f, "%63s %ld", name, &v) == 2)
		if (!strcmp(name, key))
			ret = v;
	if (f)
		fclose(f);
	return ret;
}

/* Say where @pid is in the kernel: its state, wchan and kernel stack. */
static void tell_where(pid_t pid)
{
	char path[64], line[256];
	struct pgf_stat st;
	FILE *f;

	if (!pgf_read_stat(pid, &st))
		ktap_diag("child %d: state %c, %lu faults", (int)pid, st.state,
			  st.minflt + st.majflt);
	snprintf(path, sizeof(path), "/proc/%d/task/%d/stack", (int)pid, (int)pid);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		ktap_diag("child stack: %s", line);
	}
	if (f)
		fclose(f);
}

/*
 * Wait up to @secs for @pid to be a zombie, then read its faults as
 * pgf_zombie_faults() does; -1 (and where it is stuck) if it is not.
 */
static long zombie_faults_within(pid_t pid, double secs, int *status)
{
	double end = pgf_now_s() + secs;
	struct pgf_stat st;

	while (!pgf_read_stat(pid, &st) && st.state != 'Z' && pgf_now_s() < end)
		usleep(10 * 1000);
	if (pgf_read_stat(pid, &st) || st.state != 'Z') {
		ktap_diag("child %d did not exit within %.0f s", (int)pid, secs);
		tell_where(pid);
		kill(pid, SIGKILL);
		waitpid(pid, status, 0);
		return -1;
	}
	return pgf_zombie_faults(pid, status);
}

/* The first CPU of @node, or -1 if it has none (or does not exist). */
static int node_cpu(int node)
{
	char path[64];
	int cpu = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/cpulist", node);
	f = fopen(path, "r");
	if (f && fscanf(f, "%d", &cpu) != 1)
		cpu = -1;
	if (f)
		fclose(f);
	return cpu;
}

static int pin(int cpu)
{
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	return sched_setaffinity(0, sizeof(one), &one);
}

/*
 * The scanner is switched on once the child has touched its pages (every
 * PTE is there for it to protect), with its passes at most a second apart;
 * hinting faults are waited for up to HINT_WAIT_S seconds.
 */
#define HINT_WAIT_S	40

TEST(first_mode_with_numa_balancing_records_no_reref)
{
	long old_mode = pgf_read_long("/proc/sys/kernel/numa_balancing");
	long old_delay = pgf_read_long(SCHED "scan_delay_ms");
	long old_min = pgf_read_long(SCHED "scan_period_min_ms");
	long old_max = pgf_read_long(SCHED "scan_period_max_ms");
	int cpu0 = node_cpu(0), cpu1 = node_cpu(1);
	unsigned long reref = 0, minor = 0;
	long before, after, hints0, ptes0;
	struct shared *sh;
	struct pgf_trace t;
	int go[2], fd, status;
	double end;
	pid_t pid;
	char c;

	if (old_mode < 0 || old_delay < 0 || old_min < 0 || old_max < 0)
		SKIP("no NUMA balancing (or its debugfs knobs)");
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(sh != MAP_FAILED);
	ASSERT_SYS(pipe(go));
	/*
	 * Before the fork: a task's first scan waits scan_delay_ms of its
	 * CPU time as it was when the task was forked (1 s by default).
	 */
	ASSERT_EQ(pgf_write_long(SCHED "scan_delay_ms", 0), 0);
	ASSERT_EQ(pgf_write_long(SCHED "scan_period_min_ms", 100), 0);
	ASSERT_EQ(pgf_write_long(SCHED "scan_period_max_ms", 1000), 0);
	pid = ASSERT_SYS(fork());
	if (pid == 0) {
		char *m = mmap(NULL, PAGES * 4096UL, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		volatile char sink;

		if (m == MAP_FAILED || read(go[0], &c, 1) != 1)
			_exit(10);
		madvise(m, PAGES * 4096UL, MADV_NOHUGEPAGE);
		/*
		 * The scanner leaves alone a single-threaded process's pages
		 * on the node it runs on (change_pte_range()'s target_node):
		 * the pages on node 0, then the child on node 1.
		 */
		if (cpu0 >= 0 && cpu1 >= 0 && pin(cpu0))
			_exit(11);
		for (int i = 0; i < PAGES; i++)
			m[i * 4096] = 1;
		if (cpu0 >= 0 && cpu1 >= 0 && pin(cpu1))
			_exit(12);
		sh->touched = 1;
		/* Used over and over, as the scanner makes its passes. */
		while (!sh->stop)
			for (int i = 0; i < PAGES; i++)
				sink = m[i * 4096];
		(void)sink;
		_exit(0);
	}
	for (int i = 0; i < 5000; i++) {
		struct pgf_stat st;

		if (!pgf_read_stat(pid, &st) && st.state == 'S')
			break;		/* blocked in its read(): no faults */
		usleep(1000);
	}
	before = pgf_faults_of(pid);
	ASSERT_EQ(pgf_set_buffer_kb(1024), 0);
	ASSERT_EQ(pgf_start(pid), 0);
	ASSERT_EQ(pgf_set_buffer_kb(64), 0);
	fd = ASSERT_SYS(pgf_open(pid, 0));
	ASSERT_EQ(write(go[1], "g", 1), 1);
	end = pgf_now_s() + HINT_WAIT_S;
	while (!sh->touched && pgf_now_s() < end)
		usleep(1000);
	if (!sh->touched)
		tell_where(pid);
	hints0 = vmstat("numa_hint_faults");
	ptes0 = vmstat("numa_pte_updates");
	ASSERT_EQ(pgf_write_long("/proc/sys/kernel/numa_balancing", 1), 0);
	/* Wait for hinting faults: more faults than pages touched. */
	while (sh->touched && pgf_faults_of(pid) - before <= PAGES + 64 &&
	       pgf_now_s() < end)
		usleep(1000);
	pgf_write_long("/proc/sys/kernel/numa_balancing", old_mode);
	pgf_write_long(SCHED "scan_delay_ms", old_delay);
	pgf_write_long(SCHED "scan_period_min_ms", old_min);
	pgf_write_long(SCHED "scan_period_max_ms", old_max);
	ktap_diag("scanner: %ld PTEs made inaccessible, %ld hinting faults (all processes)",
		  vmstat("numa_pte_updates") - ptes0,
		  vmstat("numa_hint_faults") - hints0);
	sh->stop = 1;
	after = zombie_faults_within(pid, 30, &status);
	ASSERT_TRUE(after >= 0);
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ASSERT_EQ(pgf_read_all(fd, &t), 0);
	close(fd);
	for (size_t i = 0; i < t.nr; i++) {
		if (strcmp(t.rec[i].type, "fault"))
			continue;
		reref += !strcmp(t.rec[i].result, "reref");
		minor += !strcmp(t.rec[i].result, "minor");
	}
	ktap_diag("stat %ld faults (%d pages touched), trace %lu minor, %lu reref, %llu lost",
		  after - before, PAGES, minor, reref, pgf_lost_faults(&t));
	EXPECT_GT(after - before, PAGES + 64);	/* hinting faults came */
	EXPECT_EQ(reref, 0);
	EXPECT_EQ(pgf_ok_faults(&t) + pgf_lost_faults(&t), (unsigned long)(after - before));
	pgf_trace_free(&t);
	munmap(sh, sizeof(*sh));
}

/* ---- placement on two nodes -------------------------------------------- */

#define NP	512

/* How many of the @np pages at @addr in @pid are on @node; -1 on error. */
static int pages_on(pid_t pid, unsigned long addr, int np, int node)
{
	void *pages[NP];
	int status[NP], n = 0;

	for (int i = 0; i < np; i++)
		pages[i] = (void *)(addr + i * 4096UL);
	if (syscall(SYS_move_pages, pid, np, pages, NULL, status, 0))
		return -1;
	for (int i = 0; i < np; i++)
		n += status[i] == node;
	return n;
}

struct mover {
	volatile unsigned long addr;	/* set once the pages are on node 1 */
	volatile int go;		/* 1: move to node 0 and keep reading; 2: read once */
	volatile int reads;		/* passes over the pages on node 0 */
	volatile int stop;
};

/* NP pages written from @cpu (its node's), in base pages; exits on error. */
static char *pages_made_on(int cpu)
{
	char *m;

	if (pin(cpu))
		_exit(10);
	m = mmap(NULL, NP * 4096UL, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		_exit(11);
	madvise(m, NP * 4096UL, MADV_NOHUGEPAGE);
	for (int i = 0; i < NP; i++)
		m[i * 4096UL] = 1;
	return m;
}

/*
 * The child: its pages made on node 1's CPU, then read from node 0's, over
 * and over (go 1) or once (go 2).
 */
static void mover(struct mover *mv, int cpu0, int cpu1)
{
	volatile char sink;
	char *m = pages_made_on(cpu1);

	mv->addr = (unsigned long)m;
	while (!mv->go && !mv->stop)
		usleep(1000);
	if (pin(cpu0))
		_exit(12);
	do {
		for (int i = 0; i < NP; i++)
			sink = m[i * 4096UL];
		mv->reads++;
	} while (mv->go == 1 && !mv->stop);
	(void)sink;
	while (!mv->stop)
		usleep(1000);
	_exit(0);
}

enum trace_how { UNTRACED, FIRST, REARMED };

struct balancing {
	long mode, delay, min;
};

static int balancing_set(struct balancing *old, long mode)
{
	old->mode = pgf_read_long("/proc/sys/kernel/numa_balancing");
	old->delay = pgf_read_long(SCHED "scan_delay_ms");
	old->min = pgf_read_long(SCHED "scan_period_min_ms");
	if (old->mode < 0 || old->delay < 0 || old->min < 0)
		return -1;
	if (pgf_write_long(SCHED "scan_delay_ms", 0) ||
	    pgf_write_long(SCHED "scan_period_min_ms", 100) ||
	    pgf_write_long("/proc/sys/kernel/numa_balancing", mode))
		return -1;
	return 0;
}

static void balancing_restore(const struct balancing *old)
{
	pgf_write_long("/proc/sys/kernel/numa_balancing", old->mode);
	pgf_write_long(SCHED "scan_delay_ms", old->delay);
	pgf_write_long(SCHED "scan_period_min_ms", old->min);
}

/* What moved_pages() saw besides the trace. */
struct moved {
	unsigned long addr;		/* the pages */
	long migrated;			/* /proc/vmstat's numa_pages_migrated */
	int on0;			/* pages on node 0 with the frames below */
	uint64_t pfn[NP];		/* the child's pagemap at the end */
};

/* The frames of the child's pages, from its pagemap (we are root). */
static void child_frames(pid_t pid, struct moved *mo)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/pagemap", pid);
	fd = open(path, O_RDONLY);
	for (int i = 0; i < NP; i++) {
		uint64_t e = 0;

		if (fd < 0 || pread(fd, &e, 8, (mo->addr / 4096 + i) * 8) != 8)
			e = 0;
		mo->pfn[i] = e & PM_PRESENT ? e & PM_PFN_MASK : 0;
	}
	if (fd >= 0)
		close(fd);
}

/*
 * Pages made on node 1, then used from node 0 with balancing @mode, traced
 * as @how. Returns how many of them ended on node 0 (within a bound when
 * balancing is on; after one pass over re-armed pages when it is off), and
 * the trace in @t; in @mo (if not NULL) the pages' address, the pages
 * migrated by NUMA balancing meanwhile, and their frames at the end.
 */
static int moved_pages(enum trace_how how, long mode, struct pgf_trace *t,
		       int *status, struct moved *mo)
{
	int cpu0 = node_cpu(0), cpu1 = node_cpu(1), on0 = -1, fd = -1;
	struct balancing old;
	struct mover *mv;
	pid_t pid;

	memset(t, 0, sizeof(*t));
	if (cpu0 < 0 || cpu1 < 0 || cpu0 == cpu1)
		return -2;
	mv = mmap(NULL, sizeof(*mv), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (mv == MAP_FAILED)
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0)
		mover(mv, cpu0, cpu1);
	for (int i = 0; i < 30000 && !mv->addr; i++)
		usleep(1000);
	if (!mv->addr || pages_on(pid, mv->addr, NP, 1) != NP) {
		ktap_diag("the pages were not all made on node 1 (%d of %d)",
			  mv->addr ? pages_on(pid, mv->addr, NP, 1) : -1, NP);
		goto out;
	}
	if (balancing_set(&old, mode))
		goto out_restore;
	if (how != UNTRACED) {
		if (pgf_set_buffer_kb(1024) || pgf_start(pid) ||
		    pgf_set_buffer_kb(64))
			goto out_restore;
		fd = pgf_open(pid, 0);
		if (fd < 0 || (how == REARMED && pgf_rearm(pid)))
			goto out_restore;
	}
	if (mo)
		mo->migrated = vmstat("numa_pages_migrated");
	mv->go = mode ? 1 : 2;
	for (int i = 0; i < 120000; i++) {
		if (mode && pages_on(pid, mv->addr, NP, 0) >= NP * 9 / 10)
			break;
		if (!mode && mv->reads)
			break;
		usleep(1000);
	}
	on0 = pages_on(pid, mv->addr, NP, 0);
	ktap_diag("%d of %d pages on node 0 after %d passes over them",
		  on0, NP, mv->reads);
out_restore:
	balancing_restore(&old);
	if (mo && on0 >= 0) {
		static struct moved again;

		mo->addr = mv->addr;
		again.addr = mv->addr;
		/*
		 * Balancing is off again, but a migration a hinting fault
		 * began before may still end: the frames and the pages on
		 * node 0 are taken once two readings of the frames agree.
		 */
		child_frames(pid, mo);
		for (int i = 0; i < 100; i++) {
			mo->on0 = pages_on(pid, mv->addr, NP, 0);
			usleep(20000);
			child_frames(pid, &again);
			if (!memcmp(again.pfn, mo->pfn, sizeof(mo->pfn)))
				break;
			memcpy(mo->pfn, again.pfn, sizeof(mo->pfn));
		}
		mo->migrated = vmstat("numa_pages_migrated") - mo->migrated;
	}
out:
	mv->stop = 1;
	waitpid(pid, status, 0);
	if (fd >= 0) {
		if (pgf_read_all(fd, t))
			on0 = -1;
		close(fd);
	}
	munmap(mv, sizeof(*mv));
	return on0;
}

static size_t faults_with(const struct pgf_trace *t, const char *result)
{
	size_t n = 0;

	for (size_t i = 0; i < t->nr; i++)
		n += !strcmp(t->rec[i].type, "fault") &&
		     !strcmp(t->rec[i].result, result);
	return n;
}

/*
 * The "move numa" records of the pages (format version 9): each page that
 * NUMA balancing moved to node 0 has one, from node 1, from the frame it
 * had to the frame the child's pagemap shows once balancing is off again
 * (and each page on node 0 then was moved); their pages are
 * at most the pages /proc/vmstat says balancing migrated in the guest
 * meanwhile. A timeline of the moves, per 100 ms, in the diagnostics.
 */
static void expect_numa_moves(const struct pgf_trace *t, const struct moved *mo)
{
	static int moves[NP];
	size_t pages = 0, wrong = 0, buckets[16] = { 0 };
	unsigned long long t0 = 0;
	char line[128];
	int n = 0, moved = 0;

	memset(moves, 0, sizeof(moves));
	for (size_t k = 0; k < t->nr; k++) {
		const struct pgf_rec *r = &t->rec[k];
		long i = ((long)r->addr - (long)mo->addr) / 4096;

		if (strcmp(r->type, "move") || r->addr < mo->addr || i >= NP)
			continue;
		if (!t0)
			t0 = r->time;
		buckets[(r->time - t0) / 100000000 < 15 ?
			(r->time - t0) / 100000000 : 15] += r->a;
		pages += r->a;
		moves[i]++;
		if ((strcmp(r->text, "numa") || r->node != 1 || r->new_node != 0 ||
		     !r->has_frame || r->new_pfn != mo->pfn[i]) && wrong++ < 4)
			ktap_diag("page %ld: move %s %d -> %d, frame %llx; pagemap %llx",
				  i, r->text, r->node, r->new_node, r->new_pfn,
				  (unsigned long long)mo->pfn[i]);
	}
	for (int i = 0; i < NP; i++) {
		moved += moves[i] > 0;
		wrong += moves[i] > 1;
	}
	for (int b = 0; b < 16; b++)
		n += snprintf(line + n, sizeof(line) - n, " %zu", buckets[b]);
	ktap_diag("%zu pages in \"move numa\" records, %d pages moved, %d on node 0; "
		  "/proc/vmstat: %ld pages migrated by balancing; %zu wrong",
		  pages, moved, mo->on0, mo->migrated, wrong);
	ktap_diag("pages moved to node 0 per 100 ms:%s", line);
	EXPECT_EQ(wrong, 0);
	EXPECT_EQ(moved, mo->on0);
	EXPECT_LE((long)pages, mo->migrated);
}

static void pages_follow(enum trace_how how)
{
	static struct moved mo;
	struct pgf_trace t;
	int on0, status = -1;

	if (pgf_read_long("/proc/sys/kernel/numa_balancing") < 0)
		SKIP("no NUMA balancing");
	on0 = moved_pages(how, 1, &t, &status, &mo);
	if (on0 == -2)
		SKIP("needs two NUMA nodes with CPUs (run-tests.py boots them)");
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	EXPECT_GE(on0, NP * 9 / 10);
	if (how != UNTRACED)
		ktap_diag("trace: %zu minor, %zu reref faults",
			  faults_with(&t, "minor"), faults_with(&t, "reref"));
	if (how == FIRST) {
		EXPECT_EQ(faults_with(&t, "reref"), 0);
		expect_numa_moves(&t, &mo);
	}
	if (how == REARMED)
		EXPECT_GE(faults_with(&t, "reref"), 1);
	pgf_trace_free(&t);
}

TEST(an_untraced_task_s_pages_follow_it_to_its_node)
{
	pages_follow(UNTRACED);
}

TEST(a_traced_task_s_pages_follow_it_as_untraced)
{
	pages_follow(FIRST);
}

TEST(a_re_armed_task_s_pages_follow_it_with_balancing_on)
{
	pages_follow(REARMED);
}

TEST(re_armed_pages_stay_on_their_node_with_balancing_off)
{
	struct pgf_trace t;
	int on0, status = -1;

	if (pgf_read_long("/proc/sys/kernel/numa_balancing") < 0)
		SKIP("no NUMA balancing");
	on0 = moved_pages(REARMED, 0, &t, &status, NULL);
	if (on0 == -2)
		SKIP("needs two NUMA nodes with CPUs (run-tests.py boots them)");
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* Every page re-referenced from node 0, none moved there. */
	ktap_diag("trace: %zu reref faults", faults_with(&t, "reref"));
	EXPECT_GE(faults_with(&t, "reref"), NP);
	EXPECT_EQ(on0, 0);
	pgf_trace_free(&t);
}

/* ---- re-armed pages left behind ----------------------------------------- */

struct leftover {
	volatile unsigned long addr;	/* set once the pages are on node 1 */
	volatile int step;		/* 1: fork; 2: read from node 0 */
	volatile int child;		/* the child forked while re-armed */
	volatile int read_parent, read_child;
	volatile long faults_parent, faults_child;	/* taken by the reads */
	volatile int stop;
};

/*
 * Read every page from node 0's CPU once, counting the faults the reads
 * take (getrusage() around them: nothing else is touched meanwhile), then
 * wait for the end.
 */
static void leftover_read(struct leftover *lo, char *m, int cpu0,
			  volatile int *done, volatile long *faults)
{
	struct rusage before, after;
	volatile char sink;

	while (lo->step < 2 && !lo->stop)
		usleep(1000);
	if (pin(cpu0))
		_exit(12);
	getrusage(RUSAGE_SELF, &before);
	for (int i = 0; i < NP; i++)
		sink = m[i * 4096UL];
	getrusage(RUSAGE_SELF, &after);
	(void)sink;
	*faults = (after.ru_minflt - before.ru_minflt) +
		  (after.ru_majflt - before.ru_majflt);
	*done = 1;
	while (!lo->stop)
		usleep(1000);
}

/*
 * The traced process: its pages made on node 1, a child forked once they
 * are re-armed (step 1), then both read them from node 0 (step 2).
 */
static void leftover_main(struct leftover *lo, int cpu0, int cpu1)
{
	char *m = pages_made_on(cpu1);
	int status;
	pid_t pid;

	lo->addr = (unsigned long)m;
	while (lo->step < 1 && !lo->stop)
		usleep(1000);
	pid = fork();
	if (pid == 0) {
		leftover_read(lo, m, cpu0, &lo->read_child, &lo->faults_child);
		_exit(0);
	}
	lo->child = pid < 0 ? -1 : pid;
	leftover_read(lo, m, cpu0, &lo->read_parent, &lo->faults_parent);
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		_exit(13);
	_exit(0);
}

/*
 * With balancing off, the pages a trace re-armed are not left inaccessible
 * for processes nobody traces: after "0", the traced process, and a child
 * it forked while its pages were re-armed (fork copies PTEs as they are),
 * read every page from the other node without a fault (the child: but
 * for the access flag faults of its old PTEs where software keeps the
 * accessed bit) (getrusage()
 * around the reads), no NUMA hinting fault is counted and no page
 * migrates (/proc/vmstat), and move_pages() finds every page where it was.
 */
TEST(re_armed_pages_do_not_outlive_the_trace)
{
	int cpu0 = node_cpu(0), cpu1 = node_cpu(1), fd, status;
	long hints, migrated;
	struct balancing old;
	struct leftover *lo;
	pid_t pid;

	if (pgf_read_long("/proc/sys/kernel/numa_balancing") < 0)
		SKIP("no NUMA balancing");
	if (cpu0 < 0 || cpu1 < 0 || cpu0 == cpu1)
		SKIP("needs two NUMA nodes with CPUs (run-tests.py boots them)");
	lo = mmap(NULL, sizeof(*lo), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(lo != MAP_FAILED);
	pid = ASSERT_SYS(fork());
	if (pid == 0)
		leftover_main(lo, cpu0, cpu1);
	for (int i = 0; i < 30000 && !lo->addr; i++)
		usleep(1000);
	ASSERT_TRUE(lo->addr != 0);
	ASSERT_EQ(pages_on(pid, lo->addr, NP, 1), NP);
	ASSERT_EQ(balancing_set(&old, 0), 0);
	ASSERT_EQ(pgf_start(pid), 0);
	fd = ASSERT_SYS(pgf_open(pid, O_NONBLOCK));
	ASSERT_EQ(pgf_rearm(pid), 0);
	lo->step = 1;
	for (int i = 0; i < 30000 && !lo->child; i++)
		usleep(1000);
	ASSERT_GT(lo->child, 0);
	ASSERT_EQ(pgf_stop(pid), 0);
	hints = vmstat("numa_hint_faults");
	migrated = vmstat("numa_pages_migrated");
	lo->step = 2;
	for (int i = 0; i < 60000 && !(lo->read_parent && lo->read_child); i++)
		usleep(1000);
	EXPECT_TRUE(lo->read_parent && lo->read_child);
	hints = vmstat("numa_hint_faults") - hints;
	migrated = vmstat("numa_pages_migrated") - migrated;
	ktap_diag("reading %d pages from node 0: %ld and %ld faults (process, child), "
		  "%ld hinting faults, %ld pages migrated; on node 1: %d and %d",
		  NP, lo->faults_parent, lo->faults_child, hints, migrated,
		  pages_on(pid, lo->addr, NP, 1),
		  pages_on(lo->child, lo->addr, NP, 1));
	EXPECT_EQ(lo->faults_parent, 0);
	/*
	 * fork() gives the child its PTEs old (__copy_present_ptes()): where
	 * software keeps the accessed bit (arm64 without FEAT_HAFDBS), the
	 * child's first read of each page faults once for that alone, an
	 * access flag fault, which no hint count shows either.
	 */
	EXPECT_EQ(lo->faults_child, sw_accessed_bit() ? NP : 0);
	EXPECT_EQ(hints, 0);
	EXPECT_EQ(migrated, 0);
	EXPECT_EQ(pages_on(pid, lo->addr, NP, 1), NP);
	EXPECT_EQ(pages_on(lo->child, lo->addr, NP, 1), NP);
	balancing_restore(&old);
	lo->stop = 1;
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(fd);
	munmap(lo, sizeof(*lo));
}

KTAP_MAIN()
