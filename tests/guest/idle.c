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
 * Needs CONFIG_IDLE_PAGE_TRACKING (the test kernels) and root (PFNs).
 */
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <sys/mman.h>
#include "ktap.h"
#include "util.h"
#include "pgf.h"

#define PAGE		4096UL
#define NP		64
#define BITMAP		"/sys/kernel/mm/page_idle/bitmap"

static char *area;

/* Puppet steps: 1 maps and writes the pages and sends the address; 2 reads them. */
static void steps(int step, int report_fd)
{
	volatile char sink;
	cpu_set_t one;

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

/* Mark every page idle (this clears its accessed bits too). */
static int mark_idle(const uint64_t *pfn)
{
	int fd = open(BITMAP, O_WRONLY);
	int ret = 0;

	if (fd < 0)
		return -1;
	for (int i = 0; i < NP && !ret; i++) {
		uint64_t word = 1ULL << (pfn[i] % 64);

		if (pwrite(fd, &word, sizeof(word), pfn[i] / 64 * 8) != sizeof(word))
			ret = -1;
	}
	close(fd);
	return ret;
}

/* How many of the pages idle page tracking calls idle; -1 on error. */
static int count_idle(const uint64_t *pfn)
{
	int fd = open(BITMAP, O_RDONLY);
	int idle = 0;

	if (fd < 0)
		return -1;
	for (int i = 0; i < NP; i++) {
		uint64_t word;

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
 * Mark the puppet's pages idle, have it read them, let the trace take the
 * accessed bits (@how), and count what the bitmap calls idle.
 */
static void idle_after(enum how how)
{
	uint64_t pfn[NP];
	struct puppet p;
	struct pgf_trace t;
	unsigned long addr;
	int fd = -1, status;

	if (access(BITMAP, R_OK | W_OK))
		SKIP("no idle page tracking (CONFIG_IDLE_PAGE_TRACKING)");
	ASSERT_EQ(puppet_spawn(&p, steps), 0);
	ASSERT_EQ(puppet_step_recv(&p, 1, &addr, sizeof(addr)), 0);
	ASSERT_EQ(frames(p.pid, addr, pfn), 0);
	ASSERT_EQ(mark_idle(pfn), 0);
	ASSERT_EQ(count_idle(pfn), NP);		/* marking worked */
	ASSERT_EQ(puppet_step(&p, 2), 0);	/* every page accessed */
	if (how != UNTRACED) {
		ASSERT_EQ(pgf_set_buffer_kb(64), 0);
		if (how == SAMPLED) {
			/* The start scans once: the baseline. */
			ASSERT_EQ(pgf_ctl(p.pid, "1 sample=60000", 14), 0);
		} else {
			ASSERT_EQ(pgf_start(p.pid), 0);
			ASSERT_EQ(pgf_rearm(p.pid), 0);
		}
		fd = ASSERT_SYS(pgf_open(p.pid, 0));
	}
	/* The pages must read as accessed since they were marked. */
	EXPECT_EQ(count_idle(pfn), 0);
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

KTAP_MAIN()
