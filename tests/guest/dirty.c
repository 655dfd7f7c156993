// SPDX-License-Identifier: GPL-2.0
/*
 * dirty - a write fault on a shared file mapping that waits for dirty-page
 * balancing is still recorded in order, and waits without its lock.
 *
 * fault_dirty_shared_page() throttles a process that dirties pages faster
 * than they are written back (balance_dirty_pages()), and an untraced
 * fault releases its mmap or VMA lock while it sleeps there. The lock is
 * what orders a fault record against the records of changes to its
 * region: another thread that replaced the page's mapping meanwhile must
 * not have its change recorded first, the fault then landing in a region
 * it never touched. So a traced fault is recorded before it releases it.
 *
 * The program: thread A writes the pages of a shared file mapping one
 * after another, with the dirty limits at their minimum so that it is
 * throttled; thread B waits until A sleeps in balance_dirty_pages() in the
 * fault of page P (state D in /proc/<tid>/stat), then maps an anonymous page over P
 * (MAP_FIXED). Oracle: the trace must hold A's fault on P before the map
 * record of B's page. (Without the fix: none before, two after it.) Nor
 * may the traced fault hold its lock while it sleeps, as untraced ones do
 * not: B's mmap() returns while A still sleeps in the fault of P.
 *
 *          P-1     P      P+1
 *   before |file  |file  |file  ...   A sleeps in the fault of P
 *   after  |file  |anon  |file  ...   B's mmap(MAP_FIXED)
 *
 * Needs a file system with writeback (UML's hostfs at /job); skipped
 * where a shared writable mapping of /job is refused (9p without a cache).
 */
#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include "ktap.h"
#include "util.h"
#include "pgf.h"

#define PAGE		4096UL
#define NP		1024
#define FILE_PATH	"/job/pgf-dirty-file"
#define VM		"/proc/sys/vm/"

#define TRIES		8	/* pages B may replace */

struct shared {
	volatile unsigned long base;	/* the mapping, in the child */
	volatile long target;		/* the page B replaced; -1: none */
	volatile int tries;		/* how many pages it replaced */
	volatile int overlap;		/* its mmap() ended in A's throttling */
	volatile int err;
};

static struct shared *sh;
static char *map;
static volatile long cur = -1, done = -1;
static volatile pid_t writer_tid;

/*
 * Does thread @tid sleep uninterruptibly? In the write fault of a page of
 * a file whose reads never sleep (hostfs calls the host synchronously),
 * that is dirty-page balancing's pause (TASK_KILLABLE). /proc's wchan
 * would name it, but UML's reading of another task's stack trips KASAN.
 */
static int throttled(pid_t tid)
{
	struct pgf_stat st;

	return !pgf_read_stat(tid, &st) && st.state == 'D';
}

/*
 * Thread B: replace the page A is throttled in the fault of. If A still
 * sleeps in that fault when the mmap() returns, the fault did not hold
 * the lock the mmap() needed across the throttling; if not (A woke up
 * first), try again on a later page, TRIES pages at most.
 */
static void *replacer(void *arg)
{
	(void)arg;
	while (!writer_tid)
		usleep(100);
	for (;;) {
		long d = done, c = cur;

		if (d >= NP - 1)
			return NULL;		/* never caught it throttled */
		/*
		 * In the fault of page c: set, not yet written. Not page 0:
		 * the first fault in the new mapping records its region first
		 * and may sleep for that (killable, state D too) before its
		 * fault is handled at all.
		 */
		if (c > 0 && c == d + 1 && throttled(writer_tid) && cur == c &&
		    done == d) {
			if (mmap(map + c * PAGE, PAGE, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) ==
			    MAP_FAILED)
				sh->err = 1;
			sh->overlap = cur == c && done == d &&
				      throttled(writer_tid);
			if (sh->overlap || ++sh->tries == TRIES) {
				sh->target = c;
				return NULL;
			}
		}
		usleep(200);
	}
}

static void child(int go)
{
	pthread_t b;
	char c;
	int fd;

	if (read(go, &c, 1) != 1)
		_exit(10);
	fd = open(FILE_PATH, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || ftruncate(fd, NP * PAGE))
		_exit(11);
	map = mmap(NULL, NP * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		_exit(12);
	sh->base = (unsigned long)map;
	if (pthread_create(&b, NULL, replacer, NULL))
		_exit(13);
	writer_tid = syscall(SYS_gettid);
	for (long i = 0; i < NP && sh->target < 0; i++) {
		cur = i;
		((volatile char *)map)[i * PAGE] = 1;	/* in order */
		done = i;
	}
	pthread_join(b, NULL);
	close(fd);
	_exit(0);
}

/*
 * Every hostfs backing device: strict limits of @max_bytes (0: put back
 * the old ones from @old, @n of them). Dirty memory of a device with a
 * strict limit is throttled even below the global thresholds, so a writer
 * waits whatever else the machine holds.
 */
#define NBDI	8
struct bdi_limit {
	char dir[96];
	long strict, max_ratio;
};

static int bdi_limit(struct bdi_limit *old, int *n, long max_bytes)
{
	char path[160];

	if (max_bytes) {
		FILE *ls = popen("ls -d /sys/class/bdi/hostfs-* 2>/dev/null", "r");

		*n = 0;
		while (ls && *n < NBDI && fgets(old[*n].dir, sizeof(old[*n].dir), ls)) {
			struct bdi_limit *b = &old[*n];

			b->dir[strcspn(b->dir, "\n")] = '\0';
			snprintf(path, sizeof(path), "%.95s/strict_limit", b->dir);
			b->strict = pgf_read_long(path);
			snprintf(path, sizeof(path), "%.95s/max_ratio", b->dir);
			b->max_ratio = pgf_read_long(path);
			if (b->strict < 0 || b->max_ratio < 0)
				break;
			++*n;
			snprintf(path, sizeof(path), "%.95s/max_bytes", b->dir);
			if (pgf_write_long(path, max_bytes))
				return -1;
			snprintf(path, sizeof(path), "%.95s/strict_limit", b->dir);
			if (pgf_write_long(path, 1))
				return -1;
		}
		if (ls)
			pclose(ls);
		return *n ? 0 : -1;
	}
	for (int i = 0; i < *n; i++) {
		snprintf(path, sizeof(path), "%.95s/strict_limit", old[i].dir);
		pgf_write_long(path, old[i].strict);
		snprintf(path, sizeof(path), "%.95s/max_ratio", old[i].dir);
		pgf_write_long(path, old[i].max_ratio);
	}
	return 0;
}

TEST(a_throttled_shared_write_fault_comes_before_a_change_of_its_page)
{
	long old_bytes = pgf_read_long(VM "dirty_bytes");
	long old_bg_bytes = pgf_read_long(VM "dirty_background_bytes");
	long old_ratio = pgf_read_long(VM "dirty_ratio");
	long old_bg_ratio = pgf_read_long(VM "dirty_background_ratio");
	size_t map_at = 0, before = 0, after = 0;
	struct bdi_limit bdis[NBDI];
	int nbdi = 0;
	unsigned long page;
	struct pgf_trace t;
	int go[2], fd, status;
	pid_t pid;
	void *probe;

	fd = open(FILE_PATH, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		SKIP("no writable /job");
	probe = ftruncate(fd, PAGE) ? MAP_FAILED :
		mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (probe == MAP_FAILED)
		SKIP("/job cannot be mapped shared and writable (9p without a cache)");
	munmap(probe, PAGE);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(sh != MAP_FAILED);
	sh->target = -1;
	ASSERT_SYS(pipe(go));
	pid = ASSERT_SYS(fork());
	if (pid == 0)
		child(go[0]);
	ASSERT_EQ(pgf_set_buffer_kb(1024), 0);
	ASSERT_EQ(pgf_start(pid), 0);
	fd = ASSERT_SYS(pgf_open(pid, 0));
	/* The least dirty memory the kernel allows: every write throttles. */
	ASSERT_EQ(pgf_write_long(VM "dirty_bytes", 2 * PAGE), 0);
	ASSERT_EQ(pgf_write_long(VM "dirty_background_bytes", PAGE), 0);
	ASSERT_EQ(bdi_limit(bdis, &nbdi, PAGE), 0);
	ASSERT_EQ(write(go[1], "g", 1), 1);
	ASSERT_EQ(pgf_read_all(fd, &t), 0);	/* to its exit */
	close(fd);
	waitpid(pid, &status, 0);
	if (old_bytes > 0)
		pgf_write_long(VM "dirty_bytes", old_bytes);
	else
		pgf_write_long(VM "dirty_ratio", old_ratio);
	if (old_bg_bytes > 0)
		pgf_write_long(VM "dirty_background_bytes", old_bg_bytes);
	else
		pgf_write_long(VM "dirty_background_ratio", old_bg_ratio);
	bdi_limit(bdis, &nbdi, 0);
	unlink(FILE_PATH);
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ASSERT_EQ(sh->err, 0);
	if (sh->target < 0)
		SKIP("the writer was never seen throttled (%d pages written)", NP);
	page = sh->base + sh->target * PAGE;
	for (size_t i = 0; i < t.nr; i++) {
		struct pgf_rec *r = &t.rec[i];

		if (!map_at && !strcmp(r->type, "map") && r->addr == page)
			map_at = i;
		if (strcmp(r->type, "fault") || (r->addr & ~(PAGE - 1)) != page)
			continue;
		ktap_diag("fault %c %s %s the map record", r->access, r->result,
			  map_at ? "after" : "before");
		if (map_at)
			after++;
		else
			before++;
	}
	ktap_diag("page %ld: %zu faults before the anonymous page's map record, %zu after",
		  sh->target, before, after);
	EXPECT_NE(map_at, 0);
	/*
	 * A's write fault on the file page, in order: before B's change.
	 * (On UML a fault that slept may be followed by a second one on the
	 * same page, and A's write may come again on the new page if B's
	 * change came before it was retried: more faults, never fewer.)
	 */
	EXPECT_GE(before, 1);
	/*
	 * And the lock was not held across the throttling: B's mmap()
	 * returned while A still slept in the fault (in one of TRIES pages
	 * at most; each time A might have woken up first).
	 */
	ktap_diag("B's mmap() %s A's throttling (%d pages replaced before)",
		  sh->overlap ? "ended in" : "waited for", sh->tries);
	EXPECT_EQ(sh->overlap, 1);
	pgf_trace_free(&t);
	munmap(sh, sizeof(*sh));
}

KTAP_MAIN()
