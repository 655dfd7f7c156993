// SPDX-License-Identifier: GPL-2.0
/*
 * window - window mode ("1 window=K"): at most K pages stay accessible, and
 * the faults are the references that miss in a FIFO window of K pages.
 *
 * Oracle: a FIFO(K) simulation of a reference stream known exactly. The
 * workload is a loop written in assembly, alone on its code page, that
 * touches nothing but that page and a guarded region: each of its steps
 * is one store instruction, whose references are its code page C and the
 * region's page P. A faulting instruction is restarted from its first
 * reference, as the CPU does. Faults before the loop (the rest of the
 * program) are admissions the simulation takes from the trace itself: a
 * FIFO window changes only when a page is admitted. The child unregisters
 * glibc's rseq area first: the kernel reads it on the way back to user
 * mode after a preemption, a reference (a kernel-mode fault, admitted) at
 * a moment the simulation cannot know.
 *
 * Some cases run the loop twice, with a system call between that must
 * leave the window as it is: an mremap() of the pages to a new address
 * (the window knows pages by address: every moved page misses there) or
 * an mprotect() that gives them a new protection (on x86_64 it must not
 * make re-armed pages accessible). The faults between the two runs are
 * admissions taken from the trace, as before the first.
 */
#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/rseq.h>
#include <sys/syscall.h>
#include "ktap.h"
#include "util.h"
#include "pgf.h"

#define PAGE		4096UL
#define NP		1280	/* pages in the region */

/*
 * wloop(base, steps, seed, n, random): for each of @steps steps, one byte
 * stored to page idx of @base; idx goes 0, 1, ... n - 1, 0, ..., or, if
 * @random, is bits 16 and up of an LCG (seed = seed * 1103515245 + 12345)
 * masked with n - 1 (n a power of two). Registers only: no stack, no data.
 */
void wloop(char *base, unsigned long steps, unsigned int seed,
	   unsigned int n, unsigned long random);
extern char wloop_end[];
#if defined(__x86_64__)
asm(".text\n"
    ".balign 4096\n"
    ".globl wloop\n"
    ".type wloop, @function\n"
    "wloop:\n"
    "	xor %eax, %eax\n"
    "	xor %r10d, %r10d\n"
    "	lea -1(%rcx), %r11d\n"
    "1:	cmp %rsi, %rax\n"
    "	jae 3f\n"
    "	test %r8, %r8\n"
    "	jz 2f\n"
    "	imul $1103515245, %edx, %edx\n"
    "	add $12345, %edx\n"
    "	mov %edx, %r9d\n"
    "	shr $16, %r9d\n"
    "	and %r11d, %r9d\n"
    "	jmp 4f\n"
    "2:	mov %r10d, %r9d\n"
    "	inc %r10d\n"
    "	cmp %ecx, %r10d\n"
    "	jb 4f\n"
    "	xor %r10d, %r10d\n"
    "4:	shl $12, %r9\n"
    "	mov %al, (%rdi,%r9)\n"
    "	inc %rax\n"
    "	jmp 1b\n"
    "3:	ret\n"
    ".globl wloop_end\n"
    "wloop_end:\n"
    ".balign 4096, 0xcc\n");
#elif defined(__aarch64__)
asm(".text\n"
    ".balign 4096\n"
    ".globl wloop\n"
    ".type wloop, %function\n"
    "wloop:\n"
    "	mov x5, #0\n"			/* the step */
    "	mov w6, #0\n"			/* idx, in order */
    "	sub w7, w3, #1\n"		/* n - 1 */
    "	movz w10, #0x4e6d\n"		/* 1103515245 */
    "	movk w10, #0x41c6, lsl #16\n"
    "	mov w11, #12345\n"
    "1:	cmp x5, x1\n"
    "	b.hs 3f\n"
    "	cbz x4, 2f\n"
    "	madd w2, w2, w10, w11\n"
    "	lsr w9, w2, #16\n"
    "	and w9, w9, w7\n"
    "	b 4f\n"
    "2:	mov w9, w6\n"
    "	add w6, w6, #1\n"
    "	cmp w6, w3\n"
    "	b.lo 4f\n"
    "	mov w6, #0\n"
    "4:	lsl x9, x9, #12\n"
    "	strb w5, [x0, x9]\n"
    "	add x5, x5, #1\n"
    "	b 1b\n"
    "3:	ret\n"
    ".globl wloop_end\n"
    "wloop_end:\n"
    ".balign 4096, 0\n");
#else
#error "wloop: x86_64 or arm64"
#endif

static char *area, *area2;	/* the region, and where BETWEEN_MOVE moves it */

enum between { BETWEEN_NONE, BETWEEN_MOVE, BETWEEN_PROTECT, BETWEEN_PARK };

static struct {
	unsigned long steps;
	unsigned int seed, n, random;
	unsigned int syscall_pages;	/* read() this many pages first */
	enum between between;		/* a second run after this */
} cfg;

/*
 * BETWEEN_PARK: PARKED threads each write() two pages of a buffer of its
 * own, never touched, into a pipe of one page that nobody reads: the
 * copy of the first page faults in the kernel (an admission, and an
 * eviction whose re-arm is queued on that thread), then the thread
 * sleeps in pipe_write() with the re-arm queued, until the second run is
 * over and the pipes are read.
 */
#define PARKED		4

static struct {
	int pipe[PARKED][2];
	char *buf[PARKED];
	volatile pid_t tid[PARKED];
	pthread_t th[PARKED];
} park;

static void *parked_writer(void *arg)
{
	long i = (long)arg;

	/* Its tid, once all that is left is the write(). */
	park.tid[i] = gettid();
	if (write(park.pipe[i][1], park.buf[i], 2 * PAGE) != 2 * PAGE)
		_exit(7);
	return NULL;
}

/*
 * Is thread @tid of this process asleep (interruptibly: its only sleep
 * from then on is the write()'s wait for room in the pipe)?
 */
static bool asleep(pid_t tid)
{
	char path[64], buf[512] = "", *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	p = n > 0 ? strrchr(buf, ')') : NULL;
	return p && p[1] == ' ' && p[2] == 'S';
}

static void park_writers(void)
{
	for (long i = 0; i < PARKED; i++) {
		park.buf[i] = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (park.buf[i] == MAP_FAILED || pipe(park.pipe[i]) ||
		    fcntl(park.pipe[i][1], F_SETPIPE_SZ, PAGE) < 0 ||
		    pthread_create(&park.th[i], NULL, parked_writer, (void *)i))
			_exit(6);
	}
	/* Asleep, each with its re-arm queued: 10 s at most. */
	for (int i = 0, tries = 0; i < PARKED; tries++) {
		if (tries > 10000)
			_exit(6);
		if (park.tid[i] && asleep(park.tid[i]))
			i++;
		else
			usleep(1000);
	}
}

static void unpark_writers(void)
{
	static char sink[2 * PAGE];

	for (int i = 0; i < PARKED; i++) {
		if (read(park.pipe[i][0], sink, PAGE) != PAGE ||
		    read(park.pipe[i][0], sink, PAGE) != PAGE ||
		    pthread_join(park.th[i], NULL))
			_exit(8);
	}
}

/*
 * 1: map the guarded regions (map_guarded()), send their addresses;
 * 2: read() cfg.syscall_pages pages of /dev/zero into it (kernel-mode
 * faults), if any, then run the loop; then, for cfg.between, move the
 * n pages to area2, make them executable too, or park writers, and run
 * the loop again (on area2 if moved).
 */
static void window_steps(int step, int out)
{
	char *where[2];
	int fd;

	switch (step) {
	case 1:
		area = map_guarded(NP);
		area2 = map_guarded(NP);
		if (!area || !area2)
			_exit(2);
		where[0] = area;
		where[1] = area2;
		if (write(out, where, sizeof(where)) != sizeof(where))
			_exit(2);
		break;
	case 2:
		if (__rseq_size) {
			char *tp;

#ifdef __x86_64__
			asm("mov %%fs:0, %0" : "=r"(tp));
#else
			asm("mrs %0, tpidr_el0" : "=r"(tp));
#endif
			/* Registered whole, whatever __rseq_size says. */
			if (syscall(SYS_rseq, tp + __rseq_offset,
				    sizeof(struct rseq), RSEQ_FLAG_UNREGISTER,
				    RSEQ_SIG))
				_exit(4);
		}
		if (cfg.syscall_pages) {
			fd = open("/dev/zero", O_RDONLY);
			if (fd < 0 || read(fd, area, cfg.syscall_pages * PAGE) !=
				      (ssize_t)(cfg.syscall_pages * PAGE))
				_exit(3);
			close(fd);
		}
		wloop(area, cfg.steps, cfg.seed, cfg.n, cfg.random);
		if (cfg.between == BETWEEN_MOVE) {
			if (mremap(area, cfg.n * PAGE, cfg.n * PAGE,
				   MREMAP_MAYMOVE | MREMAP_FIXED, area2) != area2)
				_exit(5);
			wloop(area2, cfg.steps, cfg.seed, cfg.n, cfg.random);
		} else if (cfg.between == BETWEEN_PROTECT) {
			if (mprotect(area, cfg.n * PAGE,
				     PROT_READ | PROT_WRITE | PROT_EXEC))
				_exit(5);
			wloop(area, cfg.steps, cfg.seed, cfg.n, cfg.random);
		} else if (cfg.between == BETWEEN_PARK) {
			park_writers();
			wloop(area, cfg.steps, cfg.seed, cfg.n, cfg.random);
			unpark_writers();
		}
		break;
	}
}

/* ---- the model: a FIFO of page addresses --------------------------------- */

struct fifo {
	unsigned long q[4096];
	unsigned int k, head, n;	/* oldest at q[head] */
};

static bool fifo_has(const struct fifo *f, unsigned long pg)
{
	for (unsigned int i = 0; i < f->n; i++)
		if (f->q[(f->head + i) % f->k] == pg)
			return true;
	return false;
}

/* A miss: @pg enters, the oldest leaves if the window is full. */
static void fifo_admit(struct fifo *f, unsigned long pg)
{
	if (fifo_has(f, pg))
		return;		/* a fault that admits nothing, as the kernel */
	if (f->n == f->k) {
		f->head = (f->head + 1) % f->k;
		f->n--;
	}
	f->q[(f->head + f->n) % f->k] = pg;
	f->n++;
}

/*
 * Run one instruction whose references are @refs (page addresses): on a
 * miss, a fault (appended to @out), then the instruction again from the
 * start. Returns the faults added, or -1 if it never completes.
 */
static int run_instr(struct fifo *f, const unsigned long *refs, int nr,
		     unsigned long *out, size_t *nout, size_t max)
{
	int faults = 0;

again:
	for (int i = 0; i < nr; i++) {
		if (fifo_has(f, refs[i]))
			continue;
		if (++faults > 64)
			return -1;
		if (*nout < max)
			out[*nout] = refs[i];
		(*nout)++;
		fifo_admit(f, refs[i]);
		goto again;
	}
	return faults;
}

static bool is_loop_ip(const struct pgf_rec *r)
{
	return r->ip >= (unsigned long)wloop &&
	       r->ip < (unsigned long)wloop_end;
}

static bool in_region(const char *base, unsigned long addr)
{
	return addr >= (unsigned long)base &&
	       addr < (unsigned long)base + NP * PAGE;
}

static bool in_area(unsigned long addr)
{
	return in_region(area, addr) || in_region(area2, addr);
}

static bool counted(const struct pgf_rec *r)
{
	return !strcmp(r->type, "fault") &&
	       (!strcmp(r->result, "minor") || !strcmp(r->result, "major") ||
		!strcmp(r->result, "reref"));
}

/* How a page prints in a diagnostic: its number in the region, or C. */
static void page_name(unsigned long pg, char *s, size_t n)
{
	if (pg == (unsigned long)wloop)
		snprintf(s, n, "C");
	else if (in_region(area, pg))
		snprintf(s, n, "P%lu", (pg - (unsigned long)area) / PAGE);
	else if (in_region(area2, pg))
		snprintf(s, n, "Q%lu", (pg - (unsigned long)area2) / PAGE);
	else
		snprintf(s, n, "%lx", pg);
}

/*
 * Admit to @f the faults of @t from record @from on, as the trace has
 * them, up to the first fault of a run of the loop over @base (its code
 * page or the region); its index goes to @stop. Returns the "rearm ...
 * window" records met (each empties the window).
 */
static int admit_traced(struct fifo *f, const struct pgf_trace *t,
			size_t from, const char *base, size_t *stop)
{
	int windows = 0;
	size_t i;

	for (i = from; i < t->nr; i++) {
		const struct pgf_rec *r = &t->rec[i];
		unsigned long pg = r->addr & ~(PAGE - 1);

		if (!strcmp(r->type, "rearm")) {
			EXPECT_EQ(strcmp(r->text, "window"), 0);
			windows++;
			f->n = 0;	/* emptied: every page re-armed */
			continue;
		}
		if (!counted(r))
			continue;
		if (is_loop_ip(r) && (pg == (unsigned long)wloop ||
				      in_region(base, pg)))
			break;
		fifo_admit(f, pg);
	}
	*stop = i;
	return windows;
}

/*
 * One run of the loop over @base, simulated: the instructions before the
 * store, then @steps stores; its faults are appended to @want.
 */
static int simulate_run(struct fifo *f, const char *base, unsigned long *want,
			size_t *nwant, size_t max)
{
	unsigned long refs[2] = { (unsigned long)wloop, 0 };
	unsigned int x = cfg.seed, sq = 0;

	if (run_instr(f, refs, 1, want, nwant, max) < 0)
		return -1;
	for (unsigned long s = 0; s < cfg.steps; s++) {
		unsigned int idx;

		if (cfg.random) {
			x = x * 1103515245u + 12345u;
			idx = (x >> 16) & (cfg.n - 1);
		} else {
			idx = sq;
			if (++sq == cfg.n)
				sq = 0;
		}
		refs[1] = (unsigned long)base + idx * PAGE;
		if (run_instr(f, refs, 2, want, nwant, max) < 0)
			return -1;
	}
	return 0;
}

/*
 * Trace the loop under "1 window=@k" and compare its faults with the
 * simulation's; @between: run it again after that system call. Returns
 * the "rearm ... window" records seen.
 */
static int check_window_runs(unsigned int k, unsigned long steps,
			     unsigned int n, unsigned int random,
			     unsigned int syscall_pages, enum between between)
{
	static unsigned long want[1 << 16], got[1 << 16], at[1 << 16];
	size_t nwant = 0, nwant1, ngot = 0, i, first = 0, second;
	unsigned long code = (unsigned long)wloop;
	static struct fifo f, f0;
	int before, fd, windows = 0, foreign = 0;
	char *where[2], *base2;
	struct pgf_trace t;
	struct puppet p;
	char start[32];

	cfg.steps = steps;
	cfg.seed = 4242;
	cfg.n = n;
	cfg.random = random;
	cfg.syscall_pages = syscall_pages;
	cfg.between = between;
	ASSERT_SYS(puppet_spawn(&p, window_steps));
	ASSERT_EQ(puppet_step_recv(&p, 1, where, sizeof(where)), 0);
	area = where[0];
	area2 = where[1];
	base2 = between == BETWEEN_MOVE ? area2 : area;
	{
		struct pgf_stat st;

		ASSERT_EQ(pgf_read_stat(p.pid, &st), 0);
		before = st.minflt + st.majflt;
	}
	snprintf(start, sizeof(start), "1 window=%u", k);
	ASSERT_EQ(pgf_ctl(p.pid, start, strlen(start)), 0);
	fd = ASSERT_SYS(pgf_open(p.pid, 0));
	ASSERT_EQ(puppet_step(&p, 2), 0);
	{
		struct pgf_stat st;

		ASSERT_EQ(pgf_read_stat(p.pid, &st), 0);
		ASSERT_EQ(pgf_stop(p.pid), 0);
		puppet_end(&p);
		ASSERT_EQ(pgf_read_all(fd, &t), 0);
		close(fd);
		/* Every fault is in the trace: /proc/<pid>/stat agrees. */
		EXPECT_EQ(pgf_lost_faults(&t), 0);
		EXPECT_EQ((long)pgf_ok_faults(&t),
			  (long)(st.minflt + st.majflt) - before);
	}
	ASSERT_GT(t.nr, 0);
	EXPECT_EQ(strcmp(t.rec[0].type, "start"), 0);
	EXPECT_EQ(strcmp(t.rec[0].text, start + 2), 0);

	/* Before the loop: the trace's own faults fill the window. */
	memset(&f, 0, sizeof(f));
	f.k = k;
	windows += admit_traced(&f, &t, 0, area, &first);
	f0 = f;
	EXPECT_GE(windows, 1);

	/* The loop, simulated. */
	ASSERT_EQ(simulate_run(&f, area, want, &nwant, 1 << 16), 0);
	nwant1 = nwant;
	/* The loop, traced: its faults on its code page and on the region. */
	for (i = first; i < t.nr; i++) {
		const struct pgf_rec *r = &t.rec[i];
		unsigned long pg = r->addr & ~(PAGE - 1);

		if (!strcmp(r->type, "rearm"))
			ktap_diag("a window re-arm inside the loop at %llu", r->time);
		if (!counted(r) || !is_loop_ip(r))
			continue;
		if (pg != code && !in_area(pg)) {
			/* The return address, on the stack; anything else: */
			if (r->ip != (unsigned long)wloop_end - 1) {
				ktap_diag("a fault on %lx in the loop, which touches no such page (%s %c)",
					  pg, r->kernel ? "kernel" : "user", r->access);
				foreign++;
			}
			continue;
		}
		if (in_area(pg))
			EXPECT_EQ(r->access, 'w');
		if (ngot < (1 << 16)) {
			got[ngot] = pg;
			at[ngot] = i;
		}
		ngot++;
	}
	if (between != BETWEEN_NONE) {
		/*
		 * The second run, from the window the first left and the
		 * faults the trace has between the two (the system call's
		 * own, the code around it, the first run's return).
		 */
		ASSERT_GE(ngot, nwant1);
		ASSERT_GT(nwant1, 0);
		ASSERT_LT(nwant1, (size_t)1 << 16);
		windows += admit_traced(&f, &t, at[nwant1 - 1] + 1, base2,
					&second);
		ASSERT_LT(second, t.nr);
		ASSERT_EQ(simulate_run(&f, base2, want, &nwant, 1 << 16), 0);
		ktap_diag("first run: %zu faults; second run, after %s: %zu",
			  nwant1, between == BETWEEN_MOVE ? "mremap()" :
			  between == BETWEEN_PARK ? "threads parked" :
			  "mprotect()", nwant - nwant1);
	}
	ktap_diag("K=%u, %s over %u pages, %lu steps: %zu faults simulated, %zu traced",
		  k, random ? "random" : "sequential", n, steps, nwant, ngot);
	EXPECT_EQ(foreign, 0);
	EXPECT_EQ(ngot, nwant);
	for (i = 0; i < nwant && i < ngot; i++) {
		if (want[i] != got[i]) {
			char a[32], b[32];

			page_name(want[i], a, sizeof(a));
			page_name(got[i], b, sizeof(b));
			ktap_diag("fault %zu of the loop: simulated %s, traced %s",
				  i, a, b);
			/* The faults around it, and the window it started from. */
			for (size_t j = i > 4 ? i - 4 : 0; j < i + 4 && j < ngot &&
			     j < nwant; j++) {
				page_name(want[j], a, sizeof(a));
				page_name(got[j], b, sizeof(b));
				ktap_diag("  %zu: simulated %s, traced %s", j, a, b);
			}
			for (size_t j = at[i > 2 ? i - 2 : 0]; j <= at[i + 1 < ngot ? i + 1 : i]; j++)
				ktap_diag("  trace: %s %llu %lx %c %s ip %lx", t.rec[j].type,
					  t.rec[j].time, t.rec[j].addr, t.rec[j].access,
					  t.rec[j].result, t.rec[j].ip);
			for (size_t j = 0; j < first; j++)
				ktap_diag("  before: %s %llu %lx %c %s %s ip %lx", t.rec[j].type,
					  t.rec[j].time, t.rec[j].addr, t.rec[j].access,
					  t.rec[j].kernel ? "kernel" : "user",
					  t.rec[j].result, t.rec[j].ip);
			for (size_t j = 0; j < f0.n; j++) {
				page_name(f0.q[(f0.head + j) % f0.k], a, sizeof(a));
				ktap_diag("  window at the loop's start, %zu: %s", j, a);
			}
			break;
		}
	}
	EXPECT_EQ(i, nwant);
	pgf_trace_free(&t);
	return windows;
}

static int check_window(unsigned int k, unsigned long steps, unsigned int n,
			unsigned int random, unsigned int syscall_pages)
{
	return check_window_runs(k, steps, n, random, syscall_pages,
				 BETWEEN_NONE);
}

TEST(sequential_loop_larger_than_the_window_misses_every_time)
{
	/* 48 pages through 16: every store misses, and so does C by turns. */
	check_window(16, 3 * 48, 48, 0, 0);
}

TEST(random_references_miss_as_in_a_fifo_of_k_pages)
{
	check_window(40, 3000, 64, 1, 0);
}

TEST(a_loop_that_fits_in_the_window_faults_once_per_page)
{
	check_window(64, 4 * 48, 48, 0, 0);
}

TEST(a_system_call_evicts_when_it_returns)
{
	/*
	 * read() faults 40 pages in from the kernel: all admitted, 24 of them
	 * evicted as it returns. The loop then walks the same pages.
	 */
	check_window(16, 2 * 40, 40, 0, 40);
}

TEST(evictions_that_overrun_empty_the_window)
{
	/*
	 * 1,200 pages in one read(): more evictions wait than the window
	 * keeps room for (1,024), so it is emptied once more as the call
	 * returns, and the loop starts from an empty window.
	 */
	EXPECT_GE(check_window(16, 2 * 40, 40, 0, 1200), 2);
}

TEST(pages_moved_by_mremap_miss_at_their_new_address)
{
	/*
	 * The 16 pages the window holds are moved with the others: each
	 * must fault at its new address, as a window of addresses says.
	 */
	check_window_runs(16, 2 * 48, 48, 0, 0, BETWEEN_MOVE);
	check_window_runs(40, 1500, 64, 1, 0, BETWEEN_MOVE);
}

TEST(mprotect_keeps_evicted_pages_armed)
{
	/*
	 * Adding PROT_EXEC gives every present PTE a new protection; the
	 * 32 pages out of the window must still miss (on x86_64 a
	 * PROT_NONE PTE would otherwise become accessible).
	 */
	check_window_runs(16, 2 * 48, 48, 0, 0, BETWEEN_PROTECT);
	check_window_runs(40, 1500, 64, 1, 0, BETWEEN_PROTECT);
}

TEST(threads_asleep_in_a_system_call_hold_no_re_arm)
{
	/*
	 * Four threads asleep in write(), each with an eviction's re-arm
	 * queued, hold every task work slot of the window. The loop's own
	 * evictions must still be re-armed before it goes on: a slot is
	 * taken back from a sleeping thread.
	 */
	check_window_runs(16, 2 * 48, 48, 0, 0, BETWEEN_PARK);
}

TEST(window_sizes_out_of_range_are_refused)
{
	struct puppet p;
	static const char * const bad[] = {
		"1 window=15", "1 window=0", "1 window=1048577", "1 window=",
		"1 window=x", "1 window=16 interval=10", "1 interval=10 window=16",
		"1 window=16 window=16", "1 windows=16",
	};

	ASSERT_SYS(puppet_spawn(&p, window_steps));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int err = pgf_ctl(p.pid, bad[i], strlen(bad[i]));

		if (err != -EINVAL)
			ktap_diag("\"%s\": %d", bad[i], err);
		EXPECT_EQ(err, -EINVAL);
	}
	EXPECT_EQ(pgf_ctl(p.pid, "1 window=16", 11), 0);
	/* The same again: nothing; another size or mode: EBUSY. */
	EXPECT_EQ(pgf_ctl(p.pid, "1 window=16", 11), 0);
	EXPECT_EQ(pgf_ctl(p.pid, "1 window=17", 11), -EBUSY);
	EXPECT_EQ(pgf_start(p.pid), -EBUSY);
	EXPECT_EQ(pgf_ctl(p.pid, "1 interval=10", 13), -EBUSY);
	/* "rearm" empties the window; a stop and a start in another mode. */
	EXPECT_EQ(pgf_rearm(p.pid), 0);
	EXPECT_EQ(pgf_stop(p.pid), 0);
	EXPECT_EQ(pgf_ctl(p.pid, "1 window=1048576", 16), 0);
	EXPECT_EQ(pgf_stop(p.pid), 0);
	EXPECT_EQ(pgf_start(p.pid), 0);
	puppet_end(&p);
}

KTAP_MAIN()
