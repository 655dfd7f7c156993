// SPDX-License-Identifier: GPL-2.0
/*
 * sample - sampling mode ("1 sample=MS"): every MS milliseconds the kernel
 * tests and clears the accessed bit of every present page of the traced
 * process and writes the pages found referenced as "refs" runs, then a
 * "sample" line.
 *
 * Oracle: programs whose references are known by construction. A puppet
 * stores to the pages of a guarded region of its own in phases of known
 * page sets and reports when each phase began and ended, on the trace's
 * clock (CLOCK_MONOTONIC). A scan's interval runs from the previous
 * "sample" line's time to its own; every interval that lies wholly inside
 * one phase must name exactly that phase's pages of the region, and no
 * interval may name a page of the region that no phase touched. The fault
 * records keep their own oracle (/proc/<pid>/stat), and on UML, where the
 * accessed bit is emulated by faults, a page faults at most once between
 * two scans.
 */
#include <pthread.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <linux/pgfault_history.h>
#include "ktap.h"
#include "util.h"
#include "pgf.h"

#define PAGE		4096UL
#define NP		64	/* pages in the region */
#define SAMPLE_MS	50
#define PHASE_MS	300

static char *area;

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* Store to every page of @mask in the region, over and over, for @ms. */
static void touch(unsigned long long mask, int ms)
{
	unsigned long long end = now_ns() + ms * 1000000ULL;
	char v = 0;

	while (now_ns() < end) {
		for (int i = 0; i < NP; i++)
			if (mask & (1ULL << i))
				area[i * PAGE] = v;
		v++;
	}
}

/* ---- reading a sampled trace ------------------------------------------ */

struct scan {
	unsigned long long time, scanned, referenced, ns, runs_pages;
	unsigned long long mask;	/* the region's pages referenced */
	unsigned int flags;
	int tid;
};

struct sampled {
	char *text;			/* the whole trace */
	size_t len;
	struct scan *s;
	int n;
	char start[64];			/* the start line's mode */
	int faults_in_area, rerefs_in_area;
	int reref_twice;		/* a page faulted twice between scans */
};

static int read_text(int fd, struct sampled *sd)
{
	size_t cap = 1 << 20;
	ssize_t n;

	memset(sd, 0, sizeof(*sd));
	sd->text = malloc(cap);
	if (!sd->text)
		return -1;
	while ((n = read(fd, sd->text + sd->len, cap - sd->len - 1)) > 0) {
		sd->len += n;
		if (cap - sd->len < 65536) {
			cap *= 2;
			sd->text = realloc(sd->text, cap);
			if (!sd->text)
				return -1;
		}
	}
	sd->text[sd->len] = '\0';
	return n < 0 ? -1 : 0;
}

static unsigned long long area_bits(unsigned long long start,
				    unsigned long long pages)
{
	unsigned long long a = (unsigned long)area, mask = 0;

	for (unsigned long long i = 0; i < pages; i++) {
		unsigned long long p = start + i * PAGE;

		if (p >= a && p < a + NP * PAGE)
			mask |= 1ULL << ((p - a) / PAGE);
	}
	return mask;
}

/*
 * Parse every line with the tools' parser; gather the scans, the faults
 * in the region, and check what each line promises about the others.
 */
static int parse_sampled(struct sampled *sd)
{
	struct scan cur = { 0 };
	unsigned long long faulted = 0;
	char *line = sd->text, *nl;
	int cap = 0;

	while (line && *line) {
		struct pgft_rec r;

		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		if (!strncmp(line, "pgfault_history ", 16))
			goto next;
		if (pgft_parse(line, &r)) {
			ktap_diag("unparsable: %.100s", line);
			return -1;
		}
		switch (r.type) {
		case PGFT_START:
			snprintf(sd->start, sizeof(sd->start), "%s%s", r.text,
				 r.n[0] ? " inherit" : "");
			break;
		case PGFT_REFS: {
			const char *p = r.text;
			unsigned long long a, n;

			while (pgft_run(&p, &a, &n)) {
				cur.runs_pages += n;
				cur.mask |= area_bits(a, n);
			}
			break;
		}
		case PGFT_SAMPLE:
			cur.time = r.time;
			cur.tid = r.tid;
			cur.scanned = r.n[0];
			cur.referenced = r.n[1];
			cur.ns = r.n[2];
			cur.flags = r.flags;
			if (sd->n == cap) {
				cap = cap ? 2 * cap : 64;
				sd->s = realloc(sd->s, cap * sizeof(*sd->s));
				if (!sd->s)
					return -1;
			}
			sd->s[sd->n++] = cur;
			memset(&cur, 0, sizeof(cur));
			faulted = 0;
			break;
		case PGFT_FAULT:
			if (!area_bits(r.addr & ~(PAGE - 1), 1))
				break;
			sd->faults_in_area++;
			if (r.result != PGFT_REREF)
				break;
			sd->rerefs_in_area++;
			if (faulted & area_bits(r.addr & ~(PAGE - 1), 1))
				sd->reref_twice++;
			faulted |= area_bits(r.addr & ~(PAGE - 1), 1);
			break;
		default:
			break;
		}
next:
		line = nl ? nl + 1 : NULL;
	}
	return 0;
}

static void sampled_free(struct sampled *sd)
{
	free(sd->text);
	free(sd->s);
}

/* What every scan must say of itself: runs add up, nothing lost. */
static void check_scans(const struct sampled *sd)
{
	int bad = 0;

	ASSERT_GT(sd->n, 0);
	EXPECT_TRUE(sd->s[0].flags & PGFT_SAMPLE_BASELINE);
	EXPECT_EQ(sd->s[0].runs_pages, 0);
	for (int i = 0; i < sd->n; i++) {
		const struct scan *s = &sd->s[i];

		if (i && (s->flags & PGFT_SAMPLE_BASELINE))
			bad++;
		if (s->flags & (PGFT_SAMPLE_INCOMPLETE | PGFT_SAMPLE_STOPPED))
			bad++;
		if (i && s->runs_pages != s->referenced)
			bad++;
		if (s->referenced > s->scanned || (i && s->time <= sd->s[i - 1].time))
			bad++;
		if (bad) {
			ktap_diag("scan %d: flags %x, %llu pages in runs, %llu referenced of %llu",
				  i, s->flags, s->runs_pages, s->referenced, s->scanned);
			break;
		}
	}
	EXPECT_EQ(bad, 0);
}

struct phase {
	unsigned long long from, to, mask;
};

/*
 * Every interval wholly inside a phase names exactly its pages; each
 * phase has at least one such interval; none names a page outside @all.
 */
static void check_phases(const struct sampled *sd, const struct phase *ph,
			 int nph, unsigned long long all)
{
	int exact[8] = { 0 }, wrong = 0, stray = 0;

	for (int i = 1; i < sd->n; i++) {
		unsigned long long from = sd->s[i - 1].time, to = sd->s[i].time;

		if (sd->s[i].mask & ~all)
			stray++;
		for (int k = 0; k < nph; k++) {
			if (from < ph[k].from || to > ph[k].to)
				continue;
			if (sd->s[i].mask == ph[k].mask) {
				exact[k]++;
			} else {
				wrong++;
				ktap_diag("interval %d (%llu-%llu ms) in phase %d: %llx, not %llx",
					  i, (from - ph[0].from) / 1000000,
					  (to - ph[0].from) / 1000000, k,
					  sd->s[i].mask, ph[k].mask);
			}
		}
	}
	EXPECT_EQ(wrong, 0);
	EXPECT_EQ(stray, 0);
	for (int k = 0; k < nph; k++) {
		ktap_diag("phase %d: %d intervals wholly inside, all exact", k, exact[k]);
		EXPECT_GT(exact[k], 0);
	}
}

/*
 * Where software keeps the accessed bit (UML), a scan makes each page's
 * next reference fault once (reref); where the hardware does, a page of
 * the region faults only at its first touch.
 */
static void check_faults(const struct sampled *sd, int first_touches)
{
	if (is_uml()) {
		EXPECT_GT(sd->rerefs_in_area, 0);
		EXPECT_EQ(sd->reref_twice, 0);
	} else {
		EXPECT_EQ(sd->rerefs_in_area, 0);
		EXPECT_EQ(sd->faults_in_area, first_touches);
	}
}

/* Fault records plus lost faults against /proc/<pid>/stat. */
static void check_stat(struct sampled *sd, long faults)
{
	struct pgf_trace t = { 0 };
	static char line[4096];
	size_t linelen = 0, lineno = 0;
	char *copy = strndup(sd->text, sd->len);

	ASSERT_TRUE(copy != NULL);
	/* parse_sampled() cut the lines: put them back. */
	for (size_t i = 0; i < sd->len; i++)
		if (!copy[i])
			copy[i] = '\n';
	ASSERT_EQ(pgf_trace_feed(&t, copy, sd->len, line, &linelen, &lineno), 0);
	EXPECT_EQ((long)(pgf_ok_faults(&t) + pgf_lost_faults(&t)), faults);
	pgf_trace_free(&t);
	free(copy);
}

static int fault_count(pid_t pid)
{
	struct pgf_stat st;

	if (pgf_read_stat(pid, &st))
		return -1;
	return st.minflt + st.majflt;
}

/* ---- phases --------------------------------------------------------------- */

#define SET_A	0x000000000000ffffULL	/* pages 0-15 */
#define SET_B	0xffffffff00000000ULL	/* pages 32-63 */
#define SET_C	0x0000000000ff0000ULL	/* pages 16-23 */

/*
 * 1: map the region, send its address; 2: A for PHASE_MS, B, then A and
 * C; send the four times that bound the phases.
 */
static void phases_steps(int step, int out)
{
	unsigned long long t[4];

	if (step == 1) {
		area = map_guarded(NP);
		if (!area || write(out, &area, sizeof(area)) != sizeof(area))
			_exit(2);
		return;
	}
	t[0] = now_ns();
	touch(SET_A, PHASE_MS);
	t[1] = now_ns();
	touch(SET_B, PHASE_MS);
	t[2] = now_ns();
	touch(SET_A | SET_C, PHASE_MS);
	t[3] = now_ns();
	if (write(out, t, sizeof(t)) != sizeof(t))
		_exit(2);
}

TEST(sampling_names_exactly_the_pages_of_each_phase)
{
	char start[32], mode[32];
	unsigned long long t[4];
	struct sampled sd;
	struct puppet p;
	int before, fd;

	ASSERT_SYS(puppet_spawn(&p, phases_steps));
	ASSERT_EQ(puppet_step_recv(&p, 1, &area, sizeof(area)), 0);
	before = fault_count(p.pid);
	snprintf(start, sizeof(start), "1 sample=%d", SAMPLE_MS);
	ASSERT_EQ(pgf_ctl(p.pid, start, strlen(start)), 0);
	/* Again in the same mode: nothing; in another: EBUSY. */
	ASSERT_EQ(pgf_ctl(p.pid, start, strlen(start)), 0);
	EXPECT_EQ(pgf_ctl(p.pid, "1 sample=51", 11), -EBUSY);
	EXPECT_EQ(pgf_start(p.pid), -EBUSY);
	fd = ASSERT_SYS(pgf_open(p.pid, 0));
	ASSERT_EQ(puppet_step_recv(&p, 2, t, sizeof(t)), 0);
	{
		int after = fault_count(p.pid);

		ASSERT_EQ(pgf_stop(p.pid), 0);
		puppet_end(&p);
		ASSERT_EQ(read_text(fd, &sd), 0);
		close(fd);
		check_stat(&sd, after - before);
	}
	ASSERT_EQ(parse_sampled(&sd), 0);
	snprintf(mode, sizeof(mode), "sample=%d", SAMPLE_MS);
	EXPECT_EQ(strcmp(sd.start, mode), 0);
	check_scans(&sd);
	{
		struct phase ph[3] = {
			{ t[0], t[1], SET_A },
			{ t[1], t[2], SET_B },
			{ t[2], t[3], SET_A | SET_C },
		};

		check_phases(&sd, ph, 3, SET_A | SET_B | SET_C);
	}
	/* 16 + 32 + 8 first touches; no other fault on x86_64. */
	check_faults(&sd, 56);
	ktap_diag("%d scans, the last %llu pages scanned in %llu us",
		  sd.n, sd.s[sd.n - 1].scanned, sd.s[sd.n - 1].ns / 1000);
	sampled_free(&sd);
}

/* ---- threads -------------------------------------------------------------- */

static void *thread_touch(void *arg)
{
	touch((unsigned long long)(unsigned long)arg, PHASE_MS);
	return NULL;
}

/*
 * 2: two threads store to pages 0-7 and 8-15 for PHASE_MS while the main
 * thread waits for them; send the bounds of that time and the threads'
 * ids.
 */
static void threads_steps(int step, int out)
{
	unsigned long long t[2];
	pthread_t th[2];

	if (step == 1) {
		phases_steps(1, out);
		return;
	}
	t[0] = now_ns();
	if (pthread_create(&th[0], NULL, thread_touch, (void *)0xffUL) ||
	    pthread_create(&th[1], NULL, thread_touch, (void *)0xff00UL))
		_exit(2);
	pthread_join(th[0], NULL);
	pthread_join(th[1], NULL);
	t[1] = now_ns();
	if (write(out, t, sizeof(t)) != sizeof(t))
		_exit(2);
}

TEST(sampling_sees_the_references_of_every_thread)
{
	unsigned long long t[2];
	struct sampled sd;
	struct puppet p;
	int fd;

	ASSERT_SYS(puppet_spawn(&p, threads_steps));
	ASSERT_EQ(puppet_step_recv(&p, 1, &area, sizeof(area)), 0);
	ASSERT_EQ(pgf_ctl(p.pid, "1 sample=50", 11), 0);
	fd = ASSERT_SYS(pgf_open(p.pid, 0));
	ASSERT_EQ(puppet_step_recv(&p, 2, t, sizeof(t)), 0);
	ASSERT_EQ(pgf_stop(p.pid), 0);
	puppet_end(&p);
	ASSERT_EQ(read_text(fd, &sd), 0);
	close(fd);
	ASSERT_EQ(parse_sampled(&sd), 0);
	check_scans(&sd);
	{
		/* Thread start-up takes a little of the first interval. */
		struct phase ph = { t[0] + 20000000ULL, t[1] - 20000000ULL, 0xffff };

		check_phases(&sd, &ph, 1, 0xffff);
	}
	check_faults(&sd, 16);
	sampled_free(&sd);
}

/* ---- contents -------------------------------------------------------------- */

#define CPAGES		256
#define THP_BYTES	(4UL << 20)
#define FILE_PATH	"/tmp/pgf-sample-file"

static unsigned char pat(int round, size_t off)
{
	return (unsigned char)(round * 31 + off / PAGE * 7 + off % 251);
}

/*
 * 1: map anonymous memory, a THP-eligible 4 MiB (madvise, where there is
 * THP), a shared and a private mapping of a file, and fill them; 2: for
 * ~500 ms, check every byte and write the next round's pattern; send 0,
 * or the number of the mapping that changed.
 */
static void contents_steps(int step, int out)
{
	static unsigned char *m[4];
	static size_t len[4] = { CPAGES * PAGE, THP_BYTES, 64 * PAGE, 64 * PAGE };
	static int round;
	unsigned long long end;
	unsigned char bad = 0;
	int fd;

	if (step == 1) {
		char *raw;

		m[0] = mmap(NULL, len[0], PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		raw = mmap(NULL, 2 * THP_BYTES, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		m[1] = (unsigned char *)(((unsigned long)raw + THP_BYTES - 1) &
					 ~(THP_BYTES - 1));
		madvise(m[1], THP_BYTES, MADV_HUGEPAGE);
		fd = open(FILE_PATH, O_RDWR | O_CREAT | O_TRUNC, 0600);
		if (fd < 0 || ftruncate(fd, 64 * PAGE))
			_exit(2);
		m[2] = mmap(NULL, len[2], PROT_READ | PROT_WRITE, MAP_SHARED,
			    fd, 0);
		m[3] = mmap(NULL, len[3], PROT_READ | PROT_WRITE, MAP_PRIVATE,
			    fd, 0);
		close(fd);
		for (int k = 0; k < 4; k++) {
			if (m[k] == MAP_FAILED || !m[k])
				_exit(2);
			/* The shared file mapping shows the private one's file. */
			for (size_t o = 0; o < len[k]; o++)
				m[k][o] = pat(0, o);
		}
		return;
	}
	for (end = now_ns() + 500000000ULL; now_ns() < end && !bad; round++)
		for (int k = 0; k < 4 && !bad; k++)
			for (size_t o = 0; o < len[k]; o++) {
				if (m[k][o] != pat(round, o)) {
					bad = k + 1;
					break;
				}
				m[k][o] = pat(round + 1, o);
			}
	if (write(out, &bad, 1) != 1)
		_exit(2);
}

TEST(contents_survive_scans_every_5_ms)
{
	unsigned char bad = 0xff;
	struct sampled sd;
	struct puppet p;
	int fd, busy = 0;

	ASSERT_SYS(puppet_spawn(&p, contents_steps));
	ASSERT_EQ(puppet_step(&p, 1), 0);
	ASSERT_EQ(pgf_ctl(p.pid, "1 sample=5", 10), 0);
	fd = ASSERT_SYS(pgf_open(p.pid, O_NONBLOCK));
	ASSERT_EQ(puppet_step_recv(&p, 2, &bad, 1), 0);
	EXPECT_EQ(bad, 0);
	ASSERT_EQ(pgf_stop(p.pid), 0);
	puppet_end(&p);
	unlink(FILE_PATH);
	{
		int flags = fcntl(fd, F_GETFL);

		ASSERT_SYS(fcntl(fd, F_SETFL, flags & ~O_NONBLOCK));
	}
	ASSERT_EQ(read_text(fd, &sd), 0);
	close(fd);
	ASSERT_EQ(parse_sampled(&sd), 0);
	check_scans(&sd);
	/*
	 * The first round touched every page after the start, and the loop
	 * went on past the first mapping: its pages were all seen, whether
	 * in one interval or in several (on UML each reference after a scan
	 * faults, so the loop is slow and its intervals short).
	 */
	for (int i = 1; i < sd.n; i++)
		busy += sd.s[i].referenced;
	ktap_diag("%d scans, %d pages referenced in all", sd.n - 1, busy);
	EXPECT_GT(sd.n, 5);
	EXPECT_GE(busy, CPAGES);
	sampled_free(&sd);
}

/* ---- fork, with inherit ----------------------------------------------------- */

/*
 * 2: fork a child that stores to pages 40-47 for PHASE_MS and sends the
 * bounds of that time; wait for it.
 */
static void fork_steps(int step, int out)
{
	unsigned long long t[2];
	pid_t c;

	if (step == 1) {
		phases_steps(1, out);
		return;
	}
	c = fork();
	if (c == 0) {
		t[0] = now_ns();
		touch(0xffULL << 40, PHASE_MS);
		t[1] = now_ns();
		if (write(out, t, sizeof(t)) != sizeof(t))
			_exit(2);
		_exit(0);
	}
	if (c < 0 || waitpid(c, NULL, 0) != c)
		_exit(2);
}

TEST(a_child_is_sampled_in_its_own_trace)
{
	unsigned long long t[2];
	struct sampled parent, child;
	struct puppet p;
	int fd, cfd;

	ASSERT_SYS(puppet_spawn(&p, fork_steps));
	ASSERT_EQ(puppet_step_recv(&p, 1, &area, sizeof(area)), 0);
	ASSERT_EQ(pgf_ctl(p.pid, "1 sample=50 inherit", 19), 0);
	fd = ASSERT_SYS(pgf_open(p.pid, 0));
	ASSERT_EQ(puppet_step_recv(&p, 2, t, sizeof(t)), 0);
	ASSERT_EQ(pgf_stop(p.pid), 0);
	cfd = ASSERT_SYS(ioctl(fd, PGFAULT_HISTORY_IOC_CHILD, 0));
	puppet_end(&p);
	ASSERT_EQ(read_text(fd, &parent), 0);
	ASSERT_EQ(read_text(cfd, &child), 0);
	close(fd);
	close(cfd);
	ASSERT_EQ(parse_sampled(&parent), 0);
	ASSERT_EQ(parse_sampled(&child), 0);
	EXPECT_EQ(strcmp(child.start, "sample=50 inherit"), 0);
	check_scans(&parent);
	check_scans(&child);
	{
		struct phase ph = { t[0], t[1], 0xffULL << 40 };

		/* The child's pages, in the child's trace... */
		check_phases(&child, &ph, 1, 0xffULL << 40);
		/* ...and none in the parent's, which only waited. */
		ph.mask = 0;
		check_phases(&parent, &ph, 1, ~0ULL);
	}
	sampled_free(&parent);
	sampled_free(&child);
}

/* ---- exec ----------------------------------------------------------------- */

TEST(sampling_goes_on_in_the_new_image_after_exec)
{
	struct pgft_space as = { 0 };
	int go[2], fd, after = 0, outside = 0, status;
	char *line, *nl;
	struct sampled sd;
	bool execd = false;
	pid_t pid;

	ASSERT_SYS(pipe(go));
	pid = fork();
	ASSERT_SYS(pid);
	if (pid == 0) {
		char c;

		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(2);
		execl("/bin/sh", "sh", "-c",
		      "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done", NULL);
		_exit(127);
	}
	close(go[0]);
	ASSERT_EQ(pgf_ctl(pid, "1 sample=20", 11), 0);
	fd = ASSERT_SYS(pgf_open(pid, 0));
	ASSERT_EQ(write(go[1], "x", 1), 1);
	close(go[1]);
	ASSERT_EQ(read_text(fd, &sd), 0);
	close(fd);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_EQ(status, 0);
	/* Every run of a scan after the exec lies in a region of the new image. */
	for (line = sd.text; line && *line; line = nl ? nl + 1 : NULL) {
		char copy[4096];
		struct pgft_rec r;

		nl = strchr(line, '\n');
		snprintf(copy, sizeof(copy), "%.*s",
			 (int)(nl ? nl - line : (long)strlen(line)), line);
		if (!strncmp(copy, "pgfault_history ", 16) || pgft_parse(copy, &r))
			continue;
		pgft_apply(&as, &r);
		if (r.type == PGFT_EXEC)
			execd = true;
		if (r.type == PGFT_SAMPLE && execd && r.n[1])
			after++;
		if (r.type == PGFT_REFS && execd) {
			const char *p = r.text;
			unsigned long long a, n;

			while (pgft_run(&p, &a, &n)) {
				const struct pgft_region *g = pgft_find(&as, a);

				if (!g || a + n * PAGE > g->end) {
					/* A run may span adjacent regions. */
					const struct pgft_region *h =
						pgft_find(&as, a + n * PAGE - 1);

					outside += !g || !h;
				}
			}
		}
	}
	ktap_diag("%d scans after the exec found pages referenced", after);
	EXPECT_TRUE(execd);
	EXPECT_GT(after, 0);
	EXPECT_EQ(outside, 0);
	pgft_space_free(&as);
	sampled_free(&sd);
}

/* ---- the interface ---------------------------------------------------------- */

static void idle_steps(int step, int out)
{
	(void)step;
	(void)out;
}

TEST(sample_takes_one_interval_and_combines_with_inherit_only)
{
	static const char * const bad[] = {
		"1 sample=0", "1 sample=", "1 sample=x", "1 sample=3600001",
		"1 sample=10 interval=10", "1 window=16 sample=10",
		"1 sample=10 sample=10", "1 sample=-1",
	};
	struct puppet p;

	ASSERT_SYS(puppet_spawn(&p, idle_steps));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int err = pgf_ctl(p.pid, bad[i], strlen(bad[i]));

		if (err != -EINVAL)
			ktap_diag("\"%s\": %d", bad[i], err);
		EXPECT_EQ(err, -EINVAL);
	}
	EXPECT_EQ(pgf_ctl(p.pid, "1 inherit sample=3600000", 24), 0);
	EXPECT_EQ(pgf_stop(p.pid), 0);
	EXPECT_EQ(pgf_ctl(p.pid, "1 sample=1", 10), 0);
	EXPECT_EQ(pgf_stop(p.pid), 0);
	puppet_end(&p);
}

KTAP_MAIN()
