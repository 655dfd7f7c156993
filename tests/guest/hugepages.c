// SPDX-License-Identifier: GPL-2.0
/*
 * hugepages - re-reference tracing is exact on large folios: after
 * "rearm", every base page of a PMD-mapped transparent huge page, of an
 * mTHP and of a PMD-mapped shmem huge page (a memfd) faults once, as
 * "reref", at its next access, read or write; in window mode, a fault
 * maps its own page only, a shmem range first touched under window mode
 * too. (That case failed in about one run of three on x86_64 in an
 * earlier kernel of the series: the first page faulted twice as "minor"
 * at its first touch, or the first pages of the second pass came as
 * "minor" instead of "reref". It passed 10 of 10 runs alone and after
 * the suite's other tests on 2026-11-25; it prints what compaction,
 * migration and THP did meanwhile, for the day it fails again.)
 *
 * Oracles: the touch sequence (every page of the region once, in order):
 * after each rearm record, the faults in the region are exactly its pages
 * in that order, with the access's letter; the folios really are large
 * where the kernel has THP (AnonHugePages in smaps; for mTHP, each page's
 * KPF_THP in /proc/kpageflags), so that the test tests what it says (UML
 * has no THP: base pages there); /proc/<pid>/stat for the count of
 * faults, none lost. Window mode (K = 64) against a FIFO of K pages: two
 * sequential passes over more than K pages miss at every page.
 */
#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>
#include "ktap.h"
#include "util.h"
#include "pgf.h"
#include "oracle.h"

#define PAGE		4096UL
#define HPAGE		(2UL << 20)
#define THP		"/sys/kernel/mm/transparent_hugepage/"
#define MTHP		THP "hugepages-64kB/"

enum kind { PMD_MADVISE, PMD_ALWAYS, MTHP_64K, SHMEM_PMD };

static const char * const kind_name[] = {
	"THP (madvise)", "THP (always)", "64 KiB mTHP", "shmem THP",
};

static enum kind kind;
static char *reg;
static size_t len;

/*
 * 1: map the region, 2 MiB aligned (MADV_HUGEPAGE for PMD_MADVISE),
 * write every page, send its address; 2: read every page in order; 3:
 * write every page in order.
 */
static void steps(int step, int out)
{
	volatile char sink;
	char *raw;

	switch (step) {
	case 1:
		raw = mmap(NULL, len + HPAGE, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (raw == MAP_FAILED)
			_exit(2);
		reg = (char *)(((unsigned long)raw + HPAGE - 1) & ~(HPAGE - 1));
		if (kind == SHMEM_PMD) {
			/* Offset 0 at a 2 MiB boundary: huge pages fit. */
			int fd = memfd_create("pgf-shmem-thp", 0);

			if (fd < 0 || ftruncate(fd, len) ||
			    mmap(reg, len, PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_FIXED, fd, 0) != reg)
				_exit(2);
			close(fd);
		}
		if (kind == PMD_MADVISE)
			madvise(reg, len, MADV_HUGEPAGE);
		for (size_t i = 0; i < len; i += PAGE)
			reg[i] = 1;
		/*
		 * From here khugepaged leaves the region alone, whatever it
		 * was woken for: its collapse would map re-armed pages anew,
		 * accessible, which re-arming does not follow (rearm.c's
		 * DOC). khugepaged's pass when this mm joins its list (the
		 * MADV_HUGEPAGE, a first huge fault) may come seconds late
		 * on a loaded host, in the middle of a later step. The folios
		 * stay what the faults made them.
		 */
		madvise(reg, len, MADV_NOHUGEPAGE);
		if (write(out, &reg, sizeof(reg)) != sizeof(reg))
			_exit(2);
		break;
	case 2:
		for (size_t i = 0; i < len; i += PAGE)
			sink = reg[i];
		(void)sink;
		break;
	case 3:
		for (size_t i = 0; i < len; i += PAGE)
			reg[i] = 2;
		break;
	}
}

/* The word in brackets of a THP setting ("always [madvise] never"). */
static int setting(const char *path, char *buf, size_t size)
{
	char line[256], *a, *b;
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, line, sizeof(line) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	line[n] = '\0';
	a = strchr(line, '[');
	b = a ? strchr(a, ']') : NULL;
	if (!b)
		return -1;
	*b = '\0';
	snprintf(buf, size, "%s", a + 1);
	return 0;
}

static int set(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, val, strlen(val));
	close(fd);
	return n == (ssize_t)strlen(val) ? 0 : -1;
}

/* A field of the smaps entry of the VMA that holds @addr, in kB. */
static long smaps_kb(pid_t pid, unsigned long addr, const char *field)
{
	char path[64], line[256];
	unsigned long lo, hi;
	long kb = -1;
	int in = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/smaps", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') <
		    strchr(line, ' ')) {
			in = addr >= lo && addr < hi;
			continue;
		}
		if (in && !strncmp(line, field, strlen(field)) &&
		    line[strlen(field)] == ':')
			kb = strtol(line + strlen(field) + 1, NULL, 10);
	}
	fclose(f);
	return kb;
}

/* THP settings a test changes, restored after it. */
static const char * const knobs[] = {
	THP "enabled", THP "hugepages-2048kB/enabled", MTHP "enabled",
	THP "shmem_enabled",
};
#define NKNOBS		(sizeof(knobs) / sizeof(knobs[0]))
static char saved[NKNOBS][32];
#define KHUGEPAGED_SLEEP	THP "khugepaged/scan_sleep_millisecs"
#define KHUGEPAGED_PAGES	THP "khugepaged/pages_to_scan"
static char khugepaged_sleep[32], khugepaged_pages[32];

/* The contents of a small file, or "" ; for knobs to put back. */
static void save(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, buf, size - 1) : -1;

	buf[n > 0 ? n : 0] = '\0';
	if (fd >= 0)
		close(fd);
}

/*
 * Wait (a bounded while) until khugepaged sleeps. Writing its sleep time
 * wakes it for one pass, which could collapse or retract the page tables
 * of the test's region while the test runs (a change the trace does not
 * follow: pages unmapped under a window, faults that are not re-references).
 */
static void khugepaged_settle(void)
{
	char path[64], comm[32];
	struct pgf_stat st;

	for (int pid = 1; pid < 1000; pid++) {
		snprintf(path, sizeof(path), "/proc/%d/comm", pid);
		save(path, comm, sizeof(comm));
		if (strcmp(comm, "khugepaged\n"))
			continue;
		for (int i = 0; i < 10000; i++) {
			if (!pgf_read_stat(pid, &st) && st.state == 'S')
				return;
			usleep(1000);
		}
		return;
	}
}

/*
 * Huge pages for the test, and only the test's own changes to them:
 * memory compacted first, so that every 2 MiB allocation succeeds, and
 * khugepaged asleep, so that it collapses nothing (which would unmap
 * pages, a change the trace does not follow) while the test runs.
 */
static bool thp_set(enum kind k)
{
	for (size_t i = 0; i < NKNOBS; i++)
		saved[i][0] = '\0';
	khugepaged_sleep[0] = khugepaged_pages[0] = '\0';
	if (setting(THP "enabled", saved[0], sizeof(saved[0])))
		return false;	/* no THP here (UML): base pages */
	for (size_t i = 1; i < NKNOBS; i++)
		setting(knobs[i], saved[i], sizeof(saved[i]));
	/* The pass a new sleep time starts scans one page, then a day's sleep. */
	save(KHUGEPAGED_PAGES, khugepaged_pages, sizeof(khugepaged_pages));
	save(KHUGEPAGED_SLEEP, khugepaged_sleep, sizeof(khugepaged_sleep));
	if (khugepaged_pages[0] && khugepaged_sleep[0]) {
		set(KHUGEPAGED_PAGES, "1");
		set(KHUGEPAGED_SLEEP, "86400000");
		khugepaged_settle();
	}
	set("/proc/sys/vm/compact_memory", "1");
	switch (k) {
	case PMD_MADVISE:
		return !set(THP "enabled", "madvise");
	case PMD_ALWAYS:
		return !set(THP "enabled", "always");
	case MTHP_64K:
		/* 64 KiB folios only: no PMD-sized one. */
		return !set(THP "enabled", "always") &&
		       !set(THP "hugepages-2048kB/enabled", "never") &&
		       !set(MTHP "enabled", "always");
	case SHMEM_PMD:
		return !set(THP "shmem_enabled", "always");
	}
	return false;
}

static void thp_restore(void)
{
	for (size_t i = 0; i < NKNOBS; i++)
		if (saved[i][0])
			set(knobs[i], saved[i]);
	if (khugepaged_pages[0])
		set(KHUGEPAGED_PAGES, khugepaged_pages);
	if (khugepaged_sleep[0])
		set(KHUGEPAGED_SLEEP, khugepaged_sleep);
}

/* A fault in the region: its page, access letter and result. */
struct hit {
	unsigned long page;
	char acc;
	const char *result;
};

/* Where region_next() is in a trace: a record, and the rearms before it. */
struct cursor {
	size_t i;
	int rearms;
};

/*
 * The next record in the region after the @k-th rearm record (and before
 * the next) from @c on, NULL after the last.
 */
static const struct pgf_rec *region_next(const struct pgf_trace *t,
					 struct cursor *c, int k)
{
	while (c->i < t->nr) {
		const struct pgf_rec *r = &t->rec[c->i++];

		if (!strcmp(r->type, "rearm"))
			c->rearms++;
		else if (c->rearms == k && r->addr >= (unsigned long)reg &&
			 r->addr < (unsigned long)reg + len)
			return r;
	}
	return NULL;
}

/*
 * The faults in the region after the @k-th rearm record (and before the
 * next), in order, into @h (at most @max); returns how many.
 */
static size_t region_faults(const struct pgf_trace *t, int k, struct hit *h,
			    size_t max)
{
	struct cursor c = { 0 };
	const struct pgf_rec *r;
	size_t n = 0;

	while ((r = region_next(t, &c, k))) {
		if (strcmp(r->type, "fault"))
			continue;
		if (n < max) {
			h[n].page = (r->addr - (unsigned long)reg) / PAGE;
			h[n].acc = r->access;
			h[n].result = r->result;
		}
		n++;
	}
	return n;
}

/*
 * For the day a count is short: the records other than faults in the
 * region after the @k-th rearm record (a collapse, a split, a move).
 */
static void region_changes(const struct pgf_trace *t, int k)
{
	struct cursor c = { 0 };
	const struct pgf_rec *r;

	while ((r = region_next(t, &c, k)))
		if (strcmp(r->type, "fault"))
			ktap_diag("after rearm %d: %s at page %lu: %s", k, r->type,
				  (r->addr - (unsigned long)reg) / PAGE, r->text);
}

/*
 * @h[0..pages) against every page of the region once, in order, with
 * access @acc and result @result; @what names them in the diagnostics.
 */
static void expect_pass(const struct hit *h, char acc, const char *result,
			const char *what)
{
	size_t pages = len / PAGE, wrong = 0;

	for (size_t i = 0; i < pages; i++) {
		if (h[i].page == i && h[i].acc == acc &&
		    !strcmp(h[i].result, result))
			continue;
		if (!wrong)
			ktap_diag("%s: fault %zu: page %lu %c %s", what, i,
				  h[i].page, h[i].acc, h[i].result);
		wrong++;
	}
	EXPECT_EQ(wrong, 0);
}

/* After the @k-th rearm record: every page once, read or written. */
static void expect_every_page_once(const struct pgf_trace *t, int k, char acc)
{
	size_t pages = len / PAGE, n;
	struct hit *h = calloc(pages, sizeof(*h));

	ASSERT_TRUE(h != NULL);
	n = region_faults(t, k, h, pages);
	ktap_diag("%s, after rearm %d: %zu re-reference faults for %zu pages",
		  kind_name[kind], k, n, pages);
	if (n != pages)
		region_changes(t, k);
	EXPECT_EQ(n, pages);
	if (n == pages)
		expect_pass(h, acc, "reref", kind_name[kind]);
	free(h);
}

/* Set THP up for @k and the region's size; false where there is no THP. */
static bool setup(enum kind k)
{
	bool thp;

	kind = k;
	len = k == MTHP_64K ? 1UL << 20 : 2 * HPAGE;
	thp = thp_set(k);
	if (!thp && !access(THP "enabled", F_OK)) {
		thp_restore();
		SKIP("cannot set %s", kind_name[k]);
	}
	return thp;
}

/*
 * The kB of the region that large folios hold: each page's frame from
 * /proc/<pid>/pagemap, its flags from /proc/kpageflags (KPF_THP: a page
 * of a large anonymous or LRU folio, whatever its order, however mapped).
 */
static long large_kb(pid_t pid)
{
	char path[64];
	int pm, kf;
	long kb = 0;

	snprintf(path, sizeof(path), "/proc/%d/pagemap", (int)pid);
	pm = open(path, O_RDONLY);
	kf = open("/proc/kpageflags", O_RDONLY);
	for (size_t off = 0; pm >= 0 && kf >= 0 && off < len; off += PAGE) {
		uint64_t e, flags;

		if (pread(pm, &e, 8, ((unsigned long)reg + off) / PAGE * 8) != 8 ||
		    !(e & (1ULL << 63)))
			continue;
		if (pread(kf, &flags, 8, (e & ((1ULL << 55) - 1)) * 8) == 8 &&
		    (flags & (1ULL << 22)))
			kb += PAGE >> 10;
	}
	if (pm >= 0)
		close(pm);
	if (kf >= 0)
		close(kf);
	return kb;
}

/* The region's folios are large, where there is THP. */
static void expect_large(pid_t pid, bool thp)
{
	long huge;

	if (kind == PMD_MADVISE || kind == PMD_ALWAYS)
		huge = smaps_kb(pid, (unsigned long)reg, "AnonHugePages");
	else if (kind == SHMEM_PMD)
		huge = smaps_kb(pid, (unsigned long)reg, "ShmemPmdMapped");
	else
		huge = large_kb(pid);
	ktap_diag("%s: %ld kB of %zu in large folios%s", kind_name[kind],
		  huge, len >> 10, thp ? "" : " (no THP here)");
	if (thp)
		EXPECT_EQ(huge, (long)(len >> 10));
}

static void rearm_every_page(enum kind k)
{
	struct pgf_trace t;
	struct pgf_live live;
	struct puppet p;
	long before;
	bool thp = setup(k);
	int fd;

	ASSERT_SYS(puppet_spawn(&p, steps));
	before = pgf_faults_of(p.pid);
	ASSERT_EQ(pgf_start(p.pid), 0);
	fd = ASSERT_SYS(pgf_open(p.pid, 0));
	ASSERT_EQ(pgf_live_start(&live, fd, &t), 0);
	ASSERT_EQ(puppet_step_recv(&p, 1, &reg, sizeof(reg)), 0);
	expect_large(p.pid, thp);
	ASSERT_EQ(pgf_rearm(p.pid), 0);
	ASSERT_EQ(puppet_step(&p, 2), 0);
	ASSERT_EQ(pgf_rearm(p.pid), 0);
	ASSERT_EQ(puppet_step(&p, 3), 0);
	thp_restore();
	pgf_stop_and_read(&p, fd, before, &t, &live);
	expect_every_page_once(&t, 1, 'r');
	expect_every_page_once(&t, 2, 'w');
	pgf_trace_free(&t);
}

/*
 * Window mode with K = 64, fewer pages than a folio has: in a sequential
 * pass over the region every access misses (its page was admitted a whole
 * pass of more than K pages before, and evicted), so each page faults
 * once per pass. @filled_first: the region is mapped and filled (in large
 * folios, where there is THP) before the start, which re-arms it, then
 * written twice; else the window is started first, and the region's first
 * touches must map one page each (a fault that mapped a whole folio would
 * admit one page and leave the others accessible unseen), then written.
 */
static void window_every_page(enum kind k, bool filled_first)
{
	const char *start = "1 window=64";
	struct pgf_trace t;
	struct pgf_live live;
	struct puppet p;
	long before;
	bool thp = setup(k);
	size_t pages = len / PAGE, n;
	struct hit *h = calloc(2 * pages, sizeof(*h));
	int fd;

	ASSERT_TRUE(h != NULL);
	ASSERT_SYS(puppet_spawn(&p, steps));
	if (filled_first) {
		ASSERT_EQ(puppet_step_recv(&p, 1, &reg, sizeof(reg)), 0);
		expect_large(p.pid, thp);
	}
	before = pgf_faults_of(p.pid);
	ASSERT_EQ(pgf_ctl(p.pid, start, strlen(start)), 0);
	fd = ASSERT_SYS(pgf_open(p.pid, 0));
	ASSERT_EQ(pgf_live_start(&live, fd, &t), 0);
	if (filled_first)
		ASSERT_EQ(puppet_step(&p, 3), 0);
	else
		ASSERT_EQ(puppet_step_recv(&p, 1, &reg, sizeof(reg)), 0);
	ASSERT_EQ(puppet_step(&p, 3), 0);
	thp_restore();
	pgf_stop_and_read(&p, fd, before, &t, &live);
	/* After the start's rearm record: two passes. */
	n = region_faults(&t, 1, h, 2 * pages);
	ktap_diag("%s, window of 64 pages: %zu faults for 2 passes over %zu pages",
		  kind_name[k], n, pages);
	EXPECT_EQ(n, 2 * pages);
	for (size_t i = 0; n != 2 * pages && i < n && i < 2 * pages; i++) {
		if (h[i].page == i % pages)
			continue;
		ktap_diag("fault %zu: page %lu %c %s, after page %lu %c %s", i,
			  h[i].page, h[i].acc, h[i].result, i ? h[i - 1].page : 0,
			  i ? h[i - 1].acc : '-', i ? h[i - 1].result : "-");
		break;
	}
	if (n == 2 * pages) {
		expect_pass(h, 'w', filled_first ? "reref" : "minor", "pass 1");
		expect_pass(h + pages, 'w', "reref", "pass 2");
	}
	pgf_trace_free(&t);
	free(h);
}

TEST(rearm_sees_every_page_of_a_thp_madvised)
{
	rearm_every_page(PMD_MADVISE);
}

TEST(rearm_sees_every_page_of_a_thp_always)
{
	rearm_every_page(PMD_ALWAYS);
}

TEST(rearm_sees_every_page_of_a_64k_mthp)
{
	rearm_every_page(MTHP_64K);
}

TEST(rearm_sees_every_page_of_a_shmem_thp)
{
	rearm_every_page(SHMEM_PMD);
}

TEST(window_sees_every_page_of_thps_mapped_before_the_start)
{
	window_every_page(PMD_ALWAYS, true);
}

TEST(window_sees_every_page_of_64k_mthps_mapped_before_the_start)
{
	window_every_page(MTHP_64K, true);
}

TEST(window_sees_every_page_of_shmem_thps_mapped_before_the_start)
{
	window_every_page(SHMEM_PMD, true);
}

TEST(window_maps_one_page_a_fault_where_thp_is_always)
{
	window_every_page(PMD_ALWAYS, false);
}

TEST(window_maps_one_page_a_fault_where_64k_mthp_is_always)
{
	window_every_page(MTHP_64K, false);
}

/* /proc/vmstat's counters; how many were read. */
#define NVM 400
static char vm_name[NVM][48];

static int vmstat(long *v)
{
	FILE *f = fopen("/proc/vmstat", "r");
	int n = 0;

	while (f && n < NVM && fscanf(f, "%47s %ld", vm_name[n], &v[n]) == 2)
		n++;
	if (f)
		fclose(f);
	return n;
}

TEST(window_maps_one_page_a_fault_where_shmem_thp_is_always)
{
	static const char * const watch[] = {
		"thp", "split", "migrat", "compact", "collapse", "numa_hint",
	};
	static long b[NVM], e[NVM];
	int nb = vmstat(b), ne;

	window_every_page(SHMEM_PMD, false);
	ne = vmstat(e);
	for (int i = 0; i < nb && i < ne; i++)
		for (size_t w = 0; w < sizeof(watch) / sizeof(watch[0]); w++)
			if (e[i] != b[i] && strstr(vm_name[i], watch[w])) {
				ktap_diag("meanwhile %s +%ld", vm_name[i], e[i] - b[i]);
				break;
			}
}

KTAP_MAIN()
