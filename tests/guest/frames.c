// SPDX-License-Identifier: GPL-2.0
/*
 * frames - the frame behind each fault. A file opened with CAP_SYS_ADMIN
 * reads every successful fault with the frame it mapped, the node of its
 * memory, the order of its folio and the level it is mapped at; any
 * other file reads none, whatever the trace recorded.
 *
 * Oracles, read by the workload itself right after each touch:
 * /proc/self/pagemap for the frame (what the page table holds),
 * /proc/kpageflags for the zero page and for large folios, move_pages(2)
 * for the node (for the zero page, which move_pages() does not place:
 * the node of the zone that spans it in /proc/zoneinfo). The tests touch anonymous pages (new, the zero page,
 * copy-on-write after a fork), the pages of a mapped shmem file, a
 * transparent huge page (x86_64) and, in a guest with two nodes, pages
 * bound to each node with mbind(2).
 */
#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <linux/mempolicy.h>
#include "ktap.h"
#include "util.h"
#include "pgf.h"
#include "oracle.h"
#include "pagemap.h"

#define PAGE		4096UL
#define HPAGE		(2UL << 20)
#define MAXPAGES	512

enum { ANON, ZERO, COW, FILEMAP, PMD, NODE };

/* What the workload saw after each touch, shared with the test. */
struct seen {
	unsigned long base;		/* the region */
	unsigned long pages;
	uint64_t pfn[MAXPAGES];		/* pagemap's, 0: not present */
	uint64_t kflags[MAXPAGES];	/* kpageflags' */
	int node[MAXPAGES];		/* move_pages()' */
};

static struct seen *seen;
static int kind, bind_node;

/* Frame and flags of the page at @addr, and its node, into seen[@i]. */
static void look(unsigned long addr, unsigned long i)
{
	seen->pfn[i] = pgf_pagemap_pfn(addr);
	seen->kflags[i] = seen->pfn[i] ? pgf_kpageflags(seen->pfn[i]) : 0;
	seen->node[i] = pgf_page_node(addr);
}

static void bind_to(char *p, size_t len, int node)
{
	unsigned long mask = 1UL << node;

	if (syscall(SYS_mbind, p, len, MPOL_BIND, &mask, 64UL, 0U))
		_exit(3);
}

/*
 * 1: map the region (and fill it, for the kinds that need it first);
 * 2: touch every page once, as the kind says, and look at it; 3 (COW):
 * write every page again after a fork, the child holding the old frames.
 */
static void steps(int step, int out)
{
	static char *reg;
	volatile char sink;
	size_t len = seen->pages * PAGE;
	int fd;

	(void)out;
	switch (step) {
	case 1:
		if (kind == PMD) {
			char *raw = mmap(NULL, 2 * HPAGE, PROT_READ | PROT_WRITE,
					 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			reg = (char *)(((unsigned long)raw + HPAGE - 1) &
				       ~(HPAGE - 1));
			madvise(reg, HPAGE, MADV_HUGEPAGE);
		} else if (kind == FILEMAP) {
			fd = memfd_create("pgf-frames", 0);
			for (size_t i = 0; i < seen->pages; i++) {
				char buf[PAGE];

				memset(buf, (int)i, sizeof(buf));
				if (write(fd, buf, PAGE) != PAGE)
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
		if (kind == NODE)
			bind_to(reg, len, bind_node);
		if (kind == COW)
			for (size_t i = 0; i < len; i += PAGE)
				reg[i] = 1;
		seen->base = (unsigned long)reg;
		break;
	case 2:
		for (size_t i = 0; i < seen->pages; i++) {
			if (kind == ZERO || kind == FILEMAP)
				sink = reg[i * PAGE];
			else if (kind == COW)
				continue;	/* step 3 */
			else
				reg[i * PAGE] = 2;
			look((unsigned long)reg + i * PAGE, i);
		}
		(void)sink;
		break;
	case 3:
		if (fork() == 0) {
			/* Holds the old frames until the test ends it. */
			pause();
			_exit(0);
		}
		for (size_t i = 0; i < seen->pages; i++) {
			reg[i * PAGE] = 3;
			look((unsigned long)reg + i * PAGE, i);
		}
		break;
	}
}

/* Open the trace of @pid for reading with or without CAP_SYS_ADMIN. */
static int open_as(pid_t pid, bool admin)
{
	int fd;

	if (!admin && pgf_sys_admin(false))
		return -1;
	fd = pgf_open(pid, 0);
	if (!admin && pgf_sys_admin(true)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Start tracing @pid through a file opened with or without CAP_SYS_ADMIN. */
static int start_as(pid_t pid, bool admin)
{
	int ret;

	if (!admin && pgf_sys_admin(false))
		return -1;
	ret = pgf_start(pid);
	if (!admin && pgf_sys_admin(true))
		return -1;
	return ret;
}

/* The fault records in the region, in order; how many into @out. */
static size_t region_faults(const struct pgf_trace *t,
			    const struct pgf_rec **out, size_t max)
{
	unsigned long lo = seen->base, hi = lo + seen->pages * PAGE;
	size_t n = 0;

	for (size_t i = 0; i < t->nr; i++)
		if (!strcmp(t->rec[i].type, "fault") &&
		    t->rec[i].addr >= lo && t->rec[i].addr < hi && n < max)
			out[n++] = &t->rec[i];
	return n;
}

/*
 * Every fault in the region against what the workload saw at its page:
 * the frame, the node, a base page mapped by a pte (unless @order says
 * otherwise); returns how many faults there were.
 */
static size_t expect_frames(const struct pgf_trace *t, unsigned int order,
			    const char *level)
{
	const struct pgf_rec *f[MAXPAGES];
	size_t n = region_faults(t, f, MAXPAGES), wrong = 0;

	for (size_t k = 0; k < n; k++) {
		unsigned long i = (f[k]->addr - seen->base) / PAGE;
		bool large = seen->kflags[i] & (1ULL << KPF_COMPOUND_HEAD |
						1ULL << KPF_COMPOUND_TAIL);
		bool ok = f[k]->has_frame && f[k]->pfn == seen->pfn[i] &&
			  f[k]->node == seen->node[i] &&
			  f[k]->order == order && large == (order > 0) &&
			  !strcmp(pgft_level_names[f[k]->level], level);

		if (!ok && wrong++ < 4)
			ktap_diag("page %lu: fault %s pfn %llx node %d order %u %s; pagemap %llx node %d flags %llx",
				  i, f[k]->has_frame ? "with" : "without",
				  f[k]->pfn, f[k]->node, f[k]->order,
				  f[k]->has_frame ?
				  pgft_level_names[f[k]->level] : "-",
				  (unsigned long long)seen->pfn[i],
				  seen->node[i],
				  (unsigned long long)seen->kflags[i]);
	}
	ktap_diag("%zu faults in the region, %zu frames wrong", n, wrong);
	EXPECT_EQ(wrong, 0);
	return n;
}

/* Trace a puppet of @k over @pages pages, read by a CAP_SYS_ADMIN file. */
static void run(int k, unsigned long pages, struct pgf_trace *t)
{
	struct pgf_live live;
	struct puppet p;
	long before;
	int fd;

	kind = k;
	seen->pages = pages;
	ASSERT_SYS(puppet_spawn(&p, steps));
	ASSERT_EQ(puppet_step(&p, 1), 0);
	before = pgf_faults_of(p.pid);
	ASSERT_EQ(pgf_start(p.pid), 0);
	fd = ASSERT_SYS(pgf_open(p.pid, 0));
	ASSERT_EQ(pgf_live_start(&live, fd, t), 0);
	ASSERT_EQ(puppet_step(&p, 2), 0);
	if (k == COW)
		ASSERT_EQ(puppet_step(&p, 3), 0);
	pgf_stop_and_read(&p, fd, before, t, &live);
}

static void setup(void)
{
	seen = mmap(NULL, sizeof(*seen), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(seen != MAP_FAILED);
}

/* A write to each of 64 new anonymous pages: a new frame each. */
TEST(anon_frames)
{
	struct pgf_trace t = { 0 };

	setup();
	run(ANON, 64, &t);
	EXPECT_EQ(expect_frames(&t, 0, "pte"), 64);
	for (unsigned long i = 1; i < 64; i++)
		EXPECT_TRUE(seen->pfn[i] != seen->pfn[0]);
	pgf_trace_free(&t);
}

/* A read of each of 16 anonymous pages maps the zero page, 16 times. */
TEST(zero_page)
{
	struct pgf_trace t = { 0 };
	unsigned long zero = 0;

	setup();
	run(ZERO, 16, &t);
	EXPECT_EQ(expect_frames(&t, 0, "pte"), 16);
	for (unsigned long i = 0; i < 16; i++) {
		EXPECT_TRUE(seen->kflags[i] & (1ULL << KPF_ZERO_PAGE));
		if (!zero)
			zero = seen->pfn[i];
		EXPECT_EQ(seen->pfn[i], zero);
	}
	pgf_trace_free(&t);
}

/*
 * Copy-on-write: pages written, a child forked that keeps them, every
 * page written again: each fault maps a new frame (wp_page_copy()).
 */
TEST(cow_after_fork)
{
	struct pgf_trace t = { 0 };
	const struct pgf_rec *f[MAXPAGES];

	setup();
	run(COW, 16, &t);
	EXPECT_EQ(expect_frames(&t, 0, "pte"), 16);
	EXPECT_EQ(region_faults(&t, f, MAXPAGES), 16);
	for (size_t k = 0; k < 16; k++)
		EXPECT_TRUE(!strcmp(f[k]->type, "fault") && f[k]->access == 'w');
	pgf_trace_free(&t);
}

/*
 * The pages of a mapped shmem file, read: fault-around maps several
 * pages a fault, and each fault's frame is its own page's.
 */
TEST(file_pages)
{
	struct pgf_trace t = { 0 };

	setup();
	run(FILEMAP, 64, &t);
	EXPECT_TRUE(expect_frames(&t, 0, "pte") > 0);
	pgf_trace_free(&t);
}

/* A transparent huge page: one fault, order 9, mapped by the pmd. */
TEST(thp_pmd)
{
	struct pgf_trace t = { 0 };

	if (!pgf_thp_on())
		SKIP("no transparent huge pages here");
	setup();
	run(PMD, HPAGE / PAGE, &t);
	if (!(seen->kflags[0] & (1ULL << KPF_COMPOUND_HEAD)))
		SKIP("no huge page could be allocated");
	/* The first write maps the whole huge page: the other pages do not fault. */
	EXPECT_EQ(expect_frames(&t, 9, "pmd"), 1);
	for (unsigned long i = 1; i < HPAGE / PAGE; i++)
		EXPECT_EQ(seen->pfn[i], seen->pfn[0] + i);
	pgf_trace_free(&t);
}

/* Pages bound to each node (two nodes): each fault says which. */
TEST(node_of_each_fault)
{
	if (pgf_nodes() < 2)
		SKIP("one NUMA node");
	setup();
	for (bind_node = 0; bind_node < 2; bind_node++) {
		struct pgf_trace t = { 0 };

		run(NODE, 32, &t);
		EXPECT_EQ(expect_frames(&t, 0, "pte"), 32);
		for (unsigned long i = 0; i < 32; i++)
			EXPECT_EQ(seen->node[i], bind_node);
		pgf_trace_free(&t);
	}
}

/* A puppet of 32 anonymous pages, its region mapped (step 1). */
static void anon_puppet(struct puppet *p)
{
	setup();
	kind = ANON;
	seen->pages = 32;
	ASSERT_SYS(puppet_spawn(p, steps));
	ASSERT_EQ(puppet_step(p, 1), 0);
}

/* How many fault lines of @t have a frame, and how many in all. */
static size_t with_frames(const struct pgf_trace *t, size_t *faults)
{
	size_t n = 0;

	*faults = 0;
	for (size_t i = 0; i < t->nr; i++) {
		if (strcmp(t->rec[i].type, "fault"))
			continue;
		(*faults)++;
		n += t->rec[i].has_frame;
	}
	return n;
}

/*
 * A trace started by CAP_SYS_ADMIN records frames, but a file opened
 * without it reads none of them; a file opened with it, reading the
 * same trace afterwards, reads the faults that came after with theirs.
 */
TEST(reader_without_cap_sees_no_frame)
{
	struct pgf_trace t = { 0 }, t2 = { 0 };
	struct puppet p;
	size_t faults, framed;
	int fd;

	anon_puppet(&p);
	ASSERT_EQ(start_as(p.pid, true), 0);
	fd = ASSERT_SYS(open_as(p.pid, false));
	ASSERT_EQ(puppet_step(&p, 2), 0);
	ASSERT_SYS(fcntl(fd, F_SETFL, O_NONBLOCK));
	ASSERT_EQ(pgf_read_all(fd, &t), -EAGAIN);
	close(fd);
	framed = with_frames(&t, &faults);
	ktap_diag("without CAP_SYS_ADMIN: %zu of %zu fault lines with a frame",
		  framed, faults);
	EXPECT_TRUE(faults >= 32);
	EXPECT_EQ(framed, 0);

	/* The same trace, read on by a file with CAP_SYS_ADMIN. */
	fd = ASSERT_SYS(open_as(p.pid, true));
	seen->pages = 32;
	kind = ANON;
	ASSERT_EQ(puppet_step(&p, 1), 0);
	ASSERT_EQ(puppet_step(&p, 2), 0);
	ASSERT_EQ(pgf_stop(p.pid), 0);
	puppet_end(&p);
	ASSERT_EQ(pgf_read_all(fd, &t2), 0);
	close(fd);
	framed = with_frames(&t2, &faults);
	ktap_diag("with CAP_SYS_ADMIN: %zu of %zu fault lines with a frame",
		  framed, faults);
	EXPECT_EQ(expect_frames(&t2, 0, "pte"), 32);
	pgf_trace_free(&t);
	pgf_trace_free(&t2);
}

/*
 * Started without CAP_SYS_ADMIN and read by nobody yet: the trace holds
 * no credentials that may see frames and records none; a file opened
 * with it then reads those faults without frames (never made up
 * afterwards), and the faults that come after it attached with them.
 */
TEST(frames_follow_the_credentials_held)
{
	struct pgf_trace t = { 0 };
	const struct pgf_rec *f[MAXPAGES];
	unsigned long first;
	struct puppet p;
	size_t n;
	int fd;

	anon_puppet(&p);
	ASSERT_EQ(start_as(p.pid, false), 0);
	ASSERT_EQ(puppet_step(&p, 2), 0);
	first = seen->base;
	fd = ASSERT_SYS(open_as(p.pid, true));
	ASSERT_EQ(puppet_step(&p, 1), 0);
	ASSERT_EQ(puppet_step(&p, 2), 0);
	ASSERT_EQ(pgf_stop(p.pid), 0);
	puppet_end(&p);
	ASSERT_EQ(pgf_read_all(fd, &t), 0);
	close(fd);
	/* The second region's faults, with their frames. */
	EXPECT_EQ(expect_frames(&t, 0, "pte"), 32);
	seen->base = first;
	n = region_faults(&t, f, MAXPAGES);
	EXPECT_EQ(n, 32);
	for (size_t k = 0; k < n; k++)
		EXPECT_TRUE(!f[k]->has_frame);
	pgf_trace_free(&t);
}

KTAP_MAIN()
