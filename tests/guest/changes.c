// SPDX-License-Identifier: GPL-2.0
/*
 * changes - what the kernel changes behind a traced process's back: the
 * "move", "evict", "split" and "collapse" records, and the frame map
 * they rebuild.
 *
 * The oracle is the page table itself: at checkpoints, the workload reads
 * /proc/self/pagemap for every page of its region (and move_pages(2) for
 * the node), then the time (CLOCK_MONOTONIC, the trace's clock). The
 * test replays the trace's records up to each checkpoint's time into a
 * map from page to frame (a fault maps its frame; a move, a split or a
 * collapse maps the new frames; an eviction leaves the page without one)
 * and checks it against the checkpoint, page by page. Each record is
 * checked on its own too: its old frame is the one the page had, its
 * node the node move_pages() gave, its cause the one the workload
 * brought about.
 *
 * The changes: pages evicted by MADV_PAGEOUT (anonymous ones to a swap
 * file on the scratch disk, and a file's pages) and read back, and by a
 * memory cgroup's reclaim;
 * move_pages(2) and mbind(2) with MPOL_MF_MOVE between two nodes; KSM
 * merging identical pages, and ksmd unmerging them; another process's
 * writes through /proc/<pid>/mem; compaction; a THP collapsed by
 * MADV_COLLAPSE, then split.
 */
#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/syscall.h>
#include <time.h>
#include <linux/mempolicy.h>
#include "ktap.h"
#include "util.h"
#include "pgf.h"
#include "oracle.h"
#include "pagemap.h"

#define PAGE		4096UL
#define HPAGE		(2UL << 20)
#define MAXPAGES	2048
#define CHECKPOINTS	4
#define SWAPFILE	"/scratch/pgf-swap"
#define SWAP_PAGES	4096
#define KSM		"/sys/kernel/mm/ksm/"
#define CG		"/sys/fs/cgroup"
#define CGDIR		CG "/pgf-changes"

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT	21
#endif
#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE	25
#endif

enum { ANON_PAGEOUT, FILE_PAGEOUT, MIGRATE, KSM_MERGE, COLLAPSE, COMPACT,
       DIRECT, REMOTE, FILE_READ };

/* COMPACT: the pages freed around the region's, to make holes. */
#define FILLER		4

/*
 * The page table as the workload read it, each entry at some moment
 * between start and time.
 */
struct checkpoint {
	/* CLOCK_MONOTONIC, before and after the reads */
	unsigned long long start, time;
	uint64_t pfn[MAXPAGES];		/* 0: not present */
	int node[MAXPAGES];
	bool swapped[MAXPAGES];
};

/* What the workload saw, shared with the test. */
struct seen {
	unsigned long base;		/* the region */
	unsigned long pages;
	int nr;				/* checkpoints taken */
	struct checkpoint cp[CHECKPOINTS];
	int failed;			/* a call the workload made failed: errno */
};

static struct seen *seen;
static int kind;

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* The workload's /proc/self/pagemap and a buffer for its entries. */
static int pagemap_fd = -1;
static uint64_t entries[MAXPAGES];

/*
 * Read every page's entry, then the time. Nothing here allocates memory
 * the workload is charged for: pagemap opened and the buffer touched in
 * step 1, the shared checkpoints by the test (setup()). In DIRECT's
 * small cgroup such an allocation reclaims the region's pages while they
 * are read, after their entries and before the checkpoint's time.
 */
static void checkpoint(void)
{
	struct checkpoint *cp = &seen->cp[seen->nr];
	ssize_t len = seen->pages * sizeof(entries[0]);

	if (seen->nr == CHECKPOINTS)
		_exit(4);
	cp->start = now_ns();
	if (pread(pagemap_fd, entries, len,
		  seen->base / PAGE * sizeof(entries[0])) != len)
		_exit(5);
	for (unsigned long i = 0; i < seen->pages; i++) {
		unsigned long addr = seen->base + i * PAGE;
		uint64_t e = entries[i];

		cp->pfn[i] = e & PM_PRESENT ? e & PM_PFN_MASK : 0;
		cp->swapped[i] = !(e & PM_PRESENT) && (e & PM_SWAP);
		cp->node[i] = cp->pfn[i] ? pgf_page_node(addr) : -1;
	}
	cp->time = now_ns();
	seen->nr++;
}

static void fail(int err)
{
	if (!seen->failed)
		seen->failed = err ? err : -1;
}

static void move_to(char *reg, unsigned long from, unsigned long to, int node)
{
	void *pages[MAXPAGES];
	int nodes[MAXPAGES], status[MAXPAGES];

	for (unsigned long i = from; i < to; i++) {
		pages[i - from] = reg + i * PAGE;
		nodes[i - from] = node;
	}
	if (syscall(SYS_move_pages, 0, to - from, pages, nodes, status,
		    MPOL_MF_MOVE))
		fail(errno);
}

static void bind_to(char *reg, unsigned long from, unsigned long to,
		    int node, unsigned int flags)
{
	unsigned long mask = 1UL << node;

	if (syscall(SYS_mbind, reg + from * PAGE, (to - from) * PAGE,
		    MPOL_BIND, &mask, 64UL, flags))
		fail(errno);
}

/*
 * 1: map the region; 2: touch every page (a fault each), checkpoint;
 * 3: the change the kind is about, checkpoint; 4: touch them again
 * (what was evicted faults back in), checkpoint.
 */
static void steps(int step, int out)
{
	static char *reg, *filler;
	size_t len = seen->pages * PAGE;
	volatile char sink;
	int fd;

	(void)out;
	switch (step) {
	case 1:
		pagemap_fd = open("/proc/self/pagemap", O_RDONLY);
		if (pagemap_fd < 0)
			_exit(2);
		memset(entries, 0, sizeof(entries));
		/*
		 * MADV_PAGEOUT drains this CPU's batch of pages on their way
		 * to the LRU, not another's: faults and pageout on one CPU.
		 */
		if (kind == ANON_PAGEOUT || kind == FILE_PAGEOUT) {
			cpu_set_t one;

			CPU_ZERO(&one);
			CPU_SET(0, &one);
			sched_setaffinity(0, sizeof(one), &one);
		}
		if (kind == COLLAPSE) {
			char *raw = mmap(NULL, 2 * HPAGE, PROT_READ | PROT_WRITE,
					 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			reg = (char *)(((unsigned long)raw + HPAGE - 1) &
				       ~(HPAGE - 1));
			/* A page a fault first: no THP until the collapse. */
			madvise(reg, HPAGE, MADV_NOHUGEPAGE);
		} else if (kind == FILE_PAGEOUT) {
			fd = open("/scratch/pgf-changes", O_RDWR | O_CREAT |
				  O_TRUNC, 0600);
			if (fd < 0 || ftruncate(fd, len))
				_exit(2);
			reg = mmap(NULL, len, PROT_READ | PROT_WRITE,
				   MAP_SHARED, fd, 0);
			close(fd);
		} else if (kind == FILE_READ) {
			/* A file in the page cache, written by write(). */
			static char page[PAGE];

			fd = memfd_create("pgf-changes", 0);
			for (size_t i = 0; fd >= 0 && i < seen->pages; i++) {
				memset(page, (int)i, sizeof(page));
				if (write(fd, page, PAGE) != PAGE)
					_exit(2);
			}
			reg = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
			close(fd);
		} else {
			reg = mmap(NULL, len, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		}
		if (reg == MAP_FAILED)
			_exit(2);
		if (kind == MIGRATE)
			bind_to(reg, 0, seen->pages, 0, 0);
		/* DIRECT: into the small memory cgroup the test made */
		if (kind == DIRECT && pgf_write_long(CGDIR "/cgroup.procs", 0))
			_exit(2);
		if (kind == COMPACT) {
			filler = mmap(NULL, len * FILLER, PROT_READ | PROT_WRITE,
				      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (filler == MAP_FAILED)
				_exit(2);
		}
		seen->base = (unsigned long)reg;
		break;
	case 2:
		/*
		 * Writes: one fault per page (no fault-around), and for KSM
		 * the same bytes in every page; REMOTE: the first half only,
		 * the test writes the rest from outside.
		 */
		/* FILE_READ: every 8th page read, fault-around maps more */
		for (size_t i = 0; kind == FILE_READ && i < seen->pages; i += 8)
			sink = reg[i * PAGE];
		for (size_t i = 0; kind != FILE_READ && i < seen->pages; i++) {
			if (kind == REMOTE && i >= seen->pages / 2)
				break;
			/* COMPACT: the region's frames among the filler's */
			for (size_t j = 0; kind == COMPACT && j < FILLER; j++)
				filler[(i * FILLER + j) * PAGE] = 1;
			reg[i * PAGE] = kind == KSM_MERGE ? 7 : (char)(i + 1);
		}
		if (kind == FILE_PAGEOUT && msync(reg, len, MS_SYNC))
			fail(errno);
		checkpoint();
		break;
	case 3:
		switch (kind) {
		case ANON_PAGEOUT:
		case FILE_PAGEOUT:
			/*
			 * MADV_PAGEOUT skips a page still in a CPU's batch
			 * of pages on their way to the LRU: again, until all
			 * are out (or ten tries).
			 */
			for (int k = 0; k < 10 && !seen->failed; k++) {
				size_t in = 0;

				if (madvise(reg, len, MADV_PAGEOUT))
					fail(errno);
				for (size_t i = 0; i < seen->pages; i++)
					in += !!(pgf_pagemap(seen->base + i * PAGE) &
						 PM_PRESENT);
				if (!in)
					break;
				usleep(10000);
			}
			break;
		case MIGRATE:
			/* The first half by move_pages(), the rest by mbind(). */
			bind_to(reg, 0, seen->pages, 1, 0);
			move_to(reg, 0, seen->pages / 2, 1);
			bind_to(reg, seen->pages / 2, seen->pages, 1,
				MPOL_MF_MOVE);
			break;
		case KSM_MERGE:
			if (madvise(reg, len, MADV_MERGEABLE))
				fail(errno);
			/* The test runs ksmd until they are merged. */
			break;
		case COLLAPSE:
			madvise(reg, HPAGE, MADV_HUGEPAGE);
			if (madvise(reg, HPAGE, MADV_COLLAPSE))
				fail(errno);
			break;
		case COMPACT:
			/* Holes between the region's frames, then compaction. */
			munmap(filler, len * FILLER);
			fd = open("/proc/sys/vm/compact_memory", O_WRONLY);
			if (fd < 0 || write(fd, "1", 1) != 1)
				fail(errno);
			if (fd >= 0)
				close(fd);
			break;
		}
		checkpoint();
		break;
	case 4:
		if (kind == COLLAPSE) {
			/* Split the pmd: one page of it made read-only. */
			if (mprotect(reg + PAGE, PAGE, PROT_READ))
				fail(errno);
		} else if (kind == FILE_PAGEOUT) {
			/* Writes: a read would map its neighbours too. */
			for (size_t i = 0; i < seen->pages; i++)
				reg[i * PAGE] = (char)(i + 2);
		} else {
			for (size_t i = 0; i < seen->pages; i++)
				sink = reg[i * PAGE];
		}
		(void)sink;
		checkpoint();
		break;
	case 5:
		checkpoint();
		break;
	}
}

/* The index of the page at @addr in the region, or -1. */
static long page_of(unsigned long addr)
{
	if (addr < seen->base || addr >= seen->base + seen->pages * PAGE)
		return -1;
	return (addr - seen->base) / PAGE;
}

/* The records of changes in the region, of @type ("move", ...). */
static size_t changes(const struct pgf_trace *t, const char *type,
		      const char *cause)
{
	size_t n = 0;

	for (size_t i = 0; i < t->nr; i++)
		if (!strcmp(t->rec[i].type, type) &&
		    page_of(t->rec[i].addr) >= 0 &&
		    (!cause || !strcmp(t->rec[i].text, cause)))
			n += t->rec[i].a;
	return n;
}

static bool is_change(const struct pgf_rec *r)
{
	return !strcmp(r->type, "move") || !strcmp(r->type, "evict") ||
	       !strcmp(r->type, "split") || !strcmp(r->type, "collapse") ||
	       !strcmp(r->type, "mapped");
}

/* Every record of @t up to @until that covers page @i, for a diagnosis. */
static void page_history(const struct pgf_trace *t, unsigned long i,
			 unsigned long long until)
{
	unsigned long addr = seen->base + i * PAGE;

	for (size_t k = 0; k < t->nr; k++) {
		const struct pgf_rec *r = &t->rec[k];
		bool fault = !strcmp(r->type, "fault");
		unsigned long first = fault && r->level == PGFT_PMD ?
			(r->addr & ~(HPAGE - 1)) : r->addr & ~(PAGE - 1);
		unsigned long n = fault ? (r->level == PGFT_PMD ?
					   HPAGE / PAGE : 1) : r->a;

		if (r->time > until || (!fault && !is_change(r)) ||
		    addr < first || addr >= first + n * PAGE)
			continue;
		ktap_diag("  %llu tid %d %s %c %s %s frame %llx -> %llx level %d",
			  r->time, r->tid, r->type, fault ? r->access : '-',
			  fault ? r->result : "", fault ? "" : r->text,
			  r->has_frame ? r->pfn : 0ULL,
			  fault ? 0ULL : r->new_pfn, r->level);
	}
}

/* Pages @from to @to whose replayed frame is the one @cp read. */
static void agree(const struct checkpoint *cp, const uint64_t *pfn,
		  bool *read, unsigned long from, unsigned long to)
{
	for (unsigned long i = from; i < to && i < seen->pages; i++)
		read[i] |= pfn[i] == cp->pfn[i];
}

/*
 * Replay the records of @t up to checkpoint @c into a frame per page and
 * check it against the checkpoint, and every change's old frame against
 * the replayed one; returns the pages that differ. The workload cannot
 * stop the kernel while it reads (khugepaged's charges reclaim in its
 * cgroup, kcompactd moves pages): a page changed during the reads may
 * have been read in any state it had then.
 */
static size_t replay_check(const struct pgf_trace *t, int c)
{
	const struct checkpoint *cp = &seen->cp[c];
	static uint64_t pfn[MAXPAGES];
	static bool read[MAXPAGES];
	size_t wrong = 0, stale = 0, during = 0;
	bool started = false;

	memset(pfn, 0, sizeof(pfn));
	memset(read, 0, sizeof(read));
	for (size_t k = 0; k < t->nr; k++) {
		const struct pgf_rec *r = &t->rec[k];
		long i = page_of(r->addr);

		if (r->time > cp->time || i < 0)
			continue;
		/* The state when the reads began */
		if (!started && r->time > cp->start) {
			agree(cp, pfn, read, 0, seen->pages);
			started = true;
		}
		during += started;
		if (!strcmp(r->type, "fault")) {
			/* A pmd maps its huge page's every page. */
			unsigned long first = r->level == PGFT_PMD ?
				(r->addr & ~(HPAGE - 1)) : r->addr & ~(PAGE - 1);
			unsigned long n = r->level == PGFT_PMD ? HPAGE / PAGE : 1;

			for (unsigned long j = 0; r->has_frame && j < n; j++) {
				long k = page_of(first + j * PAGE);

				if (k >= 0)
					pfn[k] = r->pfn - (r->addr - first) / PAGE + j;
			}
			if (started)
				agree(cp, pfn, read, 0, seen->pages);
			continue;
		}
		if (!is_change(r))
			continue;
		if (!r->has_frame) {
			ktap_diag("%s at %lx without frames", r->type, r->addr);
			wrong++;
			continue;
		}
		for (unsigned long j = 0; j < r->a && i + j < seen->pages; j++) {
			uint64_t old = r->pfn == PGFT_NO_PFN ? 0 : r->pfn + j;
			uint64_t new = r->new_pfn == PGFT_NO_PFN ? 0 :
				       r->new_pfn + j;

			/*
			 * A collapse's pages had frames of their own; a
			 * mapped's may have had (copy-on-write).
			 */
			if (strcmp(r->type, "collapse") &&
			    strcmp(r->type, "mapped") && pfn[i + j] != old &&
			    stale++ < 4)
				ktap_diag("%s at page %lu: old frame %llx, replayed %llx",
					  r->type, i + j,
					  (unsigned long long)old,
					  (unsigned long long)pfn[i + j]);
			/* The huge zero page split: the zero page everywhere. */
			if (!strcmp(r->type, "split") && r->new_pfn != r->pfn)
				new = r->new_pfn;
			pfn[i + j] = new;
		}
		if (started)
			agree(cp, pfn, read, i, i + r->a);
	}
	agree(cp, pfn, read, 0, seen->pages);
	if (during)
		ktap_diag("checkpoint %d: %zu records of the region during its reads",
			  c, during);
	for (unsigned long i = 0; i < seen->pages; i++) {
		if (read[i] || wrong++ >= 4)
			continue;
		ktap_diag("checkpoint %d page %lu: replayed %llx, pagemap %llx%s",
			  c, i, (unsigned long long)pfn[i],
			  (unsigned long long)cp->pfn[i],
			  cp->swapped[i] ? " (swapped)" : "");
		if (wrong == 1)
			page_history(t, i, cp->time);
	}
	ktap_diag("checkpoint %d: %lu pages, %zu replayed wrong, %zu changes from a frame the replay did not have",
		  c, seen->pages, wrong, stale);
	return wrong + stale;
}

/* Every checkpoint the workload took against the replay. */
static void expect_replay(const struct pgf_trace *t)
{
	for (int c = 0; c < seen->nr; c++)
		EXPECT_EQ(replay_check(t, c), 0);
}

/*
 * Every change record of @type in the region: its nodes those
 * move_pages() gave at checkpoints @before and @after (-1: none).
 */
static void expect_nodes(const struct pgf_trace *t, const char *type,
			 int before, int after)
{
	size_t wrong = 0, n = 0;

	for (size_t k = 0; k < t->nr; k++) {
		const struct pgf_rec *r = &t->rec[k];
		long i = page_of(r->addr);
		int old, new;

		if (strcmp(r->type, type) || i < 0)
			continue;
		n++;
		old = seen->cp[before].node[i];
		new = after >= 0 ? seen->cp[after].node[i] : -1;
		if ((r->node != old || r->new_node != new) && wrong++ < 4)
			ktap_diag("%s at page %ld: nodes %d -> %d, move_pages %d -> %d",
				  type, i, r->node, r->new_node, old, new);
	}
	ktap_diag("%zu %s records, %zu with wrong nodes", n, type, wrong);
	EXPECT_EQ(wrong, 0);
}

/* Whether the reader opens its file with CAP_SYS_ADMIN (run()). */
static bool reader_admin = true;

/* The workload's pid, for write_from_outside() */
static pid_t remote_pid;

/*
 * Trace a puppet of @k over @pages pages through steps 1 to @last, read
 * by a CAP_SYS_ADMIN file (unless reader_admin says otherwise); @between
 * runs after step 3 (ksmd).
 */
static void run(int k, unsigned long pages, int last, struct pgf_trace *t,
		void (*between)(void))
{
	struct pgf_live live;
	struct puppet p;
	long before;
	int fd;

	ASSERT_LE(pages, MAXPAGES);
	kind = k;
	seen->pages = pages;
	seen->nr = 0;
	seen->failed = 0;
	ASSERT_SYS(puppet_spawn(&p, steps));
	remote_pid = p.pid;
	ASSERT_EQ(puppet_step(&p, 1), 0);
	before = pgf_faults_of(p.pid);
	ASSERT_EQ(pgf_start(p.pid), 0);
	if (!reader_admin)
		ASSERT_EQ(pgf_sys_admin(false), 0);
	fd = ASSERT_SYS(pgf_open(p.pid, 0));
	if (!reader_admin)
		ASSERT_EQ(pgf_sys_admin(true), 0);
	ASSERT_EQ(pgf_live_start(&live, fd, t), 0);
	for (int s = 2; s <= last; s++) {
		ASSERT_EQ(puppet_step(&p, s), 0);
		if (s == 3 && between)
			between();
	}
	pgf_stop_and_read(&p, fd, before, t, &live);
	EXPECT_EQ(pgf_lost_other(t), 0);
	for (size_t k = 0; k < t->nr; k++)
		if (!strcmp(t->rec[k].type, "lost"))
			ktap_diag("lost: %llu faults, %llu other records",
				  t->rec[k].a, t->rec[k].b);
	if (seen->failed)
		ktap_diag("a call of the workload failed: %s",
			  seen->failed > 0 ? strerror(seen->failed) : "?");
	EXPECT_EQ(seen->failed, 0);
}

static void setup(void)
{
	seen = mmap(NULL, sizeof(*seen), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(seen != MAP_FAILED);
	/* Its pages the test's, not charged to the workload's cgroup */
	memset(seen, 0, sizeof(*seen));
}

/*
 * A swap file on the scratch disk, made by hand (the swap header of
 * mkswap(8): version 1, its last page, "SWAPSPACE2" at the end of the
 * first page); 0, or -1 if this kernel swaps nowhere.
 */
static int swap_on(void)
{
	static char page[PAGE];
	uint32_t *h = (uint32_t *)(page + 1024);
	int fd = open(SWAPFILE, O_RDWR | O_CREAT | O_TRUNC, 0600);

	if (fd < 0)
		return -1;
	memset(page, 0, sizeof(page));
	for (int i = 0; i < SWAP_PAGES; i++)
		if (write(fd, page, PAGE) != PAGE) {
			close(fd);
			return -1;
		}
	h[0] = 1;			/* version */
	h[1] = SWAP_PAGES - 1;		/* last_page */
	memcpy(page + PAGE - 10, "SWAPSPACE2", 10);
	if (pwrite(fd, page, PAGE, 0) != PAGE || fsync(fd)) {
		close(fd);
		return -1;
	}
	close(fd);
	return swapon(SWAPFILE, 0);
}

static void swap_off(void)
{
	swapoff(SWAPFILE);
	unlink(SWAPFILE);
}

/*
 * Anonymous pages paged out to swap (MADV_PAGEOUT): an "evict pageout"
 * each, from the frame its fault mapped; read again, each faults back in
 * to a new frame.
 */
TEST(anon_pageout)
{
	struct pgf_trace t = { 0 };
	size_t swapped = 0;

	if (access("/scratch", W_OK))
		SKIP("no scratch disk");
	if (swap_on())
		SKIP("no swap here: %s", strerror(errno));
	setup();
	run(ANON_PAGEOUT, 32, 4, &t, NULL);
	swap_off();
	for (unsigned long i = 0; i < 32; i++)
		swapped += seen->cp[1].swapped[i];
	/* MADV_PAGEOUT may skip a page: each one it swapped, evicted. */
	ktap_diag("%zu of 32 pages swapped out", swapped);
	EXPECT_GE(swapped, 16);
	EXPECT_EQ(changes(&t, "evict", "pageout"), swapped);
	EXPECT_EQ(changes(&t, "evict", NULL), swapped);
	expect_nodes(&t, "evict", 0, -1);
	expect_replay(&t);
	pgf_trace_free(&t);
}

/*
 * A file's pages, written and synced, paged out: dropped from the page
 * cache, an "evict pageout" each; read again from the disk.
 */
TEST(file_pageout)
{
	struct pgf_trace t = { 0 };
	size_t out = 0;

	if (access("/scratch", W_OK))
		SKIP("no scratch disk");
	setup();
	run(FILE_PAGEOUT, 32, 4, &t, NULL);
	unlink("/scratch/pgf-changes");
	for (unsigned long i = 0; i < 32; i++)
		out += !seen->cp[1].pfn[i];
	ktap_diag("%zu of 32 pages paged out", out);
	EXPECT_GE(out, 16);
	EXPECT_EQ(changes(&t, "evict", "pageout"), out);
	expect_replay(&t);
	pgf_trace_free(&t);
}

/*
 * The same pageout read through a file opened without CAP_SYS_ADMIN (of
 * a trace started by root, which records frames): every "evict" with the
 * node of the page, and no frame number, as the faults have none.
 */
TEST(reader_without_cap_sees_nodes_only)
{
	struct pgf_trace t = { 0 };
	size_t evicts = 0, framed = 0, nodes = 0, out = 0;

	if (access("/scratch", W_OK))
		SKIP("no scratch disk");
	setup();
	reader_admin = false;
	run(FILE_PAGEOUT, 32, 3, &t, NULL);
	reader_admin = true;
	unlink("/scratch/pgf-changes");
	for (size_t k = 0; k < t.nr; k++) {
		const struct pgf_rec *r = &t.rec[k];
		long i = page_of(r->addr);

		framed += r->has_frame;
		if (strcmp(r->type, "evict") || i < 0)
			continue;
		evicts += r->a;
		nodes += r->node == seen->cp[0].node[i] && r->new_node == -1;
	}
	ktap_diag("%zu pages evicted, %zu records with their node, %zu lines with a frame",
		  evicts, nodes, framed);
	for (unsigned long i = 0; i < 32; i++)
		out += !seen->cp[1].pfn[i];
	EXPECT_GE(out, 16);
	EXPECT_EQ(evicts, out);
	EXPECT_EQ(nodes, out);
	EXPECT_EQ(framed, 0);
	pgf_trace_free(&t);
}

/*
 * Pages on node 0 moved to node 1: half by move_pages(2) ("move
 * syscall"), half by mbind(2) with MPOL_MF_MOVE ("move mbind").
 */
TEST(migrate_between_nodes)
{
	struct pgf_trace t = { 0 };

	if (pgf_nodes() < 2)
		SKIP("one NUMA node");
	setup();
	run(MIGRATE, 64, 3, &t, NULL);
	for (unsigned long i = 0; i < 64; i++) {
		EXPECT_EQ(seen->cp[0].node[i], 0);
		EXPECT_EQ(seen->cp[1].node[i], 1);
	}
	EXPECT_EQ(changes(&t, "move", "syscall"), 32);
	EXPECT_EQ(changes(&t, "move", "mbind"), 32);
	expect_nodes(&t, "move", 0, 1);
	expect_replay(&t);
	pgf_trace_free(&t);
}

/* ksmd scans until every page of the region is merged (10 s at most). */
static void run_ksmd(void)
{
	pgf_write_long(KSM "pages_to_scan", 10000);
	pgf_write_long(KSM "sleep_millisecs", 0);
	pgf_write_long(KSM "run", 1);
	/* The workload's pages are not ours to look at: the counter. */
	for (int i = 0; i < 1000; i++) {
		if (pgf_read_long(KSM "pages_sharing") >= (long)seen->pages - 1)
			break;
		usleep(10000);
	}
	pgf_write_long(KSM "run", 0);
}

/* Then ksmd unmerges them all (run 2), until none is shared (10 s at most). */
static void run_ksmd_then_unmerge(void)
{
	run_ksmd();
	pgf_write_long(KSM "run", 2);
	for (int i = 0; i < 1000 && pgf_read_long(KSM "pages_sharing") > 0; i++)
		usleep(10000);
	pgf_write_long(KSM "run", 0);
}

/*
 * 32 pages of the same bytes merged by KSM: one becomes the KSM page in
 * place, every other one a "move ksm" onto it.
 */
TEST(ksm_merge)
{
	struct pgf_trace t = { 0 };

	if (access(KSM "run", W_OK))
		SKIP("no KSM here");
	setup();
	run(KSM_MERGE, 32, 5, &t, run_ksmd);
	EXPECT_EQ(changes(&t, "move", "ksm"), 31);
	for (unsigned long i = 1; i < 32; i++)
		EXPECT_EQ(seen->cp[2].pfn[i], seen->cp[2].pfn[0]);
	expect_replay(&t);
	pgf_write_long(KSM "run", 2);	/* unmerge everything */
	pgf_trace_free(&t);
}

/*
 * The same pages merged, then unmerged by ksmd (run 2): each a copy of
 * its own, which ksmd's fault maps, from no frame ("mapped remote",
 * ksmd's thread); the replay holds.
 */
TEST(ksm_unmerge_by_ksmd)
{
	struct pgf_trace t = { 0 };

	if (access(KSM "run", W_OK))
		SKIP("no KSM here");
	setup();
	run(KSM_MERGE, 32, 4, &t, run_ksmd_then_unmerge);
	EXPECT_EQ(changes(&t, "move", "ksm"), 31);
	EXPECT_EQ(changes(&t, "mapped", "remote"), 32);
	for (unsigned long i = 1; i < 32; i++)
		EXPECT_TRUE(seen->cp[2].pfn[i] != seen->cp[2].pfn[0]);
	expect_replay(&t);
	pgf_trace_free(&t);
}

/*
 * A shmem file's pages read every 8th: each fault maps its neighbours
 * too (fault-around), which fault on their own no more: a "mapped around"
 * for each run, and the replay holds for every page pagemap shows.
 */
TEST(fault_around_maps_the_neighbours)
{
	struct pgf_trace t = { 0 };
	size_t present = 0, faults = 0;

	setup();
	run(FILE_READ, 64, 3, &t, NULL);
	for (unsigned long i = 0; i < 64; i++)
		present += seen->cp[0].pfn[i] != 0;
	for (size_t k = 0; k < t.nr; k++)
		faults += !strcmp(t.rec[k].type, "fault") &&
			  page_of(t.rec[k].addr) >= 0;
	ktap_diag("%zu faults, %zu pages present, %zu in mapped around records",
		  faults, present, changes(&t, "mapped", "around"));
	/* 8 reads; a read of a page mapped around before takes no fault */
	EXPECT_GE(faults, 1);
	EXPECT_LE(faults, 8);
	EXPECT_GT(present, faults);
	EXPECT_GE(changes(&t, "mapped", "around"), present - faults);
	expect_replay(&t);
	pgf_trace_free(&t);
}

/*
 * The test, untraced, writes the untouched half of the workload's pages
 * through /proc/<pid>/mem (a debugger's way; process_vm_writev(2) is the
 * same get_user_pages() and not in every kernel): its faults on the
 * workload's mm map them, a "mapped remote" each, by the test's thread;
 * the replay holds.
 */
static void write_from_outside(void)
{
	unsigned long half = seen->pages / 2;
	char path[64], c = 9;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/mem", remote_pid);
	fd = open(path, O_RDWR);
	for (unsigned long i = 0; fd >= 0 && i < half; i++)
		if (pwrite(fd, &c, 1, seen->base + (half + i) * PAGE) != 1) {
			ktap_diag("%s: %s", path, strerror(errno));
			break;
		}
	if (fd >= 0)
		close(fd);
}

TEST(pages_written_by_another_process)
{
	struct pgf_trace t = { 0 };
	size_t mine = 0;

	setup();
	run(REMOTE, 32, 4, &t, write_from_outside);
	for (size_t k = 0; k < t.nr; k++)
		mine += !strcmp(t.rec[k].type, "mapped") &&
			t.rec[k].tid == (int)getpid();
	EXPECT_EQ(changes(&t, "mapped", "remote"), 16);
	EXPECT_EQ(mine, 16);
	for (unsigned long i = 16; i < 32; i++) {
		EXPECT_EQ(seen->cp[1].pfn[i], 0);
		EXPECT_TRUE(seen->cp[2].pfn[i] != 0);
	}
	expect_replay(&t);
	pgf_trace_free(&t);
}

/*
 * 2048 pages (8 MiB) written in a memory cgroup of 6 MiB, with a swap
 * file: the cgroup's direct reclaim swaps the oldest out as the newest
 * come in (THPs split first, where the guest makes them); every eviction
 * is "evict direct", and the replay holds: each page pagemap shows
 * swapped was evicted last, each present one has its frame.
 */
TEST(direct_reclaim_in_a_memory_cgroup)
{
	struct pgf_trace t = { 0 };
	size_t swapped = 0, evicted = 0, wrong = 0;

	if (access("/scratch", W_OK))
		SKIP("no scratch disk");
	mkdir(CG, 0755);
	if (mount("cgroup2", CG, "cgroup2", 0, NULL) && errno != EBUSY)
		SKIP("no cgroup2: %s", strerror(errno));
	if (pgf_write_str(CG "/cgroup.subtree_control", "+memory"))
		SKIP("no memory controller");
	if (swap_on())
		SKIP("no swap here: %s", strerror(errno));
	mkdir(CGDIR, 0755);
	ASSERT_EQ(pgf_write_str(CGDIR "/memory.max", "6M"), 0);
	setup();
	run(DIRECT, 2048, 2, &t, NULL);
	swap_off();
	rmdir(CGDIR);
	for (size_t k = 0; k < t.nr; k++) {
		const struct pgf_rec *r = &t.rec[k];

		if (strcmp(r->type, "evict") || page_of(r->addr) < 0)
			continue;
		evicted += r->a;
		if (strcmp(r->text, "direct") && wrong++ < 4)
			ktap_diag("evict %s at %lx", r->text, r->addr);
	}
	for (unsigned long i = 0; i < seen->pages; i++)
		swapped += seen->cp[0].swapped[i];
	ktap_diag("%zu of %lu pages swapped out by the cgroup's reclaim, %zu evicted by the trace, %zu not direct",
		  swapped, seen->pages, evicted, wrong);
	/* A page evicted before the loop wrote it came back in. */
	EXPECT_GT(swapped, 0);
	EXPECT_GE(evicted, swapped);
	EXPECT_EQ(wrong, 0);
	expect_replay(&t);
	pgf_trace_free(&t);
}

/*
 * Compaction (/proc/sys/vm/compact_memory) after the frames around the
 * region's were freed: whatever it moves, every page whose frame changed
 * has one "move compaction" record, and no other page has one; the
 * replay holds.
 */
TEST(compaction_moves_are_each_recorded)
{
	struct pgf_trace t = { 0 };
	size_t changed = 0, moved = 0, wrong = 0;
	static int moves[MAXPAGES];

	if (access("/proc/sys/vm/compact_memory", W_OK))
		SKIP("no compaction here");
	setup();
	run(COMPACT, 256, 3, &t, NULL);
	memset(moves, 0, sizeof(moves));
	for (size_t k = 0; k < t.nr; k++) {
		const struct pgf_rec *r = &t.rec[k];
		long i = page_of(r->addr);

		if (strcmp(r->type, "move") || i < 0)
			continue;
		moves[i]++;
		moved++;
		if (strcmp(r->text, "compaction") && wrong++ < 4)
			ktap_diag("page %ld: move %s", i, r->text);
	}
	for (unsigned long i = 0; i < seen->pages; i++) {
		bool diff = seen->cp[0].pfn[i] != seen->cp[1].pfn[i];

		changed += diff;
		if (moves[i] != diff && wrong++ < 4)
			ktap_diag("page %lu: frame %llx then %llx, %d moves", i,
				  (unsigned long long)seen->cp[0].pfn[i],
				  (unsigned long long)seen->cp[1].pfn[i], moves[i]);
	}
	ktap_diag("compaction moved %zu of %lu pages (%zu move records), %zu wrong",
		  changed, seen->pages, moved, wrong);
	EXPECT_EQ(wrong, 0);
	expect_replay(&t);
	pgf_trace_free(&t);
}

/*
 * 512 base pages collapsed into a THP by MADV_COLLAPSE ("collapse
 * madvise", the new huge page's frames), then its pmd split by an
 * mprotect() of one page ("split", the same frames). The MADV_HUGEPAGE
 * that MADV_COLLAPSE needs (the region was MADV_NOHUGEPAGE for its
 * faults) hands the mm to khugepaged too, which may collapse it first:
 * then the record says "khugepaged" and MADV_COLLAPSE finds a THP.
 */
TEST(thp_collapse_and_split)
{
	struct pgf_trace t = { 0 };

	if (!pgf_thp_on())
		SKIP("no transparent huge pages here");
	setup();
	run(COLLAPSE, HPAGE / PAGE, 4, &t, NULL);
	if (seen->failed == EINVAL || seen->failed == EAGAIN ||
	    seen->failed == ENOMEM)
		SKIP("MADV_COLLAPSE could not collapse: %s",
		     strerror(seen->failed));
	for (unsigned long i = 1; i < HPAGE / PAGE; i++)
		EXPECT_EQ(seen->cp[1].pfn[i], seen->cp[1].pfn[0] + i);
	ktap_diag("collapsed by madvise %zu, by khugepaged %zu pages",
		  changes(&t, "collapse", "madvise"),
		  changes(&t, "collapse", "khugepaged"));
	EXPECT_EQ(changes(&t, "collapse", "madvise") +
		  changes(&t, "collapse", "khugepaged"), HPAGE / PAGE);
	EXPECT_EQ(changes(&t, "collapse", NULL), HPAGE / PAGE);
	EXPECT_EQ(changes(&t, "split", NULL), HPAGE / PAGE);
	expect_replay(&t);
	pgf_trace_free(&t);
}

KTAP_MAIN()
