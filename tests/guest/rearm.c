// SPDX-License-Identifier: GPL-2.0
/*
 * rearm - re-reference tracing: writing "rearm" makes the next access to
 * every page of a traced process fault again ("reref" in the trace).
 *
 * Oracles: a known page-touch sequence inside a guarded region (the fault
 * sequence of each phase is its first-touch order, with its access
 * letters); /proc/<pid>/stat for the count of faults; a pattern read back
 * for the contents of every kind of mapping; /proc/vmstat for migrations.
 */
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "ktap.h"
#include "util.h"
#include "pgf.h"
#include "oracle.h"
#include "hold.h"

#define PAGE		4096UL
#define NP		64	/* pages in the oracle's region */
#define FILE_PATH	"/tmp/pgf-rearm-file"

static char *area;
static unsigned int perm[NP];	/* phase 2's order: a permutation */

static void make_perm(void)
{
	unsigned int seed = 12345;

	for (unsigned int i = 0; i < NP; i++)
		perm[i] = i;
	for (unsigned int i = NP - 1; i > 0; i--) {
		unsigned int j = rand_r(&seed) % (i + 1), x = perm[i];

		perm[i] = perm[j];
		perm[j] = x;
	}
}

/*
 * The region is guarded (map_guarded()): nothing else faults inside it.
 * 1: map, send the address; 2: write every page in order; 3: read every
 * page in perm[] order; 4: write the even pages; 5: "rearm" itself, then
 * read page 0 and 1.
 */
static void oracle_steps(int step, int out)
{
	volatile char sink;

	switch (step) {
	case 1:
		area = map_guarded(NP);
		if (!area)
			_exit(2);
		if (write(out, &area, sizeof(area)) != sizeof(area))
			_exit(2);
		break;
	case 2:
		for (int i = 0; i < NP; i++)
			area[i * PAGE] = 1;
		break;
	case 3:
		for (int i = 0; i < NP; i++)
			sink = area[perm[i] * PAGE];
		(void)sink;
		break;
	case 4:
		for (int i = 0; i < NP; i += 2)
			area[i * PAGE] = 2;
		break;
	case 5:
		if (pgf_rearm(getpid()))
			_exit(5);
		sink = area[0];
		sink = area[PAGE];
		(void)sink;
		break;
	}
}

static bool in_area(const struct pgf_rec *r)
{
	return !strcmp(r->type, "fault") && r->addr >= (unsigned long)area &&
	       r->addr < (unsigned long)area + NP * PAGE;
}

/*
 * The faults in the region after the @k-th rearm record (0: before the
 * first) and before the next: their page numbers, access letters and
 * results, in order. Returns how many.
 */
static int phase(const struct pgf_trace *t, int k, int *pg, char *acc,
		 const char **res, int max)
{
	int seen = 0, n = 0;

	for (size_t i = 0; i < t->nr; i++) {
		const struct pgf_rec *r = &t->rec[i];

		if (!strcmp(r->type, "rearm")) {
			seen++;
			continue;
		}
		if (seen != k || !in_area(r))
			continue;
		if (n < max) {
			pg[n] = (r->addr - (unsigned long)area) / PAGE;
			acc[n] = r->access;
			res[n] = r->result;
		}
		n++;
	}
	return n;
}

/*
 * The oracle's puppet, traced, its trace open on *@fd, its region mapped
 * and written in order (steps 1 and 2); *@before: its faults before the
 * start, for pgf_stop_and_read().
 */
static void oracle_written(struct puppet *p, int *fd, int *before)
{
	make_perm();
	ASSERT_SYS(puppet_spawn(p, oracle_steps));
	*before = pgf_faults_of(p->pid);
	ASSERT_EQ(pgf_start(p->pid), 0);
	*fd = ASSERT_SYS(pgf_open(p->pid, 0));
	ASSERT_EQ(puppet_step_recv(p, 1, &area, sizeof(area)), 0);
	ASSERT_EQ(puppet_step(p, 2), 0);
}

TEST(rearm_between_phases_gives_each_phase_first_touch_order)
{
	int pg[4 * NP], n, before, fd;
	const char *res[4 * NP];
	char acc[4 * NP];
	struct pgf_trace t;
	struct puppet p;
	size_t rearms = 0;

	oracle_written(&p, &fd, &before);
	ASSERT_EQ(pgf_rearm(p.pid), 0);
	ASSERT_EQ(puppet_step(&p, 3), 0);
	ASSERT_EQ(pgf_rearm(p.pid), 0);
	ASSERT_EQ(puppet_step(&p, 4), 0);
	ASSERT_EQ(puppet_step(&p, 5), 0);
	pgf_stop_and_read(&p, fd, before, &t, NULL);

	for (size_t i = 0; i < t.nr; i++) {
		if (strcmp(t.rec[i].type, "rearm"))
			continue;
		rearms++;
		ktap_diag("rearm %zu: %llu pages", rearms, t.rec[i].a);
		/* At least the region's pages, and "user" as the cause. */
		EXPECT_GE(t.rec[i].a, rearms == 3 ? 1 : NP);
		EXPECT_EQ(strcmp(t.rec[i].text, "user"), 0);
	}
	EXPECT_EQ(rearms, 3);

	/* Phase 2: first touches, in order, written. */
	n = phase(&t, 0, pg, acc, res, 4 * NP);
	ASSERT_EQ(n, NP);
	for (int i = 0; i < NP; i++) {
		EXPECT_EQ(pg[i], i);
		EXPECT_EQ(acc[i], 'w');
		EXPECT_EQ(strcmp(res[i], "minor"), 0);
	}
	/* Phase 3, after a rearm: re-references, in perm[] order, read. */
	n = phase(&t, 1, pg, acc, res, 4 * NP);
	ASSERT_EQ(n, NP);
	for (int i = 0; i < NP; i++) {
		EXPECT_EQ(pg[i], (int)perm[i]);
		EXPECT_EQ(acc[i], 'r');
		EXPECT_EQ(strcmp(res[i], "reref"), 0);
	}
	/* Phase 4: the even pages, written, each once. */
	n = phase(&t, 2, pg, acc, res, 4 * NP);
	ASSERT_EQ(n, NP / 2);
	for (int i = 0; i < NP / 2; i++) {
		EXPECT_EQ(pg[i], 2 * i);
		EXPECT_EQ(acc[i], 'w');
		EXPECT_EQ(strcmp(res[i], "reref"), 0);
	}
	/* Phase 5: the process re-armed itself, then read pages 0 and 1. */
	n = phase(&t, 3, pg, acc, res, 4 * NP);
	ASSERT_EQ(n, 2);
	EXPECT_EQ(pg[0], 0);
	EXPECT_EQ(pg[1], 1);
	EXPECT_EQ(strcmp(res[0], "reref"), 0);
	EXPECT_EQ(strcmp(res[1], "reref"), 0);
	pgf_trace_free(&t);
}

/*
 * A "rearm" holds for the start it was written in. After a stop and a
 * new start that re-arms nothing, a fault that only makes a page
 * accessible again is not the trace's doing: the stop restored every
 * re-armed page (x86), or left it old, to fault once as after reclaim's
 * aging (UML). Either way, no "reref".
 */
TEST(a_rearm_is_forgotten_at_the_next_start)
{
	int faults = 0, rerefs = 0, starts = 0, before, fd;
	struct pgf_trace t;
	struct puppet p;

	oracle_written(&p, &fd, &before);
	ASSERT_EQ(pgf_rearm(p.pid), 0);
	ASSERT_EQ(pgf_stop(p.pid), 0);
	ASSERT_EQ(pgf_start(p.pid), 0);
	ASSERT_EQ(puppet_step(&p, 3), 0);
	pgf_stop_and_read(&p, fd, before, &t, NULL);

	for (size_t i = 0; i < t.nr; i++) {
		const struct pgf_rec *r = &t.rec[i];

		if (!strcmp(r->type, "start"))
			starts++;
		else if (starts == 2 && in_area(r)) {
			faults++;
			rerefs += !strcmp(r->result, "reref");
		}
	}
	ktap_diag("after the second start: %d faults in the region, %d reref",
		  faults, rerefs);
	EXPECT_EQ(starts, 2);
	EXPECT_LE(faults, NP);
	EXPECT_EQ(rerefs, 0);
	pgf_trace_free(&t);
}

static void idle_steps(int step, int out)
{
	(void)step;
	(void)out;
}

TEST(rearm_needs_a_running_trace_and_the_right_to_trace)
{
	struct puppet p;
	pid_t child;
	int status;

	ASSERT_SYS(puppet_spawn(&p, idle_steps));
	/* Never traced, then stopped: nothing to re-arm for. */
	EXPECT_EQ(pgf_rearm(p.pid), -ESRCH);
	ASSERT_EQ(pgf_start(p.pid), 0);
	EXPECT_EQ(pgf_rearm(p.pid), 0);
	ASSERT_EQ(pgf_stop(p.pid), 0);
	EXPECT_EQ(pgf_rearm(p.pid), -ESRCH);
	ASSERT_EQ(pgf_start(p.pid), 0);
	/* Another user may not. */
	child = fork();
	if (child == 0) {
		if (setgid(PGF_TEST_UID) || setuid(PGF_TEST_UID))
			_exit(40);
		_exit(pgf_rearm(p.pid) == -EACCES ? 0 : 1);
	}
	ASSERT_SYS(waitpid(child, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* Words that look like it are refused. */
	EXPECT_EQ(pgf_ctl(p.pid, "rearmx", 6), -EINVAL);
	EXPECT_EQ(pgf_ctl(p.pid, "rear", 4), -EINVAL);
	EXPECT_EQ(pgf_ctl(p.pid, "rearm\n", 6), 0);
	/* Exited but not reaped: no pages left to re-arm. */
	{
		unsigned char zero = 0;
		struct pgf_stat st;

		ASSERT_EQ(write(p.to, &zero, 1), 1);
		for (int i = 0; i < 5000; i++) {
			if (!pgf_read_stat(p.pid, &st) && st.state == 'Z')
				break;
			usleep(1000);
		}
		EXPECT_EQ(pgf_rearm(p.pid), -ESRCH);
	}
	puppet_end(&p);
}

/* ---- contents survive ---------------------------------------------------- */

enum kind { ANON, SHARED_ANON, FILE_PRIVATE, FILE_SHARED, MLOCKED, READ_ONLY,
	    HUGE, NR_KINDS };
static const char * const kind_names[] = {
	"private anonymous", "shared anonymous", "private file", "shared file",
	"mlocked", "read-only", "transparent huge page",
};

#define KPAGES	512	/* 2 MiB: a huge page where THP is on */

static char *maps[NR_KINDS];

static unsigned char pattern(int kind, size_t off, int round)
{
	return (unsigned char)(kind * 31 + off / PAGE * 7 + off % 251 + round);
}

static char *map_kind(int k)
{
	size_t len = KPAGES * PAGE;
	int fd = -1, flags = MAP_PRIVATE | MAP_ANONYMOUS;
	char *m, *raw;

	if (k == FILE_PRIVATE || k == FILE_SHARED) {
		fd = open(FILE_PATH, O_RDWR | O_CREAT, 0600);
		if (fd < 0 || ftruncate(fd, len))
			return NULL;
		flags = k == FILE_SHARED ? MAP_SHARED : MAP_PRIVATE;
	} else if (k == SHARED_ANON) {
		flags = MAP_SHARED | MAP_ANONYMOUS;
	}
	if (k == HUGE) {
		/* 2 MiB aligned, so that a huge page can map it. */
		raw = mmap(NULL, 2 * len, PROT_READ | PROT_WRITE, flags, -1, 0);
		if (raw == MAP_FAILED)
			return NULL;
		m = (char *)(((unsigned long)raw + len - 1) & ~(len - 1));
		madvise(m, len, MADV_HUGEPAGE);
	} else {
		m = mmap(NULL, len, PROT_READ | PROT_WRITE, flags, fd, 0);
	}
	if (fd >= 0)
		close(fd);
	if (m == MAP_FAILED)
		return NULL;
	if (k != HUGE)
		madvise(m, len, MADV_NOHUGEPAGE);
	for (size_t off = 0; off < len; off++)
		m[off] = pattern(k, off, 0);
	if (k == MLOCKED && mlock(m, len))
		return NULL;
	if (k == READ_ONLY && mprotect(m, len, PROT_READ))
		return NULL;
	return m;
}

/* Check every byte; on @round > 0, write the next pattern (not READ_ONLY). */
static int check_kind(int k, int round)
{
	size_t len = KPAGES * PAGE;

	for (size_t off = 0; off < len; off++)
		if ((unsigned char)maps[k][off] != pattern(k, off, round))
			return -1;
	if (k != READ_ONLY)
		for (size_t off = 0; off < len; off++)
			maps[k][off] = pattern(k, off, round + 1);
	return 0;
}

static int rounds_done;

/* 1: map every kind; 2: check and rewrite all; 3: fork, the child checks. */
static void contents_steps(int step, int out)
{
	unsigned char bad = 0;

	switch (step) {
	case 1:
		for (int k = 0; k < NR_KINDS; k++) {
			maps[k] = map_kind(k);
			if (!maps[k])
				bad = 100 + k;
		}
		if (write(out, &bad, 1) != 1)
			_exit(2);
		break;
	case 2:
		for (int k = 0; k < NR_KINDS; k++)
			if (check_kind(k, k == READ_ONLY ? 0 : rounds_done))
				bad = 1 + k;
		rounds_done++;
		if (write(out, &bad, 1) != 1)
			_exit(2);
		break;
	case 3: {
		pid_t child = fork();
		int status;

		if (child == 0) {
			char path[64], c;
			int fd;

			/* The same data, and no trace of its own. */
			for (int k = 0; k < NR_KINDS; k++) {
				size_t len = KPAGES * PAGE;
				int round = k == READ_ONLY ? 0 : rounds_done;

				for (size_t off = 0; off < len; off++)
					if ((unsigned char)maps[k][off] !=
					    pattern(k, off, round))
						_exit(1 + k);
			}
			pgf_path(path, sizeof(path), getpid());
			fd = open(path, O_RDONLY);
			if (fd < 0 || read(fd, &c, 1) != -1 || errno != ESRCH)
				_exit(20);
			_exit(0);
		}
		waitpid(child, &status, 0);
		bad = WIFEXITED(status) ? WEXITSTATUS(status) : 99;
		if (write(out, &bad, 1) != 1)
			_exit(2);
		break;
	}
	}
}

static long vmstat(const char *name)
{
	char line[128];
	long v = -1;
	size_t n = strlen(name);
	FILE *f = fopen("/proc/vmstat", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, name, n) && line[n] == ' ')
			v = atol(line + n + 1);
	if (f)
		fclose(f);
	return v;
}

/* Rounds of "rearm" and a check of every byte, tracing in mode @start. */
static void contents_rounds(const char *start)
{
	long migrated = vmstat("numa_pages_migrated");
	unsigned char bad;
	struct puppet p;
	size_t rerefs = 0;
	int fd;

	rounds_done = 0;
	ASSERT_SYS(puppet_spawn(&p, contents_steps));
	ASSERT_EQ(pgf_ctl(p.pid, start, strlen(start)), 0);
	fd = ASSERT_SYS(pgf_open(p.pid, O_NONBLOCK));
	ASSERT_EQ(puppet_step_recv(&p, 1, &bad, 1), 0);
	if (bad)
		ktap_diag("mapping %s failed", kind_names[bad - 100]);
	ASSERT_EQ(bad, 0);
	for (int round = 0; round < 8; round++) {
		ASSERT_EQ(pgf_rearm(p.pid), 0);
		ASSERT_EQ(puppet_step_recv(&p, 2, &bad, 1), 0);
		if (bad)
			ktap_diag("round %d: %s changed", round, kind_names[bad - 1]);
		ASSERT_EQ(bad, 0);
		/* Keep the buffer from filling: the count is checked below. */
		{
			struct pgf_trace part;

			pgf_read_all(fd, &part);
			for (size_t i = 0; i < part.nr; i++)
				rerefs += !strcmp(part.rec[i].result, "reref");
			pgf_trace_free(&part);
		}
	}
	ASSERT_EQ(pgf_rearm(p.pid), 0);
	ASSERT_EQ(puppet_step_recv(&p, 3, &bad, 1), 0);
	if (bad && bad <= NR_KINDS)
		ktap_diag("the child saw %s changed", kind_names[bad - 1]);
	EXPECT_EQ(bad, 0);
	puppet_end(&p);
	close(fd);
	unlink(FILE_PATH);
	/* Every round re-referenced every page of every kind (or lost them). */
	ktap_diag("%zu re-reference faults read", rerefs);
	EXPECT_GT(rerefs, 0);
	/* Nothing moved: re-arming never migrates a page. */
	if (migrated >= 0)
		EXPECT_EQ(vmstat("numa_pages_migrated"), migrated);
}

TEST(contents_survive_many_rearms_of_every_kind_of_mapping)
{
	contents_rounds("1");
}

TEST(contents_survive_window_mode_of_every_kind_of_mapping)
{
	/* 16 pages accessible: every page is re-armed again and again. */
	contents_rounds("1 window=16");
}

/* ---- re-arming while threads change the mappings ---------------------- */

#define STRESS_MAPS	4
#define STRESS_PAGES	32

static volatile int stop_stress;

/* A thread's own mappings, filled with its pattern; checked as it goes. */
static void *stress_thread(void *arg)
{
	unsigned int seed = (unsigned long)arg;
	char *m[STRESS_MAPS] = { 0 };
	size_t len[STRESS_MAPS] = { 0 };
	unsigned char tag = seed & 0xff;
	long bad = 0;

	while (!stop_stress) {
		int k = rand_r(&seed) % STRESS_MAPS;
		char *x;

		switch (rand_r(&seed) % 5) {
		case 0:
			if (m[k])
				break;
			len[k] = (1 + rand_r(&seed) % STRESS_PAGES) * PAGE;
			m[k] = mmap(NULL, len[k], PROT_READ | PROT_WRITE,
				    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (m[k] == MAP_FAILED) {
				m[k] = NULL;
				break;
			}
			memset(m[k], tag, len[k]);
			break;
		case 1:
			if (!m[k])
				break;
			for (size_t off = 0; off < len[k]; off += 512)
				bad += (unsigned char)m[k][off] != tag;
			break;
		case 2:
			if (!m[k])
				break;
			munmap(m[k], len[k]);
			m[k] = NULL;
			break;
		case 3:
			if (!m[k] || len[k] < 2 * PAGE)
				break;
			mprotect(m[k], PAGE, PROT_READ);
			bad += (unsigned char)m[k][0] != tag;
			mprotect(m[k], PAGE, PROT_READ | PROT_WRITE);
			break;
		case 4:
			if (!m[k])
				break;
			x = mremap(m[k], len[k], len[k] + PAGE, MREMAP_MAYMOVE);
			if (x == MAP_FAILED)
				break;
			m[k] = x;
			memset(m[k] + len[k], tag, PAGE);
			len[k] += PAGE;
			break;
		}
	}
	return (void *)bad;
}

static void stress_steps(int step, int out)
{
	pthread_t th[3];
	long bad = 0;
	void *ret;

	if (step != 1)
		return;
	stop_stress = 0;
	for (int i = 0; i < 3; i++)
		pthread_create(&th[i], NULL, stress_thread,
			       (void *)(unsigned long)(i * 77 + 1));
	/* The parent re-arms meanwhile; it says when to stop by step 2. */
	sleep(getenv("PGF_REARM_STRESS_SECONDS") ?
	      atoi(getenv("PGF_REARM_STRESS_SECONDS")) : 3);
	stop_stress = 1;
	for (int i = 0; i < 3; i++) {
		pthread_join(th[i], &ret);
		bad += (long)ret;
	}
	if (write(out, &bad, sizeof(bad)) != sizeof(bad))
		_exit(2);
}

/* The stress, traced in mode @start. */
static void stress_in_mode(const char *start)
{
	unsigned long long counts[2] = { 0, 0 };
	pid_t rearmer, reader;
	struct puppet p;
	int fd, status, pipefd[2];
	long bad = -1;

	ASSERT_SYS(puppet_spawn(&p, stress_steps));
	ASSERT_EQ(pgf_ctl(p.pid, start, strlen(start)), 0);
	fd = ASSERT_SYS(pgf_open(p.pid, 0));
	ASSERT_SYS(pipe(pipefd));
	/* A reader drains the trace to its end and counts. */
	reader = fork();
	if (reader == 0) {
		struct pgf_trace t;

		if (pgf_read_all(fd, &t))
			_exit(1);
		for (size_t i = 0; i < t.nr; i++)
			counts[0] += !strcmp(t.rec[i].type, "rearm");
		counts[1] = pgf_lost_faults(&t);
		_exit(write(pipefd[1], counts, sizeof(counts)) != sizeof(counts));
	}
	close(fd);
	close(pipefd[1]);
	rearmer = fork();
	if (rearmer == 0) {
		while (pgf_rearm(p.pid) == 0)
			;
		_exit(0);
	}
	ASSERT_EQ(puppet_step_recv(&p, 1, &bad, sizeof(bad)), 0);
	/* Every byte each thread wrote read back the same. */
	EXPECT_EQ(bad, 0);
	ASSERT_EQ(pgf_stop(p.pid), 0);
	/* The re-armer ends (-ESRCH) once tracing stopped. */
	ASSERT_SYS(waitpid(rearmer, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	puppet_end(&p);
	ASSERT_EQ(read(pipefd[0], counts, sizeof(counts)), (ssize_t)sizeof(counts));
	ASSERT_SYS(waitpid(reader, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ktap_diag("%llu rearms recorded, %llu faults lost", counts[0], counts[1]);
	EXPECT_GT(counts[0], 0);
}

TEST(rearm_while_threads_map_protect_unmap_and_remap)
{
	stress_in_mode("1");
}

TEST(window_mode_while_threads_map_protect_unmap_and_remap)
{
	/* Three threads evict from one window of 16 pages. */
	stress_in_mode("1 window=16");
}

/* ---- interval mode ------------------------------------------------------- */

#define IV_MS		40	/* the interval */
#define PHASE_LIMIT_S	120	/* a phase the test forgot ends by itself */

/*
 * Which phase the puppet is in: the test moves it on once the trace holds
 * two intervals of the phase (shared, mapped before the puppet is forked).
 */
static volatile int *phase_go;

/*
 * 1: map the guarded region, send its address; 2: write pages 0-15 over
 * and over until the test moves on, then pages 32-63 until it does again.
 * Stores only: a read first would map the zero page and the write would
 * fault again.
 */
static void phases_steps(int step, int out)
{
	double end = pgf_now_s() + PHASE_LIMIT_S;
	char v = 0;

	if (step == 1) {
		oracle_steps(1, out);
		return;
	}
	if (step != 2)
		return;
	for (; *phase_go == 0 && pgf_now_s() < end; v++)
		for (int i = 0; i < 16; i++)
			area[i * PAGE] = v;
	for (; *phase_go == 1 && pgf_now_s() < end; v++)
		for (int i = 32; i < 64; i++)
			area[i * PAGE] = v;
}

/*
 * The intervals of a trace: how many hold exactly @a's pages and how many
 * @b's; with @check, that each page faults at most once in an interval
 * and only pages of the phases do.
 */
static int intervals_of(const struct pgf_trace *t, unsigned long long a,
			unsigned long long b, int check, int *exact_a, int *exact_b)
{
	unsigned long long seen = 0;
	int intervals = 0;

	*exact_a = *exact_b = 0;
	for (size_t i = 0; i <= t->nr; i++) {
		const struct pgf_rec *r = i < t->nr ? &t->rec[i] : NULL;
		unsigned long pg;

		if (!r || !strcmp(r->type, "rearm")) {
			if (r && check)
				EXPECT_EQ(strcmp(r->text, "interval"), 0);
			/* the open interval at the end of a live read is not one */
			if (!r && !check)
				break;
			intervals++;
			*exact_a += seen == a;
			*exact_b += seen == b;
			seen = 0;
			continue;
		}
		if (!in_area(r))
			continue;
		pg = (r->addr - (unsigned long)area) / PAGE;
		if (check && (seen & (1ULL << pg))) {
			ktap_diag("page %lu faulted twice in interval %d: %c %s at %llu",
				  pg, intervals, r->access, r->result, r->time);
		}
		if (check) {
			EXPECT_TRUE(!(seen & (1ULL << pg)));
			EXPECT_TRUE((a | b) & (1ULL << pg));
		}
		seen |= 1ULL << pg;
	}
	return intervals;
}

/* Read what the trace has within @ms (poll) into @t; 1 at EOF. */
static int feed_more(int fd, struct pgf_trace *t, char *line, size_t *linelen,
		     size_t *lineno, int ms)
{
	static char buf[65536];
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	ssize_t n;

	if (ms >= 0 && poll(&pfd, 1, ms) <= 0)
		return 0;
	n = read(fd, buf, sizeof(buf));
	if (n < 0)
		return -1;
	if (n == 0)
		return 1;
	return pgf_trace_feed(t, buf, n, line, linelen, lineno) ? -1 : 0;
}

TEST(interval_mode_gives_every_interval_its_working_set)
{
	int before, fd, intervals = 0, exact_a = 0, exact_b = 0;
	unsigned long long a = 0xffffULL, b = 0xffffffff00000000ULL;
	char start[32];
	struct pgf_trace t;
	struct puppet p;

	static char line[4096];
	size_t linelen = 0, lineno = 0;
	unsigned char step = 2, ack;
	int after, r;

	phase_go = mmap(NULL, sizeof(*phase_go), PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(phase_go != MAP_FAILED);
	ASSERT_SYS(puppet_spawn(&p, phases_steps));
	ASSERT_EQ(puppet_step_recv(&p, 1, &area, sizeof(area)), 0);
	before = pgf_faults_of(p.pid);
	snprintf(start, sizeof(start), "1 interval=%d", IV_MS);
	ASSERT_EQ(pgf_ctl(p.pid, start, strlen(start)), 0);
	/* Again in the same mode: nothing; in another: EBUSY. */
	ASSERT_EQ(pgf_ctl(p.pid, start, strlen(start)), 0);
	EXPECT_EQ(pgf_start(p.pid), -EBUSY);
	fd = ASSERT_SYS(pgf_open(p.pid, 0));
	/* Each phase until the trace holds two intervals of exactly its pages. */
	memset(&t, 0, sizeof(t));
	ASSERT_EQ(write(p.to, &step, 1), 1);
	for (int k = 0; k < 2; k++) {
		double end = pgf_now_s() + 30;

		do {
			ASSERT_EQ(feed_more(fd, &t, line, &linelen, &lineno, 10), 0);
			intervals_of(&t, a, b, 0, &exact_a, &exact_b);
		} while ((k ? exact_b : exact_a) < 2 && pgf_now_s() < end);
		*phase_go = k + 1;
	}
	ASSERT_EQ(read(p.from, &ack, 1), 1);
	ASSERT_EQ(ack, step);
	ASSERT_EQ(puppet_wait_idle(&p), 0);
	after = pgf_faults_of(p.pid);
	ASSERT_EQ(pgf_stop(p.pid), 0);
	puppet_end(&p);
	while ((r = feed_more(fd, &t, line, &linelen, &lineno, -1)) == 0)
		;
	ASSERT_EQ(r, 1);
	close(fd);
	EXPECT_EQ(pgf_lost_faults(&t), 0);
	EXPECT_EQ((long)pgf_ok_faults(&t), after - before);
	ASSERT_GT(t.nr, 0);
	snprintf(start, sizeof(start), "interval=%d", IV_MS);
	EXPECT_EQ(strcmp(t.rec[0].type, "start"), 0);
	EXPECT_EQ(strcmp(t.rec[0].text, start), 0);

	/*
	 * Between two interval re-arms, each page faults at most once (its
	 * first reference), and only pages of the phases. An interval in
	 * which the puppet stored all along holds exactly its phase's pages.
	 */
	intervals = intervals_of(&t, a, b, 1, &exact_a, &exact_b);
	ktap_diag("%d intervals: %d with exactly phase A's pages, %d with B's",
		  intervals, exact_a, exact_b);
	EXPECT_GE(exact_a, 2);
	EXPECT_GE(exact_b, 2);
	pgf_trace_free(&t);
}

/* ---- two threads on one re-armed page ----------------------------------- */

#define RACE_PAGES	256
#define RACE_ROUNDS	30

struct race {
	volatile int round;		/* the parent's: sweep once more */
	volatile int done[2];		/* each thread's last round swept */
	volatile int stop;
	volatile unsigned long addr;
};

static struct race *race;
static char *race_area;

static void *race_sweep(void *arg)
{
	int me = (int)(long)arg, seen = 0;
	volatile char sink;

	while (!race->stop) {
		if (race->round == seen) {
			sched_yield();
			continue;
		}
		seen = race->round;
		for (int i = 0; i < RACE_PAGES; i++)
			sink = race_area[i * PAGE];
		(void)sink;
		race->done[me] = seen;
	}
	return NULL;
}

/*
 * Two threads read the same re-armed pages at the same time, in the same
 * order, after every "rearm": where both fault on one page, one of them
 * made it accessible and the other found it done (do_numa_page()'s
 * !pte_same() return): one re-reference, not two. Per page and re-arm, at
 * most one "reref". (One CPU, as on UML, never makes them race.)
 */
TEST(two_threads_on_one_re_armed_page_are_one_re_reference)
{
	int fd, status, twice = 0, rerefs = 0, k = 0;
	static unsigned char seen[RACE_PAGES];
	struct pgf_trace t;
	pid_t pid;

	race = mmap(NULL, sizeof(*race), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(race != MAP_FAILED);
	pid = ASSERT_SYS(fork());
	if (pid == 0) {
		pthread_t th;

		race_area = mmap(NULL, RACE_PAGES * PAGE, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (race_area == MAP_FAILED)
			_exit(2);
		madvise(race_area, RACE_PAGES * PAGE, MADV_NOHUGEPAGE);
		for (int i = 0; i < RACE_PAGES; i++)
			race_area[i * PAGE] = 1;
		if (pthread_create(&th, NULL, race_sweep, (void *)1L))
			_exit(3);
		race->addr = (unsigned long)race_area;
		race_sweep((void *)0L);
		pthread_join(th, NULL);
		_exit(0);
	}
	for (int i = 0; i < 30000 && !race->addr; i++)
		usleep(1000);
	ASSERT_TRUE(race->addr != 0);
	ASSERT_EQ(pgf_set_buffer_kb(4096), 0);
	ASSERT_EQ(pgf_start(pid), 0);
	ASSERT_EQ(pgf_set_buffer_kb(64), 0);
	fd = ASSERT_SYS(pgf_open(pid, 0));
	for (int r = 1; r <= RACE_ROUNDS; r++) {
		ASSERT_EQ(pgf_rearm(pid), 0);
		race->round = r;
		for (int i = 0; i < 60000 && (race->done[0] != r ||
					      race->done[1] != r); i++)
			usleep(1000);
		ASSERT_TRUE(race->done[0] == r && race->done[1] == r);
	}
	ASSERT_EQ(pgf_stop(pid), 0);
	race->stop = 1;
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ASSERT_EQ(pgf_read_all(fd, &t), 0);
	close(fd);
	for (size_t i = 0; i < t.nr; i++) {
		const struct pgf_rec *r = &t.rec[i];
		unsigned long pg;

		if (!strcmp(r->type, "rearm")) {
			memset(seen, 0, sizeof(seen));
			k++;
			continue;
		}
		if (strcmp(r->type, "fault") || strcmp(r->result, "reref") ||
		    r->addr < race->addr ||
		    r->addr >= race->addr + RACE_PAGES * PAGE)
			continue;
		pg = (r->addr - race->addr) / PAGE;
		rerefs++;
		twice += seen[pg]++ == 1;
	}
	ktap_diag("%d re-arms, %d rerefs of %d pages, %d pages with two in one re-arm",
		  k, rerefs, RACE_PAGES, twice);
	EXPECT_EQ(k, RACE_ROUNDS);
	EXPECT_EQ(pgf_lost_faults(&t), 0);
	EXPECT_EQ(twice, 0);
	EXPECT_LE(rerefs, RACE_ROUNDS * RACE_PAGES);
	pgf_trace_free(&t);
	munmap(race, sizeof(*race));
}


/* ---- a tick's thread that sleeps in the kernel ------------------------------ */

/*
 * The clock queues each interval's re-arm on a running thread, which does
 * it on its way back to user mode. A thread picked just before it went to
 * sleep in the kernel would hold the re-arm, and every later tick skipped
 * its own while it waits. The test kernel's "pick" has the next tick pick
 * the main thread, asleep in read(); the other thread stays running in
 * user mode. The re-arms must go on within an interval or two.
 */
static volatile int *spin_stop;

static void *spinner(void *arg)
{
	volatile char *a = arg;

	for (unsigned long i = 0; !*spin_stop; i++)
		a[(i % 16) * PAGE] = 1;
	return NULL;
}

static int count_rearms(const struct pgf_trace *t)
{
	int n = 0;

	for (size_t i = 0; i < t->nr; i++)
		n += !strcmp(t->rec[i].type, "rearm") &&
		     !strcmp(t->rec[i].text, "interval");
	return n;
}

TEST(a_tick_held_by_a_sleeping_thread_is_taken_back)
{
	static char line[4096];
	size_t linelen = 0, lineno = 0;
	int ready[2], wake[2], status, fd, i, picked, after = 0;
	struct pgf_trace t = { 0 };
	struct pollfd pfd;
	long held;
	pid_t pid;
	char c;

	if (access(HOLD_DIR "pick", W_OK))
		SKIP("no " HOLD_DIR " (CONFIG_PGFAULT_HISTORY_DEBUG)");
	spin_stop = mmap(NULL, sizeof(*spin_stop), PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(spin_stop != MAP_FAILED);
	*spin_stop = 0;
	ASSERT_EQ(pipe(ready) | pipe(wake), 0);
	pid = ASSERT_SYS(fork());
	if (pid == 0) {
		char *a = mmap(NULL, 16 * PAGE, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		pthread_t th;

		if (a == MAP_FAILED || pthread_create(&th, NULL, spinner, a) ||
		    write(ready[1], "r", 1) != 1 || read(wake[0], &c, 1) != 1)
			_exit(50);
		*spin_stop = 1;
		pthread_join(th, NULL);
		_exit(0);
	}
	ASSERT_EQ(read(ready[0], &c, 1), 1);
	ASSERT_EQ(pgf_ctl(pid, "1 interval=20", 13), 0);
	fd = ASSERT_SYS(pgf_open(pid, O_NONBLOCK));
	pfd.fd = fd;
	pfd.events = POLLIN;
	held = hold_count();
	ASSERT_EQ(hold_write("pick", pid), 0);
	ASSERT_TRUE(hold_reached(held));
	/* The re-arms before the pick are in the trace already. */
	while (poll(&pfd, 1, 0) == 1 &&
	       feed_more(fd, &t, line, &linelen, &lineno, -1) == 0)
		;
	picked = count_rearms(&t);
	for (i = 0; i < 200 && after < 3; i++) {
		if (feed_more(fd, &t, line, &linelen, &lineno, 50) < 0)
			break;
		after = count_rearms(&t) - picked;
	}
	ktap_diag("%d interval re-arms after the pick, the main thread asleep",
		  after);
	EXPECT_GE(after, 3);
	ASSERT_EQ(write(wake[1], "w", 1), 1);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(fd);
	pgf_trace_free(&t);
}

KTAP_MAIN()
