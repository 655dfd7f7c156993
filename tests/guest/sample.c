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
 *
 * Nothing here assumes that a loop or a thread runs for some time: the
 * workers store to their pages until the test, which reads the trace as it
 * comes, has seen enough intervals in which they ran; each worker logs when
 * it swept its pages (struct steer, shared with the puppet), and an interval
 * is held to a worker's pages only if the worker swept them wholly inside
 * it. A host that stalls the guest makes the test longer, not wrong.
 */
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <linux/pgfault_history.h>
#include "ktap.h"
#include "util.h"
#include "pgf.h"
#include "hold.h"

#define PAGE		4096UL
#define NP		64	/* pages in the region */
#define SAMPLE_MS	50

static char *area;

/* ---- steering the workers ------------------------------------------------ */

#define WORKERS		2
#define LOGN		20000
#define STEER_LIMIT_S	120	/* a worker stops by itself after this */

/*
 * Shared by the test and its puppet (mapped before the puppet is forked):
 * the workers of phase k store to their pages while go <= k; each logs
 * when phase k began for it and when it swept its pages (a sweep's first
 * and last store, at most one sweep per millisecond).
 */
struct steer {
	volatile int go;
	volatile unsigned long long began[WORKERS][4];
	volatile int nlog[WORKERS];
	volatile unsigned long long log[WORKERS][LOGN][2];
};

static struct steer *steer;

static void steer_map(void)
{
	steer = mmap(NULL, sizeof(*steer), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(steer != MAP_FAILED);
}

/* Worker @w: store to every page of @mask in the region while go <= @k. */
static void touch(int w, unsigned long long mask, int k)
{
	unsigned long long end = pgf_now_ns() + STEER_LIMIT_S * 1000000000ULL;
	unsigned long long b, e, last = 0;
	char v = 0;

	steer->began[w][k] = pgf_now_ns();
	while (steer->go <= k) {
		b = pgf_now_ns();
		if (b > end)
			break;
		for (int i = 0; i < NP; i++)
			if (mask & (1ULL << i))
				area[i * PAGE] = v;
		e = pgf_now_ns();
		v++;
		if (e - last >= 1000000ULL && steer->nlog[w] < LOGN) {
			int n = steer->nlog[w];

			steer->log[w][n][0] = b;
			steer->log[w][n][1] = e;
			steer->nlog[w] = n + 1;
			last = e;
		}
	}
}

/* Did worker @w sweep its pages wholly inside (@from, @to)? */
static int swept(int w, unsigned long long from, unsigned long long to)
{
	for (int i = 0; i < steer->nlog[w]; i++)
		if (steer->log[w][i][0] > from && steer->log[w][i][1] < to)
			return 1;
	return 0;
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
	size_t len, cap;
	struct scan *s;
	int n;
	char start[64];			/* the start line's mode */
	int faults_in_area, rerefs_in_area;
	int reref_twice;		/* a page faulted twice between scans */
};

/*
 * Append what @fd has to the text of @sd (zeroed before its first read);
 * with @wait_ms >= 0, read what comes within that time (poll), else read
 * to EOF. 1 at EOF, 0 otherwise, -1 on an error.
 */
static int read_more(int fd, struct sampled *sd, int wait_ms)
{
	size_t cap = sd->cap ? sd->cap : 1 << 20;
	ssize_t n;

	if (!sd->text) {
		sd->text = malloc(cap);
		if (!sd->text)
			return -1;
		sd->cap = cap;
	}
	for (;;) {
		if (sd->cap - sd->len < 65536) {
			sd->cap *= 2;
			sd->text = realloc(sd->text, sd->cap);
			if (!sd->text)
				return -1;
		}
		if (wait_ms >= 0) {
			struct pollfd pfd = { .fd = fd, .events = POLLIN };

			if (poll(&pfd, 1, wait_ms) <= 0)
				break;
		}
		n = read(fd, sd->text + sd->len, sd->cap - sd->len - 1);
		if (n < 0)
			return -1;
		if (n == 0) {
			sd->text[sd->len] = '\0';
			return 1;
		}
		sd->len += n;
		sd->text[sd->len] = '\0';
		if (wait_ms >= 0)
			wait_ms = 0;	/* and what is there already */
	}
	sd->text[sd->len] = '\0';
	return 0;
}

static int read_text(int fd, struct sampled *sd)
{
	return read_more(fd, sd, -1) < 0 ? -1 : 0;
}

/* The sample lines of the text so far: their times and scan times. */
static int sample_times(const struct sampled *sd, unsigned long long *t,
			unsigned long long *ns, int max)
{
	const char *l = sd->text;
	int n = 0;

	while (l && *l && n < max) {
		unsigned long long tm, sc, ref, d;
		int tid;

		if (!strncmp(l, "sample ", 7) && strchr(l, '\n') &&
		    sscanf(l, "sample %llu %d %llu %llu %llu", &tm, &tid, &sc,
			   &ref, &d) == 5) {
			t[n] = tm;
			ns[n++] = d;
		}
		l = strchr(l, '\n');
		l = l ? l + 1 : NULL;
	}
	return n;
}

/*
 * Read the trace as it comes until @want intervals after @since saw every
 * worker of @workers (a bit per worker) sweep its pages wholly inside
 * them; at most 30 s. 0 when they came.
 */
static int wait_swept(int fd, struct sampled *sd, unsigned int workers,
		      unsigned long long since, int want)
{
	static unsigned long long t[4096], ns[4096];
	unsigned long long deadline = pgf_now_ns() + 30 * 1000000000ULL;

	while (pgf_now_ns() < deadline) {
		int n, good = 0;

		if (read_more(fd, sd, 10) != 0)
			return -1;
		n = sample_times(sd, t, ns, 4096);
		for (int i = 1; i < n; i++) {
			unsigned long long from = t[i - 1] + ns[i - 1], to = t[i] - ns[i];
			int all = t[i - 1] > since;

			for (int w = 0; w < WORKERS; w++)
				if ((workers & (1U << w)) && !swept(w, from, to))
					all = 0;
			good += all;
		}
		if (good >= want)
			return 0;
	}
	return -1;
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
		case PGFT_STOP:
		case PGFT_EXEC:
		case PGFT_EXIT:
			/* A scan these end has no sample record. */
			memset(&cur, 0, sizeof(cur));
			break;
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

/*
 * A phase: from @from to @to its workers (worker w stores to wmask[w])
 * store to @mask, the union of their pages, and nothing else does.
 */
struct phase {
	unsigned long long from, to, mask;
	unsigned long long wmask[WORKERS];	/* 0: not a worker of it */
};

/*
 * Every interval wholly inside a phase names no page outside the phase's,
 * and every page of each worker that swept its pages wholly inside the
 * interval (a scan's own time excluded at both ends); each phase has at
 * least one interval in which all its workers did, and which names
 * exactly its pages; no interval names a page outside @all.
 */
static void check_phases(const struct sampled *sd, const struct phase *ph,
			 int nph, unsigned long long all)
{
	int exact[8] = { 0 }, wrong = 0, stray = 0;

	for (int i = 1; i < sd->n; i++) {
		unsigned long long from = sd->s[i - 1].time, to = sd->s[i].time;
		unsigned long long in_from = from + sd->s[i - 1].ns;
		unsigned long long in_to = to - sd->s[i].ns;

		if (sd->s[i].mask & ~all)
			stray++;
		for (int k = 0; k < nph; k++) {
			unsigned long long need = 0;
			int everyone = 1;

			if (from < ph[k].from || to > ph[k].to)
				continue;
			for (int w = 0; w < WORKERS; w++) {
				if (!ph[k].wmask[w])
					continue;
				if (swept(w, in_from, in_to))
					need |= ph[k].wmask[w];
				else
					everyone = 0;
			}
			if ((sd->s[i].mask & need) != need ||
			    (sd->s[i].mask & ~ph[k].mask)) {
				wrong++;
				ktap_diag("interval %d (%llu-%llu ms) in phase %d: %llx, not %llx (workers who swept: %llx)",
					  i, (from - ph[0].from) / 1000000,
					  (to - ph[0].from) / 1000000, k,
					  sd->s[i].mask, ph[k].mask, need);
			} else if (everyone && sd->s[i].mask == ph[k].mask) {
				exact[k]++;
			}
		}
	}
	EXPECT_EQ(wrong, 0);
	EXPECT_EQ(stray, 0);
	for (int k = 0; k < nph; k++) {
		ktap_diag("phase %d: %d intervals wholly inside with all its workers, exact", k, exact[k]);
		EXPECT_GT(exact[k], 0);
	}
}

/*
 * Where software keeps the accessed bit (UML, arm64 without FEAT_HAFDBS),
 * a scan makes each page's next reference fault once (reref); where the
 * hardware does, a page of the region faults only at its first touch.
 */
static void check_faults(const struct sampled *sd, int first_touches)
{
	if (sw_accessed_bit()) {
		EXPECT_GT(sd->rerefs_in_area, 0);
		/*
		 * Once a page between two SAMPLE records, on UML's one CPU.
		 * With two, other threads fault while a scan walks: a page
		 * that faulted earlier in the interval (made old by the scan
		 * before) and that this scan clears again faults a second
		 * time before the SAMPLE record, at the walk's end, closes
		 * the interval.
		 */
		if (is_uml())
			EXPECT_EQ(sd->reref_twice, 0);
		else
			ktap_diag("%d pages faulted twice between two SAMPLE records",
				  sd->reref_twice);
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

/* ---- phases --------------------------------------------------------------- */

#define SET_A	0x000000000000ffffULL	/* pages 0-15 */
#define SET_B	0xffffffff00000000ULL	/* pages 32-63 */
#define SET_C	0x0000000000ff0000ULL	/* pages 16-23 */

/*
 * 1: map the region, send its address; 2: A, B, then A and C, each until
 * the test moves on (steer->go); send the four times that bound the
 * phases.
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
	t[0] = pgf_now_ns();
	touch(0, SET_A, 0);
	t[1] = pgf_now_ns();
	touch(0, SET_B, 1);
	t[2] = pgf_now_ns();
	touch(0, SET_A | SET_C, 2);
	t[3] = pgf_now_ns();
	if (write(out, t, sizeof(t)) != sizeof(t))
		_exit(2);
}

/* Start puppet step @step, which the test steers; finish_step() ends it. */
static int start_step(struct puppet *p, unsigned char step)
{
	return write(p->to, &step, 1) == 1 ? 0 : -1;
}

static int finish_step(struct puppet *p, unsigned char step, void *buf, size_t len)
{
	unsigned char ack;

	if (puppet_read(p, buf, len) ||
	    read(p->from, &ack, 1) != 1 || ack != step)
		return puppet_why(p, step, "no answer");
	if (puppet_wait_idle(p))
		return puppet_why(p, step, "not asleep after 5 s");
	return 0;
}

/* Wait (at most 30 s) until worker @w began phase @k; its time. */
static unsigned long long wait_began(int w, int k)
{
	for (int i = 0; i < 3000 && !steer->began[w][k]; i++)
		usleep(10 * 1000);
	return steer->began[w][k];
}

TEST(sampling_names_exactly_the_pages_of_each_phase)
{
	char start[32], mode[32];
	unsigned long long t[4];
	struct sampled sd = { 0 };
	struct puppet p;
	int before, fd;

	steer_map();
	ASSERT_SYS(puppet_spawn(&p, phases_steps));
	ASSERT_EQ(puppet_step_recv(&p, 1, &area, sizeof(area)), 0);
	before = pgf_faults_of(p.pid);
	snprintf(start, sizeof(start), "1 sample=%d", SAMPLE_MS);
	ASSERT_EQ(pgf_ctl(p.pid, start, strlen(start)), 0);
	/* Again in the same mode: nothing; in another: EBUSY. */
	ASSERT_EQ(pgf_ctl(p.pid, start, strlen(start)), 0);
	EXPECT_EQ(pgf_ctl(p.pid, "1 sample=51", 11), -EBUSY);
	EXPECT_EQ(pgf_start(p.pid), -EBUSY);
	fd = ASSERT_SYS(pgf_open(p.pid, 0));
	ASSERT_EQ(start_step(&p, 2), 0);
	/* Each phase until two of its intervals saw the puppet store. */
	for (int k = 0; k < 3; k++) {
		unsigned long long began = wait_began(0, k);

		ASSERT_GT(began, 0);
		EXPECT_EQ(wait_swept(fd, &sd, 1, began, 2), 0);
		steer->go = k + 1;
	}
	ASSERT_EQ(finish_step(&p, 2, t, sizeof(t)), 0);
	{
		int after = pgf_faults_of(p.pid);

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
			{ t[0], t[1], SET_A, { SET_A } },
			{ t[1], t[2], SET_B, { SET_B } },
			{ t[2], t[3], SET_A | SET_C, { SET_A | SET_C } },
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
	int w = (int)(long)arg;

	touch(w, w ? 0xff00 : 0xff, 0);
	return NULL;
}

/*
 * 2: two threads (workers 0 and 1) store to pages 0-7 and 8-15 until the
 * test moves on, while the main thread waits for them; send the bounds of
 * that time.
 */
static void threads_steps(int step, int out)
{
	unsigned long long t[2];
	pthread_t th[2];

	if (step == 1) {
		phases_steps(1, out);
		return;
	}
	t[0] = pgf_now_ns();
	if (pthread_create(&th[0], NULL, thread_touch, (void *)0L) ||
	    pthread_create(&th[1], NULL, thread_touch, (void *)1L))
		_exit(2);
	pthread_join(th[0], NULL);
	pthread_join(th[1], NULL);
	t[1] = pgf_now_ns();
	if (write(out, t, sizeof(t)) != sizeof(t))
		_exit(2);
}

TEST(sampling_sees_the_references_of_every_thread)
{
	unsigned long long t[2];
	struct sampled sd = { 0 };
	struct puppet p;
	int fd;

	steer_map();
	ASSERT_SYS(puppet_spawn(&p, threads_steps));
	ASSERT_EQ(puppet_step_recv(&p, 1, &area, sizeof(area)), 0);
	ASSERT_EQ(pgf_ctl(p.pid, "1 sample=50", 11), 0);
	fd = ASSERT_SYS(pgf_open(p.pid, 0));
	ASSERT_EQ(start_step(&p, 2), 0);
	{
		unsigned long long b0 = wait_began(0, 0), b1 = wait_began(1, 0);

		ASSERT_GT(b0, 0);
		ASSERT_GT(b1, 0);
		EXPECT_EQ(wait_swept(fd, &sd, 3, b0 > b1 ? b0 : b1, 2), 0);
	}
	steer->go = 1;
	ASSERT_EQ(finish_step(&p, 2, t, sizeof(t)), 0);
	ASSERT_EQ(pgf_stop(p.pid), 0);
	puppet_end(&p);
	ASSERT_EQ(read_text(fd, &sd), 0);
	close(fd);
	ASSERT_EQ(parse_sampled(&sd), 0);
	check_scans(&sd);
	{
		struct phase ph = { t[0], t[1], 0xffff, { 0xff, 0xff00 } };

		check_phases(&sd, &ph, 1, 0xffff);
	}
	check_faults(&sd, 16);
	sampled_free(&sd);
}

/* ---- a scan lets the trace go between its pieces ----------------------- */

/*
 * A scan walks every page of the mm with the mmap lock held for reading,
 * and writes its records under the trace's mutex, which a fault that
 * finds a change noted in its VMA waits for. The test kernel holds the
 * main thread's recording of a new mapping B (hold_noted: B noted, not
 * recorded), then a scan after its first piece (hold_walk): the other
 * thread's fault in B records B and goes on, while the scan is held.
 */
struct scan_held {
	int ready[2], go[2], touch[2], done[2];
	char *b;
};

static void *scan_held_toucher(void *arg)
{
	struct scan_held *h = arg;
	char c;

	if (read(h->touch[0], &c, 1) != 1)
		return NULL;
	(void)*(volatile char *)h->b;
	if (write(h->done[1], "d", 1) != 1)
		return NULL;
	return NULL;
}

static void scan_held_child(struct scan_held *h)
{
	pthread_t th;
	char c;

	/* B's place, known to the other thread before B is mapped. */
	h->b = mmap(NULL, PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (h->b == MAP_FAILED ||
	    pthread_create(&th, NULL, scan_held_toucher, h) ||
	    write(h->ready[1], "r", 1) != 1 || read(h->go[0], &c, 1) != 1)
		_exit(50);
	if (mmap(h->b, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
		 -1, 0) != h->b)
		_exit(51);
	pthread_join(th, NULL);
	_exit(0);
}

TEST(a_fault_goes_on_while_a_scan_is_held_between_pieces)
{
	struct scan_held h;
	struct pollfd pfd;
	int status, fd;
	long n;
	pid_t pid;
	char c;

	if (access(HOLD_DIR "hold_walk", W_OK))
		SKIP("no " HOLD_DIR " (CONFIG_PGFAULT_HISTORY_DEBUG)");
	ASSERT_EQ(pipe(h.ready) | pipe(h.go) | pipe(h.touch) | pipe(h.done),
		  0);
	pid = ASSERT_SYS(fork());
	if (pid == 0)
		scan_held_child(&h);
	/* Its other thread made (a change held too soon would hold that). */
	ASSERT_EQ(read(h.ready[0], &c, 1), 1);
	ASSERT_EQ(pgf_ctl(pid, "1 sample=20", 11), 0);
	fd = ASSERT_SYS(pgf_open(pid, O_NONBLOCK));
	n = hold_count();
	ASSERT_EQ(hold_write("hold_noted", pid), 0);
	ASSERT_EQ(write(h.go[1], "g", 1), 1);
	ASSERT_TRUE(hold_reached(n));
	n = hold_count();
	ASSERT_EQ(hold_write("hold_walk", pid), 0);
	ASSERT_TRUE(hold_reached(n));
	ASSERT_EQ(write(h.touch[1], "t", 1), 1);
	pfd.fd = h.done[0];
	pfd.events = POLLIN;
	n = poll(&pfd, 1, 10000);
	ktap_diag("the fault in B %s while the scan is held",
		  n == 1 ? "went on" : "waited");
	EXPECT_EQ(n, 1);
	ASSERT_EQ(hold_write("hold_walk", 0), 0);
	ASSERT_EQ(hold_write("hold_noted", 0), 0);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(fd);
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
	for (end = pgf_now_ns() + 500000000ULL; pgf_now_ns() < end && !bad; round++)
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
	struct sampled sd = { 0 };
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
 * 2: fork a child that stores to pages 40-47 until the test moves on and
 * sends the bounds of that time; wait for it.
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
		t[0] = pgf_now_ns();
		touch(0, 0xffULL << 40, 0);
		t[1] = pgf_now_ns();
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
	struct sampled parent = { 0 }, child = { 0 };
	struct puppet p;
	int fd, cfd;

	steer_map();
	ASSERT_SYS(puppet_spawn(&p, fork_steps));
	ASSERT_EQ(puppet_step_recv(&p, 1, &area, sizeof(area)), 0);
	ASSERT_EQ(pgf_ctl(p.pid, "1 sample=50 inherit", 19), 0);
	fd = ASSERT_SYS(pgf_open(p.pid, 0));
	ASSERT_EQ(start_step(&p, 2), 0);
	/* The child's trace, once the parent's says there is a child. */
	{
		unsigned long long began = wait_began(0, 0);

		ASSERT_GT(began, 0);
		cfd = -1;
		for (int i = 0; i < 3000 && cfd < 0; i++) {
			ASSERT_GE(read_more(fd, &parent, 10), 0);
			cfd = ioctl(fd, PGFAULT_HISTORY_IOC_CHILD, 0);
		}
		ASSERT_SYS(cfd);
		EXPECT_EQ(wait_swept(cfd, &child, 1, began, 2), 0);
	}
	steer->go = 1;
	ASSERT_EQ(finish_step(&p, 2, t, sizeof(t)), 0);
	ASSERT_EQ(pgf_stop(p.pid), 0);
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
		struct phase ph = { t[0], t[1], 0xffULL << 40, { 0xffULL << 40 } };

		/* The child's pages, in the child's trace... */
		check_phases(&child, &ph, 1, 0xffULL << 40);
		/* ...and none in the parent's, which only waited. */
		ph.mask = 0;
		ph.wmask[0] = 0;
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
	struct sampled sd = { 0 };
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
		      "while [ ! -e /tmp/pgf-sample-stop ]; do :; done", NULL);
		_exit(127);
	}
	close(go[0]);
	unlink("/tmp/pgf-sample-stop");
	ASSERT_EQ(pgf_ctl(pid, "1 sample=20", 11), 0);
	fd = ASSERT_SYS(pgf_open(pid, 0));
	ASSERT_EQ(write(go[1], "x", 1), 1);
	close(go[1]);
	/* The new image runs until two of its scans found pages referenced. */
	{
		unsigned long long deadline = pgf_now_ns() + 30 * 1000000000ULL;
		int seen = 0;

		while (seen < 2 && pgf_now_ns() < deadline) {
			const char *l = NULL;

			ASSERT_EQ(read_more(fd, &sd, 10), 0);
			seen = 0;
			if (sd.text)
				l = strstr(sd.text, "\nexec ");
			while (l && (l = strstr(l + 1, "\nsample "))) {
				unsigned long long tm, sc, ref;
				int tid;

				if (sscanf(l + 1, "sample %llu %d %llu %llu", &tm,
					   &tid, &sc, &ref) == 4 && ref)
					seen++;
			}
		}
	}
	close(ASSERT_SYS(open("/tmp/pgf-sample-stop", O_WRONLY | O_CREAT, 0600)));
	ASSERT_EQ(read_text(fd, &sd), 0);
	unlink("/tmp/pgf-sample-stop");
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
	EXPECT_GE(after, 2);
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
