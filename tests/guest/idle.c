// SPDX-License-Identifier: GPL-2.0
/*
 * idle - tracing leaves what idle page tracking sees as it was.
 *
 * Sampling and re-arming clear PTE accessed bits (and, on x86, re-arming
 * makes PTEs PROT_NONE). Reclaim (folio_referenced()) and idle page
 * tracking (/sys/kernel/mm/page_idle/bitmap) read those same bits: a
 * reference the trace consumed must stay visible to them, as the folio's
 * young and idle flags keep it (CONFIG_PAGE_IDLE_FLAG, which the feature
 * selects as DAMON does).
 *
 * Oracle: the bitmap itself, read with and without the trace in between.
 * A puppet touches its pages, the test marks them idle, the puppet reads
 * them again: each page was accessed after it was marked, so the bitmap
 * must clear its bit -- whether or not a sample scan or a rearm took the
 * accessed bit first. The trace's own record (the baseline "sample" line,
 * the "rearm" line) shows that it did take them.
 *
 * Reclaim, the same way: file pages read in two halves, A then B, in a
 * memory cgroup, B made cold (MADV_COLD) and A's references left in its
 * PTEs' accessed bits; the trace then takes those bits (a sample scan, a
 * rearm), and memory.reclaim asks for half of B's size. Reclaim scans the
 * oldest pages first, A's: it must still find them referenced (the
 * folio's young flag, CONFIG_PAGE_IDLE_FLAG) and take B's instead, as it
 * does without the trace. mincore(2) is the oracle. Needs /job on UML's
 * hostfs (clean page cache that reclaim can drop; QEMU's 9p without a
 * cache is not that) and cgroup2.
 *
 * Needs CONFIG_IDLE_PAGE_TRACKING (the test kernels) and root (PFNs).
 */
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include "ktap.h"
#include "util.h"
#include "pgf.h"

#define PAGE		4096UL
#define NP		64
#define BITMAP		"/sys/kernel/mm/page_idle/bitmap"
#define HALF		512	/* pages in each half of the file */
#define FILE_PATH	"/job/pgf-reclaim-file"
#define CG		"/sys/fs/cgroup"
#define HOSTFS_SUPER_MAGIC	0x00c0ffee

static char *area;
static char *file_map;

/* Puppet steps: 1 maps and writes the pages and sends the address; 2 reads them. */
static void steps(int step, int report_fd)
{
	volatile char sink;
	cpu_set_t one;
	int fd, cg;

	switch (step) {
	case 1:
		/* Stay on one CPU: its LRU batch holds the new pages. */
		CPU_ZERO(&one);
		CPU_SET(sched_getcpu(), &one);
		if (sched_setaffinity(0, sizeof(one), &one))
			_exit(5);
		area = mmap(NULL, NP * PAGE, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (area == MAP_FAILED)
			_exit(4);
		madvise(area, NP * PAGE, MADV_NOHUGEPAGE);
		for (unsigned long i = 0; i < NP; i++)
			area[i * PAGE] = 1;
		/*
		 * Idle page tracking sees only pages on an LRU list; new ones
		 * wait in a per-CPU batch. MADV_COLD drains this CPU's first.
		 */
		if (madvise(area, NP * PAGE, MADV_COLD))
			_exit(6);
		if (write(report_fd, &area, sizeof(area)) != sizeof(area))
			_exit(3);
		break;
	case 2:
		for (unsigned long i = 0; i < NP; i++)
			sink = area[i * PAGE];
		(void)sink;
		break;
	case 3:		/* into the cgroup; read A, then B; B cold */
		fd = open(FILE_PATH, O_RDONLY);
		cg = open(CG "/pgf-reclaim/cgroup.procs", O_WRONLY);
		if (fd < 0 || cg < 0 || write(cg, "0", 1) != 1)
			_exit(7);
		close(cg);
		file_map = mmap(NULL, 2 * HALF * PAGE, PROT_READ, MAP_SHARED,
				fd, 0);
		if (file_map == MAP_FAILED)
			_exit(8);
		close(fd);
		for (unsigned long i = 0; i < 2 * HALF; i++)
			sink = file_map[i * PAGE];
		if (madvise(file_map + HALF * PAGE, HALF * PAGE, MADV_COLD))
			_exit(9);
		break;
	case 4:		/* how many pages of A and of B are resident */
		for (int h = 0; h < 2; h++) {
			unsigned char vec[HALF];
			int n = 0;

			if (mincore(file_map + h * HALF * PAGE, HALF * PAGE, vec))
				_exit(10);
			for (int i = 0; i < HALF; i++)
				n += vec[i] & 1;
			if (write(report_fd, &n, sizeof(n)) != sizeof(n))
				_exit(3);
		}
		break;
	}
}

/* The page frame of each page of @addr in @pid, from its pagemap. */
static int frames(pid_t pid, unsigned long addr, uint64_t *pfn)
{
	char path[64];
	uint64_t e;
	int fd, ret = 0;

	snprintf(path, sizeof(path), "/proc/%d/pagemap", pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	for (unsigned long i = 0; i < NP && !ret; i++) {
		off_t off = (addr / PAGE + i) * sizeof(e);

		if (pread(fd, &e, sizeof(e), off) != sizeof(e) ||
		    !(e & (1ULL << 63)))
			ret = -1;
		pfn[i] = e & ((1ULL << 55) - 1);
		if (!pfn[i])		/* PFNs hidden: not root */
			ret = -1;
	}
	close(fd);
	return ret;
}

/*
 * Mark every page idle (this clears its accessed bits too). The bitmap's
 * last 64-frame word is cut at the end of memory, and the kernel reads
 * and writes it short (0 bytes read): a page there cannot be followed and
 * is left out (@usable[i] false). Returns how many can, or -1.
 */
static int mark_idle(const uint64_t *pfn, bool *usable)
{
	int fd = open(BITMAP, O_WRONLY);
	int n = 0;

	if (fd < 0)
		return -1;
	for (int i = 0; i < NP; i++) {
		uint64_t word = 1ULL << (pfn[i] % 64);
		ssize_t r = pwrite(fd, &word, sizeof(word), pfn[i] / 64 * 8);

		if (r < 0) {
			ktap_diag("marking page frame %#llx idle: %s",
				  (unsigned long long)pfn[i], strerror(errno));
			n = -1;
			break;
		}
		usable[i] = r == sizeof(word);
		n += usable[i];
	}
	close(fd);
	return n;
}

/* How many of the usable pages idle page tracking calls idle; -1 on error. */
static int count_idle(const uint64_t *pfn, const bool *usable)
{
	int fd = open(BITMAP, O_RDONLY);
	int idle = 0;

	if (fd < 0)
		return -1;
	for (int i = 0; i < NP; i++) {
		uint64_t word;

		if (!usable[i])
			continue;
		if (pread(fd, &word, sizeof(word), pfn[i] / 64 * 8) != sizeof(word)) {
			idle = -1;
			break;
		}
		idle += !!(word & (1ULL << (pfn[i] % 64)));
	}
	close(fd);
	return idle;
}

enum how { UNTRACED, SAMPLED, REARMED };

/*
 * Let a trace of @pid take its pages' accessed bits, as @how says: a
 * sample scan (the start's baseline) or a rearm. Returns the trace's
 * descriptor, or -1 untraced.
 */
static int take_bits(pid_t pid, enum how how)
{
	if (how == UNTRACED)
		return -1;
	ASSERT_EQ(pgf_set_buffer_kb(64), 0);
	if (how == SAMPLED) {
		ASSERT_EQ(pgf_ctl(pid, "1 sample=60000", 14), 0);
	} else {
		ASSERT_EQ(pgf_start(pid), 0);
		ASSERT_EQ(pgf_rearm(pid), 0);
	}
	return ASSERT_SYS(pgf_open(pid, 0));
}

/*
 * Mark the puppet's pages idle, have it read them, let the trace take the
 * accessed bits (@how), and count what the bitmap calls idle.
 */
static void idle_after(enum how how)
{
	uint64_t pfn[NP];
	bool usable[NP];
	struct puppet p;
	struct pgf_trace t;
	unsigned long addr;
	int fd = -1, status, n;

	if (access(BITMAP, R_OK | W_OK))
		SKIP("no idle page tracking (CONFIG_IDLE_PAGE_TRACKING)");
	ASSERT_EQ(puppet_spawn(&p, steps), 0);
	ASSERT_EQ(puppet_step_recv(&p, 1, &addr, sizeof(addr)), 0);
	ASSERT_EQ(frames(p.pid, addr, pfn), 0);
	n = mark_idle(pfn, usable);
	/* At most one word's pages are cut off. */
	ASSERT_GE(n, NP - 64);
	ASSERT_EQ(count_idle(pfn, usable), n);	/* marking worked */
	ASSERT_EQ(puppet_step(&p, 2), 0);	/* every page accessed */
	fd = take_bits(p.pid, how);
	/* The pages must read as accessed since they were marked. */
	EXPECT_EQ(count_idle(pfn, usable), 0);
	if (how != UNTRACED)
		ASSERT_EQ(pgf_stop(p.pid), 0);
	status = puppet_end(&p);
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	if (how == UNTRACED)
		return;
	ASSERT_EQ(pgf_read_all(fd, &t), 0);
	close(fd);
	/* The trace did take the bits: the scan or the rearm saw the pages. */
	for (size_t i = 0; i < t.nr; i++) {
		if (how == SAMPLED && !strcmp(t.rec[i].type, "sample")) {
			ktap_diag("baseline scan: %llu pages, %llu referenced",
				  t.rec[i].a, t.rec[i].b);
			EXPECT_GE(t.rec[i].b, NP);
		}
		if (how == REARMED && !strcmp(t.rec[i].type, "rearm")) {
			ktap_diag("rearm: %llu pages", t.rec[i].a);
			EXPECT_GE(t.rec[i].a, NP);
		}
	}
	EXPECT_EQ(pgf_count(&t, how == SAMPLED ? "sample" : "rearm"), 1);
	pgf_trace_free(&t);
}

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	ssize_t n = fd >= 0 ? write(fd, s, strlen(s)) : -1;

	if (fd >= 0)
		close(fd);
	return n == (ssize_t)strlen(s) ? 0 : -1;
}

/*
 * A file of two halves in /job, written and then dropped from the page
 * cache, so that the puppet's reads bring it back into its cgroup.
 */
static int make_file(void)
{
	char page[PAGE];
	int fd = open(FILE_PATH, O_RDWR | O_CREAT | O_TRUNC, 0600);
	int ret = 0;

	if (fd < 0)
		return -1;
	memset(page, 'x', sizeof(page));
	for (int i = 0; i < 2 * HALF && !ret; i++)
		ret = write(fd, page, PAGE) == (ssize_t)PAGE ? 0 : -1;
	if (!ret)
		ret = fsync(fd) || posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	close(fd);
	return ret;
}

/*
 * Read A then B in a cgroup, B made cold; the trace takes the accessed
 * bits (@how); reclaim half of B's size: A must stay, as without a trace.
 */
static void reclaim_after(enum how how)
{
	int fd = -1, status, resident[2];
	struct pgf_trace t;
	struct puppet p;
	struct statfs sfs;
	char want[32];

	mkdir(CG, 0755);
	if (mount("cgroup2", CG, "cgroup2", 0, NULL) && errno != EBUSY)
		SKIP("no cgroup2: %s", strerror(errno));
	if (write_str(CG "/cgroup.subtree_control", "+memory"))
		SKIP("no memory controller");
	if (statfs("/job", &sfs) || sfs.f_type != HOSTFS_SUPER_MAGIC)
		SKIP("needs /job on hostfs (UML): clean page cache reclaim can drop");
	if (make_file())
		SKIP("no file system at /job whose page cache can be dropped");
	mkdir(CG "/pgf-reclaim", 0755);
	ASSERT_EQ(puppet_spawn(&p, steps), 0);
	ASSERT_EQ(puppet_step(&p, 3), 0);
	fd = take_bits(p.pid, how);
	if (fd >= 0)
		ASSERT_EQ(pgf_stop(p.pid), 0);
	snprintf(want, sizeof(want), "%lu", HALF / 2 * PAGE);
	if (write_str(CG "/pgf-reclaim/memory.reclaim", want))
		ktap_diag("memory.reclaim: less than asked for");
	ASSERT_EQ(puppet_step_recv(&p, 4, resident, sizeof(resident)), 0);
	ktap_diag("after reclaim: %d of %d pages of A resident, %d of B",
		  resident[0], HALF, resident[1]);
	status = puppet_end(&p);
	rmdir(CG "/pgf-reclaim");
	unlink(FILE_PATH);
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* Reclaim did take pages ... */
	EXPECT_GE(2 * HALF - resident[0] - resident[1], HALF / 4);
	/* ... but not A's, whose references were kept. */
	EXPECT_GE(resident[0], HALF - HALF / 32);
	if (how == UNTRACED)
		return;
	ASSERT_EQ(pgf_read_all(fd, &t), 0);
	close(fd);
	for (size_t i = 0; i < t.nr; i++) {
		if (how == SAMPLED && !strcmp(t.rec[i].type, "sample"))
			ktap_diag("baseline scan: %llu pages, %llu referenced",
				  t.rec[i].a, t.rec[i].b);
		if (how == REARMED && !strcmp(t.rec[i].type, "rearm"))
			ktap_diag("rearm: %llu pages", t.rec[i].a);
	}
	pgf_trace_free(&t);
}

TEST(untraced_pages_read_after_marking_are_not_idle)
{
	idle_after(UNTRACED);
}

TEST(a_sample_scan_keeps_pages_accessed_for_idle_tracking)
{
	idle_after(SAMPLED);
}

TEST(a_rearm_keeps_pages_accessed_for_idle_tracking)
{
	idle_after(REARMED);
}

TEST(reclaim_keeps_referenced_pages_untraced)
{
	reclaim_after(UNTRACED);
}

TEST(reclaim_keeps_referenced_pages_after_a_sample_scan)
{
	reclaim_after(SAMPLED);
}

TEST(reclaim_keeps_referenced_pages_after_a_rearm)
{
	reclaim_after(REARMED);
}

KTAP_MAIN()
