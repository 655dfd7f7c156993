// SPDX-License-Identifier: GPL-2.0
/*
 * fpstate - a thread's floating-point and vector registers are its own:
 * x87, SSE, AVX and (where the CPU has them) AVX-512 registers keep the
 * values a thread put there across sched_yield() among threads that hold
 * others, a signal handler that clobbers them, fork(), and a ptrace stop;
 * the signal frame holds them as x86 lays it out (magic numbers, sizes),
 * sigreturn restores what the frame holds, and PTRACE_GETFPREGS and
 * PTRACE_SETFPREGS see and change the tracee's registers.
 *
 * Not about pgfault_history: UML keeps each guest thread's registers in a
 * buffer it moves to and from the host with ptrace, sized from the host at
 * boot (kernel-patches/0018), and the suites are only as good as the guest
 * they run in.
 *
 * How: a pattern of random bytes, made valid (exceptions masked, no x87
 * exception pending), is loaded with XRSTOR (FXRSTOR without XSAVE), one
 * raw system call runs (or a loop of them), and XSAVE stores what is there
 * afterwards: no compiled code runs in between, and every byte of every
 * component in use is compared, but the x87 instruction and data pointers
 * (AMD does not save them) and reserved bytes.
 */
#include <cpuid.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <ucontext.h>
#include "ktap.h"
#include "util.h"

#ifndef __x86_64__
#error "fpstate tests x86_64 registers"
#endif

#define FP_XSTATE_MAGIC1	0x46505853U
#define FP_XSTATE_MAGIC2	0x46505845U

/* XSAVE components: x87, SSE, AVX, and AVX-512's opmask, ZMM_Hi256, Hi16_ZMM */
#define XF_FP		0
#define XF_SSE		1
#define XF_YMM		2
#define XF_OPMASK	5
#define XF_ZMM_HI256	6
#define XF_HI16_ZMM	7
#define XF_MAX		8

static const char *const xf_name[XF_MAX] = {
	"x87", "SSE", "AVX", "MPX-BNDREGS", "MPX-BNDCSR",
	"AVX-512 opmask", "AVX-512 ZMM_Hi256", "AVX-512 Hi16_ZMM",
};

/* What the CPU (and the kernel under it) gives this program. */
static struct {
	int xsave;		/* XSAVE usable, else FXSAVE */
	uint64_t rfbm;		/* the components tested */
	unsigned int size;	/* bytes of the save area */
	unsigned int off[XF_MAX], len[XF_MAX];
} fpi;

static const uint32_t mxcsr_default = 0x1f80;

static void fp_probe(void)
{
	unsigned int a, b, c, d;
	uint32_t lo, hi;
	uint64_t xcr0;

	fpi.xsave = 0;
	fpi.rfbm = 1 << XF_FP | 1 << XF_SSE;
	fpi.size = 512;
	fpi.off[XF_FP] = 0;
	fpi.len[XF_FP] = 160;
	fpi.off[XF_SSE] = 160;
	fpi.len[XF_SSE] = 256;

	__cpuid(1, a, b, c, d);
	if (!(c & (1U << 27)))		/* OSXSAVE */
		return;
	asm volatile("xgetbv" : "=a" (lo), "=d" (hi) : "c" (0));
	xcr0 = (uint64_t)hi << 32 | lo;

	fpi.xsave = 1;
	for (int i = XF_YMM; i < XF_MAX; i++) {
		if (i > XF_YMM && i < XF_OPMASK)
			continue;	/* MPX: not registers a program keeps values in */
		if (!(xcr0 & (1ULL << i)))
			continue;
		__cpuid_count(0xd, i, a, b, c, d);
		fpi.rfbm |= 1ULL << i;
		fpi.len[i] = a;
		fpi.off[i] = b;
	}
	__cpuid_count(0xd, 0, a, b, c, d);
	fpi.size = b;		/* for all of XCR0 */
}

static void fp_describe(void)
{
	char s[256] = "";

	for (int i = 0; i < XF_MAX; i++)
		if (fpi.rfbm & (1ULL << i))
			snprintf(s + strlen(s), sizeof(s) - strlen(s), "%s%s",
				 *s ? ", " : "", xf_name[i]);
	ktap_diag("%s: %s; save area %u bytes", fpi.xsave ? "XSAVE" : "FXSAVE",
		  s, fpi.size);
}

static uint8_t *fp_alloc(void)
{
	uint8_t *p = aligned_alloc(64, (fpi.size + 63) & ~63U);

	if (!p) {
		perror("aligned_alloc");
		exit(1);
	}
	memset(p, 0, fpi.size);
	return p;
}

static uint64_t rnd_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/*
 * A state to load: random registers, control words that mask every
 * exception and differ by seed (rounding, precision, flush-to-zero), no x87
 * exception pending, all eight x87 registers in use.
 */
static void fp_pattern(uint8_t *p, uint64_t seed)
{
	uint64_t s = seed * 0x9e3779b97f4a7c15ULL | 1;
	uint16_t fcw = 0x037f & ~0x0300;
	uint32_t mxcsr = mxcsr_default;

	memset(p, 0, fpi.size);
	for (unsigned int i = 0; i < fpi.size; i++)
		p[i] = (uint8_t)rnd_next(&s);
	/* legacy area: FCW FSW FTW 0 FOP FIP FDP MXCSR MXCSR_MASK */
	fcw |= (seed & 3) << 10 | ((seed >> 2) & 1 ? 0x0300 : 0x0200);
	memcpy(p + 0, &fcw, 2);
	memset(p + 2, 0, 2);		/* FSW: nothing pending */
	p[4] = 0xff;			/* abridged tag: all in use */
	memset(p + 5, 0, 19);		/* reserved, FOP, FIP, FDP */
	mxcsr |= (seed & 3) << 13 | ((seed >> 3) & 1) << 15;
	memcpy(p + 24, &mxcsr, 4);
	memset(p + 28, 0, 4);		/* MXCSR_MASK: ignored by loads */
	for (int r = 0; r < 8; r++)	/* 6 reserved bytes after each ST(r) */
		memset(p + 32 + r * 16 + 10, 0, 6);
	memset(p + 416, 0, 96);		/* reserved, software-reserved */
	if (fpi.xsave) {
		memset(p + 512, 0, 64);	/* header: XSTATE_BV, XCOMP_BV 0 */
		memcpy(p + 512, &fpi.rfbm, 8);
		/* components not tested are left in their initial state */
		for (unsigned int i = 576; i < fpi.size; i++) {
			int tested = 0;

			for (int c = XF_YMM; c < XF_MAX; c++)
				if ((fpi.rfbm & (1ULL << c)) && i >= fpi.off[c] &&
				    i < fpi.off[c] + fpi.len[c])
					tested = 1;
			if (!tested)
				p[i] = 0;
		}
	}
}

/* What loading a whole FP state clobbers, as the compiler knows registers. */
#define XMM_CLOBBERS							\
	"xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",	\
	"xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15"

/* XRSTOR/FXRSTOR @in, run system call @nr @n times, XSAVE/FXSAVE to @out. */
static __attribute__((noinline)) long
fp_around_syscall(const uint8_t *in, uint8_t *out, long n, long nr,
		  long a1, long a2, long a3)
{
	register long r_a1 asm("rdi") = a1;
	register long r_a2 asm("rsi") = a2;
	uint32_t lo = (uint32_t)fpi.rfbm, hi = (uint32_t)(fpi.rfbm >> 32);
	long ret;

	int xs = fpi.xsave;

	asm volatile(
		"movl %[lo], %%eax\n\t"
		"movl %[hi], %%edx\n\t"
		"cmpl $0, %[xs]\n\t"
		"je 2f\n\t"
		"xrstor (%[in])\n\t"
		"jmp 1f\n"
		"2:\n\t"
		"fxrstor (%[in])\n"
		"1:\n\t"
		"movq %[nr], %%rax\n\t"
		"movq %[a3], %%rdx\n\t"
		"syscall\n\t"
		"decq %[n]\n\t"
		"jnz 1b\n\t"
		"movq %%rax, %[ret]\n\t"
		"movl %[lo], %%eax\n\t"
		"movl %[hi], %%edx\n\t"
		"cmpl $0, %[xs]\n\t"
		"je 3f\n\t"
		"xsave (%[out])\n\t"
		"jmp 4f\n"
		"3:\n\t"
		"fxsave (%[out])\n"
		"4:\n\t"
		"fninit\n\t"
		"ldmxcsr %[mx]\n\t"
		: [n] "+r" (n), [ret] "=m" (ret)
		: [in] "r" (in), [out] "r" (out), [lo] "m" (lo),
		  [hi] "m" (hi), [nr] "m" (nr), [a3] "m" (a3), [xs] "m" (xs),
		  [mx] "m" (mxcsr_default), "r" (r_a1), "r" (r_a2)
		: "rax", "rcx", "rdx", "r11", "memory", "cc", XMM_CLOBBERS);
	return ret;
}

/* Load @in and return: what a signal handler does to clobber registers. */
static __attribute__((noinline)) void fp_load(const uint8_t *in)
{
	uint32_t lo = (uint32_t)fpi.rfbm, hi = (uint32_t)(fpi.rfbm >> 32);

	if (fpi.xsave)
		asm volatile("xrstor (%[in])"
			     : : [in] "r" (in), "a" (lo), "d" (hi)
			     : "memory", XMM_CLOBBERS);
	else
		asm volatile("fxrstor (%[in])"
			     : : [in] "r" (in)
			     : "memory", XMM_CLOBBERS);
}

/*
 * The first difference between two save areas in what was loaded, as
 * "component byte N: got .. expected ..", or "" when they agree; @legacy:
 * the FXSAVE area alone (x87, MXCSR, XMM).
 */
static const char *fp_diff_(const uint8_t *got, const uint8_t *want, int legacy_only)
{
	static __thread char why[160];
	static const struct { unsigned int off, len; const char *what; } legacy[] = {
		{ 0, 2, "FCW" }, { 2, 2, "FSW" }, { 4, 1, "FTW" },
		{ 24, 4, "MXCSR" },
		{ 32, 10, "ST0" }, { 48, 10, "ST1" }, { 64, 10, "ST2" },
		{ 80, 10, "ST3" }, { 96, 10, "ST4" }, { 112, 10, "ST5" },
		{ 128, 10, "ST6" }, { 144, 10, "ST7" },
		{ 160, 256, "XMM0-15" },
	};

	for (unsigned int k = 0; k < sizeof(legacy) / sizeof(legacy[0]); k++)
		for (unsigned int i = legacy[k].off;
		     i < legacy[k].off + legacy[k].len; i++)
			if (got[i] != want[i]) {
				snprintf(why, sizeof(why),
					 "%s byte %u: got %#x, expected %#x",
					 legacy[k].what, i - legacy[k].off,
					 got[i], want[i]);
				return why;
			}
	if (fpi.xsave && !legacy_only) {
		uint64_t bv;

		memcpy(&bv, got + 512, 8);
		for (int c = XF_YMM; c < XF_MAX; c++) {
			if (!(fpi.rfbm & (1ULL << c)))
				continue;
			if (!(bv & (1ULL << c))) {
				snprintf(why, sizeof(why),
					 "%s: in its initial state (XSTATE_BV %#llx)",
					 xf_name[c], (unsigned long long)bv);
				return why;
			}
			for (unsigned int i = 0; i < fpi.len[c]; i++)
				if (got[fpi.off[c] + i] != want[fpi.off[c] + i]) {
					snprintf(why, sizeof(why),
						 "%s byte %u: got %#x, expected %#x",
						 xf_name[c], i,
						 got[fpi.off[c] + i],
						 want[fpi.off[c] + i]);
					return why;
				}
		}
	}
	return "";
}

#define fp_diff(got, want) fp_diff_(got, want, 0)

#define EXPECT_FP_EQ_(legacy, got, want, fmt, ...)			\
	do {								\
		const char *why_ = fp_diff_(got, want, legacy);		\
		if (*why_)						\
			KTAP_FAIL_(0, fmt ": %s", ##__VA_ARGS__, why_);	\
	} while (0)
#define EXPECT_FP_EQ(got, want, fmt, ...) EXPECT_FP_EQ_(0, got, want, fmt, ##__VA_ARGS__)

static int cpu_flag(const char *flag)
{
	char line[4096], *tok, *save;
	FILE *f = fopen("/proc/cpuinfo", "r");
	int found = 0;

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "flags", 5))
			continue;
		for (tok = strtok_r(strchr(line, ':'), " :\n", &save); tok;
		     tok = strtok_r(NULL, " \n", &save))
			if (!strcmp(tok, flag))
				found = 1;
		break;
	}
	fclose(f);
	return found;
}

/* What is tested here is what the CPU has: AVX and AVX-512 where listed. */
TEST(registers_tested_are_those_of_the_cpu)
{
	fp_probe();
	fp_describe();
	ASSERT_TRUE(fpi.rfbm & (1 << XF_SSE));
	if (cpu_flag("avx"))
		EXPECT_TRUE(fpi.rfbm & (1 << XF_YMM));
	if (cpu_flag("avx512f")) {
		EXPECT_TRUE(fpi.rfbm & (1 << XF_OPMASK));
		EXPECT_TRUE(fpi.rfbm & (1 << XF_ZMM_HI256));
		EXPECT_TRUE(fpi.rfbm & (1 << XF_HI16_ZMM));
	}
}

/* ---- context switches ----------------------------------------------------- */

#define THREADS	4
#define YIELDS	200

struct yielder {
	pthread_barrier_t *start;
	uint64_t seed;
	char why[160];
};

static void *yielder(void *arg)
{
	struct yielder *y = arg;
	uint8_t *in = fp_alloc(), *out = fp_alloc();

	fp_pattern(in, y->seed);
	pthread_barrier_wait(y->start);
	fp_around_syscall(in, out, YIELDS, SYS_sched_yield, 0, 0, 0);
	snprintf(y->why, sizeof(y->why), "%s", fp_diff(out, in));
	free(in);
	free(out);
	return NULL;
}

/*
 * Threads of one process, each with its own values, yield to one another
 * YIELDS times: on UML they share one host process, so the guest kernel
 * alone keeps their registers apart.
 */
TEST(threads_keep_their_registers_across_sched_yield)
{
	struct yielder y[THREADS];
	pthread_t t[THREADS];
	pthread_barrier_t start;

	fp_probe();
	ASSERT_EQ(pthread_barrier_init(&start, NULL, THREADS), 0);
	for (int i = 0; i < THREADS; i++) {
		y[i].start = &start;
		y[i].seed = 1000 + i;
		ASSERT_EQ(pthread_create(&t[i], NULL, yielder, &y[i]), 0);
	}
	for (int i = 0; i < THREADS; i++) {
		ASSERT_EQ(pthread_join(t[i], NULL), 0);
		if (*y[i].why)
			KTAP_FAIL_(0, "thread %d: %s", i, y[i].why);
	}
}

/* Processes too: each has its own host process on UML. */
TEST(processes_keep_their_registers_across_sched_yield)
{
	pid_t pid[THREADS];
	int status;

	fp_probe();
	for (int i = 0; i < THREADS; i++) {
		pid[i] = ASSERT_SYS(fork());
		if (!pid[i]) {
			uint8_t *in = fp_alloc(), *out = fp_alloc();
			const char *why;

			fp_pattern(in, 2000 + i);
			fp_around_syscall(in, out, YIELDS, SYS_sched_yield, 0, 0, 0);
			why = fp_diff(out, in);
			if (*why)
				ktap_diag("process %d: %s", i, why);
			_exit(*why ? 1 : 0);
		}
	}
	for (int i = 0; i < THREADS; i++) {
		ASSERT_EQ(waitpid(pid[i], &status, 0), pid[i]);
		EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
}

/* ---- signals -------------------------------------------------------------- */

static uint8_t *sig_clobber, *sig_expect;
static volatile int sig_handled;
static char sig_why[256];

static void clobbering_handler(int sig)
{
	(void)sig;
	sig_handled++;
	fp_load(sig_clobber);
}

static void raise_between(uint8_t *in, uint8_t *out)
{
	fp_around_syscall(in, out, 1, SYS_tgkill, getpid(), gettid(), SIGUSR1);
}

/*
 * A handler that loads other values into every register: sigreturn gives
 * the interrupted code its own back.
 */
TEST(signal_handler_clobbers_are_undone)
{
	uint8_t *in, *out;

	fp_probe();
	in = fp_alloc();
	out = fp_alloc();
	sig_clobber = fp_alloc();
	fp_pattern(in, 3000);
	fp_pattern(sig_clobber, 3001);
	ASSERT_SYS(signal(SIGUSR1, clobbering_handler) == SIG_ERR ? -1 : 0);
	for (int round = 0; round < 20; round++) {
		sig_handled = 0;
		raise_between(in, out);
		ASSERT_EQ(sig_handled, 1);
		EXPECT_FP_EQ(out, in, "round %d", round);
	}
}

/*
 * The handler reads the frame as x86 lays it out: fpregs points to an
 * FXSAVE area; with XSAVE, FP_XSTATE_MAGIC1 and the layout in its
 * software-reserved bytes, the XSAVE area itself, FP_XSTATE_MAGIC2 after
 * it. It holds the interrupted registers; what the handler writes there is
 * what sigreturn restores.
 */
static void frame_handler(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;
	uint8_t *fp = (uint8_t *)uc->uc_mcontext.fpregs;
	const char *why;

	(void)sig;
	(void)si;
	sig_handled++;
	if (!fp) {
		snprintf(sig_why, sizeof(sig_why), "no FP state in the frame");
		return;
	}
	if (fpi.xsave) {
		uint32_t magic1, ext, xsize, magic2;
		uint64_t xfeatures, bv;

		memcpy(&magic1, fp + 464, 4);
		memcpy(&ext, fp + 468, 4);
		memcpy(&xfeatures, fp + 472, 8);
		memcpy(&xsize, fp + 480, 4);
		if (magic1 != FP_XSTATE_MAGIC1) {
			snprintf(sig_why, sizeof(sig_why),
				 "magic1 %#x, expected %#x", magic1,
				 FP_XSTATE_MAGIC1);
			return;
		}
		if (ext != xsize + 4 || (xfeatures & fpi.rfbm) != fpi.rfbm) {
			snprintf(sig_why, sizeof(sig_why),
				 "extended_size %u, xstate_size %u, xfeatures %#llx (tested %#llx)",
				 ext, xsize, (unsigned long long)xfeatures,
				 (unsigned long long)fpi.rfbm);
			return;
		}
		for (int c = XF_YMM; c < XF_MAX; c++)
			if ((fpi.rfbm & (1ULL << c)) &&
			    fpi.off[c] + fpi.len[c] > xsize) {
				snprintf(sig_why, sizeof(sig_why),
					 "xstate_size %u leaves out %s (to %u)",
					 xsize, xf_name[c], fpi.off[c] + fpi.len[c]);
				return;
			}
		memcpy(&magic2, fp + xsize, 4);
		if (magic2 != FP_XSTATE_MAGIC2) {
			snprintf(sig_why, sizeof(sig_why),
				 "magic2 %#x at +%u, expected %#x", magic2,
				 xsize, FP_XSTATE_MAGIC2);
			return;
		}
		memcpy(&bv, fp + 512, 8);
		if ((bv & fpi.rfbm) != fpi.rfbm) {
			snprintf(sig_why, sizeof(sig_why),
				 "XSTATE_BV %#llx in the frame lacks %#llx",
				 (unsigned long long)bv,
				 (unsigned long long)(fpi.rfbm & ~bv));
			return;
		}
	}
	why = fp_diff(fp, sig_expect);
	if (*why) {
		snprintf(sig_why, sizeof(sig_why), "frame: %s", why);
		return;
	}

	/* Change XMM0 and, where there is one, the last AVX-512 register. */
	memset(fp + 160, 0x5a, 16);
	memset(sig_expect + 160, 0x5a, 16);
	if (fpi.rfbm & (1ULL << XF_HI16_ZMM)) {
		unsigned int last = fpi.off[XF_HI16_ZMM] + fpi.len[XF_HI16_ZMM] - 64;

		memset(fp + last, 0xa5, 64);
		memset(sig_expect + last, 0xa5, 64);
	}
	fp_load(sig_clobber);
}

/* Raise a signal for frame_handler() (@flags: more SA_ flags) around @seed's values. */
static void frame_round(uint64_t seed, int flags)
{
	struct sigaction sa = { .sa_sigaction = frame_handler,
				.sa_flags = SA_SIGINFO | flags };
	uint8_t *in = fp_alloc(), *out = fp_alloc();

	sig_expect = fp_alloc();
	sig_clobber = fp_alloc();
	fp_pattern(in, seed);
	fp_pattern(sig_clobber, seed + 1);
	memcpy(sig_expect, in, fpi.size);
	ASSERT_SYS(sigaction(SIGUSR1, &sa, NULL));
	sig_handled = 0;
	raise_between(in, out);
	ASSERT_EQ(sig_handled, 1);
	if (*sig_why)
		KTAP_FAIL_(1, "%s", sig_why);
	EXPECT_FP_EQ(out, sig_expect, "after sigreturn");
}

TEST(signal_frame_holds_the_registers_and_sigreturn_restores_it)
{
	fp_probe();
	frame_round(4000, 0);
}

/* A signal on an alternate stack: the frame fits in MINSIGSTKSZ + its FP state. */
TEST(signal_on_an_alternate_stack)
{
	stack_t ss = { .ss_size = 0 };

	fp_probe();
	ss.ss_size = 2048 + fpi.size + 1024;
	ss.ss_sp = malloc(ss.ss_size);
	ASSERT_TRUE(ss.ss_sp != NULL);
	ASSERT_SYS(sigaltstack(&ss, NULL));
	frame_round(5000, SA_ONSTACK);
}

/* ---- fork ----------------------------------------------------------------- */

/* Both sides of a fork() come back from it with the registers of before. */
TEST(fork_keeps_the_registers_on_both_sides)
{
	uint8_t *in, *out;
	int status;
	long pid;

	fp_probe();
	in = fp_alloc();
	out = fp_alloc();
	fp_pattern(in, 6000);
	pid = fp_around_syscall(in, out, 1, SYS_fork, 0, 0, 0);
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		const char *why = fp_diff(out, in);

		if (*why)
			ktap_diag("child: %s", why);
		/* and after a few switches between the two */
		fp_around_syscall(in, out, YIELDS, SYS_sched_yield, 0, 0, 0);
		if (!*why && *(why = fp_diff(out, in)))
			ktap_diag("child, after yielding: %s", why);
		_exit(*why ? 1 : 0);
	}
	EXPECT_FP_EQ(out, in, "parent");
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* ---- ptrace --------------------------------------------------------------- */

/*
 * A tracee stops with its values loaded: PTRACE_GETFPREGS shows them (the
 * FXSAVE area: x87, MXCSR, XMM), PTRACE_SETFPREGS changes XMM0 and MXCSR,
 * and the tracee resumes with the change and nothing else changed.
 */
TEST(ptrace_sees_and_sets_the_tracees_registers)
{
	struct user_fpregs_struct regs;
	uint8_t *in, *out, *shared;
	uint32_t mxcsr;
	int status;
	pid_t pid;

	fp_probe();
	in = fp_alloc();
	out = fp_alloc();
	fp_pattern(in, 7000);
	shared = mmap(NULL, 2 * fpi.size + 4096, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(shared != MAP_FAILED);
	pid = ASSERT_SYS(fork());
	if (!pid) {
		if (ptrace(PTRACE_TRACEME, 0, 0, 0))
			_exit(2);
		fp_around_syscall(in, out, 1, SYS_kill, getpid(), SIGSTOP, 0);
		memcpy(shared, out, fpi.size);
		_exit(0);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT_TRUE(WIFSTOPPED(status) && WSTOPSIG(status) == SIGSTOP);

	ASSERT_SYS(ptrace(PTRACE_GETFPREGS, pid, 0, &regs));
	EXPECT_FP_EQ_(1, (uint8_t *)&regs, in, "PTRACE_GETFPREGS");

	/* What the tracer changes: XMM0 and the rounding mode. */
	memset(&regs.xmm_space[0], 0x3c, 16);
	mxcsr = regs.mxcsr ^ (3 << 13);
	regs.mxcsr = mxcsr;
	ASSERT_SYS(ptrace(PTRACE_SETFPREGS, pid, 0, &regs));
	memset(in + 160, 0x3c, 16);
	memcpy(in + 24, &mxcsr, 4);

	/* A reserved MXCSR bit is refused, as on x86. */
	regs.mxcsr = 0xffffffff;
	ASSERT_ERRNO(ptrace(PTRACE_SETFPREGS, pid, 0, &regs), EINVAL);

	ASSERT_SYS(ptrace(PTRACE_CONT, pid, 0, 0));
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(WEXITSTATUS(status), 0);
	EXPECT_FP_EQ(shared, in, "tracee after PTRACE_SETFPREGS");
}

KTAP_MAIN()
