// SPDX-License-Identifier: GPL-2.0
/*
 * hugepages - re-reference tracing is exact on large folios: after
 * "rearm", every base page of a PMD-mapped transparent huge page, of an
 * mTHP and of a shmem huge page faults once, as "reref", at its next
 * access, read or write.
 *
 * Oracles: the touch sequence (every page of the region once, in order):
 * after each rearm record, the faults in the region are exactly its pages
 * in that order, with the access's letter; the folios really are large
 * where the kernel has THP (AnonHugePages or ShmemPmdMapped in smaps, the
 * 64 KiB mTHP fault counter in sysfs), so that the test tests what it
 * says (UML has no THP: base pages there); /proc/<pid>/stat for the count
 * of faults, none lost.
 */
#include <fcntl.h>
#include <sys/mman.h>
#include "ktap.h"
#include "util.h"
#include "pgf.h"

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
			   (kind == SHMEM_PMD ? MAP_SHARED : MAP_PRIVATE) |
			   MAP_ANONYMOUS, -1, 0);
		if (raw == MAP_FAILED)
			_exit(2);
		reg = (char *)(((unsigned long)raw + HPAGE - 1) & ~(HPAGE - 1));
		if (kind == PMD_MADVISE)
			madvise(reg, len, MADV_HUGEPAGE);
		for (size_t i = 0; i < len; i += PAGE)
			reg[i] = 1;
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

static unsigned long counter(const char *path)
{
	char buf[64] = "";
	int fd = open(path, O_RDONLY);

	if (fd >= 0) {
		if (read(fd, buf, sizeof(buf) - 1) < 0)
			buf[0] = '\0';
		close(fd);
	}
	return strtoul(buf, NULL, 10);
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
	THP "enabled", THP "shmem_enabled", THP "hugepages-2048kB/enabled",
	MTHP "enabled",
};
static char saved[4][32];

static bool thp_set(enum kind k)
{
	for (size_t i = 0; i < 4; i++)
		saved[i][0] = '\0';
	if (setting(THP "enabled", saved[0], sizeof(saved[0])))
		return false;	/* no THP here (UML): base pages */
	for (size_t i = 1; i < 4; i++)
		setting(knobs[i], saved[i], sizeof(saved[i]));
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
	for (size_t i = 0; i < 4; i++)
		if (saved[i][0])
			set(knobs[i], saved[i]);
}

/*
 * The faults in the region after the @k-th rearm record and before the
 * next, against every page once, in order, with access @acc, as "reref".
 */
static void expect_every_page_once(const struct pgf_trace *t, int k, char acc)
{
	size_t pages = len / PAGE, n = 0, wrong = 0;
	int seen = 0;

	for (size_t i = 0; i < t->nr; i++) {
		const struct pgf_rec *r = &t->rec[i];

		if (!strcmp(r->type, "rearm")) {
			seen++;
			continue;
		}
		if (seen != k || strcmp(r->type, "fault") ||
		    r->addr < (unsigned long)reg ||
		    r->addr >= (unsigned long)reg + len)
			continue;
		if (n < pages && (r->addr != (unsigned long)reg + n * PAGE ||
				  r->access != acc || strcmp(r->result, "reref"))) {
			if (!wrong)
				ktap_diag("fault %zu: page %lu %c %s", n,
					  (r->addr - (unsigned long)reg) / PAGE,
					  r->access, r->result);
			wrong++;
		}
		n++;
	}
	ktap_diag("%s, after rearm %d: %zu re-reference faults for %zu pages",
		  kind_name[kind], k, n, pages);
	EXPECT_EQ(n, pages);
	EXPECT_EQ(wrong, 0);
}

static void rearm_every_page(enum kind k)
{
	unsigned long mthp_before = counter(MTHP "stats/anon_fault_alloc");
	struct pgf_trace t;
	struct puppet p;
	long before, after, huge;
	bool thp;
	int fd;

	kind = k;
	len = k == MTHP_64K ? 1UL << 20 : 2 * HPAGE;
	thp = thp_set(k);
	if (!thp && !access(THP "enabled", F_OK)) {
		thp_restore();
		SKIP("cannot set %s", kind_name[k]);
	}
	ASSERT_SYS(puppet_spawn(&p, steps));
	before = pgf_faults_of(p.pid);
	/* Room for every fault of base pages (UML), read at the end. */
	ASSERT_EQ(pgf_set_buffer_kb(1024), 0);
	ASSERT_EQ(pgf_start(p.pid), 0);
	ASSERT_EQ(pgf_set_buffer_kb(64), 0);
	fd = ASSERT_SYS(pgf_open(p.pid, 0));
	ASSERT_EQ(puppet_step_recv(&p, 1, &reg, sizeof(reg)), 0);
	/* The folios are large, where there is THP. */
	if (k == MTHP_64K)
		huge = (counter(MTHP "stats/anon_fault_alloc") - mthp_before) * 64;
	else
		huge = smaps_kb(p.pid, (unsigned long)reg, k == SHMEM_PMD ?
				"ShmemPmdMapped" : "AnonHugePages");
	thp_restore();
	ktap_diag("%s: %ld kB of %zu in large folios%s", kind_name[k],
		  huge, len >> 10, thp ? "" : " (no THP here)");
	if (thp)
		EXPECT_EQ(huge, (long)(len >> 10));
	ASSERT_EQ(pgf_rearm(p.pid), 0);
	ASSERT_EQ(puppet_step(&p, 2), 0);
	ASSERT_EQ(pgf_rearm(p.pid), 0);
	ASSERT_EQ(puppet_step(&p, 3), 0);
	after = pgf_faults_of(p.pid);
	ASSERT_EQ(pgf_stop(p.pid), 0);
	puppet_end(&p);
	ASSERT_EQ(pgf_read_all(fd, &t), 0);
	close(fd);
	EXPECT_EQ(pgf_lost_faults(&t), 0);
	EXPECT_EQ((long)pgf_ok_faults(&t), after - before);
	expect_every_page_once(&t, 1, 'r');
	expect_every_page_once(&t, 2, 'w');
	pgf_trace_free(&t);
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

KTAP_MAIN()
