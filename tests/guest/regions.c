// SPDX-License-Identifier: GPL-2.0
/*
 * regions - region (VMA) records: replaying the trace (with the tools'
 * own reader, tools/lib/pgftrace.c) must rebuild /proc/<pid>/maps exactly.
 *
 * A traced child changes its address space and, at checkpoints, copies
 * /proc/self/maps into memory shared with the parent, then touches a
 * marker page whose fault marks the checkpoint in the trace. The parent
 * replays the trace up to each marker fault and compares, field by field.
 */
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include "ktap.h"
#include "util.h"
#include "pgf.h"
#include "mapscmp.h"
#include "hold.h"

#define P 4096UL
#define MAXCP 48
#define MAPS_MAX (48 * 1024)

struct checkpoints {
	int n;
	size_t len[MAXCP];
	char maps[MAXCP][MAPS_MAX];
};

static struct checkpoints *cps;		/* shared with the child */
static char *marker;			/* the child's marker page */

/* ---- the child's side ---------------------------------------------- */

static void checkpoint(void)
{
	int fd = open("/proc/self/maps", O_RDONLY);
	size_t len = 0;
	ssize_t n;

	if (fd < 0 || cps->n == MAXCP)
		_exit(20);
	while ((n = read(fd, cps->maps[cps->n] + len, MAPS_MAX - 1 - len)) > 0)
		len += n;
	close(fd);
	if (n < 0 || len >= MAPS_MAX - 1)
		_exit(21);
	cps->len[cps->n++] = len;
	/* The marker: a write fault on a page just zapped. */
	madvise(marker, P, MADV_DONTNEED);
	*(volatile char *)marker = 1;
}

/*
 * Run @fn in a traced child. The child maps the marker page first; tracing
 * starts when it is ready; the parent drains the trace concurrently into
 * a buffer. Returns the trace (malloc'd, NUL-terminated) and the child's
 * wait status.
 */
static char *traced_child(void (*fn)(void), int *status)
{
	int ready[2], go[2], fd;
	size_t len = 0, cap = 1 << 20;
	char *trace = malloc(cap), c;
	pid_t pid;
	ssize_t n;

	cps = mmap(NULL, sizeof(*cps), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (cps == MAP_FAILED || !trace || pipe(ready) || pipe(go))
		return NULL;
	cps->n = 0;
	pid = fork();
	if (pid == 0) {
		marker = mmap(NULL, P, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (marker == MAP_FAILED)
			_exit(22);
		if (write(ready[1], &marker, sizeof(marker)) != sizeof(marker) ||
		    read(go[0], &c, 1) != 1)
			_exit(23);
		fn();
		_exit(0);
	}
	if (read(ready[0], &marker, sizeof(marker)) != sizeof(marker))
		return NULL;
	/* A buffer that holds the whole run: the test is about regions. */
	if (pgf_set_buffer_kb(16384) || pgf_start(pid))
		return NULL;
	pgf_set_buffer_kb(64);
	fd = pgf_open(pid, 0);
	if (fd < 0 || write(go[1], "g", 1) != 1)
		return NULL;
	while ((n = read(fd, trace + len, cap - len - 1)) > 0) {
		len += n;
		if (cap - len < 65536) {
			cap *= 2;
			trace = realloc(trace, cap);
			if (!trace)
				return NULL;
		}
	}
	trace[len] = '\0';
	close(fd);
	waitpid(pid, status, 0);
	close(ready[0]);
	close(ready[1]);
	close(go[0]);
	close(go[1]);
	return trace;
}

/* ---- the parent's side ----------------------------------------------- */

struct replay_result {
	int checkpoints;	/* matched */
	int mismatches;
	unsigned long long faults, outside, regions, records, lost;
	bool exit_seen;
};

/* Replay @trace; compare at every marker fault; check every fault. */
static int replay(char *trace, struct replay_result *res)
{
	FILE *f = fmemopen(trace, strlen(trace), "r");
	struct pgft_space s = { 0 };
	struct pgft_reader rd;
	struct pgft_rec r;
	int ret, cp = 0;

	memset(res, 0, sizeof(*res));
	if (!f || pgft_open(&rd, f, "trace")) {
		ktap_diag("%s", f ? rd.error : "fmemopen failed");
		return -1;
	}
	while ((ret = pgft_next(&rd, &r)) > 0) {
		res->records++;
		pgft_apply(&s, &r);
		if (r.type == PGFT_LOST)
			res->lost += r.n[0] + r.n[1];
		if (r.type == PGFT_EXIT) {
			res->exit_seen = true;
			res->regions = r.n[3];
		}
		if (r.type != PGFT_FAULT || !pgft_counted(r.result))
			continue;
		res->faults++;
		if (!pgft_find(&s, r.addr)) {
			if (res->outside++ < 5)
				ktap_diag("fault at %llx outside every region (line %llu)",
					  r.addr, rd.line);
		}
		if (r.addr >> 12 == (unsigned long)marker >> 12 && !r.kernel) {
			if (cp < cps->n && !maps_compare(&s, cps->maps[cp], cps->len[cp], cp))
				res->checkpoints++;
			else
				res->mismatches++;
			cp++;
		}
	}
	if (ret < 0)
		ktap_diag("%s", rd.error);
	if (cp != cps->n)
		ktap_diag("%d marker faults for %d checkpoints", cp, cps->n);
	pgft_close(&rd);
	pgft_space_free(&s);
	fclose(f);
	return ret < 0 || cp != cps->n ? -1 : 0;
}

/* Run @fn traced and check the replay against every checkpoint. */
static void oracle(void (*fn)(void), int min_checkpoints)
{
	struct replay_result res;
	int status;
	char *trace = traced_child(fn, &status);

	ASSERT_TRUE(trace != NULL);
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(WEXITSTATUS(status), 0);
	EXPECT_EQ(replay(trace, &res), 0);
	ktap_diag("%llu records, %d checkpoints matched, %d mismatched, %llu faults, "
		  "%llu outside regions, %llu region ids, %llu lost",
		  res.records, res.checkpoints, res.mismatches, res.faults,
		  res.outside, res.regions, res.lost);
	EXPECT_EQ(res.lost, 0);
	EXPECT_EQ(res.mismatches, 0);
	EXPECT_GE(res.checkpoints, min_checkpoints);
	EXPECT_EQ(res.outside, 0);
	EXPECT_TRUE(res.exit_seen);
	free(trace);
}

/* ---- the random workload ------------------------------------------- */

#define ARENA_PAGES 2048
#define FILE_PAGES 64

static char *arena;
static int file_fd;
static __thread sigjmp_buf segv_jmp;
static __thread int in_touch;

static void on_segv(int sig)
{
	(void)sig;
	if (in_touch)
		siglongjmp(segv_jmp, 1);
	_exit(30);
}

static unsigned long long rnd(unsigned long long *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static int rprot(unsigned long long *s)
{
	static const int prots[] = { PROT_READ, PROT_READ | PROT_WRITE,
				     PROT_READ | PROT_EXEC, PROT_NONE,
				     PROT_READ | PROT_WRITE };
	return prots[rnd(s) % 5];
}

static int recurse(int depth)
{
	volatile char pad[1024];

	pad[0] = depth;
	return depth ? recurse(depth - 1) + pad[0] : pad[0];
}

static void *loose[16];		/* non-fixed mappings */
static size_t loose_len[16];
static char *brk0;

/* One random operation inside [lo, lo + pages) of the arena. */
static void random_op(unsigned long long *s, char *lo, long pages, bool whole)
{
	long off = rnd(s) % (pages - 16), len = 1 + rnd(s) % 16;
	long off2 = rnd(s) % (pages - 32), i;
	char *a = lo + off * P;
	int k;

	switch (rnd(s) % (whole ? 13 : 10)) {
	case 0:
		mmap(a, len * P, rprot(s), MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		break;
	case 1:
		mmap(a, len * P, rprot(s), MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		break;
	case 2:
		mmap(a, len * P, rprot(s), MAP_PRIVATE | MAP_FIXED, file_fd,
		     (rnd(s) % (FILE_PAGES - len)) * P);
		break;
	case 3:
		mmap(a, len * P, rprot(s) & ~PROT_EXEC, MAP_SHARED | MAP_FIXED,
		     file_fd, (rnd(s) % (FILE_PAGES - len)) * P);
		break;
	case 4:
		munmap(a, len * P);
		break;
	case 5:
		mprotect(a, len * P, rprot(s));
		break;
	case 6:		/* grow, shrink or move what is there */
		if (rnd(s) & 1)
			mremap(a, len * P, (1 + rnd(s) % 24) * P, 0);
		else
			mremap(a, len * P, (1 + rnd(s) % 24) * P,
			       MREMAP_MAYMOVE | MREMAP_FIXED, lo + off2 * P);
		break;
	case 7:		/* flags or a name change, with a split if partial */
		k = rnd(s) % 4;
		if (k < 2) {
			madvise(a, len * P, k ? MADV_DONTFORK : MADV_DOFORK);
		} else {
			/* A name, or none (CONFIG_ANON_VMA_NAME: else EINVAL) */
			static const char *const names[] = { "pgf-a", "pgf-b", NULL };

			prctl(PR_SET_VMA, PR_SET_VMA_ANON_NAME, a, len * P,
			      names[rnd(s) % 3]);
		}
		break;
	case 8:
	case 9:		/* touch pages; some are not accessible */
		for (i = 0; i < 1 + (long)(rnd(s) % 8); i++) {
			char *p = lo + (rnd(s) % pages) * P;

			in_touch = 1;
			if (!sigsetjmp(segv_jmp, 1)) {
				if (rnd(s) & 1)
					*(volatile char *)p = 1;
				else
					(void)*(volatile char *)p;
			}
			in_touch = 0;
		}
		break;
	case 10:	/* brk up or down, within 64 pages of the start */
		k = rnd(s) % 64;
		syscall(SYS_brk, brk0 + k * P);
		break;
	case 11:	/* non-fixed mappings, and mremap that may move them */
		k = rnd(s) % 16;
		if (loose[k]) {
			if (rnd(s) & 1) {
				munmap(loose[k], loose_len[k]);
				loose[k] = NULL;
			} else {
				void *n = mremap(loose[k], loose_len[k], len * P,
						 MREMAP_MAYMOVE);

				if (n != MAP_FAILED) {
					loose[k] = n;
					loose_len[k] = len * P;
				}
			}
		} else {
			loose[k] = mmap(NULL, len * P, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			loose_len[k] = len * P;
			if (loose[k] == MAP_FAILED)
				loose[k] = NULL;
		}
		break;
	case 12:	/* grow the stack */
		recurse(rnd(s) % 96);
		break;
	}
}

static void setup_workload(void)
{
	struct sigaction sa = { .sa_handler = on_segv, .sa_flags = SA_NODEFER };
	char page[P];

	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	arena = mmap(NULL, ARENA_PAGES * P, PROT_NONE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	file_fd = open("/tmp/pgf-regions-file", O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (arena == MAP_FAILED || file_fd < 0)
		_exit(24);
	memset(page, 'f', sizeof(page));
	for (int i = 0; i < FILE_PAGES; i++)
		if (write(file_fd, page, P) != (ssize_t)P)
			_exit(25);
	brk0 = (char *)syscall(SYS_brk, 0);
}

static unsigned long long seed;

static void single_thread_workload(void)
{
	unsigned long long s = seed;

	setup_workload();
	checkpoint();
	for (int i = 1; i <= 1200; i++) {
		random_op(&s, arena, ARENA_PAGES, true);
		if (i % 40 == 0)
			checkpoint();
	}
}

TEST(replay_matches_maps_seed_1)
{
	seed = 0x9e3779b97f4a7c15ULL;
	oracle(single_thread_workload, 31);
}

TEST(replay_matches_maps_seed_2)
{
	seed = 12345;
	oracle(single_thread_workload, 31);
}

TEST(replay_matches_maps_seed_3)
{
	seed = 0xdeadbeefcafeULL;
	oracle(single_thread_workload, 31);
}

#define NT 3
static pthread_barrier_t bar_in, bar_out;

static void *worker(void *arg)
{
	long me = (long)arg;
	unsigned long long s = seed + me * 7919;
	long slice = ARENA_PAGES / NT;

	for (int i = 1; i <= 600; i++) {
		random_op(&s, arena + me * slice * P, slice, false);
		if (i % 40 == 0) {
			pthread_barrier_wait(&bar_in);	/* main checkpoints */
			pthread_barrier_wait(&bar_out);
		}
	}
	return NULL;
}

static void threaded_workload(void)
{
	pthread_t th[NT];

	setup_workload();
	pthread_barrier_init(&bar_in, NULL, NT + 1);
	pthread_barrier_init(&bar_out, NULL, NT + 1);
	checkpoint();
	for (long i = 0; i < NT; i++)
		pthread_create(&th[i], NULL, worker, (void *)i);
	for (int c = 0; c < 600 / 40; c++) {
		pthread_barrier_wait(&bar_in);
		checkpoint();
		pthread_barrier_wait(&bar_out);
	}
	for (int i = 0; i < NT; i++)
		pthread_join(th[i], NULL);
	checkpoint();
}

TEST(replay_matches_maps_threads)
{
	seed = 42;
	oracle(threaded_workload, 17);
}

/* ---- one kind of change at a time ------------------------------------- */

/*
 * Each runs one change between two checkpoints; the oracle checks the
 * layout at both, and the test checks which records it took.
 */
static char *region_a;
static void (*one_change)(void);

/*
 * A sits between PROT_NONE guards so that it merges with nothing:
 *
 *   |G|AAAAAAAA|GGGGGGGGGGGGGGG|     G: ---p, A: rw-p, 8 pages
 */
static void one_change_workload(void)
{
	char *g = mmap(NULL, 24 * P, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);

	region_a = g + P;
	if (g == MAP_FAILED ||
	    mmap(region_a, 8 * P, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
		_exit(26);
	checkpoint();
	one_change();
	checkpoint();
}

/* Count the region records between the two checkpoints. */
static void change_records(const char *trace, int *maps, int *changes,
			   int *unmaps)
{
	int markers = 0;
	const char *l;

	*maps = *changes = *unmaps = 0;
	for (l = trace; *l; l = strchr(l, '\n') + 1) {
		struct pgft_rec r;
		char line[4096];

		snprintf(line, sizeof(line), "%.*s", (int)strcspn(l, "\n"), l);
		if (l == trace || pgft_parse(line, &r))
			continue;
		if (r.type == PGFT_FAULT && r.addr >> 12 == (unsigned long)marker >> 12)
			markers++;
		if (markers != 1)
			continue;
		*maps += r.type == PGFT_MAP;
		*changes += r.type == PGFT_CHANGE;
		*unmaps += r.type == PGFT_UNMAP;
	}
}

static void one(void (*change)(void), int maps, int changes, int unmaps)
{
	struct replay_result res;
	int status, m, c, u;
	char *trace;

	one_change = change;
	trace = traced_child(one_change_workload, &status);
	ASSERT_TRUE(trace != NULL);
	ASSERT_EQ(WEXITSTATUS(status), 0);
	ASSERT_EQ(replay(trace, &res), 0);
	EXPECT_EQ(res.mismatches, 0);
	EXPECT_EQ(res.checkpoints, 2);
	change_records(trace, &m, &c, &u);
	ktap_diag("map %d, change %d, unmap %d", m, c, u);
	/* -1: depends on what lies next to it; at least one, then. */
	if (maps >= 0)
		EXPECT_EQ(m, maps);
	else
		EXPECT_GE(m, 1);
	if (changes >= 0)
		EXPECT_EQ(c, changes);
	if (unmaps >= 0)
		EXPECT_EQ(u, unmaps);
	else
		EXPECT_GE(u, 1);
	free(trace);
}

/*
 * The counts are what mm does, and the record says it as mm does it.
 *
 *  before:           |AAAAAAAA|        (id a)
 *  munmap(A+2, 3):   |BB|   |CCC|      both pieces are split off as new
 *                                      VMAs, the original goes with the hole
 */
static void do_munmap_middle(void) { munmap(region_a + 2 * P, 3 * P); }
TEST(munmap_middle_splits) { one(do_munmap_middle, 2, 0, 1); }

/*
 *  before:           |AAAAAAAA|
 *  munmap(A, 8):     |        |
 */
static void do_munmap_whole(void) { munmap(region_a, 8 * P); }
TEST(munmap_whole_removes) { one(do_munmap_whole, 0, 0, 1); }

/*
 *  before:               |AAAAAAAA|        rw-p
 *  mprotect(A+2, 2, r):  |AA|BB|CCCC|      rw-p r--p rw-p: A shrinks (change),
 *                                          B and C are new (map)
 */
static void do_mprotect_split(void) { mprotect(region_a + 2 * P, 2 * P, PROT_READ); }
TEST(mprotect_splits_in_three) { one(do_mprotect_split, 2, 1, 0); }

/*
 *  before:               |AAAAAAAA|   rw-p
 *  mprotect(A+4, 4, r):  |AAAA|BBBB|  A shrinks, B is new
 *  mprotect(A+4, 4, rw): |AAAAAAAA|   A grows back over B, B goes
 */
static void do_mprotect_merge(void)
{
	mprotect(region_a + 4 * P, 4 * P, PROT_READ);
	mprotect(region_a + 4 * P, 4 * P, PROT_READ | PROT_WRITE);
}
TEST(mprotect_split_then_merge) { one(do_mprotect_merge, 1, 2, 1); }

/*
 *  before:              |AAAAAAAA|
 *  mremap(A, 8 -> 4):   |BBBB|        mm unmaps the tail: the head is split
 *                                     off as a new VMA, A goes with the tail
 */
static void do_mremap_shrink(void) { mremap(region_a, 8 * P, 4 * P, 0); }
TEST(mremap_shrinks) { one(do_mremap_shrink, 1, 0, 1); }

/*
 *  before:              |AAAAAAAA|GGGGGGGGGGGGGGG|
 *  munmap(G):           |AAAAAAAA|               |   G goes
 *  mremap(A, 8 -> 16):  |AAAAAAAAAAAAAAAA|       |   A grows in place
 */
static void do_mremap_grow(void)
{
	munmap(region_a + 8 * P, 15 * P);
	mremap(region_a, 8 * P, 16 * P, 0);
}
TEST(mremap_grows_in_place) { one(do_mremap_grow, 0, 1, 1); }

/*
 *  before:              |AAAAAAAA|      ...      |BBBBBBBB| (B: new, ---p)
 *  mremap(A -> B):      |        |      ...      |CCCCCCCC|
 *                       A goes, B goes under it, C is A's copy (new). B may
 *                       merge with a neighbour as it is made, so the counts
 *                       depend on the neighbours; the layout is checked.
 */
static void do_mremap_move(void)
{
	char *b = mmap(NULL, 8 * P, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	mremap(region_a, 8 * P, 8 * P, MREMAP_MAYMOVE | MREMAP_FIXED, b);
}
TEST(mremap_moves) { one(do_mremap_move, -1, -1, -1); }

/*
 *  before:                      |AAAAAAAA|
 *  mmap(A+2, 2, FIXED, shared): |BB|SS|CCCC|  as munmap of the middle, then
 *                                              the new shared mapping S
 */
static void do_map_fixed_over(void)
{
	mmap(region_a + 2 * P, 2 * P, PROT_READ | PROT_WRITE,
	     MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
}
TEST(map_fixed_over_existing) { one(do_map_fixed_over, 3, 0, 1); }

/*
 * A new VMA is a new region, even where the memory of a freed one was
 * (uapi: an id is stable for a region's life). The test kernel's alias
 * knob (CONFIG_PGFAULT_HISTORY_DEBUG) has the change below meet the
 * trace's entry of A under the pointer of the new VMA N, as when N took
 * the memory of A's freed VMA:
 *
 *  before:                  |AAAAAAAA|     rw-p (id a)
 *  mmap(A, 8, FIXED, r--p): |NNNNNNNN|     A unmapped, N mapped: not a
 *                                          change of a
 */
static void do_map_fixed_aliased(void)
{
	if (hold_write("alias", getpid()))
		_exit(27);
	mmap(region_a, 8 * P, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
	     -1, 0);
}
TEST(a_new_vma_where_a_freed_one_was_is_a_new_region)
{
	long before;

	if (access(HOLD_DIR "alias", W_OK))
		SKIP("no " HOLD_DIR "alias (CONFIG_PGFAULT_HISTORY_DEBUG)");
	before = hold_counter("aliased");
	one(do_map_fixed_aliased, 1, 0, 1);
	/* The entry of A did meet N's pointer. */
	EXPECT_EQ(hold_counter("aliased"), before + 1);
}

/*
 *  before:                  |AAAAAAAA|
 *  madvise(A, 4, DONTFORK): |BBBB|AAAA|  same permissions, a new VMA below
 */
static void do_madvise_split(void) { madvise(region_a, 4 * P, MADV_DONTFORK); }
TEST(madvise_splits) { one(do_madvise_split, 1, 1, 0); }

/* Whether this kernel names anonymous VMAs (CONFIG_ANON_VMA_NAME). */
static bool names_vmas(void)
{
	void *p = mmap(NULL, P, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	bool ok;

	if (p == MAP_FAILED)
		return false;
	ok = !prctl(PR_SET_VMA, PR_SET_VMA_ANON_NAME, p, P, "pgf-probe");
	munmap(p, P);
	return ok;
}

/*
 *  before:               |AAAAAAAA|
 *  name(A, 8, "pgf-n"):  |AAAAAAAA|  [anon:pgf-n]: no split, no store,
 *                                     only the VMA's name changes
 */
static void do_name_whole(void)
{
	prctl(PR_SET_VMA, PR_SET_VMA_ANON_NAME, region_a, 8 * P, "pgf-n");
}
TEST(a_name_changes_the_region)
{
	if (!names_vmas())
		SKIP("no CONFIG_ANON_VMA_NAME");
	one(do_name_whole, 0, 1, 0);
}

/*
 *  before:               |AAAAAAAA|
 *  name(A, 4, "pgf-n"):  |NNNN|AAAA|  a new VMA below, with the name
 */
static void do_name_part(void)
{
	prctl(PR_SET_VMA, PR_SET_VMA_ANON_NAME, region_a, 4 * P, "pgf-n");
}
TEST(a_name_on_part_splits)
{
	if (!names_vmas())
		SKIP("no CONFIG_ANON_VMA_NAME");
	one(do_name_part, 1, 1, 0);
}

/*
 *  before:       [heap] |HHHH|  (or none yet)
 *  brk(+16):     [heap] |HHHHHHHHHHHHHHHHHHHH|
 */
static void do_brk(void)
{
	char *b = (char *)syscall(SYS_brk, 0);

	syscall(SYS_brk, b + 16 * P);
	*(volatile char *)b = 1;
}
TEST(brk_grows_the_heap)
{
	struct replay_result res;
	int status, m, c, u;
	char *trace;

	one_change = do_brk;
	trace = traced_child(one_change_workload, &status);
	ASSERT_TRUE(trace != NULL);
	ASSERT_EQ(replay(trace, &res), 0);
	EXPECT_EQ(res.mismatches, 0);
	change_records(trace, &m, &c, &u);
	/* A new heap or a grown one, and nothing else. */
	EXPECT_EQ(m + c, 1);
	EXPECT_EQ(u, 0);
	free(trace);
}

/*
 *  before:   [stack] |    SSSS|
 *  deep recursion:   |SSSSSSSS|   the stack grows down: a change
 */
static void do_stack(void) { recurse(200); }
TEST(stack_growth_is_a_change)
{
	struct replay_result res;
	int status, m, c, u;
	char *trace;

	one_change = do_stack;
	trace = traced_child(one_change_workload, &status);
	ASSERT_TRUE(trace != NULL);
	ASSERT_EQ(replay(trace, &res), 0);
	EXPECT_EQ(res.mismatches, 0);
	change_records(trace, &m, &c, &u);
	EXPECT_EQ(m, 0);
	EXPECT_EQ(u, 0);
	EXPECT_GE(c, 0);	/* 0 if the stack was already deep enough */
	free(trace);
}

/* ---- a change another process makes ----------------------------------- */

/*
 * An untraced process D, the traced child's clone(CLONE_VM) child (a
 * process of its own, as a vfork()ed helper or a userfaultfd monitor
 * is, in effect), splits one of the child's mappings. The child then
 * takes no mmap write lock of its own before its next fault (the
 * checkpoint's marker): the split must already be in the trace there.
 */
static char *rx;

static int remote_split(void *arg)
{
	(void)arg;
	return mprotect(rx + 2 * P, P, PROT_READ) ? 1 : 0;
}

static void another_process_changes(void)
{
	size_t stack_size = 64 * 1024;
	char *stack = mmap(NULL, stack_size, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int status;
	pid_t d;

	rx = mmap(NULL, 8 * P, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (stack == MAP_FAILED || rx == MAP_FAILED)
		_exit(40);
	checkpoint();
	d = clone(remote_split, stack + stack_size, CLONE_VM | SIGCHLD, NULL);
	if (d < 0 || waitpid(d, &status, __WALL) != d || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		_exit(41);
	checkpoint();
}

TEST(another_process_change_precedes_the_next_fault)
{
	/* The mm's owner, through which the change finds the trace. */
	if (!has_memcg())
		SKIP("no memory controller: mm->owner is not kept");
	oracle(another_process_changes, 2);
}

/* ---- two processes, one mm ------------------------------------------- */

/*
 * C and B share one mm (B is C's clone(CLONE_VM) child, a process of its
 * own) and both are traced: each trace must follow every change, whoever
 * makes it. Then B's trace stops, and C's must still catch B's last
 * change, made when only B's trace recorded it.
 *
 *   step 1  C: mprotect a page of X        |XXrXXXXX|
 *   step 2  B: mmap Y, mprotect its half    Y: |YYyy|
 *   step 3  C: munmap a page of Y           Y: |YY y|
 *   step 4  B: mprotect another page of X  |XXrXrXXX|   B's trace knows it
 *   step 5  C: snapshot S1 (B's trace is checked against it)
 *   step 6  parent: stop B's trace
 *   step 7  C: mmap Z; snapshot S2 (C's trace is checked against it)
 */
struct shared_mm {
	volatile int step;
	volatile pid_t b;
	size_t len[2];
	char maps[2][MAPS_MAX];
};

static struct shared_mm *smm;
static char *sx, *sy;

static void wait_step(int n)
{
	while (smm->step < n)
		usleep(200);
}

static void snapshot(int i)
{
	int fd = open("/proc/self/maps", O_RDONLY);
	ssize_t n;

	smm->len[i] = 0;
	while (fd >= 0 && (n = read(fd, smm->maps[i] + smm->len[i],
				    MAPS_MAX - 1 - smm->len[i])) > 0)
		smm->len[i] += n;
	close(fd);
}

static int shared_b(void *arg)
{
	(void)arg;
	wait_step(2);
	sy = mmap(NULL, 4 * P, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (sy == MAP_FAILED || mprotect(sy + 2 * P, 2 * P, PROT_READ))
		_exit(31);
	smm->step = 3;
	wait_step(4);
	if (mprotect(sx + 4 * P, P, PROT_READ))
		_exit(32);
	smm->step = 5;
	wait_step(8);
	return 0;
}

static void shared_c(void)
{
	size_t stack_size = 256 * 1024;
	char *stack = mmap(NULL, stack_size, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int status;
	pid_t b;
	void *z;

	sx = mmap(NULL, 8 * P, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (stack == MAP_FAILED || sx == MAP_FAILED)
		_exit(30);
	b = clone(shared_b, stack + stack_size, CLONE_VM | SIGCHLD, NULL);
	if (b < 0)
		_exit(33);
	smm->b = b;
	wait_step(1);
	if (mprotect(sx + 2 * P, P, PROT_READ))
		_exit(34);
	smm->step = 2;
	wait_step(3);
	if (munmap(sy + 2 * P, P))
		_exit(35);
	smm->step = 4;
	wait_step(5);
	snapshot(0);
	smm->step = 6;
	wait_step(7);
	z = mmap(NULL, 3 * P, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (z == MAP_FAILED)
		_exit(36);
	snapshot(1);
	smm->step = 8;
	if (waitpid(b, &status, __WALL) != b || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		_exit(37);
	_exit(0);
}

struct drain {
	int fd;
	char *buf;
	size_t len, cap;
};

static void *drain_main(void *arg)
{
	struct drain *d = arg;
	ssize_t n;

	while ((n = read(d->fd, d->buf + d->len, d->cap - d->len - 1)) > 0)
		d->len += n;
	d->buf[d->len] = '\0';
	return NULL;
}

/* Replay @trace up to (not including) the first record of @until. */
static int replay_until(char *trace, enum pgft_type until, int snap,
			unsigned long long *lost)
{
	FILE *f = fmemopen(trace, strlen(trace), "r");
	struct pgft_space s = { 0 };
	struct pgft_reader rd;
	struct pgft_rec r;
	bool found = false;
	int ret = -1;

	*lost = 0;
	if (!f || pgft_open(&rd, f, "trace"))
		return -1;
	while (pgft_next(&rd, &r) > 0) {
		if (r.type == until) {
			found = true;
			ret = maps_compare(&s, smm->maps[snap], smm->len[snap], snap);
			break;
		}
		if (r.type == PGFT_LOST)
			*lost += r.n[0] + r.n[1];
		pgft_apply(&s, &r);
	}
	if (!found)
		ktap_diag("snapshot %d: the trace has no record %d", snap, until);
	pgft_close(&rd);
	pgft_space_free(&s);
	fclose(f);
	return ret;
}

TEST(two_processes_share_one_mm)
{
	struct drain dc = { .cap = 1 << 22 }, db = { .cap = 1 << 22 };
	unsigned long long lost;
	pthread_t tc, tb;
	int status;
	pid_t c;

	smm = mmap(NULL, sizeof(*smm), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(smm != MAP_FAILED);
	dc.buf = malloc(dc.cap);
	db.buf = malloc(db.cap);
	ASSERT_TRUE(dc.buf && db.buf);
	c = fork();
	if (c == 0)
		shared_c();
	ASSERT_GT(c, 0);
	while (!smm->b)
		usleep(200);
	ASSERT_EQ(pgf_set_buffer_kb(16384), 0);
	ASSERT_EQ(pgf_start(c), 0);
	ASSERT_EQ(pgf_start(smm->b), 0);
	pgf_set_buffer_kb(64);
	dc.fd = pgf_open(c, 0);
	db.fd = pgf_open(smm->b, 0);
	ASSERT_GE(dc.fd, 0);
	ASSERT_GE(db.fd, 0);
	ASSERT_EQ(pthread_create(&tc, NULL, drain_main, &dc), 0);
	ASSERT_EQ(pthread_create(&tb, NULL, drain_main, &db), 0);
	smm->step = 1;
	wait_step(6);
	ASSERT_EQ(pgf_stop(smm->b), 0);
	smm->step = 7;
	ASSERT_EQ(waitpid(c, &status, 0), c);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	pthread_join(tc, NULL);
	pthread_join(tb, NULL);
	close(dc.fd);
	close(db.fd);
	/* B's trace up to its stop: everything up to step 4. */
	EXPECT_EQ(replay_until(db.buf, PGFT_STOP, 0, &lost), 0);
	EXPECT_EQ(lost, 0);
	/* C's trace up to its exit: B's step 4 and C's step 7 included. */
	EXPECT_EQ(replay_until(dc.buf, PGFT_EXIT, 1, &lost), 0);
	EXPECT_EQ(lost, 0);
	free(dc.buf);
	free(db.buf);
	munmap(smm, sizeof(*smm));
}

/* ---- the stream's start, exec and exit ---------------------------------- */

/* @trace through the tools' reader; the header is checked. */
/* ---- a fault while changes wait to be recorded ------------------------ */

/*
 * The test kernel holds the thread that records a process's noted
 * changes (CONFIG_PGFAULT_HISTORY_DEBUG's pgfault_history_test/): the
 * traced child's main thread maps B and is held on its way back to user
 * space, B noted and not yet recorded. Its other thread then faults:
 *
 * - in A, which no change met: the fault goes on at once, and its record
 *   comes before B's map record;
 * - in B, while the main thread is held with the trace's mutex: the fault
 *   waits for it, and a SIGKILL ends that wait.
 */
struct held {
	volatile int go, done;
	char *volatile a, *volatile b;
};

static struct held *hd;

static void *held_toucher(void *arg)
{
	while (!hd->go)
		usleep(1000);
	if (arg)
		(void)*(volatile char *)hd->b;
	else
		hd->a[P] = 1;
	hd->done = 1;
	return NULL;
}

/*
 * The traced child: A, the other thread, go; then map B (with @in_b,
 * over a placeholder, where the other thread knows to find it).
 */
static void held_child(int ready_fd, int go_fd, bool in_b)
{
	int fixed = 0;
	pthread_t th;
	char *b = NULL;
	char c;

	/* rw-p, and B r--p: they cannot merge. */
	hd->a = mmap(NULL, 4 * P, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (in_b) {
		b = hd->b = mmap(NULL, P, PROT_NONE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		fixed = MAP_FIXED;
	}
	if (hd->a == MAP_FAILED || b == MAP_FAILED)
		_exit(50);
	hd->a[0] = 1;
	if (pthread_create(&th, NULL, held_toucher, in_b ? hd : NULL) ||
	    write(ready_fd, "r", 1) != 1 || read(go_fd, &c, 1) != 1)
		_exit(51);
	b = mmap(b, P, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | fixed, -1, 0);
	if (b == MAP_FAILED)
		_exit(52);
	hd->b = b;
	pthread_join(th, NULL);
	_exit(0);
}

/*
 * Fork the child, trace it, hold it at @knob as it records B's map.
 * Returns its pid and the trace's fd, or -1 (the test is skipped when
 * the kernel has no hold).
 */
static pid_t held_start(const char *knob, bool in_b, int *fd)
{
	int ready[2], go[2];
	long before;
	pid_t pid;
	char c;

	hd = mmap(NULL, sizeof(*hd), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (hd == MAP_FAILED || pipe(ready) || pipe(go))
		return -1;
	memset(hd, 0, sizeof(*hd));
	pid = fork();
	if (pid == 0)
		held_child(ready[1], go[0], in_b);
	/* Its other thread made (a change held too soon would hold that). */
	if (pid < 0 || read(ready[0], &c, 1) != 1 ||
	    pgf_set_buffer_kb(4096) || pgf_start(pid) || pgf_set_buffer_kb(64))
		return -1;
	*fd = pgf_open(pid, 0);
	before = hold_count();
	if (*fd < 0 || hold_write(knob, pid) || write(go[1], "g", 1) != 1 ||
	    !hold_reached(before))
		return -1;
	close(ready[0]);
	close(ready[1]);
	close(go[0]);
	close(go[1]);
	return pid;
}

TEST(a_fault_elsewhere_goes_before_a_change_not_yet_recorded)
{
	ssize_t fault = -1, map = -1;
	struct pgf_trace tr;
	int status, fd, i;
	pid_t pid;

	if (access(HOLD_DIR "hold_noted", W_OK))
		SKIP("no " HOLD_DIR " (CONFIG_PGFAULT_HISTORY_DEBUG)");
	pid = held_start("hold_noted", false, &fd);
	ASSERT_GT(pid, 0);
	hd->go = 1;
	for (i = 0; i < 10000 && !hd->done; i++)
		usleep(1000);
	EXPECT_TRUE(hd->done);
	ASSERT_EQ(hold_write("hold_noted", 0), 0);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ASSERT_EQ(pgf_read_all(fd, &tr), 0);
	close(fd);
	for (i = 0; i < (int)tr.nr; i++) {
		struct pgf_rec *r = &tr.rec[i];

		if (!strcmp(r->type, "fault") &&
		    r->addr >> 12 == (unsigned long)(hd->a + P) >> 12)
			fault = i;
		if (!strcmp(r->type, "map") && r->addr == (unsigned long)hd->b)
			map = i;
	}
	ktap_diag("the fault in A is record %zd, the map of B %zd", fault, map);
	EXPECT_GE(fault, 0);
	EXPECT_GE(map, 0);
	EXPECT_LT(fault, map);
	pgf_trace_free(&tr);
	munmap(hd, sizeof(*hd));
}

TEST(a_fault_waiting_for_the_trace_dies_at_sigkill)
{
	pid_t pid, tid;
	int status, fd, i;
	char st = 0;

	if (access(HOLD_DIR "hold_locked", W_OK))
		SKIP("no " HOLD_DIR " (CONFIG_PGFAULT_HISTORY_DEBUG)");
	pid = held_start("hold_locked", true, &fd);
	ASSERT_GT(pid, 0);
	tid = other_thread(pid);
	ASSERT_GT(tid, 0);
	hd->go = 1;
	/* Its fault in B waits for the trace: asleep, uninterruptibly. */
	for (i = 0; i < 10000 && (st = thread_state(pid, tid)) != 'D'; i++)
		usleep(1000);
	ktap_diag("the faulting thread is in state %c", st ? st : '-');
	EXPECT_EQ(st, 'D');
	ASSERT_EQ(kill(pid, SIGKILL), 0);
	/* The main thread is still held, with the mutex: the other exits. */
	for (i = 0; i < 10000 && (st = thread_state(pid, tid)) != 0 &&
	     st != 'Z' && st != 'X'; i++)
		usleep(1000);
	ktap_diag("after SIGKILL, in state %c, the main thread still held",
		  st ? st : '-');
	EXPECT_TRUE(st == 0 || st == 'Z' || st == 'X');
	EXPECT_EQ(hd->done, 0);
	ASSERT_EQ(hold_write("hold_locked", 0), 0);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	close(fd);
	munmap(hd, sizeof(*hd));
}

static FILE *open_trace(char *trace, struct pgft_reader *rd)
{
	FILE *f = fmemopen(trace, strlen(trace), "r");

	ASSERT_TRUE(f != NULL);
	ASSERT_EQ(pgft_open(rd, f, "trace"), 0);
	return f;
}

static void nothing(void) { }

TEST(trace_starts_with_the_layout)
{
	struct pgft_reader rd;
	struct pgft_rec r;
	int status, i = 0;
	char *trace = traced_child(nothing, &status);
	FILE *f;

	ASSERT_TRUE(trace != NULL);
	f = open_trace(trace, &rd);
	ASSERT_EQ(pgft_next(&rd, &r), 1);
	EXPECT_EQ(r.type, PGFT_START);
	ASSERT_EQ(pgft_next(&rd, &r), 1);
	ASSERT_EQ(r.type, PGFT_LAYOUT);
	ASSERT_GT(r.n[0], 3);
	for (unsigned long long n = r.n[0]; n; n--, i++) {
		ASSERT_EQ(pgft_next(&rd, &r), 1);
		EXPECT_EQ(r.type, PGFT_MAP);
		EXPECT_EQ(r.id, (unsigned long long)i + 1);	/* 1, 2, ... */
	}
	pgft_close(&rd);
	fclose(f);
	free(trace);
}

static void exec_true(void)
{
	checkpoint();
	execl("/bin/busybox", "true", NULL);
	_exit(27);
}

TEST(exec_replaces_the_address_space)
{
	struct pgft_reader rd;
	struct pgft_space s = { 0 };
	struct pgft_rec r;
	int status, maps_after = 0, faults_after = 0, outside = 0;
	bool exec_seen = false;
	char *trace = traced_child(exec_true, &status);
	FILE *f;

	ASSERT_TRUE(trace != NULL);
	ASSERT_EQ(WEXITSTATUS(status), 0);
	f = open_trace(trace, &rd);
	while (pgft_next(&rd, &r) > 0) {
		pgft_apply(&s, &r);
		if (r.type == PGFT_EXEC) {
			exec_seen = true;
			EXPECT_EQ(strcmp(r.text, "/bin/busybox"), 0);
			EXPECT_EQ(s.nr, 0);	/* the old space is gone */
		}
		if (exec_seen && r.type == PGFT_MAP) {
			maps_after++;
			EXPECT_EQ(r.type, PGFT_MAP);
		}
		if (exec_seen && r.type == PGFT_FAULT && pgft_counted(r.result)) {
			faults_after++;
			outside += !pgft_find(&s, r.addr);
		}
	}
	EXPECT_TRUE(exec_seen);
	ktap_diag("after exec: %d map records, %d faults", maps_after, faults_after);
	EXPECT_GE(maps_after, 3);	/* stack, text, data at least */
	EXPECT_GT(faults_after, 0);
	EXPECT_EQ(outside, 0);
	pgft_close(&rd);
	pgft_space_free(&s);
	fclose(f);
	free(trace);
}

static void exit_seven(void)
{
	void *p = mmap(NULL, P, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	munmap(p, P);
	_exit(7);
}

TEST(exit_record_carries_the_totals)
{
	struct pgft_reader rd;
	struct pgft_rec r, last = { 0 };
	unsigned long long faults = 0, max_id = 0;
	int status;
	char *trace = traced_child(exit_seven, &status);
	FILE *f;

	ASSERT_TRUE(trace != NULL);
	ASSERT_EQ(WEXITSTATUS(status), 7);
	f = open_trace(trace, &rd);
	while (pgft_next(&rd, &r) > 0) {
		faults += r.type == PGFT_FAULT;
		if ((r.type == PGFT_MAP || r.type == PGFT_CHANGE) && r.id > max_id)
			max_id = r.id;
		last = r;
	}
	ASSERT_EQ(last.type, PGFT_EXIT);
	EXPECT_EQ(last.n[0], 7 << 8);		/* wait status */
	EXPECT_EQ(last.n[1], faults);
	EXPECT_EQ(last.n[2], 0);		/* lost */
	EXPECT_EQ(last.n[3], max_id);		/* region ids handed out */
	pgft_close(&rd);
	fclose(f);
	free(trace);
}

TEST(region_records_hold_no_kernel_addresses)
{
	struct pgft_reader rd;
	struct pgft_rec r;
	int status, n = 0;
	char *trace = traced_child(single_thread_workload, &status);
	FILE *f;

	seed = 7;
	ASSERT_TRUE(trace != NULL);
	f = open_trace(trace, &rd);
	while (pgft_next(&rd, &r) > 0) {
		if (r.type != PGFT_MAP && r.type != PGFT_CHANGE && r.type != PGFT_UNMAP)
			continue;
		n++;
		EXPECT_LT(r.start, USER_ADDR_END);
		EXPECT_LE(r.end, USER_ADDR_END);
		/* Ids are small sequence numbers, never pointers. */
		EXPECT_LT(r.id, 1000000);
	}
	EXPECT_GT(n, 100);
	pgft_close(&rd);
	fclose(f);
	free(trace);
}

/* ---- a name as long as a path gets ------------------------------------ */

#define LONG_DIR "/tmp/pgf-long"
#define LONG_LEVELS 16	/* of 250 characters: a path of about 4,050 */
#define LONG_PAGE 4096UL

/* Make (or, with @remove, take away) the directories; the file's path. */
static int long_path(char *path, size_t size, bool remove)
{
	char name[251];
	size_t n;

	memset(name, 'd', 250);
	name[250] = '\0';
	n = snprintf(path, size, "%s", LONG_DIR);
	if (!remove && mkdir(path, 0755) && errno != EEXIST)
		return -1;
	for (int i = 0; i < LONG_LEVELS && n + 252 < size; i++) {
		n += snprintf(path + n, size - n, "/%s", name);
		if (!remove && mkdir(path, 0755) && errno != EEXIST)
			return -1;
	}
	snprintf(path + n, size - n, "/f");
	if (remove) {
		unlink(path);
		for (int i = 0; i <= LONG_LEVELS; i++) {
			char *slash = strrchr(path, '/');

			*slash = '\0';
			rmdir(path);
		}
	}
	return 0;
}

/*
 * With the smallest buffer (vm.pgfault_history_buffer_kb=4), a process
 * that maps a file whose path is about 4,050 characters long: its layout
 * holds a region record larger than half a 4 KiB ring. The control ring
 * grows as far as such a record needs, so the layout goes in and the
 * faults after it are kept; with a control ring held to 4 KiB the
 * layout never fit, and every fault was dropped for the trace's life.
 */
TEST(a_region_with_a_path_max_name_fits_the_smallest_buffer)
{
	static char path[4096], text[1 << 20];
	int fd, go[2], ready[2], status, faults = 0;
	size_t len = 0;
	bool named = false;
	char *p, c;
	pid_t pid;
	ssize_t n;

	ASSERT_EQ(long_path(path, sizeof(path), false), 0);
	ktap_diag("a path of %zu characters", strlen(path));
	ASSERT_GT(strlen(path), 4000);
	fd = ASSERT_SYS(open(path, O_RDWR | O_CREAT | O_TRUNC, 0644));
	ASSERT_SYS(ftruncate(fd, 4 * LONG_PAGE));
	ASSERT_SYS(pipe(go));
	ASSERT_SYS(pipe(ready));
	pid = ASSERT_SYS(fork());
	if (pid == 0) {
		char *m = mmap(NULL, 4 * LONG_PAGE, PROT_READ, MAP_SHARED, fd, 0);
		char *a = mmap(NULL, 16 * LONG_PAGE, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (m == MAP_FAILED || a == MAP_FAILED ||
		    write(ready[1], "r", 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(2);
		for (int i = 0; i < 16; i++)
			a[i * LONG_PAGE] = 1;
		_exit(0);
	}
	close(fd);
	ASSERT_EQ(read(ready[0], &c, 1), 1);	/* the file is mapped */
	ASSERT_EQ(pgf_set_buffer_kb(4), 0);
	ASSERT_EQ(pgf_start(pid), 0);
	ASSERT_EQ(pgf_set_buffer_kb(64), 0);
	fd = ASSERT_SYS(pgf_open(pid, 0));
	ASSERT_EQ(write(go[1], "g", 1), 1);
	while ((n = read(fd, text + len, sizeof(text) - 1 - len)) > 0)
		len += n;
	EXPECT_EQ(n, 0);
	text[len] = '\0';
	close(fd);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	for (p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (!strncmp(p, "fault ", 6))
			faults++;
		if (!strncmp(p, "map ", 4) && strstr(p, path) &&
		    strstr(p, path) < strchr(p, '\n'))
			named = true;
	}
	ktap_diag("%d faults kept, the long-named region %s", faults,
		  named ? "told" : "never told");
	EXPECT_TRUE(named);
	EXPECT_GE(faults, 16);
	long_path(path, sizeof(path), true);
}

KTAP_MAIN()
